"""A palace's own defaults: the search mode and the card version chosen for it (e.g. applied from
the lab's Tuning page), kept in a small JSON file beside the palace file.

``<palace>.prefs.json`` holds ``{"search_mode": ..., "distiller_version": ...}``; a missing key
means the project default (:data:`palace_lab.search.modes.DEFAULT_MODE`, or the card version
with the most cards). A mode is validated with :func:`~palace_lab.search.modes.parse_mode`
before it is stored, so what is stored always parses. Writes replace the file atomically.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from palace_lab.errors import InputError
from palace_lab.files import write_atomic
from palace_lab.search.modes import DEFAULT_MODE, PRESETS, parse_mode

if TYPE_CHECKING:
    from palace_lab.store import Palace

KEYS = ("search_mode", "distiller_version")


def prefs_path(db: str | Path) -> Path:
    db = Path(db)
    return db.with_name(db.name + ".prefs.json")


def load(db: str | Path) -> dict:
    """The stored preferences (only known keys); ``{}`` when none or the file is unreadable."""
    try:
        data = json.loads(prefs_path(db).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in data.items() if k in KEYS and isinstance(v, str)} if isinstance(data, dict) else {}


def set_pref(db: str | Path, key: str, value: str | None) -> dict:
    """Store (or, with ``None``, remove) one preference; returns the preferences now stored."""
    if key not in KEYS:
        raise InputError(f"unknown palace preference {key!r}; valid: {', '.join(KEYS)}")
    if key == "search_mode" and value is not None:
        value = str(parse_mode(value)) if value not in PRESETS else value
    prefs = load(db)
    if value is None:
        prefs.pop(key, None)
    else:
        prefs[key] = value
    write_atomic(prefs_path(db), json.dumps(prefs, indent=2, sort_keys=True) + "\n")
    return prefs


def search_mode(db: str | Path) -> str:
    """The palace's search default, else the project's :data:`DEFAULT_MODE`."""
    return load(db).get("search_mode") or DEFAULT_MODE


def main_version(palace: Palace, *, chosen: str | None = None,
                 versions: list[dict] | None = None) -> str | None:
    """The distiller version the palace is read with, the one rule for the app and the
    figures: ``chosen`` (a session's pick), else the palace's saved ``distiller_version``, when
    it has cards; otherwise the version with the most cards, the latest registered of a tie (a
    trial re-distillation of a sample is newer but partial, so "latest" would be wrong). None
    when no version has a card. ``versions``: ``palace.distiller_versions()`` if the caller
    holds it already."""
    versions = palace.distiller_versions() if versions is None else versions
    made = [v["version"] for v in versions if v["cards"]]
    for pick in (chosen, load(palace.path).get("distiller_version") if palace.path else None):
        if pick in made:
            return pick
    ranked = sorted(enumerate(versions), key=lambda iv: (-iv[1]["cards"], -iv[0]))
    return ranked[0][1]["version"] if ranked and ranked[0][1]["cards"] else None

