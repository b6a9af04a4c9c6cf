"""Known-item queries: evaluation without hand judgments, made from the palace's own exchanges.

Each query copies a distinctive string out of one exchange (the *source*) and asks the search
modes to find that exchange again. Types, as in the paper's query set:

- ``exact_term``: an identifier (``retry_backoff_ms``, ``pool.max_size``, ``HttpClient``);
- ``file_path``: a path from the exchange's ``files_touched`` that occurs in its text;
- ``error``: an error line (``KeyError: 'user_id'``), cut to at most 80 characters;
- ``conceptual``: a 6-10 word fragment of the person's request, copied, not paraphrased;
- ``mixed``: a distinctive identifier or file name plus three content words of the request.

A string is *distinctive* when it occurs in at most ``max_df`` exchanges (document frequency
over the palace, case- and whitespace-insensitive substring match). Grades: the source exchange
3; every other exchange that contains the same string 2 (for ``mixed``: the anchor and every
request word), so the qrels are not wrong where a string recurs. Deterministic for a seed.

Two sources (``source``), measured against graded queries by ``benchmarks/known_item_bias.py``:

- ``verbatim`` (the first generator): strings from the whole exchange, tool calls and tool
  output included, and ``conceptual`` as a copied phrase of the request. What a person never
  saw (a stack frame, a key deep in a JSON dump) becomes a query only verbatim BM25 can find.
- ``dialogue`` (the default since issue 27): strings only from what the person and the agent
  *said* (``Exchange.dialogue``, no tool traffic, independent of any card), and ``conceptual``
  as a bag of the request's content words in shuffled order (``request_words``), closer to
  how a person recalls an exchange; a type the palace cannot supply (no file paths in a chat)
  leaves its quota to the others. It still copies words, so it is still a probe.

BIAS, stated in every result's metadata: known-item queries reuse the exchange's own words.
They favour lexical (BM25) and verbatim search and exact strings, and they do not measure
conceptual recall (finding an exchange from a paraphrase or a vaguer memory of it). Read
them as a regression test and as evidence about lexical behaviour, not as the paper's result.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from palace_lab.errors import InputError
from palace_lab.evaluate.base import Qrels
from palace_lab.files import EXTENSIONS
from palace_lab.model import Exchange
from palace_lab.text.words import REQUEST_STOPWORDS, WORD_RUN

if TYPE_CHECKING:
    from palace_lab.store import Palace

QUERY_TYPES = ("exact_term", "file_path", "error", "conceptual", "mixed")
SOURCES = ("dialogue", "verbatim")  # where query strings come from; the first is the default
BAG_WORDS = 4  # words of a request_words query (a shuffled bag, not a copied phrase)
SCARCE_FIRST = ("error", "file_path", "mixed", "exact_term", "conceptual")  # who picks first
BIAS = ("Known-item queries reuse the source exchange's own words: they favour lexical/verbatim "
        "search and exact strings and do not measure conceptual recall (paraphrased or vague "
        "requests). Use them for regressions and lexical comparisons, not as the paper's result.")
GRADING = ("3 = the source exchange; 2 = another exchange containing the same string "
           "(mixed: the anchor and every request word); unlisted = unjudged")

_IDENT = re.compile(
    r"(?<![\w/.\-])([A-Za-z_][A-Za-z0-9]*(?:[_.][A-Za-z0-9]+)+|[a-z]+[A-Z][A-Za-z0-9]+"
    r"|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]+)(?![\w/])")
_ERROR = re.compile(r"([A-Z]\w*(?:Error|Exception):.*|\b(?:error|fatal|panic|FAILED)(?:\[\w+\])?:.*)")
_SENTENCE = re.compile(r"[^.!?\n]+")



def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def _content_words(text: str) -> list[str]:
    return [w for w in WORD_RUN.findall(text.lower()) if len(w) > 3 and w not in REQUEST_STOPWORDS and not w.isdigit()]


# ---------------------------------------------------------------------- candidates per type


def _exact_terms(ex: Exchange, rng: random.Random) -> list[str]:
    found = dict.fromkeys(m.group(1) for m in _IDENT.finditer(ex.verbatim))
    return [t for t in found if 5 <= len(t) <= 60 and not t.endswith(("Error", "Exception"))
            and t.rsplit(".", 1)[-1].lower() not in EXTENSIONS]


def _file_paths(ex: Exchange, rng: random.Random) -> list[str]:
    text = ex.verbatim.lower()
    return [p for p in ex.files_touched if len(p) >= 4 and p.lower() in text]


def _errors(ex: Exchange, rng: random.Random) -> list[str]:
    out = []
    for line in ex.verbatim.splitlines():
        match = _ERROR.search(line)
        if match:
            words, kept = match.group(1).split(), []
            while words and len(" ".join([*kept, words[0]])) <= 80:
                kept.append(words.pop(0))
            if len(" ".join(kept)) >= 10:
                out.append(" ".join(kept))
    return list(dict.fromkeys(out))


def _fragments(ex: Exchange, rng: random.Random) -> list[str]:
    out = []
    for sentence in _SENTENCE.findall(ex.request):
        words = sentence.split()
        if len(words) < 6 or len(_content_words(sentence)) < 2:
            continue
        size = min(len(words), rng.randint(6, 10))
        start = rng.randint(0, len(words) - size)
        out.append(" ".join(words[start:start + size]))
    return out


def _mixed(ex: Exchange, rng: random.Random) -> list[str]:
    anchors = _exact_terms(ex, rng) + [p.rsplit("/", 1)[-1] for p in _file_paths(ex, rng)]
    words = list(dict.fromkeys(_content_words(ex.request)))
    out = []
    for anchor in anchors:
        rest = [w for w in words if w not in anchor.lower()][:3]
        if len(rest) == 3:
            out.append(" ".join([anchor, *rest]))
    return out


def _request_words(ex: Exchange, rng: random.Random) -> list[str]:
    """The request's content words as a shuffled bag (``conceptual`` of the dialogue source):
    a memory of what was asked, not a phrase copied from it."""
    words = list(dict.fromkeys(_content_words(ex.request)))
    if len(words) < 3:
        return []
    out = []
    for _ in range(3):
        bag = rng.sample(words, min(BAG_WORDS, len(words)))
        out.append(" ".join(bag))
    return out


CANDIDATES: dict[str, Callable[[Exchange, random.Random], list[str]]] = {
    "exact_term": _exact_terms, "file_path": _file_paths, "error": _errors,
    "conceptual": _fragments, "mixed": _mixed,
}
BAGS = {"conceptual": _request_words}  # the dialogue source's replacements


def _candidates(qtype: str, source: str) -> Callable[[Exchange, random.Random], list[str]]:
    return BAGS.get(qtype, CANDIDATES[qtype]) if source == "dialogue" else CANDIDATES[qtype]


def _view(ex: Exchange, source: str) -> Exchange:
    """The text queries may copy from: the whole exchange, or only what was said."""
    return replace(ex, verbatim=ex.dialogue or ex.request) if source == "dialogue" else ex


# ---------------------------------------------------------------------- the corpus


class _Corpus:
    """Normalised exchange texts, their word sets and the word document frequencies."""

    def __init__(self, exchanges: Sequence[Exchange]) -> None:
        self.ids = [ex.exchange_id for ex in exchanges]
        self.norm = [_norm(ex.verbatim) for ex in exchanges]
        self.words = [set(WORD_RUN.findall(text)) for text in self.norm]
        self.df = Counter(w for words in self.words for w in words)

    def df_bound(self, candidate: str) -> int:
        """An upper bound of the candidate's document frequency: its rarest word's df."""
        words = [w for w in WORD_RUN.findall(candidate.lower()) if len(w) > 1]
        return min((self.df.get(w, 0) for w in words), default=len(self.ids))

    def containing(self, query: str, qtype: str, bag: bool = False) -> list[int]:
        """Positions of the exchanges that contain the query's string(s) (``bag``: every word)."""
        if bag:
            words = _norm(query).split()
            return [i for i in range(len(self.norm)) if all(w in self.words[i] for w in words)]
        if qtype == "mixed":
            anchor, *words = _norm(query).split()
            return [i for i, text in enumerate(self.norm)
                    if anchor in text and all(w in self.words[i] for w in words)]
        needle = _norm(query)
        return [i for i, text in enumerate(self.norm) if needle in text]


def _pick(position: int, ex: Exchange, qtype: str, corpus: _Corpus, rng: random.Random,
          max_df: int, taken: set[str], source: str = "verbatim") -> tuple[str, list[int]] | None:
    """The exchange's rarest new candidate of ``qtype`` found in at most ``max_df`` exchanges."""
    make = _candidates(qtype, source)
    candidates = sorted(make(_view(ex, source), rng), key=lambda c: (corpus.df_bound(c), -len(c), c))
    bag = make is _request_words
    for candidate in [c for c in candidates if _norm(c) not in taken][:5]:
        if corpus.df_bound(candidate) > max_df and not bag:  # a bag is rare as a whole, not per word
            break
        hits = corpus.containing(candidate, qtype, bag=bag)
        if position in hits and len(hits) <= max_df:
            return candidate, hits
    return None


# ---------------------------------------------------------------------- the query set


@dataclass(frozen=True)
class KnownItemSet:
    """Queries (``{"query_id", "query", "type"}``), their qrels, and how they were made."""

    queries: tuple[dict, ...]
    qrels: Qrels
    meta: dict

    def to_dict(self) -> dict:
        return {"queries": list(self.queries), "qrels": self.qrels, "meta": self.meta}


def _quotas(n: int, types: Sequence[str]) -> dict[str, int]:
    return {t: n // len(types) + (1 if i < n % len(types) else 0) for i, t in enumerate(types)}


def _check(types: Sequence[str], n: int, max_df: int, source: str) -> None:
    unknown = [t for t in types if t not in CANDIDATES]
    if unknown or not types:
        raise InputError(f"unknown query types {unknown}; valid types: {', '.join(CANDIDATES)}")
    if source not in SOURCES:
        raise InputError(f"unknown source {source!r}; valid sources: {', '.join(SOURCES)}")
    if n < 1 or max_df < 1:
        raise InputError("n and max_df must be at least 1")


def known_item_queries(exchanges: Iterable[Exchange], *, n: int = 50, seed: int = 0,
                       types: Sequence[str] = QUERY_TYPES, max_df: int = 3,
                       source: str = SOURCES[0]) -> KnownItemSet:
    """About ``n`` known-item queries spread evenly over ``types``, at most one per exchange,
    their strings taken from ``source`` (module docstring).

    A type the palace cannot supply (no error lines, say) falls short; ``meta["shortfall"]``
    says by how much. Same exchanges, seed and source, same queries."""
    _check(types, n, max_df, source)
    exs = sorted(exchanges, key=lambda ex: ex.exchange_id)
    corpus, rng = _Corpus(exs), random.Random(seed)
    order = list(range(len(exs)))
    rng.shuffle(order)
    quotas = _quotas(n, types)
    cursor = {t: 0 for t in types}  # next position in ``order`` each type will try
    used: set[int] = set()
    taken: set[str] = set()  # query strings already used: no query twice
    made: list[tuple[str, int, str, list[int]]] = []
    while any(cursor[t] < len(order) and _count(made, t) < quotas[t] for t in types):
        for qtype in sorted(types, key=SCARCE_FIRST.index):  # rare types choose first
            if _count(made, qtype) < quotas[qtype]:
                found = _next(qtype, order, cursor, (used, taken), exs, corpus, rng, (max_df, source))
                made.extend([found] if found else [])
    if source == "dialogue":  # a type the palace lacks (no paths in a chat) leaves its quota to the rest
        _fill(made, n, types, order, cursor, (used, taken), exs, corpus, rng, max_df)
    made.sort(key=lambda item: (types.index(item[0]), order.index(item[1])))
    items = _assemble(made, corpus, n, seed, types, max_df)
    return replace(items, meta={**items.meta, "source": source})


def _fill(made, n, types, order, cursor, seen, exs, corpus, rng, max_df) -> None:
    """Up to ``n`` queries from the types that can still supply them, rare types first."""
    while len(made) < n and any(cursor[t] < len(order) for t in types):
        for qtype in sorted(types, key=SCARCE_FIRST.index):
            if len(made) < n and cursor[qtype] < len(order):
                found = _next(qtype, order, cursor, seen, exs, corpus, rng, (max_df, "dialogue"))
                made.extend([found] if found else [])


def _count(made: list, qtype: str) -> int:
    return sum(1 for item in made if item[0] == qtype)


def _next(qtype, order, cursor, seen, exs, corpus, rng, limits):
    """The next unused exchange (from this type's cursor on) that yields a new ``qtype`` query."""
    used, taken = seen
    max_df, source = limits
    while cursor[qtype] < len(order):
        position = order[cursor[qtype]]
        cursor[qtype] += 1
        if position in used:
            continue
        picked = _pick(position, exs[position], qtype, corpus, rng, max_df, taken, source)
        if picked:
            used.add(position)
            taken.add(_norm(picked[0]))
            return (qtype, position, *picked)
    return None


def _assemble(made, corpus: _Corpus, n: int, seed: int, types: Sequence[str], max_df: int) -> KnownItemSet:
    queries, qrels, sources = [], {}, {}
    for number, (qtype, position, text, hits) in enumerate(made, start=1):
        qid = f"ki{number:04d}"
        queries.append({"query_id": qid, "query": text, "type": qtype})
        qrels[qid] = {corpus.ids[i]: (3 if i == position else 2) for i in hits}
        sources[qid] = corpus.ids[position]
    counts = Counter(q["type"] for q in queries)
    quotas = _quotas(n, types)
    meta = {
        "generator": "known_item", "seed": seed, "n_requested": n, "n_made": len(queries),
        "max_df": max_df, "types": {t: counts.get(t, 0) for t in types},
        "shortfall": {t: quotas[t] - counts.get(t, 0) for t in types if counts.get(t, 0) < quotas[t]},
        "grading": GRADING, "bias": BIAS, "sources": sources, "exchanges": len(corpus.ids),
    }
    return KnownItemSet(tuple(queries), qrels, meta)


def save_known_items(palace: Palace, items: KnownItemSet, *, query_set: str = "known_item") -> int:
    """Store the queries as ``query_set`` and their qrels as judge ``qrels:known_item``."""
    palace.put_queries(query_set, list(items.queries))
    return palace.put_judgments("qrels:known_item", items.qrels)
