"""Search from the pages: indexes prepared with visible progress, runs cached per mode.

A run depends on the palace's exchanges and cards (the engine's content key), the distiller
version, the embedder, the queries, the mode and k; never on the judgments, so grading
re-scores cached runs instead of searching again.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import streamlit as st

from palace_lab.search.modes import parse_mode
from ui.data import content_key
from ui.state import db_path, distiller_version, embedder_name, engine, engine_for


def ready(modes: Sequence[str]) -> bool:
    """True when every index the modes need is already built (so no long step is due)."""
    indexes = engine().indexes
    return all(indexes.is_cached(r.layer, r.mechanism) for m in modes for r in parse_mode(m).runs)


def prepare(modes: Sequence[str]) -> None:
    """Load or build the indexes ``modes`` need; a progress bar shows embedding and building."""
    eng = engine()
    if ready(modes):
        eng.prepare(modes)
        return
    bar = st.progress(0.0, text="loading the embedding model and building indexes…")

    def tick(step: str, done: int, total: int) -> None:
        bar.progress(min(done / max(total, 1), 1.0), text=f"{step}: {done:,}/{total:,}")

    with st.spinner("Building search indexes (once per palace change)…"):
        eng.prepare(modes, progress=tick)
    bar.empty()


@st.cache_data(max_entries=512, show_spinner=False)
def _mode_run(path: str, distiller: str | None, embedder: str, content: str,
              queries: tuple[tuple[str, str], ...], mode: str, k: int) -> dict:
    return engine_for(path, distiller, embedder).run(dict(queries), mode, k)


def mode_runs(modes: Sequence[str], queries: Sequence[dict], k: int = 10) -> dict[str, dict]:
    """``{mode: run}`` over ``queries`` (``[{"query_id", "query"}]``), with progress."""
    prepare(modes)
    items = tuple((q["query_id"], q["query"]) for q in queries)
    key = (str(db_path()), distiller_version(), embedder_name(), content_key())
    bar = st.progress(0.0, text="running the modes…") if len(modes) > 3 else None
    runs = {}
    for i, mode in enumerate(modes, start=1):
        runs[mode] = _mode_run(*key, items, mode, k)
        if bar:
            bar.progress(i / len(modes), text=f"{i}/{len(modes)} modes · {mode}")
    if bar:
        bar.empty()
    return runs


@st.cache_resource(max_entries=4, show_spinner=False)
def _warm(path: str, distiller: str | None, embedder: str) -> threading.Thread:
    worker = engine_for(path, distiller, embedder).indexes.embed_queries
    thread = threading.Thread(target=worker, args=(["warm up the embedding model"],), daemon=True,
                              name="palace-lab-warm-model")
    thread.start()
    return thread


def warm_model() -> None:
    """Load the embedding model in the background (once per process), so the first query a
    person types does not wait for it; a query that comes sooner waits for the same load."""
    _warm(str(db_path()), distiller_version(), embedder_name())
