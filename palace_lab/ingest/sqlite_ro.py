"""Reading another application's SQLite database without ever writing or locking it for long.

The database is opened through a ``file:`` URI with ``mode=ro`` (SQLite refuses every write on
that connection and never creates a journal) and a short busy timeout. When the owner holds a
lock that keeps readers out (an exclusive lock, a rollback journal being committed) or the
database cannot be opened read-only (a WAL database whose ``-shm`` file is missing in a
read-only folder), the read is done again with ``immutable=1``: SQLite then takes no lock at all
and reads the main file as it is, without the changes still waiting in a ``-wal`` file. The
caller is told which way it was read.

Queries are kept short and targeted (key ranges on the unique key index) and each runs in its
own implicit transaction, so a shared lock is held only for the duration of one statement.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

SQLITE_MAGIC = b"SQLite format 3\x00"
BUSY_TIMEOUT_S = 0.5
T = TypeVar("T")


def is_sqlite(head: bytes) -> bool:
    return head.startswith(SQLITE_MAGIC)


def _connect(path: Path, immutable: bool) -> sqlite3.Connection:
    uri = Path(path).resolve().as_uri() + ("?mode=ro&immutable=1" if immutable else "?mode=ro")
    conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S, check_same_thread=False)
    conn.text_factory = lambda b: b.decode("utf-8", "replace")
    return conn


def _lock_problem(exc: sqlite3.OperationalError) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text or "unable to open" in text


def read_db(path: Path, reader: Callable[[sqlite3.Connection], T]) -> tuple[T, bool]:
    """``(reader(connection), read_immutably)``: read-only first, lock-free when locked out."""
    try:
        conn = _connect(path, immutable=False)
        try:
            return reader(conn), False
        finally:
            conn.close()
    except sqlite3.OperationalError as exc:
        if not _lock_problem(exc):
            raise
    conn = _connect(path, immutable=True)
    try:
        return reader(conn), True
    finally:
        conn.close()


def sniff_db(path: Path, head: bytes, holds: Callable[[sqlite3.Connection], object]) -> bool:
    """Whether ``path`` is a SQLite database for which ``holds(connection)`` is true; never
    raises (a sniffer is asked about every file)."""
    if not is_sqlite(head):
        return False
    try:
        return bool(read_db(path, holds)[0])
    except (sqlite3.Error, OSError):
        return False


def read_for_parse(path: Path, reader: Callable[[sqlite3.Connection], T], result) -> T:
    """:func:`read_db` for a parser: a database that cannot be read is not of its format
    (UnknownFormatError), and a lock-free read is counted in ``result`` (a ParseResult)."""
    from palace_lab.errors import UnknownFormatError

    try:
        value, immutable = read_db(path, reader)
    except sqlite3.DatabaseError as exc:
        raise UnknownFormatError(f"{path.name} is not a readable SQLite database ({exc})") from exc
    if immutable:
        result.skip("database_locked_read_without_lock")
    return value


def has_table(conn: sqlite3.Connection, name: str) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?",
                        (name,)).fetchone() is not None


def key_range(conn: sqlite3.Connection, table: str, prefix: str, limit: int | None = None):
    """``(key, value)`` rows whose key starts with ``prefix``, read through the key index."""
    end = prefix[:-1] + chr(ord(prefix[-1]) + 1)
    sql = f"SELECT key, value FROM {table} WHERE key >= ? AND key < ? ORDER BY key"  # noqa: S608
    if limit:
        sql += f" LIMIT {int(limit)}"
    return conn.execute(sql, (prefix, end)).fetchall()


def stat_fingerprint(path: Path) -> str:
    """A key over the database file and its ``-wal``: size and modification time of each (a
    database can hold gigabytes; hashing it on every run would cost more than reading it)."""
    h = hashlib.sha1()
    add_stats(h, (Path(path), Path(f"{path}-wal")))
    return h.hexdigest()


def add_stats(h, paths) -> None:
    """Feed ``h`` each path's name, size and modification time; a path gone is skipped."""
    for p in paths:
        try:
            st = p.stat()
        except OSError:
            continue
        h.update(f"{p.name}:{st.st_size}:{st.st_mtime_ns}\n".encode())
