"""The palace: one SQLite file holding everything that is not derived.

Invariants:
- WAL journal; every write happens inside :meth:`Palace.transaction`, so a crash or an error
  leaves the file as it was before the write began (never half-written).
- Messages are keyed by ``(conversation_id, position)`` and carry a content hash; a
  conversation's hash is the hash of its message hashes, so re-ingesting an unchanged
  conversation is a no-op and a grown one replaces only itself.
- Exchange ids are derived from source ids (see :func:`palace_lab.model.exchange_id_for`), so
  cards, judgments and embeddings survive a re-ingest.
- The palace is an archive: a source that shrinks, is trimmed or disappears never removes a
  stored message or exchange (:meth:`Palace.archive_conversation`); what was decided about
  such a copy is kept in ``archive_events``.
- :meth:`verify` re-hashes every stored message, exchange and card, and reports cards whose
  exchange is missing.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TypeVar

from palace_lab.errors import StoreError
from palace_lab.model import Conversation, Exchange, Message, content_hash
from palace_lab.store.archive import ArchiveMixin
from palace_lab.store.cards import CardsMixin
from palace_lab.store.evaluation import EvaluationMixin
from palace_lab.store.migrations import migrate
from palace_lab.store.opening import (
    WAIT_FOR_WRITER_S, check_is_palace, connect, create_palace, is_busy, path_exists, rows_in,
    store_error,
)
from palace_lab.store.vectors import VectorsMixin

T = TypeVar("T")


def now_iso() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class VerifyReport:
    messages: int = 0
    exchanges: int = 0
    cards: int = 0
    mismatches: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.mismatches

    def to_dict(self) -> dict:
        return {"ok": self.ok, "messages": self.messages, "exchanges": self.exchanges,
                "cards": self.cards, "mismatches": self.mismatches}


def conversation_hash(conv: Conversation) -> str:
    return content_hash(conv.conversation_id, *(m.hash for m in conv.messages))


class Palace(ArchiveMixin, CardsMixin, VectorsMixin, EvaluationMixin):
    """A palace file. Use :meth:`open`; safe to share across threads (one lock per write)."""

    def __init__(self, path: Path, conn: sqlite3.Connection):
        self.path = path
        self.conn = conn
        self._lock = threading.RLock()
        self._kept: dict[str, tuple[tuple[int, int], object]] = {}

    @classmethod
    def open(cls, path: str | Path, *, create: bool = True, adopt_empty: bool = False) -> "Palace":
        """Open the palace at ``path``; create a new one there when absent and ``create``.

        An existing file must be a palace: another application's SQLite file is refused, and
        so is an empty one (0 bytes, or SQLite without any table) unless ``adopt_empty`` says
        the person asked for a new palace there. A new palace appears whole (made aside, then
        linked into place), so a concurrent open never sees a half-made one.
        """
        path = Path(path).expanduser()
        if not path_exists(path):
            if not create:
                raise StoreError(f"no palace at {path}; run `palace-lab ingest ... --db {path}`"
                                 " first")
            create_palace(path)
        conn = connect(path)
        try:
            check_is_palace(conn, path, adopt_empty)
            migrate(conn)
        except sqlite3.Error as exc:
            conn.close()
            raise StoreError(f"cannot open the palace {path}: {exc}") from None
        except BaseException:
            conn.close()
            raise
        return cls(path, conn)

    @property
    def derived_root(self) -> Path:
        """The folder beside the file that holds what is derived from it and can be made
        again (search indexes, corpus counts, figures): ``<palace file>.indexes``."""
        return Path(f"{self.path}.indexes")

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> "Palace":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One atomic write: commits on success, rolls back on any exception.

        Another process's write is waited for (``on_wait`` is told once), up to
        :data:`WAIT_FOR_WRITER_S`; writes are short, so a long wait means a stuck writer.
        """
        with self._lock:
            self._begin()
            try:
                yield self.conn
            except sqlite3.OperationalError as exc:
                self.conn.execute("ROLLBACK")
                if "readonly" in str(exc) or "full" in str(exc):
                    raise store_error(self.path, exc) from None
                raise
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")

    on_wait = None  # called as on_wait(path) once when a write has to wait for another process

    def _begin(self) -> None:
        deadline = time.monotonic() + WAIT_FOR_WRITER_S
        told = False
        while True:
            try:
                self.conn.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as exc:
                if not is_busy(exc):
                    raise store_error(self.path, exc) from None
                if time.monotonic() > deadline:
                    raise StoreError(f"the palace {self.path} stayed locked by another process "
                                     f"for {WAIT_FOR_WRITER_S:.0f} s; try again") from None
                if not told and self.on_wait:
                    self.on_wait(self.path)
                told = True

    # -- key/value state (resumable runs, settings) -------------------------------------------

    def kv_get(self, key: str, default: str | None = None) -> str | None:
        row = self.conn.execute("SELECT value FROM kv WHERE key=?", (key,)).fetchone()
        return row[0] if row else default

    def kv_keys(self, prefix: str) -> list[str]:
        """Keys of the key-value table matching ``prefix`` (SQL LIKE ``prefix%``)."""
        return [r[0] for r in self.conn.execute("SELECT key FROM kv WHERE key LIKE ?",
                                                (prefix + "%",))]

    def kv_set(self, key: str, value: str | None) -> None:
        with self.transaction() as tx:
            if value is None:
                tx.execute("DELETE FROM kv WHERE key=?", (key,))
            else:
                tx.execute("INSERT OR REPLACE INTO kv VALUES (?,?)", (key, value))

    # -- sources ------------------------------------------------------------------------------

    def source_unchanged(self, path: str, sha1: str) -> bool:
        row = self.conn.execute("SELECT sha1 FROM sources WHERE path=?", (path,)).fetchone()
        return bool(row) and row[0] == sha1

    def record_source(self, tx, path: str, fmt: str, size: int, sha1: str,
                      conversations: int, messages: int, skipped: dict) -> None:
        tx.execute(
            "INSERT OR REPLACE INTO sources VALUES (?,?,?,?,?,?,?,?)",
            (path, fmt, size, sha1, now_iso(), conversations, messages, json.dumps(skipped)),
        )

    # -- conversations, messages, exchanges ---------------------------------------------------

    def conversations(self) -> list[dict]:
        rows = self.conn.execute(
            "SELECT c.*, (SELECT COUNT(*) FROM messages m WHERE m.conversation_id=c.conversation_id)"
            " AS n_messages, (SELECT COUNT(*) FROM exchanges e WHERE"
            " e.conversation_id=c.conversation_id) AS n_exchanges FROM conversations c"
            " ORDER BY started_at, conversation_id")
        return [dict(r) for r in rows]

    def messages(self, conversation_id: str, start: int = 0, end: int | None = None) -> list[Message]:
        end = 1 << 62 if end is None else end
        rows = self.conn.execute(
            "SELECT * FROM messages WHERE conversation_id=? AND position BETWEEN ? AND ?"
            " ORDER BY position", (conversation_id, start, end))
        return [_row_message(r) for r in rows]

    def exchanges(self, *, conversation_id: str | None = None,
                  ids: list[str] | None = None) -> list[Exchange]:
        """Exchanges in conversation order (conversations by start time, then ply)."""
        sql = ("SELECT e.* FROM exchanges e JOIN conversations c USING (conversation_id)")
        args: list = []
        if conversation_id is not None:
            sql += " WHERE e.conversation_id=?"
            args.append(conversation_id)
        sql += " ORDER BY c.started_at, c.conversation_id, e.ply_start"
        rows = [_row_exchange(r) for r in self.conn.execute(sql, args)]
        if ids is not None:
            wanted = set(ids)
            rows = [e for e in rows if e.exchange_id in wanted]
        return rows

    def exchanges_by_id(self, ids: list[str]) -> dict[str, Exchange]:
        """The exchanges of ``ids`` that exist, by id (reads only those rows)."""
        rows = rows_in(self.conn, "SELECT * FROM exchanges WHERE exchange_id IN ({marks})", ids)
        return {r["exchange_id"]: _row_exchange(r) for r in rows}

    def exchange_texts(self, column: str) -> Iterator[str]:
        """The ``verbatim`` or ``dialogue`` text of every exchange, streamed (never all held)."""
        if column not in ("verbatim", "dialogue"):
            raise ValueError(f"no text column {column!r}")
        for (text,) in self.conn.execute(f"SELECT {column} FROM exchanges"):
            yield text

    def exchange_facets(self) -> dict[str, tuple[str | None, str | None]]:
        """``{exchange_id: (project, timestamp)}`` of every exchange, reading no text."""
        rows = self.conn.execute("SELECT exchange_id, project, timestamp FROM exchanges")
        return {eid: (project, timestamp) for eid, project, timestamp in rows}

    def exchange(self, exchange_id: str) -> Exchange | None:
        row = self.conn.execute("SELECT * FROM exchanges WHERE exchange_id=?",
                                (exchange_id,)).fetchone()
        return _row_exchange(row) if row else None

    def count(self, table: str) -> int:
        if table not in {"conversations", "messages", "exchanges", "cards", "embeddings",
                         "queries", "judgments", "sources", "runs"}:
            raise ValueError(f"unknown table {table!r}")
        return self.conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]

    def exchange_hashes(self) -> dict[str, str]:
        """``{exchange_id: hash}`` of every exchange in conversation order, reading no text."""
        return dict(self.conn.execute(
            "SELECT e.exchange_id, e.hash FROM exchanges e INDEXED BY exchanges_in_order"
            " JOIN conversations c USING (conversation_id)"
            " ORDER BY c.started_at, c.conversation_id, e.ply_start"))

    def state(self) -> tuple[int, int]:
        """What changes whenever the file does: ``PRAGMA data_version`` (other connections'
        commits) and ``total_changes`` (this connection's writes)."""
        return self.conn.execute("PRAGMA data_version").fetchone()[0], self.conn.total_changes

    def while_unchanged(self, name: str, compute: Callable[[], T]) -> T:
        """``compute()``, computed again only after the file changed (:meth:`state`): the
        fingerprints and counts that a search engine, a page's sidebar and its figures each
        ask for (0.1 s each at 50,000 exchanges) are read once per state of the file."""
        state = self.state()  # before computing: a write meanwhile makes the next call recompute
        held = self._kept.get(name)
        if held is not None and held[0] == state:
            return held[1]
        value = compute()
        self._kept[name] = (state, value)
        return value

    def fingerprint(self) -> str:
        """Changes whenever the exchanges change: the key of every derived index."""
        def compute() -> str:
            rows = self.conn.execute("SELECT exchange_id, hash FROM exchanges"
                                     " INDEXED BY exchanges_in_order ORDER BY exchange_id")
            return content_hash(*(f"{a}:{b}" for a, b in rows))

        return self.while_unchanged("fingerprint", compute)

    def verify(self) -> VerifyReport:
        """Re-hash every stored message, exchange and card; report what does not match."""
        report = VerifyReport()
        for r in self.conn.execute("SELECT * FROM messages"):
            report.messages += 1
            if _row_message(r).hash != r["hash"]:
                report.mismatches.append(f"message {r['conversation_id']}#{r['position']}")
        for r in self.conn.execute("SELECT * FROM exchanges"):
            report.exchanges += 1
            if _row_exchange(r).hash != r["hash"]:
                report.mismatches.append(f"exchange {r['exchange_id']}")
        report.cards, bad_cards = self.verify_cards()
        report.mismatches.extend(bad_cards)
        report.mismatches.extend(self._orphans())
        return report

    def _orphans(self) -> list[str]:
        """Cards whose exchange is not stored (the archive rule never makes one)."""
        cards = self.conn.execute(
            "SELECT exchange_id, distiller FROM cards WHERE exchange_id NOT IN"
            " (SELECT exchange_id FROM exchanges) ORDER BY exchange_id, distiller")
        return [f"card {r[0]}@{r[1]} has no exchange" for r in cards]


def _message_row(m: Message) -> tuple:
    return (m.conversation_id, m.position, m.role, m.text, m.source_key, int(m.is_request),
            int(m.searchable), m.tool_name, m.timestamp, m.source_path, m.source_line,
            json.dumps(m.meta) if m.meta else None, m.hash)


def _row_message(r: sqlite3.Row) -> Message:
    return Message(
        conversation_id=r["conversation_id"], position=r["position"], role=r["role"],
        text=r["text"], source_key=r["source_key"], is_request=bool(r["is_request"]),
        searchable=bool(r["searchable"]), tool_name=r["tool_name"], timestamp=r["timestamp"],
        source_path=r["source_path"], source_line=r["source_line"],
        meta=json.loads(r["meta_json"]) if r["meta_json"] else {},
    )


def _exchange_row(e: Exchange) -> tuple:
    return (e.exchange_id, e.conversation_id, e.ply_start, e.ply_end, e.request, e.verbatim,
            e.dialogue, json.dumps(list(e.files_touched)), e.project, e.timestamp, e.hash)


def _row_exchange(r: sqlite3.Row) -> Exchange:
    return Exchange(
        exchange_id=r["exchange_id"], conversation_id=r["conversation_id"],
        ply_start=r["ply_start"], ply_end=r["ply_end"], request=r["request"],
        verbatim=r["verbatim"], dialogue=r["dialogue"],
        files_touched=tuple(json.loads(r["files_json"])), project=r["project"],
        timestamp=r["timestamp"],
    )
