"""BM25 over one layer's texts (bm25s, Lucene variant: k1=1.5, b=0.75 by default).

Score of a document D for a query Q (Robertson & Zaragoza 2009; the Lucene idf of Kamphuis et
al. 2020, as bm25s computes it)::

    score(D, Q) = Σ_{t∈Q} idf(t) · tf(t,D)·(k1+1) / (tf(t,D) + k1·(1 − b + b·|D|/avgdl))
    idf(t)      = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))

Queries go through the same :class:`~palace_lab.index.tokenize.Tokenizer` as documents. Scores
are computed for every document (``get_scores``), so any ``k`` works, even one larger than the
corpus; documents scoring 0 (no query term) are not returned. Saved as bm25s' plain npy/json
files, loaded with ``allow_pickle=False``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from palace_lab.index.exact import Found, top_k
from palace_lab.index.tokenize import Tokenizer, TokenizerSettings


class BM25Index:
    """A bm25s retriever plus the tokenizer its vocabulary was built with."""

    def __init__(self, retriever, tokenizer: Tokenizer, size: int):
        self.retriever = retriever
        self.tokenizer = tokenizer
        self.size = size

    @classmethod
    def build(cls, texts: list[str], *, tokenizer: Tokenizer | None = None,
              k1: float = 1.5, b: float = 0.75) -> "BM25Index":
        import bm25s

        tokenizer = tokenizer or Tokenizer()
        # Every document gets at least the empty term so bm25s sees a non-empty vocabulary.
        corpus = [tokenizer(t) or [""] for t in texts]
        retriever = bm25s.BM25(k1=k1, b=b)
        if corpus:
            retriever.index(corpus, show_progress=False)
        return cls(retriever, tokenizer, len(texts))

    def scores(self, query: str) -> np.ndarray:
        """The BM25 score of every document for ``query`` (zeros when no term is known)."""
        vocab = getattr(self.retriever, "vocab_dict", None) or {}
        ids = [vocab[t] for t in dict.fromkeys(self.tokenizer(query)) if t in vocab]
        if not ids or not self.size:
            return np.zeros(self.size, dtype=np.float32)
        return np.asarray(self.retriever.get_scores(ids), dtype=np.float32)

    def search(self, query: str, k: int, allowed: np.ndarray | None = None) -> Found:
        """``(rows, scores)`` of the ``k`` best documents with a positive score."""
        scores = self.scores(query)
        if allowed is not None:
            scores = np.where(allowed, scores, 0.0)
        rows, values = top_k(scores, k)
        keep = values > 0
        return Found(rows[keep], values[keep])

    def save(self, folder: Path) -> None:
        if self.size:
            self.retriever.save(str(folder / "bm25"), allow_pickle=False, show_progress=False)

    @classmethod
    def load(cls, folder: Path, size: int, settings: TokenizerSettings) -> "BM25Index":
        import bm25s

        retriever = bm25s.BM25()
        if size:
            retriever = bm25s.BM25.load(str(folder / "bm25"), allow_pickle=False,
                                        mmap=False, show_progress=False)
        return cls(retriever, Tokenizer(settings), size)
