"""Figures computed from one exchange or one card, kept by its content hash beside the palace.

A token count, a ``specific_context`` check or a tool-call compression depends only on the text
it was computed from, so it is kept under that text's hash (the exchange's or the card's
``hash`` column, both read from indexes without touching any text). After a change only the
rows with a new hash are computed; a page at 50,000 exchanges reads figures instead of counting
tokens again (27 s at that size).

The rows live in ``<palace>.indexes/memo.sqlite``, one table per kind of figure
(``<kind>__<version>``): the version is :func:`code_version` of the modules that compute it, so
a table made by other code is never read, and it is dropped when its kind's new table is made.
The file is derived: deleting it costs one recount, and a damaged file is set aside and made
again.
"""

from __future__ import annotations

import importlib
import inspect
import re
import sqlite3
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from palace_lab.errors import StoreError
from palace_lab.model import content_hash
from palace_lab.store.opening import BUSY_TIMEOUT_MS, rows_in

if TYPE_CHECKING:
    from palace_lab.store import Palace

FILE = "memo.sqlite"
FILL_CHUNK = 5_000  # keys computed (and their texts held) at a time
SCAN_FROM = 2_000  # more keys than this are looked up in one read of the whole table
_NAME = re.compile(r"^[a-z0-9][a-z0-9_]*$")
_LOCK = threading.Lock()


def code_version(*modules: str) -> str:
    """A hash of the modules' source: figures (or files) made by other code are never read."""
    return content_hash(*(inspect.getsource(importlib.import_module(m)) for m in modules))[:8]


class Memo:
    """One kind of figure: ``columns`` (integers or text) per content hash, made by the code of
    ``version`` (see :func:`code_version`)."""

    def __init__(self, palace: Palace, kind: str, version: str, columns: Sequence[str]):
        for name in (kind, version, *columns):
            if not _NAME.match(name):
                raise StoreError(f"memo names are lowercase identifiers, not {name!r}")
        self.kind, self.table, self.columns = kind, f"{kind}__{version}", tuple(columns)
        self.path = palace.derived_root / FILE

    def get(self, keys: Iterable[str]) -> dict[str, tuple]:
        """The figures held for ``keys`` (those that have some)."""
        keys = list(dict.fromkeys(keys))
        try:
            with self._connect() as conn:
                select = f"SELECT key, {', '.join(self.columns)} FROM {self.table}"
                if len(keys) > SCAN_FROM:  # one pass over the table beats 100 IN lists
                    wanted = set(keys)
                    return {row[0]: row[1:] for row in conn.execute(select) if row[0] in wanted}
                rows = rows_in(conn, select + " WHERE key IN ({marks})", keys)
                return {row[0]: tuple(row[1:]) for row in rows}
        except (sqlite3.OperationalError, OSError):  # locked too long, a folder we may not write
            return {}
        except sqlite3.DatabaseError:
            self._set_aside()
            return {}

    def put(self, figures: Mapping[str, Sequence]) -> None:
        """Keep ``{key: values}`` (one value per column); a failed write loses only time."""
        if not figures:
            return
        marks = ", ".join("?" * (len(self.columns) + 1))
        try:
            with self._connect() as conn:
                conn.execute("BEGIN IMMEDIATE")
                conn.executemany(f"INSERT OR REPLACE INTO {self.table} VALUES ({marks})",
                                 [(k, *v) for k, v in figures.items()])
                conn.execute("COMMIT")
        except (sqlite3.OperationalError, OSError):
            pass
        except sqlite3.DatabaseError:
            self._set_aside()

    def fill(self, keys: Iterable[str],
             compute: Callable[[list[str]], Mapping[str, Sequence]]) -> dict[str, tuple]:
        """The figures of ``keys``: those held, and ``compute(missing keys)`` for the others,
        kept for next time."""
        keys = list(dict.fromkeys(keys))
        found = self.get(keys)
        missing = [k for k in keys if k not in found]
        for i in range(0, len(missing), FILL_CHUNK):  # kept as it goes: an interrupted fill resumes
            made = {k: tuple(v) for k, v in compute(missing[i:i + FILL_CHUNK]).items()}
            self.put(made)
            found.update(made)
        return found

    def _connect(self) -> _Connection:
        return _Connection(self.path, self.kind, self.table, self.columns)

    def _set_aside(self) -> None:
        """A damaged file is renamed (never read again) so the next call starts a new one."""
        with _LOCK:
            try:
                self.path.replace(self.path.with_name(f"{FILE}.damaged"))
                for suffix in ("-wal", "-shm"):
                    self.path.with_name(f"{FILE}{suffix}").unlink(missing_ok=True)
            except OSError:
                pass


class _Connection:
    """A short-lived connection with the table made if missing, closed on exit."""

    def __init__(self, path: Path, kind: str, table: str, columns: tuple[str, ...]):
        self.path, self.kind, self.table, self.columns = path, kind, table, columns
        self.conn: sqlite3.Connection | None = None

    def __enter__(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.conn = sqlite3.connect(self.path, isolation_level=None,
                                    timeout=BUSY_TIMEOUT_MS / 1000)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=NORMAL")
        tables = {name for (name,) in self.conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name LIKE ? ESCAPE '!'",
            (self.kind.replace("_", "!_") + "!_!_%",))}
        if self.table not in tables:
            self.conn.execute(f"CREATE TABLE IF NOT EXISTS {self.table} (key TEXT PRIMARY KEY, "
                              f"{', '.join(self.columns)}) WITHOUT ROWID")
            for old in tables:  # the same kind of figure made by older code
                self.conn.execute(f"DROP TABLE IF EXISTS {old}")
        return self.conn

    def __exit__(self, *exc) -> None:
        self.conn.close()
