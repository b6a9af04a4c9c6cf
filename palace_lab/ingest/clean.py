"""Making parsed conversations storable, whatever the source put in them.

A parser keeps what the source wrote; three things in it still cannot be stored as they are:

- a lone UTF-16 surrogate (valid JSON ``"\\ud83d"``, half of an emoji cut by some exporter) has no
  UTF-8 form, so SQLite refuses the text. It becomes U+FFFD and is counted
  (``lone_surrogate_replaced``); the rest of the text is unchanged.
- two exchanges of one conversation with the same id (a source that repeats a record id) would
  collide in the palace: every repeat after the first gets an id that also names its ply
  (``duplicate_exchange_id``), so both are kept.
- a copy of a conversation that differs from the stored one (see
  :meth:`palace_lab.store.Palace.archive_conversation`) is kept beside it: :func:`copy_beside`
  gives it an id derived from the stored id and the copy's own content.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from dataclasses import replace

from palace_lab.model import Conversation, Exchange, content_hash, exchange_id_for
from palace_lab.text.broken import is_broken, mend


# The text fields stored as text; ``meta`` is stored as JSON with \u escapes, which keep a
# lone surrogate as it is.
_MESSAGE_FIELDS = ("conversation_id", "text", "source_key", "tool_name", "timestamp",
                   "source_path")
_CONVERSATION_FIELDS = ("conversation_id", "project", "title", "source_path", "parent_id", "cwd")


def _broken(value) -> bool:
    return isinstance(value, str) and is_broken(value)


def _cleaned(obj, names: tuple[str, ...], counter: list[int]):
    changes = {n: mend(getattr(obj, n)) for n in names
               if _broken(getattr(obj, n))}
    counter[0] += len(changes)
    return replace(obj, **changes) if changes else obj


def clean_conversation(conv: Conversation, skipped: MutableMapping[str, int]) -> Conversation:
    """``conv`` with every lone surrogate replaced (the same object when there is none)."""
    counter = [0]
    messages = tuple(_cleaned(m, _MESSAGE_FIELDS, counter) for m in conv.messages)
    cleaned = _cleaned(conv, _CONVERSATION_FIELDS, counter)
    if not counter[0]:
        return conv
    skipped["lone_surrogate_replaced"] = skipped.get("lone_surrogate_replaced", 0) + counter[0]
    return replace(cleaned, messages=messages)


def unique_exchanges(exchanges: list[Exchange], skipped: MutableMapping[str, int]) -> list[Exchange]:
    """The exchanges with every repeated id made unique by naming its ply."""
    seen: set[str] = set()
    out = []
    for e in exchanges:
        if e.exchange_id in seen:
            e = replace(e, exchange_id=exchange_id_for(e.conversation_id, f"ply:{e.ply_start}"))
            skipped["duplicate_exchange_id"] = skipped.get("duplicate_exchange_id", 0) + 1
        seen.add(e.exchange_id)
        out.append(e)
    return out


def copy_beside(conv: Conversation) -> Conversation:
    """The same conversation under the id ``<stored id>~<8 hex of its content>``."""
    digest = content_hash(*(m.hash for m in conv.messages))[:8]
    cid = f"{conv.conversation_id}~{digest}"
    messages = tuple(replace(m, conversation_id=cid) for m in conv.messages)
    return replace(conv, conversation_id=cid, messages=messages, parent_id=conv.conversation_id)
