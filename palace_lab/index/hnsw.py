"""Approximate vector search with an HNSW graph (usearch; Malkov & Yashunin 2018).

Keys are row numbers 0..n-1 of the layer. The metric is cosine *distance*, d = 1 − cos(q, x);
scores leave this module as similarity ``1 − d`` so they fuse like exact search's cosines.
Build parameters are keyword-only with usearch's own defaults: ``connectivity=16`` (edges per
node), ``expansion_add=128`` (candidate list while inserting), ``expansion_search=64``
(candidate list while searching; raised to the requested ``k`` when ``k`` is larger).
Recall depends on the data: :func:`recall_at_k` measures it against exact search.

A graph built by several threads depends on their timing, so two builds of one layer can rank
a few neighbours differently. Up to :data:`SERIAL_UP_TO` vectors the graph is built by one
thread: the same palace then always gives the same ranking (evaluations and A/B comparisons
repeat exactly), at a cost of seconds; larger layers are built by all cores.

Filtered search: usearch's Python API takes no predicate, so a filtered query asks the graph for
enough candidates to expect ``k`` allowed ones and, if fewer survive, falls back to exact
search over the allowed rows (never returns fewer hits than exist).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from palace_lab.index.exact import ExactIndex, Found, nothing

SERIAL_UP_TO = 20_000


@dataclass(frozen=True)
class HNSWParams:
    connectivity: int = 16
    expansion_add: int = 128
    expansion_search: int = 64

    def to_dict(self) -> dict:
        return asdict(self)


def usearch_index():
    """usearch's ``Index``, imported after onnxruntime when onnxruntime is installed.

    Importing onnxruntime (1.32) in a process that has already imported usearch (2.26) kills
    the interpreter with a segmentation fault inside onnxruntime's extension module; the other
    order works. The query embedding imports onnxruntime after the indexes are loaded, so
    without this a ``palace-lab search`` of a vector mode crashed before answering.
    """
    try:
        import onnxruntime  # noqa: F401  (first: see above)
    except ImportError:
        pass
    from usearch.index import Index

    return Index


class HNSWIndex:
    """A usearch ``Index`` over unit vectors, plus the vectors for filtered fall-back."""

    def __init__(self, index, vectors: np.ndarray, params: HNSWParams):
        self.index = index
        self.vectors = vectors
        self.params = params
        self.size = vectors.shape[0]

    @classmethod
    def build(cls, vectors: np.ndarray, *, connectivity: int = 16, expansion_add: int = 128,
              expansion_search: int = 64) -> "HNSWIndex":
        Index = usearch_index()
        params = HNSWParams(connectivity, expansion_add, expansion_search)
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        index = Index(ndim=max(vectors.shape[1], 1), metric="cos", dtype="f32",
                      connectivity=connectivity, expansion_add=expansion_add,
                      expansion_search=expansion_search)
        if len(vectors):
            threads = 1 if len(vectors) <= SERIAL_UP_TO else 0  # 0: every core
            index.add(np.arange(len(vectors), dtype=np.uint64), vectors, threads=threads)
        return cls(index, vectors, params)

    def search(self, query: np.ndarray, k: int, allowed: np.ndarray | None = None) -> Found:
        """``(rows, similarities)`` of about the ``k`` nearest rows, best first."""
        k = min(k, self.size)
        if k <= 0:
            return nothing()
        if allowed is None:
            return self._graph(query, k)
        return self._filtered(query, k, allowed)

    def _graph(self, query: np.ndarray, count: int) -> Found:
        self.index.expansion_search = max(self.params.expansion_search, count)
        matches = self.index.search(np.asarray(query, dtype=np.float32), count)
        rows = np.asarray(matches.keys, dtype=np.int64)
        return Found(rows, 1.0 - np.asarray(matches.distances, dtype=np.float32))

    def _filtered(self, query: np.ndarray, k: int, allowed: np.ndarray) -> Found:
        n_allowed = int(allowed.sum())
        want = min(k, n_allowed)
        if want == 0:
            return nothing()
        count = min(self.size, 2 * k * self.size // n_allowed + k)
        rows, sims = self._graph(query, count)
        keep = allowed[rows]
        if keep.sum() >= want:
            return Found(rows[keep][:k], sims[keep][:k])
        return ExactIndex(self.vectors).search(query, k, allowed)

    def save(self, folder: Path) -> None:
        self.index.save(str(folder / "hnsw.usearch"))
        np.save(folder / "vectors.npy", self.vectors, allow_pickle=False)

    @classmethod
    def load(cls, folder: Path, params: HNSWParams) -> "HNSWIndex":
        Index = usearch_index()
        # Memory-mapped: only the filtered fall-back reads them, so they rarely cost memory.
        vectors = np.load(folder / "vectors.npy", allow_pickle=False, mmap_mode="r")
        index = Index.restore(str(folder / "hnsw.usearch"), view=True)
        if index is None:
            raise OSError(f"unreadable HNSW index in {folder}")
        index.expansion_search = params.expansion_search
        return cls(index, vectors, params)


def recall_at_k(approx_rows: list[np.ndarray], exact_rows: list[np.ndarray], k: int = 10) -> float:
    """Mean over queries of |approx top-k ∩ exact top-k| / |exact top-k| (1.0 when both empty)."""
    values = []
    for a, e in zip(approx_rows, exact_rows):
        truth = set(e[:k].tolist())
        values.append(len(truth & set(a[:k].tolist())) / len(truth) if truth else 1.0)
    return float(np.mean(values)) if values else 1.0


__all__ = ["Found", "HNSWIndex", "HNSWParams", "recall_at_k"]
