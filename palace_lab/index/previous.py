"""Starting from the previous index of a slot: what a BM25 delta, a grown HNSW graph and a
search behind the layer are made from.

Concept: a cache folder whose content key is older than the layer's now (same layer, mechanism
and settings: the same *slot*) still knows, per row, what it was built from (``rows.json``:
:func:`row_keys`). Comparing those rows with the layer's rows now says which rows are gone or
changed and which exchanges are new, so a small change is applied instead of rebuilt
(:mod:`palace_lab.index.bm25_delta`, :mod:`palace_lab.index.grow`).

These are functions of the cache folder and the layer's ids, texts and row keys; they never
see the :class:`~palace_lab.index.indexset.IndexSet` that times and publishes what they return.
"""

from __future__ import annotations

import json
from pathlib import Path

from palace_lab.index import bm25_delta, grow
from palace_lab.index import cache as files
from palace_lab.index.bm25 import BM25Index
from palace_lab.index.embed import Embedder, embedding_key
from palace_lab.text.tokenize import Tokenizer

Previous = tuple[Path, list[str], list[str]]  # (folder, ids, row keys)


def row_keys(mechanism: str, texts: list[str], embedder: Embedder, *,
             cached: bool) -> list[str] | None:
    """Per row, what it was built from (``rows.json``): the embedding key for hnsw, the
    text's hash for a cached bm25 (so a later change can be applied instead of rebuilt)."""
    if mechanism == "hnsw":
        return [embedding_key(embedder, t) for t in texts]
    if mechanism == "bm25" and cached:
        return [bm25_delta.row_key(t) for t in texts]
    return None


def previous_of(root: Path | None, key: str) -> Previous | None:
    """``(folder, ids, rows)`` of the previous index of ``key``'s slot (an older content),
    when the cache (``root``; None when there is none) has one whose rows are known."""
    base = files.previous(root, key) if root is not None else None
    base_rows = grow.read_rows(base) if base else None
    if base_rows is None:
        return None
    return base, files.read_ids(base), base_rows


def bm25_with_delta(previous: Previous | None, ids: list[str], texts: list[str],
                    rows: list[str], tokenizer: Tokenizer):
    """The previous BM25 index with the layer's changes as a delta, as ``(index, ids, rows)``;
    None when there is none or a rebuild is due."""
    if previous is None:
        return None
    base, base_ids, base_rows = previous
    try:
        index = BM25Index.load(base, len(base_ids), tokenizer.settings)
    except (OSError, ValueError, KeyError):
        return None
    return bm25_delta.with_delta(index, base_ids, base_rows, ids, rows, texts, tokenizer)


def hnsw_change(previous: Previous | None, ids: list[str], rows: list[str]) -> grow.Delta | None:
    """What growing the previous HNSW index to the layer's rows would change, or None when
    there is no previous index or a rebuild is due."""
    if previous is None:
        return None
    _, base_ids, base_rows = previous
    change = grow.delta(base_ids, base_rows, ids, rows)
    return change if grow.worth_growing(base_ids, change, len(ids)) else None


def _note_name(key: str) -> str:
    return f".rows~{key.rsplit('~', 1)[0]}~note"


def rows_note(root: Path | None, key: str) -> Previous | None:
    """The rows of ``key``'s slot as last counted (:func:`write_rows_note`), or None: a
    previous index without an index, for counting what a vector layer lacks from its changed
    rows only, before the layer has ever been built."""
    folder = files.find(root, _note_name(key)) if root is not None else None
    rows = grow.read_rows(folder) if folder else None
    return (folder, files.read_ids(folder), rows) if rows is not None else None


def write_rows_note(root: Path, key: str, ids: list[str], rows: list[str],
                    sources: dict[str, str]) -> None:
    """Remember the layer's rows now (ids, row keys, the hashes they are made from)."""
    files.replace(root, _note_name(key), ids, {"rows_note": key}, saver(None, rows, sources))


def read_sources(folder: Path) -> dict[str, str] | None:
    """``{exchange_id: hash}`` the folder's rows were made from (``sources.json``), or None."""
    try:
        found = json.loads((folder / "sources.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) else None


def stable_part(previous: Previous, mechanism: str) -> Previous:
    """The rows a change is measured against: a BM25 index's main rows (its delta rows are
    added anew with every change, :func:`palace_lab.index.bm25_delta.with_delta`), every row
    of an HNSW index."""
    if mechanism != "bm25":
        return previous
    folder, ids, rows = previous
    main = len(ids) - bm25_delta.delta_rows(folder)
    return folder, ids[:main], rows[:main]


def reusable_rows(previous: Previous, known: dict[str, str], ids: list[str],
                  sources: list[str]) -> list[str | None]:
    """Per row of the layer now, the previous index's row key where the row's stored hash is
    the one that index was built from (so its text is unchanged and need not be read), else
    None (its text must be read)."""
    base = {e: r for e, r in zip(previous[1], previous[2]) if e}
    return [base.get(e) if known.get(e) == s else None for e, s in zip(ids, sources)]


def behind_ids(previous: Previous, ids: list[str], rows: list[str]) -> list[str]:
    """The previous index's ids with the rows whose exchange is gone or whose text changed
    blanked to ``""`` (never returned): a search behind the layer uses it as it is."""
    base_ids, base_rows = previous[1], previous[2]
    out = list(base_ids)
    for r in grow.delta(base_ids, base_rows, ids, rows).dropped:
        out[r] = ""
    return out


def saver(index, rows: list[str] | None, sources: dict[str, str] | None = None):
    """Writes the index files and, for a grown-able index, its rows' keys and the stored
    hashes its rows were made from (:func:`read_sources`)."""
    def save(folder: Path) -> None:
        if index is not None:
            index.save(folder)
        if rows is not None:
            grow.write_rows(folder, rows)
        if rows is not None and sources is not None:
            (folder / "sources.json").write_text(json.dumps(sources), encoding="utf-8")
    return save
