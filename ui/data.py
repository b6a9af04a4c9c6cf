"""Cached palace data shared by the pages: cards of a version, per-exchange token budgets.

Keys carry the engine's content key (exchanges + cards fingerprint), so a re-ingest or a
re-distillation is seen on the next rerun. Results of ``cache_resource`` are shared and never
mutated by a page.
"""

from __future__ import annotations

import streamlit as st

from palace_lab.budget import palace_budget
from ui.search import content_key
from ui.state import db_path, distiller_version, palace_at


@st.cache_resource(max_entries=4, show_spinner=False)
def _cards(path: str, version: str | None, content: str) -> tuple:
    return tuple(palace_at(path).cards(version)) if version else ()


def cards() -> tuple:
    """The cards of the chosen distiller version, in palace order."""
    return _cards(str(db_path()), distiller_version(), content_key())


@st.cache_resource(max_entries=4, show_spinner=False)
def card_map_for(path: str, version: str | None, content: str) -> dict:
    return {c.exchange_id: c for c in _cards(path, version, content)}


def card_map() -> dict:
    return card_map_for(str(db_path()), distiller_version(), content_key())


@st.cache_data(max_entries=8, show_spinner="Counting tokens…")
def _budget(path: str, version: str | None, content: str, encoding: str):
    return palace_budget(palace_at(path), version, encoding)


def budget(encoding: str = "cl100k_base"):
    """``(BudgetSummary, [ExchangeBudget])`` of the chosen version, cached."""
    return _budget(str(db_path()), distiller_version(), content_key(), encoding)
