"""Terms and salience: which words of an exchange are its surviving vocabulary.

A *term* is a lower-cased word, identifier, dotted name or path as it appears in text. The
palace-wide document frequency of each term (in how many exchanges it occurs) tells the
distinctive terms of one exchange from those common to all: ``idf = log((N + 1) / (df + 1)) + 1``
(the smoothed inverse document frequency used by scikit-learn's TfidfVectorizer).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable

from palace_lab.distill.base import CorpusStats
from palace_lab.text.words import STOPWORDS, TERM



def terms(text: str) -> list[str]:
    """Terms of ``text`` in order, lower-cased, stopwords and 1-letter tokens dropped."""
    out = []
    for raw in TERM.findall(text):
        t = raw.lower().strip("./-")
        if len(t) > 1 and t not in STOPWORDS:
            out.append(t)
    return out


def bigrams(ts: list[str]) -> set[str]:
    """Adjacent term pairs, space-joined (terms never contain spaces, so keys cannot clash)."""
    return {f"{a} {b}" for a, b in zip(ts, ts[1:]) if a != b}


def corpus_stats(texts: Iterable[str], phrase_texts: Iterable[str] = ()) -> CorpusStats:
    """Document frequencies of terms over ``texts`` and of bigrams over ``phrase_texts``, and
    the mean token count of ``phrase_texts`` (the dialogues: the card budget's scale).

    Bigrams are counted over the (shorter) dialogue texts only: over whole exchanges with tool
    output they would cost memory and add nothing a person would call a topic.
    """
    dialogues = list(phrase_texts)
    n, df, stem_df, tokens = corpus_counts(texts, dialogues)
    return CorpusStats(n_docs=n, term_df=dict(df), stem_df=dict(stem_df),
                       dialogue_mean=tokens / len(dialogues) if dialogues else 0.0)


def corpus_counts(texts: Iterable[str], dialogues: Iterable[str]) -> tuple[int, Counter, Counter, int]:
    """What :func:`corpus_stats` is made of, as sums (so counts of two corpora add up):
    ``(documents, term df, stem df, dialogue tokens)``. Both inputs are read once, in order,
    so they can be streamed."""
    from palace_lab.distill.keywords import stem
    from palace_lab.distill.noise import without_blobs
    from palace_lab.tokens import count_tokens

    df: Counter = Counter()
    stem_df: Counter = Counter()
    n = 0
    for text in texts:
        n += 1
        seen = set(terms(text))
        df.update(seen)
        stem_df.update({stem(t) for t in seen})
    tokens, batch = 0, []
    for text in dialogues:
        df.update(bigrams(terms(text)))
        batch.append(without_blobs(text)[0])  # the budget's scale: what was written, not pasted
        if len(batch) == 1024:
            tokens, batch = tokens + sum(count_tokens(batch)), []
    return n, df, stem_df, tokens + (sum(count_tokens(batch)) if batch else 0)


def idf(term: str, stats: CorpusStats) -> float:
    df = stats.term_df.get(term, 0)
    return math.log((stats.n_docs + 1) / (df + 1)) + 1.0


def salient_terms(text: str, stats: CorpusStats, k: int = 10) -> list[tuple[str, float]]:
    """The ``k`` terms of ``text`` with the highest tf·idf (sublinear tf), best first."""
    tf = Counter(terms(text))
    scored = [(t, (1 + math.log(c)) * idf(t, stats)) for t, c in tf.items()]
    scored.sort(key=lambda x: (-x[1], x[0]))
    return scored[:k]
