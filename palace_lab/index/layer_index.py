"""One built index of one layer: its rows' exchange ids and the index that ranks them.

Row ``i`` of the index is the exchange ``ids[i]``; a blank id (``""``) is a row removed from
a grown or behind index, never returned.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from palace_lab.index.bm25 import BM25Index
from palace_lab.index.exact import ExactIndex, Found
from palace_lab.index.hnsw import HNSWIndex


@dataclass
class LayerIndex:
    """One built index: ``search(query, k)`` → ``Found(rows, scores)``; ``ids[row]`` is the
    exchange id of row ``row``."""

    layer: str
    mechanism: str
    key: str
    ids: list[str]
    index: BM25Index | HNSWIndex | ExactIndex
    folder: Path | None = None
    loaded: bool = False

    @property
    def size(self) -> int:
        return len(self.ids)

    def search(self, query, k: int, allowed: np.ndarray | None = None) -> Found:
        """``query`` is a text for bm25 and a unit vector for hnsw/exact."""
        return self.index.search(query, k, allowed)
