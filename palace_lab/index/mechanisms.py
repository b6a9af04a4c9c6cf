"""The search mechanisms by name: how each builds and loads its index for one layer.

- ``bm25``: lexical ranking over the layer's words (:mod:`palace_lab.index.bm25`);
- ``hnsw``: approximate nearest neighbours over the layer's embeddings (:mod:`.hnsw`);
- ``exact``: exact cosine over the same embeddings (:mod:`.exact`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from palace_lab.errors import SearchError
from palace_lab.index.bm25 import BM25Index
from palace_lab.index.exact import ExactIndex
from palace_lab.index.hnsw import HNSWIndex

if TYPE_CHECKING:
    from palace_lab.index.indexset import IndexSet


@dataclass(frozen=True)
class Mechanism:
    needs_vectors: bool
    description: str
    build: Callable[..., object]
    load: Callable[..., object]


def _build_bm25(iset: "IndexSet", layer: str, texts: list[str], progress) -> BM25Index:
    if progress:
        progress(f"bm25 {layer}", 0, 1)
    start = time.perf_counter()
    index = BM25Index.build(texts, tokenizer=iset.tokenizer, **iset.bm25_params)
    iset.record(layer, "bm25", "index", start, len(texts))
    if progress:
        progress(f"bm25 {layer}", 1, 1)
    return index


def _build_hnsw(iset: "IndexSet", layer: str, texts: list[str], progress) -> HNSWIndex:
    vectors = iset.layer_vectors(layer, texts, progress)
    if progress:
        progress(f"hnsw {layer}", 0, 1)
    start = time.perf_counter()
    index = HNSWIndex.build(vectors, **iset.hnsw_params.to_dict())
    iset.record(layer, "hnsw", "index", start, len(texts))
    if progress:
        progress(f"hnsw {layer}", 1, 1)
    return index


def _build_exact(iset: "IndexSet", layer: str, texts: list[str], progress) -> ExactIndex:
    vectors = iset.layer_vectors(layer, texts, progress)
    start = time.perf_counter()
    index = ExactIndex.build(vectors)
    iset.record(layer, "exact", "index", start, len(texts))
    return index


def _load_bm25(iset: "IndexSet", folder: Path, size: int) -> BM25Index:
    return BM25Index.load(folder, size, iset.tokenizer.settings)


def _load_hnsw(iset: "IndexSet", folder: Path, size: int) -> HNSWIndex:
    return HNSWIndex.load(folder, iset.hnsw_params)


def _load_exact(iset: "IndexSet", folder: Path, size: int) -> ExactIndex:
    return ExactIndex.load(folder)


MECHANISMS: dict[str, Mechanism] = {
    "bm25": Mechanism(False, "BM25 over the layer's stemmed words (bm25s)", _build_bm25,
                      _load_bm25),
    "hnsw": Mechanism(True, "approximate cosine over embeddings (usearch HNSW)", _build_hnsw,
                      _load_hnsw),
    "exact": Mechanism(True, "exact cosine over embeddings (numpy)", _build_exact, _load_exact),
}


def get_mechanism(name: str) -> Mechanism:
    if name not in MECHANISMS:
        raise SearchError(f"unknown mechanism {name!r}; valid mechanisms: {', '.join(MECHANISMS)}")
    return MECHANISMS[name]
