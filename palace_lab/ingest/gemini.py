"""Gemini CLI histories (``~/.gemini/tmp/<project>/``): saved chats, session logs, checkpoints.

Four shapes, told apart by content (see docs/formats.md):

- ``chats/session-<time>-<id8>.json`` (older releases): one JSON document ``{sessionId,
  projectHash, startTime, lastUpdated, messages: [...], summary?}``, rewritten whole on every
  change.
- ``chats/session-<time>-<id8>.jsonl`` (newer releases): a first line of session metadata, then
  one line per message *version* (a message that gains tool calls or text is written again
  under the same ``id``: the last version wins, at the place of the first), ``{"$set": {...}}``
  metadata updates and ``{"$rewindTo": id}`` (the person rewound the chat to before ``id``).
  Subagent sessions live in ``chats/<parentSessionId>/<id>.jsonl`` with ``kind: "subagent"``.
- ``logs.json``: ``[{sessionId, messageId, type: "user", message, timestamp}]``, the prompts only;
  read only for sessions whose chat file is gone (a chat names its session in its file name).
- ``checkpoint-<tag>.json`` (``/chat save``): the model's own history, a list of
  ``{role: user|model, parts: [...]}`` without ids or times.

A message is ``{id, timestamp, type, content, displayContent?}`` where ``type`` is ``user``,
``gemini``, ``info``, ``error`` or ``warning`` and ``content`` is a string, a part or a list of
parts (``{text}``, ``{functionCall}``, ``{functionResponse}``, ``{inlineData}``…). A ``gemini``
message carries ``thoughts`` (not indexed), ``toolCalls`` (``{id, name, args, result, status,
resultDisplay}``: each becomes a tool call and its result) and ``tokens``.

Traps handled on purpose: rewound messages are kept (marked ``rewound``: the archive never
shrinks) rather than dropped as the CLI's own view does; ``displayContent`` (what the person
typed) is the request's words when ``content`` holds expanded ``@file`` text; a user message made
only of function responses is a tool result; a checkpoint's opening setup turn (date, folder
listing) is system text; ``info``/``error``/``warning`` lines are system
text; a subagent's prompts never open an exchange; a logged session whose chat file exists is
skipped (the chat says all of it), one whose chat is gone is stored as ``log:<sessionId>``.
"""

from __future__ import annotations

import re
from pathlib import Path

from palace_lab.errors import UnknownFormatError
from palace_lab.ingest.base import (
    BOM, RECORD_ERRORS, Parser, ParseResult, conversation_from_entries, first_json_lines,
    iter_jsonl, load_json_document, read_head, to_text,
)

NAME = "gemini-cli"
MESSAGE_TYPES = {"user", "gemini", "info", "error", "warning"}
_PROJECT_HASH = re.compile(rb'(?<!\\)"projectHash"\s*:')
_MESSAGES = re.compile(rb'(?<!\\)"messages"\s*:\s*\[')
_LOG_KEYS = re.compile(rb'(?<!\\)"messageId"\s*:')
_MODEL_ROLE = re.compile(rb'(?<!\\)"role"\s*:\s*"model"')
_PARTS = re.compile(rb'(?<!\\)"parts"\s*:\s*\[')
# A saved history opens with the CLI's own setup turn (date, OS, folder listing) and the
# model's acknowledgement: machine text, not the person's first request.
SETUP_PREFIX = "This is the Gemini CLI. We are setting up the context"


def sniff(path: Path, head: bytes) -> bool:
    try:
        return _shape(head) is not None
    except Exception:  # a sniffer is asked about every file: it must never raise
        return False


def _shape(head: bytes) -> str | None:
    """``jsonl``, ``chat``, ``logs`` or ``checkpoint`` from a file's head, else None."""
    lines = first_json_lines(head, limit=3)
    if lines and _is_metadata(lines[0]):
        return "jsonl"
    text = head.removeprefix(BOM).lstrip()
    if text[:1] == b"{" and _PROJECT_HASH.search(text) and _MESSAGES.search(text):
        return "chat"
    if text[:1] == b"[" and _LOG_KEYS.search(text) and b'"sessionId"' in text:
        return "logs"
    if text[:1] == b"[" and _MODEL_ROLE.search(text) and _PARTS.search(text):
        return "checkpoint"
    return None


def _is_metadata(obj: dict) -> bool:
    return isinstance(obj.get("sessionId"), str) and isinstance(obj.get("projectHash"), str) \
        and "messages" not in obj


def parse(path: Path) -> ParseResult:
    shape = _shape(read_head(path))
    if shape is None:
        raise UnknownFormatError(f"{path.name} is not a Gemini CLI chat, log or checkpoint")
    result = ParseResult()
    if shape == "jsonl":
        info, records = _replay(path, result)
    elif shape == "chat":
        info, records = _whole_chat(path, result)
    elif shape == "logs":
        return _logs(path, result)
    else:
        return _checkpoint(path, result)
    _keep(result, info, records, path)
    return result


# --- the session shapes -------------------------------------------------------------------


def _whole_chat(path: Path, result: ParseResult) -> tuple[dict, list[dict]]:
    data = load_json_document(path)
    if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
        raise UnknownFormatError(f"{path.name} has no list of messages")
    records = []
    for rec in data["messages"]:
        if isinstance(rec, dict) and isinstance(rec.get("id"), str):
            records.append(rec)
        else:
            result.skip("malformed_record")
    return data, records


def _replay(path: Path, result: ParseResult) -> tuple[dict, list[dict]]:
    """Metadata and the messages of a JSONL session, each at its first place in its last
    version; messages after a ``$rewindTo`` mark are kept and marked ``rewound``."""
    info: dict = {}
    by_id: dict[str, dict] = {}
    for _, rec in iter_jsonl(path, result):
        if isinstance(rec.get("$rewindTo"), str):
            _rewind(by_id, rec["$rewindTo"])
        elif isinstance(rec.get("id"), str):
            by_id[rec["id"]] = rec  # a later version replaces it, in its first place
        elif isinstance(rec.get("$set"), dict):
            info.update(rec["$set"])
        elif _is_metadata(rec):
            info.update(rec)
        else:
            result.skip("record:unknown")
    return info, list(by_id.values())


def _rewind(by_id: dict[str, dict], target: str) -> None:
    """Mark ``target`` and every later message rewound (all of them when it is unknown)."""
    found = target not in by_id
    for key, rec in by_id.items():
        found = found or key == target
        if found:
            by_id[key] = dict(rec, _rewound=True)


def _keep(result: ParseResult, info: dict, records: list[dict], path: Path) -> None:
    sid = info.get("sessionId") if isinstance(info.get("sessionId"), str) else path.stem
    subagent = info.get("kind") == "subagent"
    entries: list[dict] = []
    for rec in records:
        try:
            entries.extend(_message_entries(rec, subagent))
        except RECORD_ERRORS:
            result.skip("malformed_record")
    root = _project_root(info, path)
    title = info.get("summary") if isinstance(info.get("summary"), str) else None
    result.keep(conversation_from_entries(
        entries, conversation_id=sid, source_format=NAME, path=path, project=_project(root),
        title=title, cwd=root))


def _first_directory(info: dict) -> str | None:
    dirs = info.get("directories")
    return dirs[0] if isinstance(dirs, list) and dirs and isinstance(dirs[0], str) else None


def _project_root(info: dict, path: Path) -> str | None:
    """The project's folder: the session's first directory, else the ``.project_root`` marker
    the CLI writes in the project's temp folder (``tmp/<slug>/``), else None."""
    cwd = _first_directory(info)
    if cwd:
        return cwd
    for folder in (path.parent.parent, path.parent.parent.parent):
        marker = folder / ".project_root"
        try:
            if marker.is_file() and marker.stat().st_size < 4096:
                return marker.read_text("utf-8").strip() or None
        except (OSError, UnicodeDecodeError):
            return None
    return None


def _project(root: str | None) -> str | None:
    return Path(root).name or None if root else None


# --- messages -----------------------------------------------------------------------------


def parts_text(content) -> tuple[str, list[dict]]:
    """(text, function responses) of a string, a part or a list of parts."""
    if isinstance(content, str):
        return content, []
    parts = content if isinstance(content, list) else [content] if isinstance(content, dict) else []
    texts, responses = [], []
    for part in parts:
        if isinstance(part, str):
            texts.append(part)
        elif not isinstance(part, dict) or part.get("thought") is True:
            continue
        elif isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif isinstance(part.get("functionResponse"), dict):
            responses.append(part["functionResponse"])
        elif isinstance(part.get("functionCall"), dict):
            call = part["functionCall"]
            texts.append(f"{call.get('name', 'tool')}({to_text(call.get('args'))})")
        elif "inlineData" in part or "fileData" in part:
            texts.append("[file]")
    return "\n".join(texts), responses


def _response_text(response: dict) -> str:
    body = response.get("response")
    if isinstance(body, dict):
        for key in ("output", "content", "error"):
            if body.get(key) is not None:
                return to_text(body[key])
    return to_text(body)


def _message_entries(rec: dict, subagent: bool) -> list[dict]:
    kind, mid = rec.get("type"), rec["id"]
    stamp = rec.get("timestamp") if isinstance(rec.get("timestamp"), str) else None
    meta = {"rewound": True} if rec.get("_rewound") else {}
    base = dict(timestamp=stamp, meta=meta)
    if kind == "user":
        return _user_entries(rec, mid, base, subagent)
    if kind == "gemini":
        return _gemini_entries(rec, mid, base)
    if kind in MESSAGE_TYPES:
        text, _ = parts_text(rec.get("content"))
        return [dict(base, role="system", text=text, source_key=mid, searchable=False,
                     meta={**meta, "type": kind})] if text.strip() else []
    raise ValueError(f"unknown message type {kind!r}")


def _user_entries(rec: dict, mid: str, base: dict, subagent: bool) -> list[dict]:
    text, responses = parts_text(rec.get("content"))
    out = [dict(base, role="tool_result", text=_response_text(r), source_key=f"{mid}#r{i}",
                meta={**base["meta"], "call_id": r.get("id")}) for i, r in enumerate(responses)]
    if not text.strip():
        return out
    meta = dict(base["meta"])
    shown, _ = parts_text(rec.get("displayContent"))
    if shown.strip() and shown.strip() != text.strip():
        meta["request_text"] = shown.strip()
    if subagent:
        meta["sidechain"] = True
    out.append(dict(base, role="user", text=text, source_key=mid, is_request=not subagent,
                    meta=meta))
    return out


def _gemini_entries(rec: dict, mid: str, base: dict) -> list[dict]:
    out = []
    for i, thought in enumerate(rec.get("thoughts") or []):
        words = " — ".join(str(thought.get(k)) for k in ("subject", "description")
                           if isinstance(thought, dict) and thought.get(k))
        if words:
            out.append(dict(base, role="assistant", text=words, source_key=f"{mid}#t{i}",
                            searchable=False, meta={**base["meta"], "thinking": True}))
    text, _ = parts_text(rec.get("content"))
    if text.strip():
        meta = {**base["meta"], "model": rec["model"]} if isinstance(rec.get("model"), str) \
            else base["meta"]
        out.append(dict(base, role="assistant", text=text, source_key=mid, meta=meta))
    for call in rec.get("toolCalls") or []:
        out.extend(_tool_entries(call, mid, base))
    return out


def _tool_entries(call: dict, mid: str, base: dict) -> list[dict]:
    cid = str(call.get("id") or call.get("name"))
    name = call.get("name") if isinstance(call.get("name"), str) else "tool"
    meta = {**base["meta"], "call_id": cid}
    out = [dict(base, role="tool_call", text=to_text(call.get("args") or {}), tool_name=name,
                source_key=f"{mid}#call:{cid}", meta=meta)]
    result, responses = parts_text(call.get("result"))
    result = "\n".join([result, *(_response_text(r) for r in responses)]).strip()
    if not result and isinstance(call.get("resultDisplay"), str):
        result = call["resultDisplay"]
    if result or call.get("status") in ("error", "cancelled"):
        status = {"is_error": True} if call.get("status") == "error" else {}
        out.append(dict(base, role="tool_result", text=result or str(call.get("status")),
                        source_key=f"{mid}#result:{cid}", meta={**meta, **status}))
    return out


# --- logs and checkpoints -----------------------------------------------------------------


def _logs(path: Path, result: ParseResult) -> ParseResult:
    """The prompts of ``logs.json``, one conversation per session, as ``log:<sessionId>``."""
    data = load_json_document(path)
    if not isinstance(data, list):
        raise UnknownFormatError(f"{path.name} is not a list of logged prompts")
    sessions: dict[str, list[dict]] = {}
    for rec in data:
        ok = isinstance(rec, dict) and isinstance(rec.get("sessionId"), str) \
            and isinstance(rec.get("message"), str)
        if not ok:
            result.skip("malformed_record")
            continue
        key = f"{rec['sessionId']}:{rec.get('messageId')}"
        stamp = rec.get("timestamp") if isinstance(rec.get("timestamp"), str) else None
        sessions.setdefault(rec["sessionId"], []).append(dict(
            role="user", text=rec["message"], source_key=key, timestamp=stamp,
            is_request=rec.get("type", "user") == "user" and not rec["message"].startswith("/")))
    chats = _chat_ids(path.parent / "chats")
    for sid, entries in sessions.items():
        if sid[:8] in chats:  # the chat says all of it, and more
            result.skip("logged_session_in_chats", len(entries))
            continue
        result.keep(conversation_from_entries(
            _unique_keys(entries, result), conversation_id=f"log:{sid}", source_format=NAME,
            path=path, project=_project(_project_root({}, path.parent / "chats" / path.name))))
    return result


def _chat_ids(folder: Path) -> set[str]:
    """The 8-character session id prefixes that name the chat files of a project folder."""
    try:
        names = [p.stem for p in folder.glob("session-*.json*")]
    except OSError:
        return set()
    return {name.rsplit("-", 1)[-1] for name in names}


def _unique_keys(entries: list[dict], result: ParseResult) -> list[dict]:
    seen, out = set(), []
    for e in entries:
        if (e["source_key"], e["text"]) in seen:
            result.skip("duplicate_record")
            continue
        seen.add((e["source_key"], e["text"]))
        out.append(e)
    return out


def _checkpoint(path: Path, result: ParseResult) -> ParseResult:
    """A ``/chat save`` checkpoint: the model's history, positions as keys, no times."""
    data = load_json_document(path)
    history = data.get("history") if isinstance(data, dict) else data
    if not isinstance(history, list):
        raise UnknownFormatError(f"{path.name} holds no saved chat history")
    entries: list[dict] = []
    for i, content in enumerate(history):
        try:
            entries.extend(_content_entries(content, i))
        except RECORD_ERRORS:
            result.skip("malformed_record")
    tag = path.stem.removeprefix("checkpoint-")
    result.keep(conversation_from_entries(
        entries, conversation_id=f"checkpoint:{tag}", source_format=NAME, path=path,
        title=tag, project=_project(_project_root({}, path.parent / "chats" / path.name))))
    return result


def _content_entries(content: dict, i: int) -> list[dict]:
    role = content["role"]
    text, responses = parts_text(content["parts"])
    out = [dict(role="tool_result", text=_response_text(r), source_key=f"C{i}#r{j}")
           for j, r in enumerate(responses)]
    if text.strip():
        calls = all(isinstance(p, dict) and "functionCall" in p for p in content["parts"])
        if role == "user" and text.lstrip().startswith(SETUP_PREFIX):
            out.append(dict(role="system", text=text, source_key=f"C{i}", searchable=False,
                            meta={"setup": True}))
        elif role == "user":
            out.append(dict(role="user", text=text, source_key=f"C{i}", is_request=True))
        else:
            out.append(dict(role="tool_call" if calls else "assistant", text=text,
                            source_key=f"C{i}"))
    return out


PARSER = Parser(NAME, sniff, parse)
