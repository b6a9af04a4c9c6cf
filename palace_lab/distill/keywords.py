"""``keywords``: the card's fifth field, the exchange's surviving vocabulary as a term list.

The paper's core keeps an exchange's own words in one or two sentences; a short sentence has
no room for the other distinctive terms a person later searches by (the agent's fix, the flag
it set, the error a tool printed). ``keywords`` carries them: distinct terms of the exchange,
never invented, chosen by a weighted tf·idf against the whole palace under a token budget.

A term's weight is Σ_zone w_zone · (1 + log tf_zone) × idf, over the zones where it occurs:
the person's request (w 3), the agent's final report (1), the rest of what either said (1),
tool calls (0.5) and tool output (0.2). People recall by what they asked; tool output is
long and mostly noise, but it holds the error strings and identifiers that exact queries name.
Pasted machine text (a HAR, a JSON dump, a log: :func:`.noise.is_blob_line`) weighs as tool
output wherever it was pasted, and noise terms (:func:`.noise.is_noise`) are never chosen: a bare number comes only with
the name it stands beside where someone wrote it (``Python 3.12``, ``max_connections=50``).
Terms are deduplicated by their BM25 stem (``sync``/``syncs``/``syncing`` is one term, shown
in its most frequent form) and skip what the core and the context already say.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from functools import lru_cache

from palace_lab.distill.base import CorpusStats
from palace_lab.distill.noise import is_noise, without_blobs
from palace_lab.ingest.claude_code import person_words
from palace_lab.distill.spans import word_cost
from palace_lab.distill.terms import terms
from palace_lab.text.words import STOPWORDS

ZONE_WEIGHTS = {"request": 3.0, "final": 1.0, "said": 1.0, "calls": 0.5, "results": 0.2}


@lru_cache(maxsize=1)
def _tokenizer():
    from palace_lab.text.tokenize import Tokenizer

    return Tokenizer()


@lru_cache(maxsize=200_000)
def stem(term: str) -> str:
    """The key a term is counted and deduplicated by: the BM25 index's first stem (a word's
    stem, an identifier's whole), or for a path all of its stems (``src/a.py`` and ``src/b.py``
    are two terms); the term itself if the index drops it all."""
    stems = _tokenizer()(term)
    if not stems:
        return term
    return " ".join(stems) if "/" in term else stems[0]


def stem_idf(s: str, stats: CorpusStats) -> float:
    """Smoothed idf of a stem over the palace, as :func:`.terms.idf` for terms."""
    return math.log((stats.n_docs + 1) / (stats.stem_df.get(s, 0) + 1)) + 1.0


def zones(messages: list[tuple[str, str]], request: str) -> dict[str, str]:
    """The exchange's text by zone (see the module docstring), from its rendered messages."""
    final = next((t for label, t in reversed(messages) if label == "assistant"), "")
    request = person_words(request or next((t for label, t in messages if label == "user"), ""))
    said = person_words("\n".join(t for label, t in messages if label in ("user", "assistant")))
    written = {zone: without_blobs(text) for zone, text in
               (("request", request), ("final", final), ("said", said))}
    # Pasted machine text weighs as tool output does, whoever pasted it (noise.is_blob_line).
    results = [t for label, t in messages if label.startswith("tool result")]
    results.append(written["said"][1])
    return {"request": written["request"][0], "final": written["final"][0],
            "said": written["said"][0],
            "calls": "\n".join(t for label, t in messages if label.startswith("tool call")),
            "results": "\n".join(results)}


def ranked_terms(texts: dict[str, str], stats: CorpusStats) -> list[tuple[str, float]]:
    """``(term, weight)`` best first, one per stem; ties by term."""
    score: Counter = Counter()
    forms: dict[str, Counter] = {}
    for zone, text in texts.items():
        counts = Counter(terms(text))
        for term, n in counts.items():
            s = stem(term)
            forms.setdefault(s, Counter())[term] += n
            score[s] += ZONE_WEIGHTS[zone] * (1 + math.log(n))
    out = []
    for s, weight in score.items():
        form = min(forms[s].items(), key=lambda item: (-item[1], item[0]))[0]
        out.append((form, weight * stem_idf(s, stats)))
    out.sort(key=lambda item: (-item[1], item[0]))
    return out


_NAMED = re.compile(r"([A-Za-z_][\w.\-]*[A-Za-z_])([ \t]?[=:][ \t]?|[ \t])(\d+(?:\.\d+)*[a-zA-Z%]*)(?![\w.])")


def named_numbers(text: str) -> dict[str, str]:
    """``{number: the number as written with its name}`` for the bare numbers of ``text``
    that stand beside a name (``Python 3.12``, ``max_connections=50``, ``port 8080``), not
    beside noise (a header name, a hex run); the first place each is written wins."""
    out: dict[str, str] = {}
    for m in _NAMED.finditer(text):
        number = m.group(3).lower()
        name = m.group(1)
        if (number not in out and len(name) > 1 and name.lower() not in STOPWORDS
                and not is_noise(name)):
            out[number] = m.group(0)  # as written: "Python 3.12", "max_connections=50"
    return out


def named_number(number: str, text: str) -> str | None:
    """One number of :func:`named_numbers`, or None when it stands alone or beside noise."""
    return named_numbers(text).get(number.lower())


FILE_NAMES = 3


def file_names(files: tuple[str, ...], said_already: str = "") -> list[str]:
    """The base names of the first :data:`FILE_NAMES` distinct files not already said."""
    out: list[str] = []
    for path in files:
        name = path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
        if name and name not in out and name.lower() not in said_already.lower():
            out.append(name)
    return out[:FILE_NAMES]


def choose_keywords(texts: dict[str, str], stats: CorpusStats, budget: int,
                    said_already: str = "", files: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The best terms that fit ``budget`` tokens (each costed as running text), skipping the
    stems of ``said_already`` (the core and the context). The names of the exchange's
    ``files`` (its ``files_touched``, at most :data:`FILE_NAMES`) come first: a file's name
    is what a person types to find the work on it, and it costs a few tokens where the whole
    path costs many."""
    skip = {stem(t) for t in terms(said_already)}
    # What the person and the agent wrote (tool output is not where a name meets its number).
    named = named_numbers("\n".join(texts[z] for z in ("request", "final", "said")))
    ranked = [(name, 0.0) for name in file_names(files, said_already)]
    skip |= {stem(name) for name, _ in ranked}
    for term, weight in ranked_terms(texts, stats):
        if stem(term) in skip:
            continue
        if is_noise(term):
            term = named.get(term)
            if term is None or term.lower() in said_already.lower():
                continue
        ranked.append((term, weight))
    out, used = [], 0
    for term, _ in ranked:
        if used >= budget:
            break
        cost = word_cost(term)
        if used + cost > budget:
            continue
        out.append(term)
        used += cost
    return tuple(out)
