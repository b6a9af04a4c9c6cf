"""Claude Code session transcripts (``~/.claude/projects/<project>/<sessionId>.jsonl``).

Each line is a record with ``type``; only ``user``, ``assistant``, ``system`` and
``queue-operation`` records carry conversation text, every other type (progress,
file-history-snapshot, attachment, …, and types added by future releases) is skipped and
counted. ``summary``/``custom-title`` records give the conversation its title.

Traps handled on purpose (see docs/formats.md): tool results arrive as ``user`` records and are not
requests; meta/caveat messages, local slash commands (``/clear``, ``/context``…) and their
stdout, interruption markers, compaction summaries and ``away_summary`` recaps are kept as
non-request system messages (compaction summaries and recaps are not indexed); a slash command
that makes the agent work (``/init``, custom commands) is a request; IDE context blocks are kept
but the person's words come first in previews; a queued prompt that later arrives as a user
record is counted once, one that never does stays in the exchange it was typed in; the
person's words inside a rejected tool call are kept; one API response split over several lines
counts its usage once; subagent transcripts (``<sessionId>/subagents/*.jsonl`` or sibling
``agent-*.jsonl``) are merged into their parent session, never as requests.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

from palace_lab.ingest.base import (
    RECORD_ERRORS, Parser, ParseResult, first_json_lines, iter_jsonl, read_head, squash_spaces,
)
from palace_lab.model import Conversation, Message

NAME = "claude-code"
CONTENT_TYPES = {"user", "assistant", "system", "queue-operation"}
TITLE_TYPES = {"summary", "custom-title"}
KNOWN_TYPES = CONTENT_TYPES | TITLE_TYPES | {
    "progress", "file-history-snapshot", "attachment", "permission-mode", "last-prompt",
    "pr-link"}
# Local commands only print; every other slash command expands into a prompt for the agent.
LOCAL_COMMANDS = {
    "clear", "context", "cost", "compact", "help", "model", "status", "config", "login",
    "logout", "doctor", "exit", "quit", "resume", "permissions", "hooks", "mcp", "agents",
    "ide", "vim", "theme", "terminal-setup", "add-dir", "release-notes", "bug", "upgrade",
    "usage", "memory", "export", "statusline", "output-style", "privacy-settings", "rewind",
    "todos", "tasks", "plugin", "sandbox", "stats", "fast"}
MACHINE_TAGS = ("system-reminder", "ide_opened_file", "ide_selection", "ide_diagnostics")
_TAG_BLOCK = re.compile(r"<(%s)>.*?</\1>" % "|".join(MACHINE_TAGS), re.S)
_COMMAND = re.compile(r"<command-name>\s*/?([\w:.\-]+)\s*</command-name>")
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
CONTINUATION = "This session is being continued from a previous conversation"
REJECTION = "The user doesn't want to proceed with this tool use."


def sniff(path: Path, head: bytes) -> bool:
    """A Claude Code record among the first lines: a known type with a session marker, or a
    user/assistant record shaped as the parser reads it (``uuid`` and a ``message`` object),
    so that a session written without ``sessionId`` is recognised as the parser reads it."""
    for obj in first_json_lines(head):
        kind = obj.get("type")
        if not isinstance(kind, str) or kind not in KNOWN_TYPES:
            continue
        if "sessionId" in obj or "leafUuid" in obj or "snapshot" in obj or "messageId" in obj:
            return True
        if kind in ("user", "assistant") and isinstance(obj.get("uuid"), str) \
                and isinstance(obj.get("message"), dict):
            return True
    return False


def is_attached_subagent(path: Path) -> bool:
    """A subagent transcript whose parent session file will bring it in."""
    if path.parent.name == "subagents":
        return (path.parent.parent.parent / f"{path.parent.parent.name}.jsonl").exists()
    if path.name.startswith("agent-"):
        sid = _head_session_id(path)
        return bool(sid) and (path.parent / f"{sid}.jsonl").exists()
    return False


def _head_session_id(path: Path) -> str | None:
    """The sessionId named in a file's first lines; None when unreadable or absent."""
    try:
        lines = first_json_lines(read_head(path), limit=3)
    except OSError:
        return None
    return next((o["sessionId"] for o in lines if isinstance(o.get("sessionId"), str)
                 and o["sessionId"]), None)


def _blocks(content) -> list[dict]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [b if isinstance(b, dict) else {"type": "text", "text": str(b)} for b in content]
    return []


def _result_text(content) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for b in _blocks(content):
        if b.get("type") == "text":
            parts.append(b.get("text", ""))
        elif b.get("type") == "image":
            parts.append("[image]")
    return "\n".join(parts)


def person_words(text: str) -> str:
    """The request with IDE/system blocks removed: what the person typed."""
    return _TAG_BLOCK.sub("", text).strip()


def classify_user_text(text: str, record: dict) -> tuple[str, bool, bool]:
    """(role, is_request, searchable) of a user record's text."""
    stripped = text.lstrip()
    if record.get("isCompactSummary") or stripped.startswith(CONTINUATION):
        return "system", False, False
    if record.get("isMeta") or stripped.startswith(("Caveat:", "<local-command-caveat>")):
        return "system", False, False
    if stripped.startswith("[Request interrupted by user"):
        return "system", False, False
    if stripped.startswith("<task-notification>"):  # a background task's notice to the agent
        return "system", False, True
    if stripped.startswith(("<local-command-stdout>", "<local-command-stderr>")):
        return "system", False, False
    if stripped.startswith("<bash-input>"):
        return "tool_call", False, True
    if stripped.startswith(("<bash-stdout>", "<bash-stderr>")):
        return "tool_result", False, True
    command = _COMMAND.search(stripped)
    if command and stripped.startswith(("<command-name>", "<command-message>")):
        is_local = command.group(1).lower() in LOCAL_COMMANDS
        return ("system", False, False) if is_local else ("user", True, True)
    if not person_words(text):
        return "system", False, False
    return "user", True, True


class _Builder:
    """Accumulates messages of one session with contiguous positions."""

    def __init__(self, path: Path):
        self.path = path
        self.messages: list[dict] = []
        self.seen_usage: set[str] = set()

    def add(self, record: dict, line: int, role: str, text: str, key_suffix: str = "",
            **extra) -> None:
        meta = extra.pop("meta", {})
        if record.get("isSidechain"):
            meta["sidechain"] = True
        self.messages.append(dict(
            role=role, text=text, source_key=str(record.get("uuid") or f"L{line}") + key_suffix,
            timestamp=record.get("timestamp"), source_path=str(self.path), source_line=line,
            meta=meta, **extra))


def _user_record(b: _Builder, rec: dict, line: int) -> None:
    blocks = _blocks((rec.get("message") or {}).get("content"))
    texts = [x.get("text", "") for x in blocks if x.get("type") == "text"]
    images = sum(1 for x in blocks if x.get("type") == "image")
    for i, block in enumerate(x for x in blocks if x.get("type") == "tool_result"):
        text = _ANSI.sub("", _result_text(block.get("content")))
        meta = {"tool_use_id": block.get("tool_use_id")}
        if block.get("is_error"):
            meta["is_error"] = True
        if REJECTION in text and "the user said:" in text:
            meta["person_words"] = text.split("the user said:", 1)[1].strip()
        b.add(rec, line, "tool_result", text, f"#r{i}" if i else "", meta=meta)
    if not texts and not images:
        return
    text = _ANSI.sub("", "\n".join(texts) + ("\n[image]" * images))
    role, is_request, searchable = classify_user_text(text, rec)
    if rec.get("isSidechain"):
        is_request = False  # a subagent's prompt is not the person's request
    meta = {}
    if is_request and person_words(text) != text.strip():
        meta["request_text"] = person_words(text)
    b.add(rec, line, role, text, "#t" if any(x.get("type") == "tool_result" for x in blocks) else "",
          is_request=is_request, searchable=searchable, meta=meta)


def _assistant_record(b: _Builder, rec: dict, line: int) -> None:
    msg = rec.get("message") or {}
    meta: dict = {}
    mid = msg.get("id")
    if mid and mid not in b.seen_usage and msg.get("usage"):
        b.seen_usage.add(mid)  # one response written over several lines: count usage once
        meta = {"usage": msg["usage"], "model": msg.get("model")}
    for i, block in enumerate(_blocks(msg.get("content"))):
        suffix = f"#{i}" if i else ""
        kind = block.get("type")
        if kind == "text" and block.get("text", "").strip():
            b.add(rec, line, "assistant", block["text"], suffix, meta=dict(meta))
        elif kind == "tool_use":
            args = json.dumps(block.get("input", {}), ensure_ascii=False)
            b.add(rec, line, "tool_call", args, suffix, tool_name=block.get("name"),
                  meta={"tool_use_id": block.get("id"), **meta})
        elif kind == "thinking" and block.get("thinking", "").strip():
            b.add(rec, line, "assistant", block["thinking"], suffix, searchable=False,
                  meta={"thinking": True})
        meta = {}


def _system_record(b: _Builder, rec: dict, line: int) -> None:
    text = rec.get("content")
    if not isinstance(text, str) or not text.strip():
        return
    b.add(rec, line, "system", _ANSI.sub("", text), searchable=False,
          meta={"subtype": rec.get("subtype")} if rec.get("subtype") else {})


def _read_session(path: Path, result: ParseResult) -> tuple[_Builder, dict, list[dict]]:
    b = _Builder(path)
    info: dict = {}
    queued: list[dict] = []
    uuids: set[str] = set()
    for line, rec in iter_jsonl(path, result):
        reason = _invalid_field(rec)
        if reason is None and isinstance(rec.get("uuid"), str) and rec["uuid"] in uuids \
                and rec.get("type") in CONTENT_TYPES:
            reason = "duplicate_record"  # a line written twice (or a file concatenated twice)
        if reason:
            result.skip(reason)
            continue
        kept = len(b.messages)
        try:
            _record(b, rec, line, info, queued, result)
        except RECORD_ERRORS:
            del b.messages[kept:]  # a record adds all of its messages or none
            result.skip("malformed_record")
            continue
        if rec.get("sessionId"):
            info.setdefault("session_id", rec["sessionId"])
        if rec.get("cwd"):
            info.setdefault("cwd", rec["cwd"])
        if rec.get("uuid"):
            uuids.add(rec["uuid"])
    own = [t for leaf, t in info.pop("summaries", {}).items() if leaf in uuids]
    if own and "title" not in info:
        info["title"] = own[-1]
    return b, info, queued


# Fields whose type every later step relies on; a record that breaks one is skipped whole.
_FIELD_TYPES = {"type": str, "sessionId": str, "uuid": str, "cwd": str, "message": dict,
                "parentUuid": str, "timestamp": str}


def _invalid_field(rec: dict) -> str | None:
    """``invalid_field:<name>`` for the first field of the wrong type, else None."""
    for name, kind in _FIELD_TYPES.items():
        value = rec.get(name)
        if value is not None and not isinstance(value, kind):
            return f"invalid_field:{name}"
    return None


def _record(b: _Builder, rec: dict, line: int, info: dict, queued: list, result) -> None:
    kind = rec.get("type")
    if kind == "user":
        _user_record(b, rec, line)
    elif kind == "assistant":
        _assistant_record(b, rec, line)
    elif kind == "system":
        _system_record(b, rec, line)
    elif kind == "queue-operation":
        if rec.get("operation") == "enqueue" and isinstance(rec.get("content"), str):
            queued.append({"rec": rec, "line": line, "at": len(b.messages)})
    elif kind == "custom-title" and isinstance(rec.get("customTitle"), str) \
            and rec["customTitle"]:
        info["title"] = rec["customTitle"]
    elif kind == "summary":
        # Summary records often describe *other* sessions: only one whose leaf is a
        # record of this file names this conversation.
        if isinstance(rec.get("leafUuid"), str) and isinstance(rec.get("summary"), str):
            info.setdefault("summaries", {})[rec["leafUuid"]] = rec["summary"]
        result.skip(f"record:{kind}")
    else:
        result.skip(f"record:{kind or 'untyped'}")


def _place_queued(b: _Builder, queued: list[dict]) -> None:
    """Queued prompts that never arrived as user records stay where they were typed."""
    if not queued:
        return
    later_requests = {squash_spaces(m["text"]) for m in b.messages if m.get("is_request")}
    for q in reversed(queued):
        text = q["rec"]["content"]
        if squash_spaces(text) in later_requests:
            continue
        entry = dict(role="user", text=text, source_key=f"queue:L{q['line']}",
                     timestamp=q["rec"].get("timestamp"), source_path=str(b.path),
                     source_line=q["line"], is_request=False, meta={"queued": True})
        b.messages.insert(q["at"], entry)


@lru_cache(maxsize=64)
def _agent_siblings(folder: Path, mtime_ns: int) -> tuple[Path, ...]:
    """Older-layout subagent files of a folder, listed once per folder state (not per session:
    a project folder can hold thousands of sessions). The mtime in the key sees new files."""
    return tuple(sorted(folder.glob("agent-*.jsonl")))


def _subagent_files(path: Path, session_id: str | None) -> list[Path]:
    found = sorted((path.parent / path.stem / "subagents").glob("*.jsonl"))
    for sibling in _agent_siblings(path.parent, path.parent.stat().st_mtime_ns):
        if session_id and _head_session_id(sibling) == session_id:
            found.append(sibling)
    return found


def _merge_subagent(main: list[dict], sub: list[dict]) -> list[dict]:
    """Insert a subagent's messages before the first parent message that came after it began."""
    start = next((m["timestamp"] for m in sub if m.get("timestamp")), None)
    if start is None:
        return main + sub
    at = next((i for i, m in enumerate(main) if (m.get("timestamp") or "") > start), len(main))
    return main[:at] + sub + main[at:]


WARMUP = "Warmup"  # the prompt Claude Code sends its subagents to warm their cache


def _mark_warmups(entries: list[dict]) -> None:
    """Claude Code's warm-up subagent runs (a sidechain whose first prompt is "Warmup") are
    kept and counted, but they are not the person's history: nothing of theirs is searched,
    distilled or shown as an exchange's text (as meta messages are not)."""
    runs: dict[object, list[dict]] = {}
    inline = 0
    for i, m in enumerate(entries):
        if not m["meta"].get("sidechain"):
            inline = i + 1  # a new inline sidechain run starts after a parent message
            continue
        runs.setdefault(m["meta"].get("subagent_file") or ("inline", inline), []).append(m)
    for run in runs.values():
        first = next((m for m in run if m["role"] in ("user", "system")), None)
        if first is not None and first["text"].strip() == WARMUP:
            for m in run:
                m["searchable"] = False
                m["meta"] = {**m["meta"], "warmup": True}


def _to_conversation(entries: list[dict], info: dict, path: Path) -> Conversation:
    sid = info.get("session_id") or path.stem
    messages = tuple(Message(conversation_id=sid, position=i, **e) for i, e in enumerate(entries))
    cwd = info.get("cwd")
    project = Path(cwd).name if cwd else path.parent.name.strip("-").split("-")[-1] or None
    return Conversation(conversation_id=sid, source_format=NAME, messages=messages,
                        project=project, title=info.get("title"), source_path=str(path),
                        cwd=cwd)


def parse(path: Path) -> ParseResult:
    result = ParseResult()
    b, info, queued = _read_session(path, result)
    _place_queued(b, queued)
    entries = b.messages
    if not path.name.startswith("agent-") and path.parent.name != "subagents":
        for sub_path in _subagent_files(path, info.get("session_id")):
            sub_builder, _, _ = _read_session(sub_path, result)
            for m in sub_builder.messages:
                m["is_request"] = False
                m["meta"] = {**m["meta"], "sidechain": True, "subagent_file": sub_path.name}
                m["source_key"] = f"{sub_path.stem}:{m['source_key']}"
            entries = _merge_subagent(entries, sub_builder.messages)
    _mark_warmups(entries)
    if entries:
        result.conversations.append(_to_conversation(entries, info, path))
    return result
PARSER = Parser(NAME, sniff, parse)
