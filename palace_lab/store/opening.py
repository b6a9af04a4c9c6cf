"""Opening a palace file: what counts as a palace, how a new one is made, how writers wait.

- An existing file must be a palace: another application's SQLite file is refused untouched,
  and an empty file (0 bytes, or SQLite without any table) unless the person asked for a new
  palace there.
- A new palace is made and migrated beside its path, then hard-linked into place, so a process
  that opens the path sees either no file or a whole palace, never a half-made one; when several
  processes race, the first link wins and the others use it.
- Each connection waits up to :data:`BUSY_TIMEOUT_MS` for a lock per attempt; a write waits up
  to :data:`WAIT_FOR_WRITER_S` in all (see :meth:`palace_lab.store.Palace.transaction`).
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

from palace_lab.errors import StoreError
from palace_lab.store.migrations import MIGRATIONS, migrate

BUSY_TIMEOUT_MS = 5000  # SQLite's own wait for a lock, per attempt
WAIT_FOR_WRITER_S = 600.0  # how long a write waits for other writers before giving up
PALACE_TABLES = {"sources", "conversations", "messages", "exchanges", "cards"}


def path_exists(path: Path) -> bool:
    try:
        path.stat()
    except FileNotFoundError:
        return False
    except OSError as exc:  # a symlink loop, a path through a file, a folder we may not read
        raise StoreError(f"cannot open the palace {path}: {exc.strerror or exc}") from None
    return True


def connect(path: Path) -> sqlite3.Connection:
    try:
        conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None,
                               timeout=BUSY_TIMEOUT_MS / 1000)
        conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.row_factory = sqlite3.Row
        conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
    except sqlite3.DatabaseError as exc:
        if "readonly" in str(exc):
            raise StoreError(f"the palace {path} is read-only (the file or its folder; SQLite "
                             "writes beside a WAL palace even to read it)") from None
        if "unable to open" in str(exc):
            raise StoreError(f"cannot open the palace {path} ({exc}): is the file or its folder"
                             " read-only or missing?") from None
        raise StoreError(f"{path} is not a palace file ({exc})") from None
    return conn


# SQLite caps a statement's variables (999 before 3.32): keys go to ``IN (...)`` in chunks.
IN_CHUNK = 500


def rows_in(conn: sqlite3.Connection, sql: str, keys, *leading) -> Iterator[sqlite3.Row]:
    """The rows of ``sql`` for every key of ``keys``, ``IN`` lists in chunks of IN_CHUNK.

    ``sql`` holds ``{marks}`` where the placeholders of one chunk go; ``leading`` are the
    parameters before them (e.g. a model or distiller name)."""
    keys = list(keys)
    for i in range(0, len(keys), IN_CHUNK):
        chunk = keys[i:i + IN_CHUNK]
        yield from conn.execute(sql.format(marks=",".join("?" * len(chunk))),
                                [*leading, *chunk])


def check_is_palace(conn: sqlite3.Connection, path: Path, adopt_empty: bool) -> None:
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > len(MIGRATIONS):
        return  # a palace from a newer palace_lab: migrate() says so
    if not tables and version == 0:
        if not adopt_empty:
            raise StoreError(f"{path} exists but is empty, not a palace; remove it or ask for "
                             "a new palace there (`palace-lab ingest ... --new-palace`)")
        conn.execute("PRAGMA journal_mode=WAL")
        return
    if not PALACE_TABLES <= tables:
        shown = ", ".join(sorted(tables)[:5]) or "none"
        raise StoreError(f"{path} is an SQLite file of another application (tables: {shown}),"
                         " not a palace; it was left unchanged")


def create_palace(path: Path) -> None:
    """A new, migrated palace made beside ``path`` and linked into place in one step."""
    path.parent.mkdir(parents=True, exist_ok=True)
    aside = path.with_name(f".{path.name}.new-{os.getpid()}-{threading.get_ident()}")
    try:
        conn = sqlite3.connect(aside, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            migrate(conn)
        finally:
            conn.close()
        _link_into_place(aside, path)
    except sqlite3.Error as exc:
        raise StoreError(f"cannot create the palace {path}: {exc}") from None
    finally:
        for leftover in (aside, aside.with_name(aside.name + "-wal"),
                         aside.with_name(aside.name + "-shm")):
            leftover.unlink(missing_ok=True)


def _link_into_place(aside: Path, path: Path) -> None:
    """Put the finished palace at ``path`` unless one is there already (another process made it
    first: theirs is as good as ours). A file system without hard links gets a rename."""
    try:
        os.link(aside, path)
    except FileExistsError:
        pass
    except OSError:
        if not path.exists():
            os.replace(aside, path)


def is_busy(exc: sqlite3.OperationalError) -> bool:
    text = str(exc)
    return "locked" in text or "busy" in text


def store_error(path: Path, exc: sqlite3.Error) -> StoreError:
    if "readonly" in str(exc):
        return StoreError(f"the palace {path} is read-only (the file or its folder): {exc}")
    if "full" in str(exc):
        return StoreError(f"the disk holding the palace {path} is full: {exc}; nothing of this"
                          " write was kept")
    return StoreError(f"cannot write to the palace {path}: {exc}")
