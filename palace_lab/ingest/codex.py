"""OpenAI Codex CLI rollouts (``~/.codex/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl``).

Each line is ``{timestamp, type, payload}``. The conversation is read from ``response_item``
records (messages, function/custom tool calls and their outputs, web searches); ``event_msg``
user/agent messages repeat them and are used only where the response items are missing (some
emitters write no ``agent_message``, older ones no response items). ``session_meta`` gives the
session id and working directory.

Traps handled on purpose: ``developer`` messages (permissions, skills, collaboration mode) and
user messages made only of injected ``<environment_context>``/``<user_instructions>``/AGENTS.md
blocks are system text, never requests, and not indexed; encrypted reasoning is skipped; tool
calls and outputs are paired by ``call_id``; ``compacted`` records are kept but not indexed.
Rollouts have no per-message ids, so a message's source key is its line number.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from palace_lab.ingest.base import (
    RECORD_ERRORS, Parser, ParseResult, first_json_lines, iter_jsonl, squash_spaces,
)
from palace_lab.model import Conversation, Message

NAME = "codex"
_INJECTED = re.compile(
    r"<(environment_context|user_instructions|INSTRUCTIONS|user_shell_command|turn_aborted)>"
    r".*?</\1>|^# AGENTS\.md instructions for [^\n]*\n", re.S | re.M)
TOOL_CALLS = {"function_call", "custom_tool_call", "local_shell_call", "web_search_call"}
TOOL_OUTPUTS = {"function_call_output", "custom_tool_call_output", "local_shell_call_output"}


def sniff(path: Path, head: bytes) -> bool:
    for obj in first_json_lines(head, limit=5):
        if isinstance(obj.get("type"), str) and isinstance(obj.get("payload"), dict) \
                and obj["type"] in {"session_meta", "response_item", "event_msg", "turn_context"}:
            return True
    return False


def _content_text(content) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for part in content or []:
        if isinstance(part, dict):
            if part.get("type") in {"input_text", "output_text", "text"}:
                parts.append(part.get("text", ""))
            elif part.get("type") in {"input_image", "image"}:
                parts.append("[image]")
    return "\n".join(parts)


def _message(p: dict) -> dict | None:
    role, text = p.get("role"), _content_text(p.get("content"))
    if not text.strip():
        return None
    if role == "user":
        words = _INJECTED.sub("", text).strip()
        if not words:
            return dict(role="system", text=text, searchable=False, meta={"injected": True})
        meta = {"request_text": words} if words != text.strip() else {}
        return dict(role="user", text=text, is_request=True, meta=meta)
    if role == "assistant":
        return dict(role="assistant", text=text)
    return dict(role="system", text=text, searchable=False, meta={"role": role})


def _tool_call(p: dict) -> dict:
    kind = p.get("type")
    if kind == "web_search_call":
        action = p.get("action") or {}
        return dict(role="tool_call", text=json.dumps(action, ensure_ascii=False),
                    tool_name="web_search", meta={"call_id": p.get("id")})
    args = p.get("arguments", p.get("input", p.get("action", "")))
    if not isinstance(args, str):
        args = json.dumps(args, ensure_ascii=False)
    return dict(role="tool_call", text=args, tool_name=p.get("name") or kind,
                meta={"call_id": p.get("call_id")})


def _tool_output(p: dict) -> dict:
    out = p.get("output")
    if isinstance(out, dict):
        out = out.get("content") or json.dumps(out, ensure_ascii=False)
    elif isinstance(out, list):
        out = _content_text(out)
    return dict(role="tool_result", text=str(out or ""), meta={"call_id": p.get("call_id")})


def _response_item(p: dict) -> dict | None:
    kind = p.get("type")
    if kind == "message":
        return _message(p)
    if kind in TOOL_CALLS:
        return _tool_call(p)
    if kind in TOOL_OUTPUTS:
        return _tool_output(p)
    return None


def _event(p: dict, seen: dict[str, set]) -> dict | None:
    kind = p.get("type")
    text = p.get("message")
    if not isinstance(text, str) or not text.strip():
        return None
    key = squash_spaces(text)
    if kind == "user_message" and key not in seen["user"]:
        return dict(role="user", text=text, is_request=True, meta={"from_event": True})
    if kind == "agent_message" and key not in seen["assistant"]:
        return dict(role="assistant", text=text, meta={"from_event": True})
    return None


def _item_texts(path: Path) -> dict[str, set]:
    """Texts of user/assistant response items, to drop the events that repeat them."""
    seen: dict[str, set] = {"user": set(), "assistant": set()}
    for _, rec in iter_jsonl(path, ParseResult()):
        p = rec.get("payload")
        if not (rec.get("type") == "response_item" and isinstance(p, dict)
                and p.get("type") == "message" and p.get("role") in ("user", "assistant")):
            continue
        try:
            text = _content_text(p.get("content"))
            seen[p["role"]].add(squash_spaces(_INJECTED.sub("", text)))
            seen[p["role"]].add(squash_spaces(text))
        except RECORD_ERRORS:
            continue  # the main pass counts this record
    return seen


def parse(path: Path) -> ParseResult:
    result = ParseResult()
    seen = _item_texts(path)
    info: dict = {}
    entries: list[dict] = []
    for line, rec in iter_jsonl(path, result):
        kind, p = rec.get("type"), rec.get("payload")
        if not isinstance(p, dict):
            result.skip("record:no_payload")
            continue
        if kind == "session_meta":
            _session_meta(p, info)
            continue
        try:
            entry = _entry(kind, p, seen)
        except RECORD_ERRORS:
            result.skip("malformed_record")
            continue
        if entry is None:
            result.skip(f"record:{kind}:{p.get('type', '')}".rstrip(":"))
            continue
        stamp = rec.get("timestamp") if isinstance(rec.get("timestamp"), str) else None
        entries.append(dict(entry, source_key=f"L{line}", timestamp=stamp,
                            source_path=str(path), source_line=line))
    if entries:
        result.conversations.append(_conversation(entries, info, path))
    return result


def _session_meta(p: dict, info: dict) -> None:
    for key in ("id", "cwd"):
        if isinstance(p.get(key), str) and p[key]:
            info.setdefault(key, p[key])


def _entry(kind, p: dict, seen: dict[str, set]) -> dict | None:
    """The message dict of one record, or None when the record carries none."""
    entry = None
    if kind == "response_item":
        entry = _response_item(p)
    elif kind == "event_msg":
        entry = _event(p, seen)
    elif kind == "compacted":
        entry = dict(role="system", text=str(p.get("message", "")), searchable=False)
    if entry is not None and not isinstance(entry.get("text"), str):
        raise TypeError("message text is not a string")
    if entry is not None and entry.get("tool_name") is not None \
            and not isinstance(entry["tool_name"], str):
        entry["tool_name"] = str(entry["tool_name"])
    return entry


def _conversation(entries: list[dict], info: dict, path: Path) -> Conversation:
    sid = info.get("id") or _id_from_name(path)
    messages = tuple(Message(conversation_id=sid, position=i, **e) for i, e in enumerate(entries))
    cwd = info.get("cwd")
    return Conversation(conversation_id=sid, source_format=NAME, messages=messages,
                        project=Path(cwd).name if cwd else None, source_path=str(path), cwd=cwd)


def _id_from_name(path: Path) -> str:
    match = re.search(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})", path.name)
    return match.group(1) if match else path.stem
PARSER = Parser(NAME, sniff, parse)
