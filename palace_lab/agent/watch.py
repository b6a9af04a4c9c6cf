"""Live ingest: follow history folders as they grow, so recent work is recallable at once.

``palace-lab watch PATH... --db DB`` (``~/.claude/projects``, ``~/.codex/sessions``):

1. A first pass ingests every candidate file under the paths (unchanged files are skipped by
   their SHA-1, so a restart costs one hash per file); ``--once`` stops after it.
2. Then file events (watchfiles, debounced) name the files that changed; each pass ingests
   those, distills the pending exchanges with the default distiller, and warms the default
   search mode's indexes. Embeddings are cached by content hash, so only the new exchanges
   are embedded; BM25 and HNSW are rebuilt from cached vectors (seconds at 15k exchanges).
3. Each pass is one line on stderr and a ``watch:last`` record in the palace (what the app
   can show: when, what was ingested, what is pending, what failed).

What it survives: a file that vanishes before it is read (counted, skipped; the palace keeps
what it archived), a half-written last line (the parser skips it; the file's next change brings
it in whole), a file replaced or rotated (read again as it now is), a file that *shrank* (left
alone: the palace keeps the longer archived version; ``palace-lab ingest`` replaces it on
purpose), an unreadable or unknown file (reported), and errors in one pass (logged; a file
that failed, or a distill or index step that failed, is tried again every few seconds). SIGINT/SIGTERM set a stop event: the current step ends (a distill stops between
batches; every write is one transaction), then the watcher returns.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from palace_lab.errors import NothingToIngestError, PalaceError
from palace_lab.settings import DEFAULT_EMBEDDER

if TYPE_CHECKING:
    from palace_lab.store import Palace

STATUS_KEY = "watch:last"
DEFAULT_DEBOUNCE_MS = 1500
RETRY_SECONDS = 5.0


@dataclass
class PassReport:
    """One pass of the watcher."""

    at: str = ""
    files: int = 0
    ingested: int = 0
    new_exchanges: int = 0
    distilled: int = 0
    pending: int = 0
    vanished: int = 0
    shrunk: int = 0
    deleted: int = 0
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return {**asdict(self), "seconds": round(self.seconds, 2)}

    def line(self) -> str:
        parts = [f"{self.files} files", f"{self.ingested} ingested",
                 f"+{self.new_exchanges} exchanges", f"{self.distilled} distilled"]
        parts += [f"{n} {name}" for name, n in (("pending", self.pending),
                  ("vanished", self.vanished), ("shrunk", self.shrunk),
                  ("deleted", self.deleted), ("errors", len(self.errors))) if n]
        return f"watch: {', '.join(parts)} in {self.seconds:.1f} s"


def wanted(path: Path) -> bool:
    """A file the ingest would offer its parsers (the rules of ``ingest.discover``): under an
    agent location, one of its history files; a database's ``-wal`` stands for the database."""
    from palace_lab.ingest import CANDIDATE_SUFFIXES
    from palace_lab.ingest.homes import selected

    path = _without_wal(path)
    chosen = selected(path)
    if chosen is not None:
        return chosen
    return path.suffix.lower() in CANDIDATE_SUFFIXES and "tool-results" not in path.parts


def _without_wal(path: Path) -> Path:
    # SQLite writes land in the -wal file first: the database is what changed.
    return path.with_name(path.name[:-4]) if path.name.endswith("-wal") else path


def _owning_source(path: Path) -> Path | None:
    """The file to ingest for a changed file: an OpenCode message or part file stands for its
    session file (the parser reads the rest beside it); None when that cannot be told."""
    from palace_lab.ingest.opencode import is_session_part, session_file_of

    path = _without_wal(path)
    try:
        return session_file_of(path) if is_session_part(path) else path
    except OSError:
        return path


class Watcher:
    """Ingest → distill → warm indexes for the files under ``paths`` (see the module docstring)."""

    def __init__(self, palace: Palace, paths: Iterable[str | Path], *, distiller: str = "rules",
                 embedder: str = DEFAULT_EMBEDDER, mode: str | None = None, warm: bool = True,
                 log: Callable[[str], None] | None = None,
                 clock: Callable[[], float] = time.monotonic):
        self.palace = palace
        self.clock = clock  # seconds; a test passes its own to step past RETRY_SECONDS
        self.roots = [Path(p).expanduser() for p in paths]
        self.distiller_name, self.embedder, self.mode = distiller, embedder, mode
        self.warm = warm
        self.log = log or (lambda line: print(line, file=sys.stderr, flush=True))
        self.stop = threading.Event()
        self.passes: list[PassReport] = []
        self._engine = None
        self._retry: set[Path] = set()  # files whose ingest failed (a locked palace, …)
        self._dirty = False  # a distill or index step failed: run it again
        self._last_pass = 0.0

    # -- one pass -------------------------------------------------------------------------

    def scan(self) -> PassReport:
        """Every candidate file under the roots (the first pass, and ``--once``)."""
        from palace_lab.ingest import discover

        return self.apply(discover([r for r in self.roots if r.exists()]), [])

    def apply(self, changed: Iterable[Path], deleted: Iterable[Path] = ()) -> PassReport:
        """Ingest ``changed`` files, distill, warm indexes; record and return the pass."""
        from palace_lab.ingest.claude_code import is_attached_subagent

        start, report = time.perf_counter(), PassReport()
        report.deleted = len(list(deleted))
        again, self._dirty = self._dirty, False
        for path in sorted(set(filter(None, map(_owning_source, changed)))):
            if self.stop.is_set():
                break
            try:
                if is_attached_subagent(path):  # its parent session file brings it in
                    continue
            except OSError:
                report.vanished += 1
                continue
            report.files += 1
            self._ingest(path, report)
        if not self.stop.is_set() and (report.ingested or again or not self.passes):
            self._guard(report, "distill", self._distill)
        if self.warm and not self.stop.is_set() and (report.ingested or again or not self.passes):
            self._guard(report, "index", self._warm)
        report.seconds = time.perf_counter() - start
        report.at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        self._record(report)
        return report

    def _ingest(self, path: Path, report: PassReport) -> None:
        from palace_lab.ingest import ingest_file

        try:
            if self._shrank(path):
                report.shrunk += 1
                return
            source = ingest_file(self.palace, path, "auto", explicit=False)
        except FileNotFoundError:
            report.vanished += 1
            return
        except Exception as exc:  # noqa: BLE001 - one bad file never stops the watcher
            report.errors.append(f"{path}: {type(exc).__name__}: {exc}")
            self._retry.add(path)
            return
        self._retry.discard(path)
        if source.conversations:
            report.ingested += 1
            report.new_exchanges += source.new_exchanges
        elif source.error and not source.unchanged and "is empty" not in source.error:
            report.errors.append(f"{path}: {source.error}")

    def _shrank(self, path: Path) -> bool:
        row = self.palace.conn.execute("SELECT size FROM sources WHERE path=?",
                                       (str(path),)).fetchone()
        return bool(row) and path.stat().st_size < row[0]

    def _distill(self, report: PassReport) -> None:
        from palace_lab.distill import get_distiller
        from palace_lab.distill.pipeline import distill_palace
        from palace_lab.budget import keep_budget

        summary = distill_palace(self.palace, get_distiller(self.distiller_name),
                                 should_stop=self.stop.is_set, keep=keep_budget)
        report.distilled = summary.made
        report.pending = summary.total - summary.made

    def _warm(self, report: PassReport) -> None:
        from palace_lab.experiments.prefs import search_mode
        from palace_lab.search import SearchEngine

        mode = self.mode or search_mode(self.palace.path)
        if self._engine is None:
            self._engine = SearchEngine(self.palace, embedder=self.embedder)
            self._engine.search("warm up", mode, 1)  # loads the model before the first append
        self._engine.prepare([mode])

    def _guard(self, report: PassReport, step: str, fn) -> None:
        try:
            fn(report)
        except Exception as exc:  # noqa: BLE001 - logged; the next pass tries again
            report.errors.append(f"{step}: {type(exc).__name__}: {exc}")
            self._dirty = True

    def _record(self, report: PassReport) -> None:
        self._last_pass = self.clock()
        self.passes.append(report)
        self.log(report.line())
        for error in report.errors[:5]:
            self.log(f"  {error}")
        try:
            self.palace.kv_set(STATUS_KEY, json.dumps(report.to_dict()))
        except Exception as exc:  # noqa: BLE001 - a busy palace must not stop the watcher
            self.log(f"  could not record the pass: {exc}")

    # -- following --------------------------------------------------------------------------

    def existing_roots(self) -> list[Path]:
        existing = [r for r in self.roots if r.exists()]
        for missing in sorted(set(self.roots) - set(existing)):
            self.log(f"watch: {missing} does not exist; not watched")
        if not existing:
            raise NothingToIngestError("none of the paths to watch exists: "
                                       + ", ".join(str(r) for r in self.roots))
        return existing

    def run(self, *, once: bool = False, debounce_ms: int = DEFAULT_DEBOUNCE_MS) -> list[PassReport]:
        """The first pass, then (unless ``once``) a pass per debounced batch of file events
        until :attr:`stop` is set."""
        import watchfiles

        from palace_lab.ingest.homes import watch_folders

        roots = watch_folders(self.existing_roots())
        if once:
            self.scan()
            return self.passes
        # The first pass runs once the watcher is registered (its first, empty, timeout
        # batch), so a file written during that pass is seen again, never missed.
        for changes in watchfiles.watch(*roots, watch_filter=lambda _c, p: wanted(Path(p)),
                                        debounce=debounce_ms, stop_event=self.stop,
                                        raise_interrupt=False, rust_timeout=1000,
                                        yield_on_timeout=True):
            if not self.passes:
                self.scan()
                self.log(f"watch: following {', '.join(str(r) for r in roots)} (Ctrl-C stops)")
            if changes:
                self._apply_events(changes)
            elif (self._retry or self._dirty) and \
                    self.clock() - self._last_pass > RETRY_SECONDS:
                self.apply({p for p in self._retry if p.exists()})
                self._retry = {p for p in self._retry if p.exists()}
            if self.stop.is_set():
                break
        return self.passes

    def _apply_events(self, changes) -> None:
        from watchfiles import Change

        changed = {Path(p) for c, p in changes if c != Change.deleted}
        gone = {Path(p) for c, p in changes if c == Change.deleted}
        back = {p for p in gone if p.exists()}  # deleted, then written again (rotation)
        self.apply((changed - gone) | back, gone - back)


def last_status(palace: Palace) -> dict | None:
    """The watcher's last pass as recorded in the palace (None if it never ran)."""
    raw = palace.kv_get(STATUS_KEY)
    try:
        return json.loads(raw) if raw else None
    except ValueError:
        raise PalaceError(f"the palace's {STATUS_KEY} record is not JSON") from None
