"""Cached palace data shared by the pages: cards of a version, per-exchange token budgets.

Keys carry :func:`content_key` (the exchanges' and the version's cards' fingerprints), so a
re-ingest or a re-distillation is seen on the next rerun. The key itself is recomputed only
when SQLite says the file changed (:meth:`palace_lab.store.Palace.state`), and needs no search
engine (so no index library is imported on a page that does not search). Results of
``cache_resource`` are shared, never mutated.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import fields
from pathlib import Path

import streamlit as st

from palace_lab.budget import ExchangeBudget, budget_rows, summarize
from palace_lab.index.cache import cache_root, cards_fingerprint
from palace_lab.model import content_hash
from palace_lab.store.memo import code_version
from ui.state import db_path, distiller_version, palace, palace_at


def content_key() -> str:
    """What the chosen version's data is made from right now (cheap when nothing changed:
    both fingerprints are kept until the file changes, :meth:`Palace.while_unchanged`)."""
    p = palace()
    return content_hash(p.fingerprint(), cards_fingerprint(p, distiller_version()))


@st.cache_resource(max_entries=4, show_spinner=False)
def _cards(path: str, version: str | None, content: str) -> tuple:
    return tuple(palace_at(path).cards(version)) if version else ()


def cards() -> tuple:
    """The cards of the chosen distiller version, in palace order."""
    return _cards(str(db_path()), distiller_version(), content_key())


@st.cache_resource(max_entries=4, show_spinner=False)
def card_map_for(path: str, version: str | None, content: str) -> dict:
    return {c.exchange_id: c for c in _cards(path, version, content)}


def cards_of(exchange_ids) -> dict:
    """``{exchange_id: card}`` of the chosen version for these exchanges only (a page that
    shows ten hits reads ten cards, not 50,000)."""
    version = distiller_version()
    return palace().cards_by_id(version, list(exchange_ids)) if version else {}


KEEP_FILES = 24


def disk_cached(path: str, name: str, compute: Callable[[], object]) -> object:
    """``compute()``'s JSON value, kept in ``<palace>.indexes/figures/<name>.json``.

    ``name`` must carry a hash of everything the value depends on, so a stale file is never
    read; the newest :data:`KEEP_FILES` files are kept, older ones deleted.
    """
    folder = cache_root(palace_at(path)) / "figures"
    target = folder / f"{name}.json"
    if target.is_file():
        return json.loads(target.read_text(encoding="utf-8"))
    value = compute()
    folder.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(f".{threading.get_ident()}.part")
    tmp.write_text(json.dumps(value), encoding="utf-8")
    tmp.replace(target)
    _prune(folder)
    return value


def has_cached(name: str) -> bool:
    return (cache_root(palace()) / "figures" / f"{name}.json").is_file()


def _prune(folder: Path) -> None:
    files = sorted(folder.glob("*.json"), key=lambda f: f.stat().st_mtime, reverse=True)
    for old in files[KEEP_FILES:]:
        old.unlink(missing_ok=True)


@st.cache_resource(max_entries=8, show_spinner="Counting tokens…")  # shared: not pickled per call
def _budget(path: str, version: str | None, content: str, encoding: str):
    def rows() -> list[list]:
        names = [f.name for f in fields(ExchangeBudget)]  # every field, in its order
        return [[getattr(r, n) for n in names] for r in budget_rows(palace_at(path), version,
                                                                     encoding)]

    # "budget2": rows carry the searched layer (core + keywords) since rules:v3
    name = f"budget2-{encoding}-{content[:16]}-{code_version('palace_lab.budget', 'palace_lab.tokens')}"
    found = [ExchangeBudget(*r) for r in disk_cached(path, name, rows)]
    return summarize(found, encoding, version), found


def budget(encoding: str = "cl100k_base"):
    """``(BudgetSummary, [ExchangeBudget])`` of the chosen version, cached."""
    return _budget(str(db_path()), distiller_version(), content_key(), encoding)
