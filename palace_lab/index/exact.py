"""Exact (flat) vector search: cosine similarity against every row of a normalised matrix.

For unit vectors q and d, cos(q, d) = q · d, so the similarities of all documents are one
matrix-vector product ``M @ q``; the best ``k`` are chosen with ``argpartition`` (O(n)) and only
those are sorted. The matrix is saved as a plain ``vectors.npy`` (no pickle).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np


def top_k(scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """``(rows, scores)`` of the ``k`` highest scores, best first; ties by lower row."""
    n = scores.shape[0]
    k = min(k, n)
    if k <= 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    part = np.argpartition(-scores, k - 1)[:k] if k < n else np.arange(n)
    order = np.lexsort((part, -scores[part]))
    rows = part[order].astype(np.int64)
    return rows, scores[rows].astype(np.float32)


class ExactIndex:
    """Brute-force cosine search over an ``(n, dim)`` matrix of unit rows."""

    def __init__(self, vectors: np.ndarray):
        self.vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        self.size = self.vectors.shape[0]

    @classmethod
    def build(cls, vectors: np.ndarray) -> "ExactIndex":
        return cls(vectors)

    def similarities(self, query: np.ndarray) -> np.ndarray:
        return self.vectors @ np.asarray(query, dtype=np.float32)

    def search(self, query: np.ndarray, k: int, allowed: np.ndarray | None = None):
        sims = self.similarities(query)
        if allowed is not None:
            rows, values = top_k(np.where(allowed, sims, -np.inf), k)
            keep = np.isfinite(values)
            return rows[keep], values[keep]
        return top_k(sims, k)

    def save(self, folder: Path) -> None:
        np.save(folder / "vectors.npy", self.vectors, allow_pickle=False)

    @classmethod
    def load(cls, folder: Path) -> "ExactIndex":
        return cls(np.load(folder / "vectors.npy", allow_pickle=False))
