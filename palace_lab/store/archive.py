"""The archive rule: storing a conversation never removes what is stored.

Copies are compared by what their messages say (role and text, wherever they sit), so a session
that grew, had a subagent transcript merged into its middle, or had a queued prompt arrive as
a request still counts as the same history plus more.

- A new conversation is inserted.
- A copy that still says everything the stored one says, and still makes every stored exchange
  id, replaces it (``grown``): nothing is lost and cards and judgments keep their exchanges.
- A copy that says nothing the stored one does not (trimmed, older) writes nothing
  (``kept_stored``).
- A copy that lacks something stored and adds something new (an edited message, another
  branch) is left to the caller (``diverged``), which keeps it beside the stored one under its
  own id (:func:`palace_lab.ingest.clean.copy_beside`).

``kept_stored`` and ``diverged`` are rows of ``archive_events``; the ingest report counts all
three.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from palace_lab.model import Conversation, Exchange, content_hash


class ArchiveMixin:
    def store_conversation(self, tx, conv: Conversation, exchanges: list[Exchange]) -> tuple[int, int]:
        """Store one conversation under the archive rule; returns (messages, exchanges) added.

        Unchanged conversations (same hash) cost one lookup and write nothing.
        """
        stored = self.archive_conversation(tx, conv, exchanges)
        return stored.messages, stored.exchanges

    def archive_conversation(self, tx, conv: Conversation, exchanges: list[Exchange],
                             source: str | None = None) -> "Archived":
        """Store one conversation; nothing already stored is ever removed (see the module)."""
        from palace_lab.store.palace import conversation_hash

        digest = conversation_hash(conv)
        cid = conv.conversation_id
        row = tx.execute("SELECT hash FROM conversations WHERE conversation_id=?", (cid,)).fetchone()
        if row and row[0] == digest:
            return Archived(0, 0)
        if not row:
            self._replace(tx, conv, exchanges, digest)
            return Archived(len(conv.messages), len(exchanges))
        stored = Counter(said(r[0], r[1]) for r in tx.execute(
            "SELECT role, text FROM messages WHERE conversation_id=?", (cid,)))
        old_exchanges = {r[0] for r in tx.execute(
            "SELECT exchange_id FROM exchanges WHERE conversation_id=?", (cid,))}
        offered = Counter(said(m.role, m.text) for m in conv.messages)
        kept_ids = old_exchanges <= {e.exchange_id for e in exchanges}
        if stored - offered or not kept_ids:
            event = "kept_stored" if not offered - stored else "diverged"
            self.record_event(tx, cid, source, event, sum(stored.values()), len(conv.messages))
            return Archived(0, 0, event)
        self._replace(tx, conv, exchanges, digest)
        return Archived(sum((offered - stored).values()),
                        sum(1 for e in exchanges if e.exchange_id not in old_exchanges), "grown")

    def record_event(self, tx, conversation_id: str, source: str | None, event: str,
                     stored: int, offered: int) -> None:
        """Note what the archive rule decided about a copy (see :meth:`archive_conversation`)."""
        from palace_lab.store.palace import now_iso

        tx.execute("INSERT INTO archive_events VALUES (?,?,?,?,?,?)",
                   (now_iso(), conversation_id, source, event, stored, offered))

    def archive_events(self) -> list[dict]:
        rows = self.conn.execute("SELECT * FROM archive_events ORDER BY rowid")
        return [dict(r) for r in rows]

    def _replace(self, tx, conv: Conversation, exchanges: list[Exchange], digest: str) -> None:
        from palace_lab.store.palace import _exchange_row, _message_row

        tx.execute("DELETE FROM messages WHERE conversation_id=?", (conv.conversation_id,))
        tx.execute("DELETE FROM exchanges WHERE conversation_id=?", (conv.conversation_id,))
        tx.execute(
            "INSERT OR REPLACE INTO conversations VALUES (?,?,?,?,?,?,?,?)",
            (conv.conversation_id, conv.source_format, conv.project, conv.title,
             conv.source_path, conv.parent_id, conv.started_at, digest),
        )
        tx.executemany("INSERT INTO messages VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                       [_message_row(m) for m in conv.messages])
        tx.executemany("INSERT INTO exchanges VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                       [_exchange_row(e) for e in exchanges])


@dataclass(frozen=True)
class Archived:
    """What storing one conversation did: rows added and the archive rule's decision."""

    messages: int
    exchanges: int
    event: str | None = None  # None (new or unchanged), grown, kept_stored, diverged


def said(role: str, text: str) -> str:
    """What a message says, wherever it sits: the archive compares copies by this."""
    return content_hash(role, text)
