"""Claude.ai data export → conversations.

Format: a ZIP with ``conversations.json`` (plus ``projects.json``, ``users.json``), or that
JSON list on its own (one bare conversation object is accepted too). A conversation has
``uuid``, ``name``, ``summary``, ``created_at``/``updated_at`` (ISO 8601) and a linear
``chat_messages[]``: ``uuid``, ``sender`` (human | assistant), ``text``, ``content[]`` blocks
(text, thinking, tool_use, tool_result), ``created_at``, ``attachments[]`` (``file_name``,
``extracted_content``) and ``files[]`` (``file_name``).

Traps:

- ``text`` and ``content[]`` say the same thing twice, and ``text`` renders tool blocks as
  "This block is not supported on your current device yet." placeholders: the blocks win,
  ``text`` is the fallback for old exports without blocks.
- One assistant chat message holds text, tool calls and tool results in order: it becomes
  several messages (source keys ``uuid``, ``uuid#1``, ``uuid#2``…).
- Thinking is not what the assistant said: it is kept as an assistant message marked
  ``meta["thinking"]`` and not searchable, so it stays out of the verbatim layer.
- Attachments' extracted text belongs to the verbatim layer of the message, after the person's
  words; uploaded files (images) carry only a name.
"""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

from palace_lab.errors import UnknownFormatError
from palace_lab.ingest.base import (
    RECORD_ERRORS, Parser, ParseResult, SkipRecord, looks_like_export_json, read_file_bounded,
    read_member_bounded, sniff_export_zip, utc_from_iso,
    zip_member,
)
from palace_lab.model import Conversation, Message

NAME = "claude-ai"

# Keys as JSON keys, not as text quoted inside some message (that would be \"chat_messages\").
_CHAT_MESSAGES_KEY = re.compile(rb'(?<!\\)"chat_messages"\s*:')
_COMPANIONS = ("projects.json", "users.json")



def sniff(path: Path, head: bytes) -> bool:
    """True for an export ZIP or a JSON list (or object) of Claude.ai conversations."""
    try:
        if head.startswith(b"PK"):
            return _sniff_zip(path)
        return _looks_like_claude_json(head)
    except Exception:  # a sniffer is asked about every file: it must never raise
        return False


def parse(path: Path) -> ParseResult:
    result = ParseResult()
    conversations, projects = _load(path)
    for raw in conversations:
        if not isinstance(raw, dict) or not isinstance(raw.get("chat_messages"), list):
            result.skip("not_a_conversation")
            continue
        if not isinstance(raw.get("uuid"), str) or not raw["uuid"]:
            result.skip("missing_uuid")
            continue
        try:
            conversation = _conversation(raw, path, projects, result)
        except RECORD_ERRORS:  # a field of the wrong shape: this conversation only
            result.skip("malformed_conversation")
            continue
        result.keep(conversation)
    return result


PARSER = Parser(NAME, sniff, parse)


# --- sniffing and loading -----------------------------------------------------------------


def _looks_like_claude_json(head: bytes) -> bool:
    return looks_like_export_json(head, _CHAT_MESSAGES_KEY, "chat_messages")


def _sniff_zip(path: Path) -> bool:
    def companions(zf) -> bool:
        return all(zip_member(zf, c) is not None for c in _COMPANIONS)

    return sniff_export_zip(path, _looks_like_claude_json, companions)



def _load(path: Path) -> tuple[list, dict[str, str]]:
    """The conversation list and {project uuid: project name}."""
    projects: dict[str, str] = {}
    with open(path, "rb") as fh:
        is_zip = fh.read(2) == b"PK"
    if is_zip:
        data, projects = _load_zip(path)
    else:
        data = _decode(read_file_bounded(path), path.name)
        projects = _sibling_projects(path)
    if isinstance(data, dict) and isinstance(data.get("chat_messages"), list):
        return [data], projects
    if not isinstance(data, list):
        raise UnknownFormatError(
            f"{path.name} is JSON but not a list of Claude.ai conversations "
            f"(its top level is a {type(data).__name__})."
        )
    if data and not any(isinstance(c, dict) and "chat_messages" in c for c in data):
        raise UnknownFormatError(
            f"{path.name} holds a list of {len(data)} items but none is a Claude.ai "
            "conversation (none has 'chat_messages')."
        )
    return data, projects


def _load_zip(path: Path) -> tuple[object, dict[str, str]]:
    try:
        with zipfile.ZipFile(path) as zf:
            member = zip_member(zf, "conversations.json")
            if member is None:
                names = ", ".join(zf.namelist()[:5]) or "nothing"
                raise UnknownFormatError(
                    f"{path.name} is a ZIP without conversations.json (it holds {names})."
                )
            data = _decode(read_member_bounded(zf, member, path.name), path.name)
            projects_member = zip_member(zf, "projects.json")
            raw_projects = (_decode(read_member_bounded(zf, projects_member, path.name), path.name)
                            if projects_member else [])
    except zipfile.BadZipFile as exc:
        raise UnknownFormatError(f"{path.name} is a damaged ZIP ({exc}).") from exc
    return data, _project_names(raw_projects)


def _sibling_projects(path: Path) -> dict[str, str]:
    """An unzipped export keeps projects.json next to conversations.json."""
    sibling = path.with_name("projects.json")
    if path.name != "conversations.json" or not sibling.is_file():
        return {}
    try:
        return _project_names(_decode(read_file_bounded(sibling), sibling.name))
    except UnknownFormatError:
        return {}  # project names are a nicety; a broken projects.json must not stop the chats


def _decode(raw: bytes, name: str):
    try:
        return json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise UnknownFormatError(f"{name} is not readable JSON ({exc}).") from exc


def _project_names(raw) -> dict[str, str]:
    if not isinstance(raw, list):
        return {}
    return {
        p["uuid"]: p["name"] for p in raw
        if isinstance(p, dict) and isinstance(p.get("uuid"), str) and isinstance(p.get("name"), str)
    }


# --- conversations ------------------------------------------------------------------------


def _conversation(raw: dict, path: Path, projects: dict, result: ParseResult) -> Conversation:
    cid = raw["uuid"]
    messages: list[Message] = []
    for index, msg in enumerate(raw["chat_messages"]):
        try:
            pieces = _pieces(msg, result)
        except SkipRecord as skip:
            result.skip(skip.reason)
            continue
        base_key = msg.get("uuid") if isinstance(msg.get("uuid"), str) else f"L{index}"
        stamp = utc_from_iso(msg.get("created_at"))
        for i, piece in enumerate(pieces):
            messages.append(Message(
                conversation_id=cid, position=len(messages),
                source_key=base_key if i == 0 else f"{base_key}#{i}",
                timestamp=stamp, source_path=str(path), **piece,
            ))
    title = raw.get("name") if isinstance(raw.get("name"), str) else None
    return Conversation(conversation_id=cid, source_format=NAME, messages=tuple(messages),
                        project=_project_of(raw, projects), title=title or None,
                        source_path=str(path))


def _project_of(raw: dict, projects: dict[str, str]) -> str | None:
    """The project's name, when the export links the conversation to one."""
    project = raw.get("project")
    if isinstance(project, dict) and isinstance(project.get("name"), str):
        return project["name"]
    key = raw.get("project_uuid") or (project.get("uuid") if isinstance(project, dict) else None)
    return projects.get(key) if isinstance(key, str) else None


def _pieces(msg, result: ParseResult) -> list[dict]:
    if not isinstance(msg, dict):
        raise SkipRecord("bad_message")
    sender = msg.get("sender")
    if sender == "human":
        return [_human_piece(msg, result)]
    if sender == "assistant":
        return _assistant_pieces(msg, result)
    raise SkipRecord("unknown_sender")


def _blocks(msg: dict) -> list[dict]:
    content = msg.get("content")
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _fallback_text(msg: dict) -> str:
    return msg["text"] if isinstance(msg.get("text"), str) else ""


def _human_piece(msg: dict, result: ParseResult) -> dict:
    texts = []
    for block in _blocks(msg):
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        else:
            result.skip(f"unsupported_block:{block.get('type')}")
    words = "\n\n".join(t for t in texts if t) or _fallback_text(msg)
    extras, meta = _attachments(msg)
    text = "\n\n".join(p for p in [words, *extras] if p)
    if not text.strip():
        raise SkipRecord("empty_message")
    if words and text != words:
        meta["request_text"] = words
    return {"role": "user", "text": text, "is_request": True, "meta": meta}


def _attachments(msg: dict) -> tuple[list[str], dict]:
    """Attachment texts and uploaded-file notes to append to a request, and their meta."""
    extras, meta = [], {}
    attachments = [a for a in msg.get("attachments") or [] if isinstance(a, dict)]
    for a in attachments:
        name = a.get("file_name") or "attachment"
        body = a.get("extracted_content") if isinstance(a.get("extracted_content"), str) else ""
        extras.append(f"[attachment: {name}]\n{body}".rstrip())
    files = [f.get("file_name") for f in msg.get("files") or [] if isinstance(f, dict)]
    files = [f for f in files if isinstance(f, str) and f]
    extras.extend(f"[file: {name}]" for name in files)
    if attachments:
        meta["attachments"] = [a.get("file_name") or "attachment" for a in attachments]
    if files:
        meta["files"] = files
    return extras, meta


def _assistant_pieces(msg: dict, result: ParseResult) -> list[dict]:
    pieces: list[dict] = []
    texts: list[str] = []
    for block in _blocks(msg):
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif kind == "thinking":
            _flush_text(texts, pieces)
            _add_thinking(block, pieces)
        elif kind in ("tool_use", "tool_result"):
            _flush_text(texts, pieces)
            pieces.append(_tool_piece(block))
        else:
            result.skip(f"unsupported_block:{kind}")
    _flush_text(texts, pieces)
    if not any(p["searchable"] for p in pieces) and _fallback_text(msg).strip():
        pieces.append(_said(_fallback_text(msg)))
    if not pieces:
        raise SkipRecord("empty_message")
    return pieces


def _said(text: str) -> dict:
    return {"role": "assistant", "text": text, "searchable": True, "meta": {}}


def _add_thinking(block: dict, pieces: list[dict]) -> None:
    text = block.get("thinking") if isinstance(block.get("thinking"), str) else ""
    if text.strip():
        pieces.append({"role": "assistant", "text": text, "searchable": False,
                       "meta": {"thinking": True}})


def _flush_text(texts: list[str], pieces: list[dict]) -> None:
    text = "\n\n".join(t for t in texts if t)
    if text.strip():
        pieces.append(_said(text))
    texts.clear()


def _tool_piece(block: dict) -> dict:
    name = block.get("name") if isinstance(block.get("name"), str) else None
    if block["type"] == "tool_use":
        payload = block.get("input")
        text = json.dumps(payload, ensure_ascii=False) if payload is not None else ""
        return {"role": "tool_call", "text": text, "tool_name": name, "searchable": True,
                "meta": {}}
    meta = {"is_error": True} if block.get("is_error") else {}
    return {"role": "tool_result", "text": _result_text(block.get("content")),
            "tool_name": name, "searchable": True, "meta": meta}


def _result_text(content) -> str:
    if isinstance(content, str):
        return content
    lines: list[str] = []
    for item in content if isinstance(content, list) else []:
        if isinstance(item, str):
            lines.append(item)
        elif isinstance(item, dict):
            # Search results ("knowledge") carry a title and url before their text.
            head = [item[k] for k in ("title", "url") if isinstance(item.get(k), str)]
            body = item.get("text") if isinstance(item.get("text"), str) else ""
            lines.append("\n".join([*head, body]).strip() or f"[{item.get('type', 'item')}]")
    return "\n".join(lines)
