"""The BM25 tokenizer: the same words for documents and queries.

A query is plain words to rank by, never a filter language: hyphens, quotes, colons, ``+`` and
``-`` are separators like any other punctuation (``"continue-on-error"`` is the words
continue, on, error; ``on`` then goes as a stopword). Steps, in order:

1. words are runs of letters, digits and underscores (``\\w+``), at least ``min_len`` long;
2. with ``split_compounds``, a snake_case or camelCase identifier is kept whole *and* as its
   parts (``pool_timeout`` → pool_timeout, pool, timeout; ``ConnectionPool`` →
   connectionpool, connection, pool), so prose queries find identifiers and vice versa;
3. lower-cased; English stopwords (bm25s' list) dropped;
4. stemmed with the Snowball stemmer of ``stemmer`` (PyStemmer), e.g. timeouts → timeout.

:class:`TokenizerSettings` is part of the BM25 index cache key.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass

from palace_lab.text.words import WORD_RUN, bm25_stopwords

_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


@dataclass(frozen=True)
class TokenizerSettings:
    stemmer: str | None = "english"
    stopwords: str | None = "en"
    split_compounds: bool = True
    min_len: int = 2

    def to_dict(self) -> dict:
        return asdict(self)


class Tokenizer:
    """Text → list of index terms; one instance memoises stems, so reuse it."""

    def __init__(self, settings: TokenizerSettings | None = None):
        self.settings = settings or TokenizerSettings()
        self._stopwords = _stopwords(self.settings.stopwords)
        self._stemmer = _stemmer(self.settings.stemmer)
        self._terms: dict[str, tuple[str, ...]] = {}

    def __call__(self, text: str) -> list[str]:
        out: list[str] = []
        cache = self._terms
        for word in WORD_RUN.findall(text):
            terms = cache.get(word)
            if terms is None:
                terms = cache[word] = self._word_terms(word)
            out.extend(terms)
        return out

    def many(self, texts: Iterable[str]) -> list[list[str]]:
        return [self(t) for t in texts]

    def _word_terms(self, word: str) -> tuple[str, ...]:
        words = [word]
        if self.settings.split_compounds:
            parts = _PART.findall(word)
            if len(parts) > 1:
                words.extend(parts)
        out = []
        for w in words:
            w = w.lower()
            if len(w) < self.settings.min_len or w in self._stopwords:
                continue
            out.append(self._stemmer.stemWord(w) if self._stemmer else w)
        return tuple(dict.fromkeys(out))


def _stopwords(name: str | None) -> frozenset[str]:
    if not name:
        return frozenset()
    if name != "en":
        raise ValueError(f"unknown stopword list {name!r}; valid: en")
    return bm25_stopwords()


def _stemmer(name: str | None):
    if not name:
        return None
    try:
        import Stemmer
    except ImportError:  # pragma: no cover - PyStemmer is a dependency
        raise ImportError("BM25 stemming needs PyStemmer: pip install PyStemmer") from None
    if name not in Stemmer.algorithms():
        raise ValueError(f"unknown stemmer {name!r}; valid: {', '.join(Stemmer.algorithms())}")
    return Stemmer.Stemmer(name)
