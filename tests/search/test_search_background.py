"""A vector layer missing from a search is built in the background on its own connection while
searches go on with what exists and say so; once built, the full mode runs (fake embedder)."""

from __future__ import annotations

import threading

import pytest
from marker_palace import tiny  # noqa: F401  (fixture)

from palace_lab.search import DEFAULT_MODE, SearchEngine
from palace_lab.search.background import BackgroundBuild, BuildStatus
from palace_lab.search.modes import PureMode
from palace_lab.store import Palace

VERBATIM = PureMode("hnsw", "verbatim")


def _builder(path, **kwargs):
    return lambda: SearchEngine(Palace.open(path, create=False), embedder="fake", **kwargs)


def test_builds_the_missing_run_then_the_full_mode_runs(tiny, tmp_path):  # noqa: F811
    palace = tiny[0]
    engine = SearchEngine(palace, embedder="fake", inline_embed=0)
    build = BackgroundBuild(engine, _builder(tmp_path / "palace.db"))
    assert list(build.needed([DEFAULT_MODE])) == [VERBATIM]
    assert build.start([DEFAULT_MODE])
    build.join(30)
    status = build.status
    assert not status.running and not status.error, status
    assert status.finished == ("hnsw:verbatim",)
    assert "built in the background: hnsw:verbatim" in status.note()
    assert not engine.building
    answer = engine.answer("zebrafish quokka", DEFAULT_MODE, k=3)  # the searching engine
    assert not answer.readiness.degraded
    assert not build.start([DEFAULT_MODE])  # nothing lacks any more


def test_while_building_searches_use_what_exists_and_say_so(tiny, tmp_path):  # noqa: F811
    palace = tiny[0]
    engine = SearchEngine(palace, embedder="fake", inline_embed=0)
    release, entered = threading.Event(), threading.Event()

    class Held:  # a builder engine that waits until the test lets it build
        def __init__(self):
            self.inner = _builder(tmp_path / "palace.db")()
            self.palace = self.inner.palace

        def prepare(self, modes, progress=None):
            progress("embedding verbatim", 1, 4)
            entered.set()
            release.wait(30)
            self.inner.prepare(modes, progress=progress)

    build = BackgroundBuild(engine, Held)
    assert build.start([DEFAULT_MODE])
    assert entered.wait(30)
    assert build.running and not build.start([DEFAULT_MODE])  # one build at a time
    assert engine.building == {VERBATIM: 3}  # the texts left, from the build's progress
    answer = engine.answer("zebrafish quokka", DEFAULT_MODE, k=3)
    assert answer.readiness.missing == (VERBATIM,) and answer.readiness.pending == (3,)
    assert "building hnsw:verbatim in the background (embedding verbatim 1/4)" == \
        build.status.note()
    release.set()
    build.join(30)
    assert not engine.answer("zebrafish quokka", DEFAULT_MODE, k=3).readiness.degraded


def test_a_failed_build_is_reported_and_searches_go_on(tiny):  # noqa: F811
    engine = SearchEngine(tiny[0], embedder="fake", inline_embed=0)

    def broken():
        raise OSError("disk full")

    build = BackgroundBuild(engine, broken)
    assert build.start([DEFAULT_MODE])
    build.join(30)
    assert "stopped: disk full" in build.status.note() and not build.running
    assert not engine.building
    assert engine.answer("quokka", DEFAULT_MODE, k=2).readiness.missing == (VERBATIM,)


def test_status_note_lists_what_comes_next():
    status = BuildStatus(runs=("hnsw:verbatim", "hnsw:core"), run="hnsw:verbatim",
                         step="embedding verbatim", done=10, total=40, running=True)
    assert status.note() == ("building hnsw:verbatim in the background (embedding verbatim "
                             "10/40); then hnsw:core")
    assert status.fraction == 0.25
    assert BuildStatus().note() == ""


def test_the_build_runs_at_a_lower_cpu_priority_than_the_pages(tiny, tmp_path):  # noqa: F811
    """Embedding on both cores slowed each page rendered meanwhile several times over (Tuning
    2.5 s → 14 s at 50,000 exchanges); the build thread and what it starts are niced."""
    import os
    import sys

    import pytest

    from palace_lab.search.background import NICE

    if not sys.platform.startswith("linux"):
        pytest.skip("per-thread priorities are Linux's")
    seen = {}
    inner = _builder(tmp_path / "palace.db")

    class Watched:
        def __init__(self):
            self.inner = inner()
            self.palace = self.inner.palace

        def prepare(self, modes, progress=None):
            seen["build"] = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
            child = threading.Thread(target=lambda: seen.setdefault(
                "child", os.getpriority(os.PRIO_PROCESS, threading.get_native_id())))
            child.start()
            child.join()
            self.inner.prepare(modes, progress=progress)

    engine = SearchEngine(tiny[0], embedder="fake", inline_embed=0)
    build = BackgroundBuild(engine, Watched)
    assert build.start([DEFAULT_MODE])
    build.join(30)
    ours = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    assert seen == {"build": min(ours + NICE, 19), "child": min(ours + NICE, 19)}
    assert not build.status.error


def test_the_app_builds_in_a_niced_child_process_and_searches_see_its_index(tiny, tmp_path):  # noqa: F811
    """A build thread shares the server's interpreter lock and its loaded model's thread pools
    with every page (a cold Lifecycle page at 50,000 exchanges: 24.8 s beside a thread build,
    17.2 s beside a child process): the app's builder is a real child process, at a lower
    priority, whose progress reaches the status line by line."""
    import os
    import sys

    from palace_lab.search.background import NICE, ProcessBuilder

    engine = SearchEngine(tiny[0], embedder="fake", inline_embed=0)
    ticks, seen = [], {}

    class Watched(ProcessBuilder):  # the real child; the test only looks at its priority
        def __init__(self):
            super().__init__(tmp_path / "palace.db", distiller=None, embedder="fake",
                             inline_embed=0)

        def prepare(self, runs, progress=None):
            def tick(step, done, total):
                ticks.append((step, done, total))
                if sys.platform.startswith("linux") and "nice" not in seen:
                    seen["nice"] = os.getpriority(os.PRIO_PROCESS, self.pid)
                if progress:
                    progress(step, done, total)
            super().prepare(runs, tick)

    build = BackgroundBuild(engine, Watched, close_engine=ProcessBuilder.close)
    assert build.start([DEFAULT_MODE])
    build.join(60)
    assert not build.status.error and build.status.finished == ("hnsw:verbatim",), build.status
    assert ticks and all(isinstance(n, int) for _, n, _ in ticks)
    if sys.platform.startswith("linux"):
        assert seen["nice"] == min(os.getpriority(os.PRIO_PROCESS, 0) + NICE, 19)
    assert not engine.answer("zebrafish quokka", DEFAULT_MODE, k=3).readiness.degraded


def test_a_failed_child_build_says_why(tmp_path):
    from palace_lab.errors import SearchError
    from palace_lab.search.background import ProcessBuilder

    builder = ProcessBuilder(tmp_path / "absent.db", distiller=None, embedder="fake")
    with pytest.raises(SearchError, match=r"cannot open .*absent\.db"):
        builder.prepare(["hnsw:verbatim"])
    assert builder.pid is not None


def test_an_unbuilt_graph_is_searched_exactly_while_it_builds(tiny, tmp_path, monkeypatch):  # noqa: F811
    """Vectors stored, graph never built, a large layer: searches read the vectors exactly
    while the background builds the graph, then the graph is used."""
    from palace_lab.search import readiness as planning

    palace = tiny[0]
    SearchEngine(palace, embedder="fake", cache=False).prepare(["exact:verbatim"])  # stores vectors
    monkeypatch.setattr(planning, "INLINE_GRAPH_ROWS", 0)
    engine = SearchEngine(palace, embedder="fake", inline_embed=4)
    release, entered = threading.Event(), threading.Event()

    class Held:
        def __init__(self):
            self.inner = _builder(tmp_path / "palace.db")()
            self.palace = self.inner.palace

        def prepare(self, modes, progress=None):
            entered.set()
            release.wait(30)
            self.inner.prepare(modes, progress=progress)

    build = BackgroundBuild(engine, Held)
    assert build.needed([DEFAULT_MODE]) == {VERBATIM: 0}
    assert build.start([DEFAULT_MODE]) and entered.wait(30)
    during = engine.answer("zebrafish quokka", DEFAULT_MODE, k=3).readiness
    assert during.exact == (VERBATIM,) and not during.missing
    release.set()
    build.join(30)
    assert not build.status.error, build.status
    assert not engine.answer("zebrafish quokka", DEFAULT_MODE, k=3).readiness.degraded
