"""Exact (flat) vector search: cosine similarity against every row of a normalised matrix.

For unit vectors q and d, cos(q, d) = q · d, so the similarities of all documents are one
matrix-vector product ``M q``; the best ``k`` are chosen with ``argpartition`` (O(n)) and only
those are sorted. The matrix is saved as a plain ``vectors.npy`` (no pickle).

The product runs in numpy's own single-threaded loop (``einsum``), not in the BLAS thread pool:
0.5 ms at 14k × 384 either way, but on a busy 2-core machine waking BLAS threads between two
query embeddings cost 15-30 ms a query (measured: embed + BLAS product p50 50 ms, embed +
single-threaded product 18 ms).
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np


class Found(NamedTuple):
    """What every index's ``search`` returns: row numbers and their scores, best first."""

    rows: np.ndarray
    scores: np.ndarray


def nothing() -> Found:
    return Found(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32))


def top_rows(scores: np.ndarray, k: int) -> Found:
    """``(rows, scores)`` of the ``k`` highest scores, best first; ties by lower row."""
    n = scores.shape[0]
    k = min(k, n)
    if k <= 0:
        return nothing()
    part = np.argpartition(-scores, k - 1)[:k] if k < n else np.arange(n)
    order = np.lexsort((part, -scores[part]))
    rows = part[order].astype(np.int64)
    return Found(rows, scores[rows].astype(np.float32))


class ExactIndex:
    """Brute-force cosine search over an ``(n, dim)`` matrix of unit rows."""

    def __init__(self, vectors: np.ndarray):
        self.vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        self.size = self.vectors.shape[0]

    @classmethod
    def build(cls, vectors: np.ndarray) -> "ExactIndex":
        return cls(vectors)

    def similarities(self, query: np.ndarray) -> np.ndarray:
        return np.einsum("ij,j->i", self.vectors, np.asarray(query, dtype=np.float32))

    def search(self, query: np.ndarray, k: int, allowed: np.ndarray | None = None) -> Found:
        sims = self.similarities(query)
        if allowed is not None:
            rows, values = top_rows(np.where(allowed, sims, -np.inf), k)
            keep = np.isfinite(values)
            return Found(rows[keep], values[keep])
        return top_rows(sims, k)

    def save(self, folder: Path) -> None:
        np.save(folder / "vectors.npy", self.vectors, allow_pickle=False)

    @classmethod
    def load(cls, folder: Path) -> "ExactIndex":
        return cls(np.load(folder / "vectors.npy", allow_pickle=False))
