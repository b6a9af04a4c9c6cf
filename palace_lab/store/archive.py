"""The archive rule: storing a conversation never removes what is stored.

A new conversation is inserted; a grown one (every stored message still there at its position,
every stored exchange id still made) replaces itself; a copy that holds no more than what is
stored (trimmed, older) writes nothing; a copy that differs (an edited message, another branch)
is left to the caller, which keeps it beside the stored one under its own id
(:func:`palace_lab.ingest.clean.copy_beside`). Each decision other than "new" or "grown" is a
row of ``archive_events``.
"""

from __future__ import annotations

from dataclasses import dataclass

from palace_lab.model import Conversation, Exchange


class ArchiveMixin:
    def store_conversation(self, tx, conv: Conversation, exchanges: list[Exchange]) -> tuple[int, int]:
        """Store one conversation under the archive rule; returns (messages, exchanges) added.

        Unchanged conversations (same hash) cost one lookup and write nothing.
        """
        stored = self.archive_conversation(tx, conv, exchanges)
        return stored.messages, stored.exchanges

    def archive_conversation(self, tx, conv: Conversation, exchanges: list[Exchange],
                             source: str | None = None) -> "Archived":
        """Store one conversation; nothing already stored is ever removed.

        A new conversation is inserted; a grown one (every stored message still there, at its
        position, every stored exchange id still made) replaces itself. A copy that holds no
        more than what is stored (a trimmed or older copy) writes nothing but an
        ``archive_events`` row (``kept_stored``); a copy that differs from what is stored
        (``diverged``) is returned unwritten so the caller can keep it beside the stored one.
        """
        from palace_lab.store.palace import conversation_hash

        digest = conversation_hash(conv)
        cid = conv.conversation_id
        row = tx.execute("SELECT hash FROM conversations WHERE conversation_id=?", (cid,)).fetchone()
        if row and row[0] == digest:
            return Archived(0, 0)
        old_positions = {r[0]: r[1] for r in tx.execute(
            "SELECT position, hash FROM messages WHERE conversation_id=?", (cid,))}
        old_exchanges = {r[0] for r in tx.execute(
            "SELECT exchange_id FROM exchanges WHERE conversation_id=?", (cid,))}
        offered = {m.position: m.hash for m in conv.messages}
        if row and not _keeps_everything(old_positions, old_exchanges, offered, exchanges):
            event = "kept_stored" if offered.items() <= old_positions.items() else "diverged"
            self.record_event(tx, cid, source, event, len(old_positions), len(offered))
            return Archived(0, 0, event)
        return self._replace(tx, conv, exchanges, digest, old_positions, old_exchanges)

    def record_event(self, tx, conversation_id: str, source: str | None, event: str,
                     stored: int, offered: int) -> None:
        """Note what the archive rule decided about a copy (see :meth:`archive_conversation`)."""
        from palace_lab.store.palace import now_iso

        tx.execute("INSERT INTO archive_events VALUES (?,?,?,?,?,?)",
                   (now_iso(), conversation_id, source, event, stored, offered))

    def archive_events(self) -> list[dict]:
        rows = self.conn.execute("SELECT * FROM archive_events ORDER BY rowid")
        return [dict(r) for r in rows]

    def _replace(self, tx, conv: Conversation, exchanges: list[Exchange], digest: str,
                 old_positions: dict, old_exchanges: set) -> "Archived":
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
        added_messages = sum(1 for m in conv.messages if old_positions.get(m.position) != m.hash)
        added_exchanges = sum(1 for e in exchanges if e.exchange_id not in old_exchanges)
        return Archived(added_messages, added_exchanges, "grown" if old_positions else None)


@dataclass(frozen=True)
class Archived:
    """What storing one conversation did: rows added and the archive rule's decision."""

    messages: int
    exchanges: int
    event: str | None = None  # None (new or unchanged), grown, kept_stored, diverged


def _keeps_everything(old_positions: dict, old_exchanges: set, offered: dict,
                      exchanges: list[Exchange]) -> bool:
    """Whether replacing the stored copy by the offered one removes nothing stored."""
    if any(offered.get(position) != digest for position, digest in old_positions.items()):
        return False
    return old_exchanges <= {e.exchange_id for e in exchanges}
