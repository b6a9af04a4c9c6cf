"""Palace JSONL, the generic input format (docs/architecture.md) → conversations, and back.

Format: one JSON object per line with ``conversation_id`` (string), ``role`` (user | assistant |
tool | system), ``content`` (string) and optional ``timestamp`` (ISO 8601), ``project`` and
``title``. Lines of one conversation appear in order; a message's position is the 0-based index
of its line among the accepted lines of its conversation, and its source key is ``L<position>``.
Role ``tool`` is a tool result; every user line is a request; a system line is kept but not
searchable (it is a prompt the source injected, often the same in every conversation).

Optional extension keys, written by :func:`write_palace_jsonl` only where the palace knows more
than the plain format says, so that an export keeps it: ``tool_call: true`` (an assistant line
that calls a tool), ``tool_name``, ``is_request: false`` (a user line that is not a request),
``searchable`` (where it differs from the role's default), ``request_text`` (the person's words
inside a longer request).

Traps: conversations may interleave (lines are grouped by id, order kept); ``project`` and
``title`` may appear on any line (the first non-empty value wins); a broken line, an unknown
role or a missing field skips that line only; an unreadable timestamp drops the timestamp only.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from palace_lab.errors import UnknownFormatError
from palace_lab.ingest.base import (
    Parser, ParseResult, SkipRecord, first_json_lines, iter_jsonl, utc_from_iso,
)
from palace_lab.model import Conversation, Message

NAME = "palace-jsonl"

_ROLES_IN = {"user": "user", "assistant": "assistant", "tool": "tool_result", "system": "system"}
_ROLES_OUT = {"user": "user", "assistant": "assistant", "tool_call": "assistant",
              "tool_result": "tool", "system": "system"}
# Keys that mark another format's records (Claude Code, Codex) even if they quote ours.
_FOREIGN_KEYS = ("sessionId", "payload", "message", "type")



def sniff(path: Path, head: bytes) -> bool:
    """True when the first JSON lines are palace lines (no other format's) and at least one is
    a complete record: a line the parser would skip (an unknown role) does not hide the rest."""
    try:
        records = first_json_lines(head, limit=10)[:5]
        return (bool(records) and all(_is_record_shape(r) for r in records)
                and any(_is_record(r) for r in records))
    except Exception:  # a sniffer is asked about every file: it must never raise
        return False


def parse(path: Path) -> ParseResult:
    result = ParseResult()
    groups: dict[str, list[tuple[int, dict]]] = {}
    for number, obj in iter_jsonl(path, result):
        try:
            cid = _conversation_id(obj)
            _check(obj)
        except SkipRecord as skip:
            result.skip(skip.reason)
            continue
        groups.setdefault(cid, []).append((number, obj))
    if not groups and sum(result.skipped.values()):
        raise UnknownFormatError(_nothing_read(path, result))
    for cid, lines in groups.items():
        result.conversations.append(_conversation(cid, lines, path, result))
    return result


PARSER = Parser(NAME, sniff, parse)


def _is_record(obj: dict) -> bool:
    if any(key in obj for key in _FOREIGN_KEYS):
        return False
    return (isinstance(obj.get("conversation_id"), (str, int)) and isinstance(obj.get("role"), str)
            and obj["role"] in _ROLES_IN and isinstance(obj.get("content"), str))


def _is_record_shape(obj: dict) -> bool:
    """A line the parser reads as ours, even if it skips it (an unknown role, no content)."""
    return not any(key in obj for key in _FOREIGN_KEYS) and "conversation_id" in obj


def _nothing_read(path: Path, result: ParseResult) -> str:
    reasons = ", ".join(f"{reason} {n}" for reason, n in result.skipped.most_common())
    return (f"{path.name} holds no palace JSONL line (conversation_id, role, content) "
            f"among its {result.lines} lines (skipped: {reasons}).")


def _conversation_id(obj: dict) -> str:
    cid = obj.get("conversation_id")
    if isinstance(cid, int) and not isinstance(cid, bool):
        return str(cid)  # a numeric id is still an id; the palace keeps ids as strings
    if not isinstance(cid, str) or not cid:
        raise SkipRecord("missing_conversation_id")
    return cid


def _check(obj: dict) -> None:
    if not isinstance(obj.get("role"), str) or obj["role"] not in _ROLES_IN:
        raise SkipRecord("unknown_role" if "role" in obj else "missing_role")
    if not isinstance(obj.get("content"), str):
        raise SkipRecord("missing_content")


def _conversation(cid: str, lines: list[tuple[int, dict]], path: Path,
                  result: ParseResult) -> Conversation:
    messages = tuple(_message(cid, position, number, obj, path, result)
                     for position, (number, obj) in enumerate(lines))
    return Conversation(
        conversation_id=cid, source_format=NAME, messages=messages,
        project=_first_text(lines, "project"), title=_first_text(lines, "title"),
        source_path=str(path),
    )


def _first_text(lines: list[tuple[int, dict]], key: str) -> str | None:
    return next((obj[key] for _, obj in lines if isinstance(obj.get(key), str) and obj[key]), None)


def _message(cid: str, position: int, number: int, obj: dict, path: Path,
             result: ParseResult) -> Message:
    role = _ROLES_IN[obj["role"]]
    if role == "assistant" and obj.get("tool_call") is True:
        role = "tool_call"
    meta = {"request_text": obj["request_text"]} if isinstance(obj.get("request_text"), str) else {}
    tool_name = obj.get("tool_name") if isinstance(obj.get("tool_name"), str) else None
    return Message(
        conversation_id=cid, position=position, role=role, text=obj["content"],
        source_key=f"L{position}",
        is_request=role == "user" and obj.get("is_request") is not False,
        searchable=_searchable(obj, role),
        tool_name=tool_name, timestamp=_timestamp(obj, result),
        source_path=str(path), source_line=number, meta=meta,
    )


def _searchable(obj: dict, role: str) -> bool:
    """A system line is a prompt the source injected, not the person's history, unless told."""
    flag = obj.get("searchable")
    return flag if isinstance(flag, bool) else role != "system"


def _timestamp(obj: dict, result: ParseResult) -> str | None:
    if "timestamp" not in obj or obj["timestamp"] is None:
        return None
    stamp = utc_from_iso(obj["timestamp"])
    if stamp is None:
        result.skip("invalid_timestamp")  # the line is kept; only its timestamp is dropped
    return stamp


# --- writing ------------------------------------------------------------------------------


def write_palace_jsonl(conversations: Iterable[Conversation], path: Path | str) -> int:
    """Write conversations as palace JSONL; returns the number of lines written.

    Messages are written in position order; ``project`` and ``title`` go on each
    conversation's first line. Parsing the file gives back the same ids, roles, texts,
    positions, flags and timestamps.
    """
    written = 0
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        for conversation in conversations:
            ordered = sorted(conversation.messages, key=lambda m: m.position)
            for index, message in enumerate(ordered):
                record = _record(conversation, message, first=index == 0)
                fh.write(_dumps(record) + "\n")
                written += 1
    return written


def _record(conversation: Conversation, message: Message, *, first: bool) -> dict:
    record: dict = {"conversation_id": conversation.conversation_id,
                    "role": _ROLES_OUT[message.role], "content": message.text}
    if message.timestamp:
        record["timestamp"] = message.timestamp
    if first and conversation.project:
        record["project"] = conversation.project
    if first and conversation.title:
        record["title"] = conversation.title
    if message.role == "tool_call":
        record["tool_call"] = True
    if message.tool_name:
        record["tool_name"] = message.tool_name
    if message.role == "user" and not message.is_request:
        record["is_request"] = False
    if message.searchable != (message.role != "system"):
        record["searchable"] = message.searchable
    if isinstance(message.meta.get("request_text"), str):
        record["request_text"] = message.meta["request_text"]
    return record


def _dumps(record: dict) -> str:
    line = json.dumps(record, ensure_ascii=False)
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        # A lone surrogate (from a \ud83d escape in some source JSON) has no UTF-8 form;
        # \u escapes keep it, and json.loads gives it back unchanged.
        return json.dumps(record, ensure_ascii=True)
    return line
