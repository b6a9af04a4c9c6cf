"""GitHub Copilot CLI sessions (``~/.copilot/session-state/``).

Where: ``~/.copilot/session-state/<sessionId>/events.jsonl`` (with ``workspace.yaml`` beside
it), older releases ``~/.copilot/session-state/<sessionId>.jsonl``; the oldest kept
``~/.copilot/history-session-state/session_<id>_<ms>.json`` (``{sessionId, startTime,
chatMessages: [OpenAI-style messages]}``).

An events file has one event a line: ``{type, data, id, timestamp, parentId, ephemeral?}``.
``session.start`` gives ``data.sessionId`` and ``data.context.cwd``; ``user.message`` the
person's ``data.content`` (``transformedContent`` adds the CLI's own context and is not the
person's words); ``assistant.message`` the answer's ``content`` and its ``toolRequests``
(``toolCallId``, ``name``, ``arguments``); ``tool.execution_complete`` a tool's ``result.content``
or ``error.message`` by ``toolCallId``; ``assistant.reasoning`` reasoning.

Traps handled on purpose: ``ephemeral`` events (streaming deltas) repeat what a later event
says and are dropped; a call announced both in ``toolRequests`` and ``tool.execution_start`` is
kept once; events of a subagent (``data.parentToolCallId``) are kept but their prompts never
open an exchange; lifecycle events (turns, model changes, info, usage) are counted, not kept.
"""

from __future__ import annotations

import re
from pathlib import Path

from palace_lab.errors import UnknownFormatError
from palace_lab.ingest.base import (
    RECORD_ERRORS, Parser, ParseResult, conversation_from_entries, first_json_lines, iter_jsonl,
    load_json_document, looks_like_export_json, to_text, utc_from_iso, utc_from_unix,
)

NAME = "copilot-cli"
EVENT_PREFIXES = ("session.", "user.", "assistant.", "tool.", "subagent.", "hook.")
_HISTORY_KEY = re.compile(rb'(?<!\\)"chatMessages"\s*:\s*\[')


def sniff(path: Path, head: bytes) -> bool:
    try:
        if looks_like_export_json(head, _HISTORY_KEY, "chatMessages"):
            return True
        return any(_is_event(obj) for obj in first_json_lines(head, limit=5))
    except Exception:  # a sniffer is asked about every file: it must never raise
        return False


def _is_event(obj: dict) -> bool:
    kind = obj.get("type")
    return isinstance(kind, str) and kind.startswith(EVENT_PREFIXES) \
        and isinstance(obj.get("data"), dict)


def parse(path: Path) -> ParseResult:
    with open(path, "rb") as fh:
        head = fh.read(4096)
    if looks_like_export_json(head, _HISTORY_KEY, "chatMessages"):
        return _history(path)
    result = ParseResult()
    info: dict = {}
    entries: list[dict] = []
    announced: set = set()
    for line, event in iter_jsonl(path, result):
        if event.get("ephemeral") is True:
            continue
        if not _is_event(event):
            result.skip("record:not_an_event")
            continue
        try:
            found = _event_entries(event, info, announced)
        except RECORD_ERRORS:
            result.skip("malformed_record")
            continue
        if found is None:
            result.skip(f"record:{event['type']}")
            continue
        stamp = utc_from_iso(event.get("timestamp"))
        key = str(event.get("id") or f"L{line}")
        for i, e in enumerate(found):
            entries.append(dict(e, source_key=key + (f"#{i}" if i else ""), timestamp=stamp,
                                source_line=line))
    sid = info.get("sessionId") or (path.parent.name if path.name == "events.jsonl" else path.stem)
    cwd = info.get("cwd")
    result.keep(conversation_from_entries(entries, conversation_id=sid, source_format=NAME,
                                          path=path, project=Path(cwd).name if cwd else None,
                                          cwd=cwd))
    return result


def _event_entries(event: dict, info: dict, announced: set) -> list[dict] | None:
    kind, data = event["type"], event["data"]
    side = {"sidechain": True} if data.get("parentToolCallId") else {}
    if kind == "session.start":
        info.setdefault("sessionId", data.get("sessionId"))
        context = data.get("context") if isinstance(data.get("context"), dict) else {}
        if isinstance(context.get("cwd"), str):
            info.setdefault("cwd", context["cwd"])
        return []
    if kind == "user.message":
        text = _user_text(data)
        return [dict(role="user", text=text, is_request=not side, meta=side)] if text.strip() \
            else []
    if kind == "assistant.message":
        return _assistant(data, side, announced)
    if kind == "assistant.reasoning":
        return [dict(role="assistant", text=to_text(data.get("content")), searchable=False,
                     meta={"thinking": True, **side})]
    if kind == "tool.execution_start":
        if data.get("toolCallId") in announced:
            return []
        announced.add(data.get("toolCallId"))
        return [_call(data.get("toolName"), data.get("arguments"), data.get("toolCallId"), side)]
    if kind == "tool.execution_complete":
        return [_result(data, side)]
    return None


def _user_text(data: dict) -> str:
    text = data.get("content")
    if not isinstance(text, str):
        raise TypeError("user message content is not a string")
    files = [a.get("path") or a.get("displayName") for a in data.get("attachments") or []
             if isinstance(a, dict)]
    return "\n".join([text, *(f"[file: {f}]" for f in files if isinstance(f, str))])


def _assistant(data: dict, side: dict, announced: set) -> list[dict]:
    out = []
    if isinstance(data.get("reasoningText"), str) and data["reasoningText"].strip():
        out.append(dict(role="assistant", text=data["reasoningText"], searchable=False,
                        meta={"thinking": True, **side}))
    if isinstance(data.get("content"), str) and data["content"].strip():
        out.append(dict(role="assistant", text=data["content"], meta=dict(side)))
    for req in data.get("toolRequests") or []:
        announced.add(req.get("toolCallId"))
        out.append(_call(req.get("name"), req.get("arguments"), req.get("toolCallId"), side))
    return out


def _call(name, arguments, call_id, side: dict) -> dict:
    return dict(role="tool_call", text=to_text(arguments), tool_name=str(name or "tool"),
                meta={"call_id": call_id, **side})


def _result(data: dict, side: dict) -> dict:
    result = data.get("result") if isinstance(data.get("result"), dict) else {}
    error = data.get("error") if isinstance(data.get("error"), dict) else {}
    text = to_text(result.get("content") if result.get("content") is not None
                   else error.get("message") or result.get("detailedContent"))
    meta = {"call_id": data.get("toolCallId"), **side}
    if data.get("success") is False:
        meta["is_error"] = True
    return dict(role="tool_result", text=text, meta=meta)


# --- the oldest history files -------------------------------------------------------------


def _history(path: Path) -> ParseResult:
    data = load_json_document(path)
    if not isinstance(data, dict) or not isinstance(data.get("chatMessages"), list):
        raise UnknownFormatError(f"{path.name} has no list of chat messages")
    result = ParseResult()
    entries: list[dict] = []
    for i, msg in enumerate(data["chatMessages"]):
        try:
            entries.extend(_chat_message(msg, f"M{i}"))
        except RECORD_ERRORS:
            result.skip("malformed_record")
    stamp = data.get("startTime")
    stamp = utc_from_iso(stamp) or (utc_from_unix(stamp / 1000)
                                    if isinstance(stamp, (int, float)) else None)
    for e in entries:
        e["timestamp"] = stamp
    sid = data.get("sessionId") if isinstance(data.get("sessionId"), str) else path.stem
    result.keep(conversation_from_entries(entries, conversation_id=sid, source_format=NAME,
                                          path=path))
    return result


def _chat_message(msg: dict, key: str) -> list[dict]:
    role, content = msg["role"], to_text(msg.get("content"))
    if role == "user":
        return [dict(role="user", text=content, source_key=key, is_request=True)]
    if role == "tool":
        return [dict(role="tool_result", text=content, source_key=key,
                     meta={"call_id": msg.get("tool_call_id")})]
    if role != "assistant":
        return [dict(role="system", text=content, source_key=key, searchable=False)]
    out = [dict(role="assistant", text=content, source_key=key)] if content.strip() else []
    for j, call in enumerate(msg.get("tool_calls") or []):
        fn = call.get("function") or {}
        out.append(dict(role="tool_call", text=to_text(fn.get("arguments")),
                        tool_name=str(fn.get("name") or "tool"), source_key=f"{key}#c{j}",
                        meta={"call_id": call.get("id")}))
    return out


PARSER = Parser(NAME, sniff, parse)
