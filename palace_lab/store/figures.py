"""The figures cache: computed figures kept as small JSON files beside the palace, one home.

A figure (the Overview's retrieval story, the budget rows, the room sizes, the tool-call table…)
is a JSON value kept in ``<palace>.indexes/figures/<kind>-<key>.json``:

- ``kind`` names what the figure is (``story``, ``budget2``, ``rooms``, ``toolcalls``); it is
  the part of the name before the first ``-`` and never contains one;
- ``key`` hashes everything the value depends on (the palace's content, the distiller version,
  the code that computes it…), so a stale file is never read: a changed palace or changed code
  asks for another name.

Pruning keeps the newest :data:`KEEP_PER_KIND` files *of each kind* and deletes only older files
of that same kind, so writing one page's figures never deletes another page's (a single
newest-N rule over the folder once let a run of budget files push the Overview's
``story-*.json`` out). Files are written to a temporary name and renamed into place, so a reader
never sees half a file; a second process computing the same name only rewrites it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from palace_lab.files import write_atomic

if TYPE_CHECKING:
    from palace_lab.store import Palace

FOLDER = "figures"
KEEP_PER_KIND = 4  # per kind: the current figure and a few older contents (a switch back is free)


def folder(palace: Palace) -> Path:
    return palace.derived_root / FOLDER


def kind_of(name: str) -> str:
    return name.split("-", 1)[0]


def figure_path(palace: Palace, kind: str, key: str) -> Path:
    """Where the figure ``kind`` of ``key`` is kept (``key``: a hash of its inputs)."""
    if not kind or "-" in kind or "/" in kind:
        raise ValueError(f"a figure kind is one word without '-' or '/': {kind!r}")
    return folder(palace) / f"{kind}-{key}.json"


def read(path: Path) -> object | None:
    """The kept value, or None when it was never computed."""
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def write(path: Path, value: object) -> None:
    """Keep ``value`` at ``path`` (atomically), then prune older files of its kind."""
    write_atomic(path, json.dumps(value))
    prune(path.parent, kind_of(path.stem))


def cached(palace: Palace, kind: str, key: str, compute: Callable[[], object]) -> object:
    """The kept figure ``kind`` of ``key``, computed by ``compute()`` and kept when absent."""
    path = figure_path(palace, kind, key)
    found = read(path)
    if found is not None:
        return found
    value = compute()
    write(path, value)
    return value


def prune(where: Path, kind: str, keep: int = KEEP_PER_KIND) -> None:
    """Delete all but the newest ``keep`` files of ``kind``; other kinds are never touched."""
    files = [f for f in where.glob(f"{kind}-*.json") if kind_of(f.stem) == kind]
    files.sort(key=lambda f: f.stat().st_mtime, reverse=True)
    for old in files[keep:]:
        old.unlink(missing_ok=True)
