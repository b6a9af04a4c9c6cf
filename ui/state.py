"""Which palace, which distiller version, which query set: the sidebar and cached resources.

Resources (the palace connection, search engines, models) are cached with
``st.cache_resource`` and never mutated by a page; page-local widget keys carry a prefix.
"""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager
from pathlib import Path

import streamlit as st

from palace_lab.errors import PalaceError
from palace_lab.settings import DEFAULT_EMBEDDER, offline

ROOT = Path(__file__).resolve().parent.parent
# PALACE_LAB_SAMPLE_DIR lets tests and benchmarks point "the bundled sample" at another folder.
SAMPLE_DATA = Path(os.environ.get("PALACE_LAB_SAMPLE_DIR") or ROOT / "sample_data")
DEFAULT_DB = ROOT / ".palace" / "sample.db"

offline()


def _leave_pages_folder_mode() -> None:
    """Run every page through app.py's ``st.navigation``, even on a deep link.

    Streamlit treats a ``pages/`` folder beside the entry point as the old multipage layout
    until some run calls ``st.navigation``: when the first request a fresh server sees is a
    page URL (a bookmark, a tab reconnecting after a restart), that page runs alone, without
    app.py's page config and sidebar. This module is imported by every page, so its first
    import switches the process to ``st.navigation`` and reruns through the entry point.
    """
    try:
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:  # pragma: no cover - a Streamlit without this internal
        return
    if getattr(PagesManager, "uses_pages_directory", None):
        PagesManager.uses_pages_directory = False
        st.rerun()


_leave_pages_folder_mode()


def db_path() -> Path:
    """The open palace: the one chosen in this session, else the page address's ``?db=``
    (so a reload keeps it), else ``PALACE_LAB_DB``, else the sample's."""
    if "db_path" not in st.session_state and st.query_params.get("db"):
        _adopt_url_palace(st.query_params["db"])
    chosen = st.session_state.get("db_path") or os.environ.get("PALACE_LAB_DB") or DEFAULT_DB
    return Path(chosen).expanduser().resolve()


def _adopt_url_palace(wanted: str) -> None:
    """Open the palace the address names when it is an existing palace file; anything else
    (a missing path, another application's SQLite file) is refused with its reason, said in
    the sidebar, and the address forgets it. Never creates a file."""
    path = Path(wanted).expanduser().resolve()
    try:
        if not path.is_file():
            raise PalaceError(f"no palace file at {path}")
        _open_palace(str(path))
    except PalaceError as exc:
        st.session_state["url_db_refused"] = f"The address named a palace that cannot be opened: {exc}"
        del st.query_params["db"]
        return
    st.session_state["db_path"] = str(path)


def keep_in_address() -> None:
    """Write the palace chosen in this session into the address (``?db=``), where a reload
    or a bookmark finds it; page links drop the address's parameters, so every run does."""
    db_path()  # adopts the address's palace on a session's first run
    chosen = st.session_state.get("db_path")
    if chosen and st.query_params.get("db") != chosen:
        st.query_params["db"] = chosen
    refused = st.session_state.pop("url_db_refused", None)
    if refused:
        st.sidebar.warning(refused, icon=":material/error:")


@st.cache_resource(max_entries=4, show_spinner=False)
def _open_palace(path: str):
    from palace_lab.store import Palace

    return Palace.open(path)


def palace():
    return _open_palace(str(db_path()))


def palace_at(path: str):
    """The shared palace of ``path`` (for cached functions, which take the path as argument)."""
    return _open_palace(path)


def distiller_versions() -> list[dict]:
    """The palace's distiller versions with their card counts, read again only when the file
    changed (at 50,000 cards the count takes 0.1 s, and a render asks a dozen times)."""
    p = palace()
    return p.while_unchanged("distiller_versions", p.distiller_versions)


def distiller_version() -> str | None:
    """The sidebar's pick, else the palace's main version (:func:`prefs.main_version`)."""
    from palace_lab.experiments.prefs import main_version

    return main_version(palace(), chosen=st.session_state.get("distiller"),
                        versions=distiller_versions())


def embedder_name() -> str:
    """``PALACE_LAB_EMBEDDER`` (e.g. ``fake`` in tests), else the packaged MiniLM."""
    return os.environ.get("PALACE_LAB_EMBEDDER") or DEFAULT_EMBEDDER


@st.cache_resource(max_entries=8, show_spinner=False)
def engine_for(path: str, distiller: str | None, embedder: str):
    from palace_lab.index.embed import get_embedder
    from palace_lab.index.recent import RecentEmbedder
    from palace_lab.search import SearchEngine

    return SearchEngine(_open_palace(path), distiller=distiller,
                        embedder=RecentEmbedder(get_embedder(embedder)),
                        inline_embed=inline_embed())


def inline_embed() -> float | None:
    """``PALACE_LAB_INLINE_EMBED``: texts one search may embed before leaving a vector layer to
    the background build (tests set 0 with the instant fake embedder); default the engine's."""
    value = os.environ.get("PALACE_LAB_INLINE_EMBED")
    return float(value) if value else None


def engine():
    """The search engine of this palace, distiller version and embedder (shared, cached)."""
    return engine_for(str(db_path()), distiller_version(), embedder_name())


def query_set() -> str | None:
    sets = palace().query_sets()
    chosen = st.session_state.get("query_set")
    if chosen in sets:
        return chosen
    return "sample" if "sample" in sets else (sets[0] if sets else None)


@st.cache_resource(show_spinner=False)
def warm_imports() -> threading.Thread:
    """Load in the background, once per process, what a page would otherwise wait for on its
    first render: ``scipy.stats`` for the paired tests (about 1 s), the tokenizer (0.4 s)."""
    def work() -> None:
        import scipy.stats  # noqa: F401

        from palace_lab.tokens import get_encoding

        get_encoding()

    thread = threading.Thread(target=work, daemon=True, name="palace-lab-warm-imports")
    thread.start()
    return thread


def sidebar() -> None:
    from ui.palaces import contents_caption, palace_picker

    keep_in_address()
    with st.sidebar:
        palace_picker()
        contents_caption()
        p = palace()
        versions = [v["version"] for v in distiller_versions() if v["cards"]]
        if versions:
            current = distiller_version()
            st.selectbox("Distiller version", versions, key="distiller",
                         index=versions.index(current) if current in versions else 0)
        sets = p.query_sets()
        if sets:
            from palace_lab.experiments.query_sets import set_label

            st.selectbox("Query set", sets, key="query_set", index=sets.index(query_set()),
                         format_func=set_label)


@contextmanager
def guard():
    """An error a person can cause becomes a clear message on the page, never a traceback:
    any of the project's errors (:class:`~palace_lab.errors.PalaceError`), and a
    ``ValueError`` (validation of a value the person gave, raised by a library)."""
    try:
        yield
    except (PalaceError, ValueError) as exc:
        st.error(str(exc), icon=":material/error:")
