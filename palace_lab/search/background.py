"""Vector layers built in the background while searches answer with what exists.

At 50,000 exchanges embedding the verbatim layer takes hours on this machine's 2 cores, so a
search never waits for it (:mod:`palace_lab.search.readiness`: the run is *missing* or *behind*).
:class:`BackgroundBuild` builds those runs in a daemon thread, on its own palace connection and
its own engine (so the searching engine's lock is never held for the build's minutes): the
embeddings are stored in the palace (by content hash, so a stopped build resumes where it
was) and the index files land in the palace's index cache, where the searching engine finds
them at its next search. While the build runs, the searching engine takes the number of texts
left from the build's progress (:attr:`SearchEngine.building`) instead of counting them again
at every search, and keeps treating the run as missing or behind until its index exists.
The build thread runs at a lower CPU priority (:func:`lower_priority`), so the pages rendered
meanwhile are not slowed by the embedding. The app builds in a child process
(:class:`ProcessBuilder`, ``python -m palace_lab.search.background``): a thread of the server's
own process shares its interpreter lock and its model's thread pools with every page, and a
niced thread does not nice the threads an already loaded model started.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from palace_lab.errors import SearchError
from palace_lab.search.modes import PureMode
from palace_lab.settings import DEFAULT_EMBEDDER


@dataclass(frozen=True)
class BuildStatus:
    """What the background build is doing: ``runs`` it builds, the one at hand (``run``), its
    step (``"embed"``, ``"hnsw"``, …) with ``done``/``total``, ``finished`` runs, ``error``."""

    runs: tuple[str, ...] = ()
    run: str = ""
    step: str = ""
    done: int = 0
    total: int = 0
    finished: tuple[str, ...] = ()
    running: bool = False
    error: str = ""

    def note(self) -> str:
        """One line for a person ("" when nothing was started)."""
        if self.error:
            return f"the background build of {self.run or ', '.join(self.runs)} stopped: " \
                   f"{self.error}"
        if self.running:
            left = ", ".join(r for r in self.runs if r not in self.finished and r != self.run)
            then = f"; then {left}" if left else ""
            where = f" ({self.step} {self.done:,}/{self.total:,})" if self.total else ""
            return f"building {self.run} in the background{where}{then}"
        if self.finished:
            return f"built in the background: {', '.join(self.finished)}"
        return ""

    @property
    def fraction(self) -> float:
        return min(self.done / self.total, 1.0) if self.total else 0.0


NICE = 10  # added to the build thread's niceness: a page or a search gets the cores first


def lower_priority() -> bool:
    """Lower the calling thread's CPU priority by :data:`NICE` (Linux schedules threads on their
    own, and the threads it starts, the embedder's among them, inherit it); False elsewhere."""
    try:
        me = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, me, min(os.getpriority(os.PRIO_PROCESS, me) + NICE, 19))
    except (AttributeError, OSError):  # no per-thread priority here, or not allowed
        return False
    return True


class BackgroundBuild:
    """Builds the runs ``engine`` leaves out (or searches behind) for some modes, in a thread.

    ``open_engine()`` makes the builder's own engine (on its own palace connection, opened in
    the thread); it is closed by ``close_engine(engine)`` when the build ends.
    """

    def __init__(self, engine, open_engine: Callable[[], object],
                 close_engine: Callable[[object], None] = lambda e: e.palace.close()):
        self.engine = engine
        self._open, self._close = open_engine, close_engine
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._status = BuildStatus()

    @property
    def status(self) -> BuildStatus:
        return self._status

    @property
    def running(self) -> bool:
        return self._status.running

    def needed(self, modes: Iterable) -> dict[PureMode, int]:
        """``{run: texts to embed}`` of the vector runs of ``modes`` a search would leave out,
        search behind, or search exactly for want of its graph (0 texts) right now."""
        runs: dict[PureMode, int] = {}
        for mode in modes:
            ready = self.engine.readiness(mode)
            runs.update(zip(ready.missing, ready.pending))
            runs.update(zip(ready.behind, ready.behind_pending))
            runs.update((run, 0) for run in ready.exact)
        return runs

    def start(self, modes: Iterable) -> bool:
        """Start building what ``modes`` lack (False: a build is running or nothing lacks)."""
        with self._lock:
            if self.running:
                return False
            runs = self.needed(modes)
            if not runs:
                return False
            # a run with texts to embed is planned as missing (or behind) while it builds; a
            # graph over stored vectors (0 texts) is searched exactly meanwhile
            self.engine.building.update({run: max(n, 1) if n else 0 for run, n in runs.items()})
            runs = list(runs)
            self._status = BuildStatus(runs=tuple(str(r) for r in runs), run=str(runs[0]),
                                       running=True)
            self._thread = threading.Thread(target=self._work, args=(runs,), daemon=True,
                                            name="palace-lab-background-build")
            self._thread.start()
            return True

    def join(self, timeout: float | None = None) -> None:
        if self._thread:
            self._thread.join(timeout)

    def _work(self, runs: list[PureMode]) -> None:
        builder = None
        lower_priority()
        try:
            builder = self._open()
            for run in runs:
                self._status = replace(self._status, run=str(run), step="", done=0, total=0)
                builder.prepare([run], progress=self._tick(run))
                self.engine.building.pop(run, None)
                self._status = replace(self._status, finished=(*self._status.finished, str(run)))
            self._status = replace(self._status, running=False, run="")
        except Exception as exc:  # shown to the person; the searches go on without the run
            self._status = replace(self._status, running=False, error=f"{exc}")
        finally:
            for run in runs:
                self.engine.building.pop(run, None)
            if builder is not None:
                self._close(builder)

    def _tick(self, run: PureMode):
        def progress(step: str, done: int, total: int) -> None:
            self._status = replace(self._status, step=step, done=done, total=total)
            if step.startswith("embed"):
                self.engine.building[run] = max(total - done, 1)
        return progress


def background_build(engine, path: str | Path, *, distiller: str | None, embedder: str,
                     inline_embed: float | None = None, thread: bool = False) -> BackgroundBuild:
    """The background build of the palace at ``path`` beside ``engine``: in a child process
    (:class:`ProcessBuilder`), or with ``thread`` in a thread of this process, on its own
    connection and engine."""
    if thread:
        return BackgroundBuild(engine, lambda: open_engine(path, distiller, embedder,
                                                           inline_embed))
    return BackgroundBuild(engine, lambda: ProcessBuilder(path, distiller=distiller,
                                                          embedder=embedder,
                                                          inline_embed=inline_embed),
                           close_engine=ProcessBuilder.close)


def open_engine(path: str | Path, distiller: str | None, embedder: str,
                inline_embed: float | None):
    """A search engine of its own on the palace at ``path`` (a builder's)."""
    from palace_lab.search import SearchEngine
    from palace_lab.store import Palace

    return SearchEngine(Palace.open(path, create=False), distiller=distiller,
                        embedder=embedder, inline_embed=inline_embed)


class ProcessBuilder:
    """A builder for :class:`BackgroundBuild` that builds in a child process at a lower
    priority (:func:`main`), its progress read from the child's output line by line; its
    last lines are the error when it fails. The child is stopped with the thread that started
    it (Linux), so a stopped server leaves no build behind."""

    def __init__(self, path: str | Path, *, distiller: str | None, embedder: str,
                 inline_embed: float | None = None):
        self.path, self.distiller, self.embedder = str(path), distiller, embedder
        self.inline_embed = inline_embed
        self.pid: int | None = None  # the child building now (or last)

    def command(self, runs: Sequence) -> list[str]:
        cmd = [sys.executable, "-m", "palace_lab.search.background", self.path,
               "--embedder", self.embedder, "--nice", str(child_niceness())]
        if self.distiller:
            cmd += ["--distiller", self.distiller]
        if self.inline_embed is not None:
            cmd += ["--inline-embed", str(self.inline_embed)]
        return cmd + [str(r) for r in runs]

    def prepare(self, runs: Sequence, progress: Callable[[str, int, int], None] | None = None
                ) -> None:
        last: deque[str] = deque(maxlen=5)
        with subprocess.Popen(self.command(runs), stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True,
                              bufsize=1) as child:
            self.pid = child.pid
            for line in child.stdout:
                tick = _progress_line(line)
                if tick is None:
                    last.append(line.rstrip())
                elif progress:
                    progress(*tick)
        if child.returncode:
            told = next((t for t in reversed(last) if t.strip()), "")
            raise SearchError(told or f"the build process exited with {child.returncode}")

    def close(self) -> None:
        """Nothing to close: the child closed its palace when it ended."""


def _progress_line(line: str) -> tuple[str, int, int] | None:
    """``(step, done, total)`` of a progress line of the child, None for any other line."""
    if not line.startswith('{"step"'):
        return None
    try:
        tick = json.loads(line)
        return str(tick["step"]), int(tick["done"]), int(tick["total"])
    except (ValueError, KeyError, TypeError):
        return None


def child_niceness() -> int:
    """The niceness of a build process: the server's (its main thread's) plus :data:`NICE`,
    whichever thread starts it (the build thread is niced already)."""
    try:
        return min(os.getpriority(os.PRIO_PROCESS, os.getpid()) + NICE, 19)
    except (AttributeError, OSError):
        return NICE


def _detach(niceness: int) -> None:
    """In the child: ``niceness``, and ended when the thread that started it ends."""
    try:
        if os.getpriority(os.PRIO_PROCESS, 0) < niceness:
            os.setpriority(os.PRIO_PROCESS, 0, niceness)
    except (AttributeError, OSError):
        pass
    try:
        import ctypes
        import signal

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: the build runs to its end
        pass


def main(argv: list[str] | None = None) -> int:
    """Build the named runs' indexes of a palace, one JSON progress line per tick on stdout."""
    parser = argparse.ArgumentParser(prog="python -m palace_lab.search.background",
                                     description=main.__doc__)
    parser.add_argument("db")
    parser.add_argument("runs", nargs="+", help="pure modes, e.g. hnsw:verbatim")
    parser.add_argument("--distiller")
    parser.add_argument("--embedder", default=DEFAULT_EMBEDDER)
    parser.add_argument("--inline-embed", type=float)
    parser.add_argument("--nice", type=int, default=NICE, help="the niceness to run at")
    args = parser.parse_args(argv)
    _detach(args.nice)

    def progress(step: str, done: int, total: int) -> None:
        print(json.dumps({"step": step, "done": done, "total": total}), flush=True)

    try:
        engine = open_engine(args.db, args.distiller, args.embedder, args.inline_embed)
    except Exception as exc:  # said on the last line: the parent shows it
        print(f"cannot open {args.db}: {exc}", flush=True)
        return 1
    try:
        engine.prepare(args.runs, progress=progress)
    except Exception as exc:
        print(f"{type(exc).__name__}: {exc}", flush=True)
        return 1
    finally:
        engine.palace.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
