"""A palace of ``n`` one-exchange conversations ("request i" / "done"), for tests that count
pending exchanges and cards by hand."""

from __future__ import annotations

from palace_lab.ingest.segment import segment
from palace_lab.model import Conversation, Message


def fill(palace, n=5):
    for i in range(n):
        msgs = (Message(f"c{i}", 0, "user", f"request {i}", "k0", is_request=True),
                Message(f"c{i}", 1, "assistant", "done", "k1"))
        conv = Conversation(f"c{i}", "palace-jsonl", msgs)
        with palace.transaction() as tx:
            palace.store_conversation(tx, conv, segment(conv))
