"""The search mechanisms by name: how each builds and loads its index for one layer.

- ``bm25``: lexical ranking over the layer's words (:mod:`palace_lab.index.bm25`);
- ``hnsw``: approximate nearest neighbours over the layer's embeddings (:mod:`.hnsw`);
- ``exact``: exact cosine over the same embeddings (:mod:`.exact`).

Each builder is a pure function of the layer's texts (bm25) or vectors (hnsw, exact) and the
:class:`IndexParams`, row ``i`` of the index being input ``i``; :class:`~.indexset.IndexSet`
reads the texts, embeds them, times, caches and reports progress around it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from palace_lab.errors import SearchError
from palace_lab.index.bm25 import BM25Index
from palace_lab.index.exact import ExactIndex
from palace_lab.index.hnsw import HNSWIndex, HNSWParams
from palace_lab.text.tokenize import Tokenizer


@dataclass(frozen=True)
class IndexParams:
    """What every build and load reads besides its rows: the BM25 tokenizer, k1 and b, and the
    HNSW graph's parameters."""

    tokenizer: Tokenizer
    hnsw: HNSWParams
    bm25_k1: float = 1.5
    bm25_b: float = 0.75


@dataclass(frozen=True)
class Mechanism:
    needs_vectors: bool  # built from the layer's vectors; else from its texts
    description: str
    build: Callable[[Any, IndexParams], object]  # (texts or vectors, params) -> index
    load: Callable[[Path, int, IndexParams], object]  # (folder, rows, params) -> index
    shows_progress: bool = True  # the build step is reported to a progress callback


def build_bm25(texts: list[str], params: IndexParams) -> BM25Index:
    """A BM25 index whose row ``i`` is ``texts[i]``."""
    return BM25Index.build(texts, tokenizer=params.tokenizer, k1=params.bm25_k1, b=params.bm25_b)


def build_hnsw(vectors: np.ndarray, params: IndexParams) -> HNSWIndex:
    """An HNSW graph whose row ``i`` is ``vectors[i]`` (unit vectors)."""
    return HNSWIndex.build(vectors, **params.hnsw.to_dict())


def build_exact(vectors: np.ndarray, params: IndexParams) -> ExactIndex:
    """Exact cosine whose row ``i`` is ``vectors[i]`` (unit vectors)."""
    return ExactIndex.build(vectors)


def load_bm25(folder: Path, size: int, params: IndexParams) -> BM25Index:
    return BM25Index.load(folder, size, params.tokenizer.settings)


def load_hnsw(folder: Path, size: int, params: IndexParams) -> HNSWIndex:
    return HNSWIndex.load(folder, params.hnsw)


def load_exact(folder: Path, size: int, params: IndexParams) -> ExactIndex:
    return ExactIndex.load(folder)


MECHANISMS: dict[str, Mechanism] = {
    "bm25": Mechanism(False, "BM25 over the layer's stemmed words (bm25s)", build_bm25,
                      load_bm25),
    "hnsw": Mechanism(True, "approximate cosine over embeddings (usearch HNSW)", build_hnsw,
                      load_hnsw),
    "exact": Mechanism(True, "exact cosine over embeddings (numpy)", build_exact, load_exact,
                       shows_progress=False),
}


def get_mechanism(name: str) -> Mechanism:
    if name not in MECHANISMS:
        raise SearchError(f"unknown mechanism {name!r}; valid mechanisms: {', '.join(MECHANISMS)}")
    return MECHANISMS[name]
