"""Which palace, which distiller version, which query set: the sidebar and cached resources.

Resources (the palace connection, search engines, models) are cached with
``st.cache_resource`` and never mutated by a page; page-local widget keys carry a prefix.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path

import streamlit as st

from palace_lab.errors import PalaceError
from palace_lab.settings import offline

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_DATA = ROOT / "sample_data"
DEFAULT_DB = ROOT / ".palace" / "sample.db"

offline()


def db_path() -> Path:
    chosen = st.session_state.get("db_path") or os.environ.get("PALACE_LAB_DB") or DEFAULT_DB
    return Path(chosen).expanduser().resolve()


@st.cache_resource(max_entries=4, show_spinner=False)
def _open_palace(path: str):
    from palace_lab.store import Palace

    return Palace.open(path)


def palace():
    return _open_palace(str(db_path()))


def distiller_version() -> str | None:
    p = palace()
    versions = [v["version"] for v in p.distiller_versions() if v["cards"]]
    chosen = st.session_state.get("distiller")
    if chosen in versions:
        return chosen
    return p.latest_distiller()


def query_set() -> str | None:
    sets = palace().query_sets()
    chosen = st.session_state.get("query_set")
    return chosen if chosen in sets else (sets[0] if sets else None)


def sidebar() -> None:
    with st.sidebar:
        st.caption("Palace file")
        path = st.text_input("Palace file", value=str(db_path()), key="sb_db",
                             label_visibility="collapsed")
        if path and Path(path).expanduser().resolve() != db_path():
            st.session_state["db_path"] = path
            st.rerun()
        p = palace()
        versions = [v["version"] for v in p.distiller_versions() if v["cards"]]
        if versions:
            current = distiller_version()
            st.selectbox("Distiller version", versions, key="distiller",
                         index=versions.index(current) if current in versions else 0)
        sets = p.query_sets()
        if sets:
            st.selectbox("Query set", sets, key="query_set")
        st.caption(f"{p.count('exchanges'):,} exchanges · {p.count('cards'):,} cards · "
                   f"{p.count('judgments'):,} judgments")


@contextmanager
def guard():
    """The one expected failure becomes a clear message on the page, never a traceback."""
    try:
        yield
    except PalaceError as exc:
        st.error(str(exc), icon=":material/error:")
