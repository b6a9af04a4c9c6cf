"""Indexes of the layers: BM25 (bm25s), HNSW (usearch) and exact cosine, cached as plain files.

See :mod:`palace_lab.index.indexset` for the entry point and :mod:`palace_lab.index.cache` for
how a stale index is detected.
"""

from palace_lab.index.indexset import IndexSet, LayerIndex
from palace_lab.index.mechanisms import MECHANISMS, get_mechanism

__all__ = ["MECHANISMS", "IndexSet", "LayerIndex", "get_mechanism"]
