"""Growing an HNSW index in place of rebuilding it, when a large layer changed a little.

A vector index folder also holds ``rows.json``: per row, the embedding key of the text that row
was built from (:func:`palace_lab.index.embed.embedding_key`). When a layer's content changed, the
previous folder of the same slot is the *base*; comparing its rows with the layer's texts now:

- a row whose exchange is gone, or whose text changed (a replaced exchange), is removed from the
  graph (usearch ``remove``), its vector zeroed and its id blanked to ``""``: it can never be
  returned again, by the graph or by the filtered exact fall-back (no filter admits ``""``);
- every exchange without a live row is embedded (only those texts) and added under new keys
  ``len(base rows)…`` (usearch ``add``).

Row order is then no longer conversation order; rankings are the graph's, as after a rebuild.
Growing applies only above :data:`GROW_FROM` vectors (the HNSW module's ``SERIAL_UP_TO``),
where a rebuild is multi-threaded and so not reproducible anyway; a smaller layer is rebuilt by
one thread, so a small palace always ranks alike. When blank rows would exceed :data:`COMPACT_AT` of all rows the
layer is rebuilt from scratch (compaction), with every row live and in conversation order.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from palace_lab.index.hnsw import SERIAL_UP_TO, HNSWIndex, HNSWParams

COMPACT_AT = 0.1  # blank rows allowed, as a fraction of all rows, before a full rebuild
GROW_FROM = SERIAL_UP_TO  # layers of more rows than this grow; smaller ones are rebuilt


@dataclass(frozen=True)
class Delta:
    """What changed between a base index and the layer now."""

    dropped: list[int]  # base rows to remove (exchange gone or text changed)
    added: list[int]  # positions in the layer's texts to embed and add

    def size(self) -> int:
        return len(self.dropped) + len(self.added)


def read_rows(folder: Path) -> list[str] | None:
    path = folder / "rows.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def write_rows(folder: Path, rows: list[str]) -> None:
    (folder / "rows.json").write_text(json.dumps(rows), encoding="utf-8")


def delta(base_ids: list[str], base_rows: list[str], ids: list[str], rows: list[str]) -> Delta:
    """Rows of the base to drop and texts of the layer to add (by position)."""
    now = dict(zip(ids, rows))
    live = {eid for eid, row in zip(base_ids, base_rows) if eid and now.get(eid) == row}
    dropped = [r for r, eid in enumerate(base_ids) if eid and eid not in live]
    added = [i for i, eid in enumerate(ids) if eid not in live]
    return Delta(dropped, added)


def worth_growing(base_ids: list[str], change: Delta, rows_now: int) -> bool:
    """Grow only a large layer whose blank rows stay under :data:`COMPACT_AT`."""
    if rows_now <= GROW_FROM:
        return False
    blank = base_ids.count("") + len(change.dropped)
    return blank <= COMPACT_AT * (len(base_ids) + len(change.added))


def grow(base: Path, params: HNSWParams, base_ids: list[str], base_rows: list[str],
         change: Delta, ids: list[str], rows: list[str], vectors: np.ndarray
         ) -> tuple[HNSWIndex, list[str], list[str]]:
    """The base index with ``change`` applied; ``vectors``: the added texts' vectors."""
    from palace_lab.index.hnsw import usearch_index

    index = usearch_index().restore(str(base / "hnsw.usearch"), view=False)
    if index is None:
        raise OSError(f"unreadable HNSW index in {base}")
    matrix = np.array(np.load(base / "vectors.npy", allow_pickle=False), dtype=np.float32)
    out_ids, out_rows = list(base_ids), list(base_rows)
    if change.dropped:
        index.remove(np.asarray(change.dropped, dtype=np.uint64))
        matrix[change.dropped] = 0.0
        for r in change.dropped:
            out_ids[r], out_rows[r] = "", ""
    if change.added:
        keys = np.arange(len(base_ids), len(base_ids) + len(change.added), dtype=np.uint64)
        index.add(keys, np.ascontiguousarray(vectors, dtype=np.float32), threads=0)
        matrix = np.vstack([matrix, vectors]).astype(np.float32, copy=False)
        out_ids += [ids[i] for i in change.added]
        out_rows += [rows[i] for i in change.added]
    index.expansion_search = params.expansion_search
    return HNSWIndex(index, matrix, params), out_ids, out_rows
