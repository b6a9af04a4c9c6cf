"""Search from the pages: indexes prepared with visible progress, runs cached per mode.

A run depends on the palace's exchanges and cards (the engine's content key), the distiller
version, the embedder, the queries, the mode and k; never on the judgments, so grading
re-scores cached runs instead of searching again.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence

import streamlit as st

from palace_lab.search.background import BackgroundBuild, background_build
from palace_lab.search.modes import parse_mode
from ui.data import content_key
from ui.state import db_path, distiller_version, embedder_name, engine, engine_for, inline_embed


def ready(modes: Sequence[str]) -> bool:
    """True when every index the modes need is already built (so no long step is due)."""
    indexes = engine().indexes
    return all(indexes.is_cached(r.layer, r.mechanism) for m in modes for r in parse_mode(m).runs)


MEANWHILE = ("Embedding happens once per palace change: every vector is kept by its text, so "
             "later searches start at once. Meanwhile BM25 modes (`bm25:verbatim`, `bm25:core`) "
             "need no embedding, and Overview, Load & distill and Budgets work; leaving this "
             "page stops the run but keeps what is embedded, and the next search resumes there.")


def prepare(modes: Sequence[str]) -> None:
    """Load or build the indexes ``modes`` need; a progress bar shows embedding and building,
    with the time left from the step's own measured throughput and what works meanwhile."""
    from palace_lab.index.eta import Throughput

    eng = engine()
    if ready(modes):
        eng.prepare(modes)
        return
    note = st.caption(MEANWHILE)
    bar = st.progress(0.0, text="loading the embedding model and building indexes…")
    speed = Throughput()

    def tick(step: str, done: int, total: int) -> None:
        bar.progress(min(done / max(total, 1), 1.0), text=speed.note(step, done, total))

    with st.spinner("Building search indexes (once per palace change)…"):
        eng.prepare(modes, progress=tick)
    bar.empty()
    note.empty()


@st.cache_resource(max_entries=4, show_spinner=False)
def _background(path: str, distiller: str | None, embedder: str) -> BackgroundBuild:
    """In a child process (``PALACE_LAB_BACKGROUND=thread``: a thread of the server's own)."""
    return background_build(engine_for(path, distiller, embedder), path, distiller=distiller,
                            embedder=embedder, inline_embed=inline_embed(),
                            thread=os.environ.get("PALACE_LAB_BACKGROUND") == "thread")


def background() -> BackgroundBuild:
    """The background build of this palace's vector layers (one per process)."""
    return _background(str(db_path()), distiller_version(), embedder_name())


def prepare_search(modes: Sequence[str]) -> None:
    """Indexes for searching ``modes`` now: what builds in seconds (BM25, a small vector layer)
    is built here with progress; a vector run a search would leave out or search behind is
    built in the background (:func:`build_status` shows it) and the searches meanwhile run
    without it, each saying so."""
    eng = engine()
    if ready(modes):
        eng.prepare(modes)
        return
    background().start(modes)
    now = []
    for mode in modes:
        readiness = eng.readiness(mode)
        now += [str(r) for r in readiness.used.runs if r not in readiness.behind]
    prepare(list(dict.fromkeys(now)))


def ready_modes(modes: Sequence[str]) -> tuple[list[str], list[str]]:
    """``(ready, waiting)``: the modes whose every run can be searched now, and those waiting
    for a vector layer, which :func:`prepare_search` starts building in the background. A
    table of measured modes never holds one that ran without its layer."""
    prepare_search(modes)
    eng = engine()
    ready_now, waiting = [], []
    for mode in modes:
        (waiting if eng.readiness(mode).degraded else ready_now).append(mode)
    return ready_now, waiting


def build_status() -> None:
    """The background build's progress, refreshed every 2 s while it runs (nothing when idle)."""
    if background().running:
        st.fragment(_status, run_every=2.0)()
    else:
        _status()


def _status() -> None:
    status = background().status
    if status.running:
        st.session_state["bg_build_seen"] = True
        st.progress(status.fraction, text=status.note()[:1].upper() + status.note()[1:]
                    + ". Searches meanwhile run without it and say so.")
    elif status.error:
        st.warning(status.note(), icon=":material/error:")
    elif status.finished:
        st.caption(status.note()[:1].upper() + status.note()[1:] + ".")
    if not status.running and st.session_state.pop("bg_build_seen", False):
        st.rerun()  # the build just ended: search again with the whole mode


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
