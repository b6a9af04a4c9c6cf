"""Index caches: derived files next to the palace, found by a key, never trusted when stale.

Layout: ``<palace path>.indexes/<layer>~<mechanism>~<slot>~<content>/`` holding the index files
(bm25s npy/json, ``hnsw.usearch``, ``vectors.npy``), ``ids.json`` (exchange ids in row order)
and ``meta.json`` (what the key was made of), written last: a folder without ``meta.json`` is an
unfinished build and is ignored.

Staleness is detected by the key, so a stale index is never found:

- ``slot`` hashes what the index *is*: layer (and its text version), mechanism, distiller
  version (layers with cards), embedder name (vector mechanisms), tokenizer settings and BM25
  parameters (bm25), HNSW build parameters (hnsw), and :data:`FORMAT`;
- ``content`` hashes what it was built *from*: the palace fingerprint (every exchange id and
  content hash, so a re-ingest that changes any exchange changes it) and, for layers with cards,
  the fingerprint of that distiller's cards (a re-distilled card changes it).

``pending.json`` remembers, per index folder name, how many texts its build would still have
to embed (:meth:`IndexSet.pending`) beside the number of vectors the palace held then, so a
process that searches without a vector layer does not re-read every text to find that out
again; a changed palace has other names, a new vector another count.

Building writes into a temporary folder renamed into place (atomic on one file system); after a
successful build, older folders of the same slot are deleted.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

from palace_lab.files import write_atomic
from palace_lab.model import content_hash

if TYPE_CHECKING:
    from palace_lab.store import Palace

FORMAT = 1  # bump when the files written here change shape


def cards_fingerprint(palace: Palace, distiller: str | None) -> str:
    """Changes whenever a card of ``distiller`` is added, replaced or removed."""
    if not distiller:
        return ""

    def compute() -> str:
        rows = palace.conn.execute(
            "SELECT exchange_id, hash FROM cards INDEXED BY cards_by_version WHERE distiller=?"
            " ORDER BY exchange_id", (distiller,))
        return content_hash(distiller, *(f"{a}:{b}" for a, b in rows))

    return palace.while_unchanged(f"cards_fingerprint:{distiller}", compute)


def slot_key(parts: dict) -> str:
    return content_hash(json.dumps({**parts, "format": FORMAT}, sort_keys=True))[:12]


def folder_name(layer: str, mechanism: str, slot: str, content: str) -> str:
    return f"{layer}~{mechanism}~{slot}~{content[:12]}"


def cache_root(palace: Palace) -> Path:
    return palace.derived_root


def find(root: Path, name: str) -> Path | None:
    """The finished folder ``name`` under ``root``, or None."""
    folder = root / name
    return folder if (folder / "meta.json").is_file() else None


def previous(root: Path, name: str) -> Path | None:
    """The newest finished folder of ``name``'s slot other than ``name`` (an older content)."""
    if not root.is_dir():
        return None
    prefix = name.rsplit("~", 1)[0] + "~"
    found = [f for f in root.iterdir()
             if f.name.startswith(prefix) and f.name != name and (f / "meta.json").is_file()]
    return max(found, key=lambda f: f.stat().st_mtime) if found else None


def read_ids(folder: Path) -> list[str]:
    return json.loads((folder / "ids.json").read_text(encoding="utf-8"))


def read_meta(folder: Path) -> dict:
    return json.loads((folder / "meta.json").read_text(encoding="utf-8"))


def publish(root: Path, name: str, ids: list[str], meta: dict, save) -> Path:
    """Write a new index folder atomically; ``save(tmp_folder)`` writes the index files."""

    def place(tmp: Path, final: Path) -> None:
        try:
            os.replace(tmp, final)
        except OSError as exc:
            # Another builder of the same content finished first, however long ago: the rename
            # meets its folder, which is not empty. Keep theirs.
            if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST) or not final.is_dir():
                raise
            shutil.rmtree(tmp, ignore_errors=True)

    return _staged(root, name, ids, meta, save, place)


def replace(root: Path, name: str, ids: list[str], meta: dict, save) -> Path:
    """Like :func:`publish`, but a finished folder ``name`` is replaced (compaction: the same
    content, rebuilt). A reader between the two renames finds no folder and builds its own."""

    def place(tmp: Path, final: Path) -> None:
        old = root / f".old-{name}-{uuid.uuid4().hex[:8]}"
        if final.exists():
            os.replace(final, old)
        os.replace(tmp, final)
        shutil.rmtree(old, ignore_errors=True)

    return _staged(root, name, ids, meta, save, place)


def _staged(root: Path, name: str, ids: list[str], meta: dict, save, place) -> Path:
    """The index files, ids and meta written into a temporary folder beside ``name``, then
    ``place(tmp, final)`` puts it where readers look; a failure leaves no temporary folder."""
    root.mkdir(parents=True, exist_ok=True)
    tmp = root / f".tmp-{name}-{uuid.uuid4().hex[:8]}"
    tmp.mkdir()
    try:
        save(tmp)
        (tmp / "ids.json").write_text(json.dumps(ids), encoding="utf-8")
        (tmp / "meta.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
        place(tmp, root / name)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    prune(root, name)
    return root / name


def prune(root: Path, keep: str) -> list[str]:
    """Delete the other folders of ``keep``'s slot (older contents); returns their names."""
    prefix = keep.rsplit("~", 1)[0] + "~"
    removed = []
    for folder in root.iterdir():
        if folder.name.startswith(prefix) and folder.name != keep and folder.is_dir():
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder.name)
    return removed


PENDING_NOTES = 64  # pending counts remembered; older names are forgotten first


def read_pending(root: Path, name: str) -> list | None:
    """The remembered ``[pending, vectors]`` of index ``name``, or None."""
    try:
        notes = json.loads((root / "pending.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    value = notes.get(name) if isinstance(notes, dict) else None
    return value if isinstance(value, list) and len(value) == 2 else None


def write_pending(root: Path, name: str, count: list) -> None:
    """Remember ``[pending, vectors]`` for ``name`` (atomic; a lost race costs a recount)."""
    try:
        notes = json.loads((root / "pending.json").read_text(encoding="utf-8"))
        notes = notes if isinstance(notes, dict) else {}
    except (OSError, ValueError):
        notes = {}
    notes.pop(name, None)
    notes[name] = count
    kept = dict(list(notes.items())[-PENDING_NOTES:])
    write_atomic(root / "pending.json", json.dumps(kept))
