"""Cached palace data shared by the pages: cards of a version, per-exchange token budgets.

Palace-wide figures come from :mod:`palace_lab.experiments.page_figures` (kept on disk in the
one figures cache, :mod:`palace_lab.store.figures`); this module only holds them in memory.

Keys carry :func:`content_key` (the exchanges' and the version's cards' fingerprints), so a
re-ingest or a re-distillation is seen on the next rerun. The key itself is recomputed only
when SQLite says the file changed (:meth:`palace_lab.store.Palace.state`), and needs no search
engine (so no index library is imported on a page that does not search). Results of
``cache_resource`` are shared, never mutated.
"""

from __future__ import annotations

import streamlit as st

from palace_lab.budget import summarize
from palace_lab.experiments import page_figures
from ui.state import db_path, distiller_version, palace, palace_at


def content_key() -> str:
    """What the chosen version's data is made from right now (cheap when nothing changed:
    both fingerprints are kept until the file changes, :meth:`Palace.while_unchanged`)."""
    return page_figures.content_key(palace(), distiller_version())


@st.cache_resource(max_entries=4, show_spinner=False)
def _cards(path: str, version: str | None, content: str) -> tuple:
    return tuple(palace_at(path).cards(version)) if version else ()


def cards() -> tuple:
    """The cards of the chosen distiller version, in palace order."""
    return _cards(str(db_path()), distiller_version(), content_key())


def cards_of(exchange_ids) -> dict:
    """``{exchange_id: card}`` of the chosen version for these exchanges only (a page that
    shows ten hits reads ten cards, not 50,000)."""
    version = distiller_version()
    return palace().cards_by_id(version, list(exchange_ids)) if version else {}


@st.cache_resource(max_entries=8, show_spinner="Counting tokens…")  # shared: not pickled per call
def _budget(path: str, version: str | None, content: str, encoding: str):
    found = page_figures.budget_rows(palace_at(path), version, encoding)  # kept on disk
    return summarize(found, encoding, version), found


def budget(encoding: str = "cl100k_base"):
    """``(BudgetSummary, [ExchangeBudget])`` of the chosen version, cached."""
    return _budget(str(db_path()), distiller_version(), content_key(), encoding)
