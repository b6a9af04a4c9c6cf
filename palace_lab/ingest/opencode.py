"""OpenCode sessions (``~/.local/share/opencode/storage/``): one session over many JSON files.

Layout: ``session/<projectID>/<sessionID>.json`` holds the session (``id``, ``projectID``,
``directory``, ``title``, ``parentID`` for a subagent's session, ``time.created`` in unix ms);
``message/<sessionID>/<messageID>.json`` one message's header (``role`` user | assistant,
``time.created``, ``modelID``, ``summary``…); ``part/<messageID>/<partID>.json`` its content,
one part per file, ``type`` text | reasoning | tool | file | subtask | compaction | step-start |
step-finish | snapshot | patch | agent | retry.

The session file is the source offered to the parser; its messages and parts are read from the
storage root beside it (and never offered on their own, see :func:`is_session_part`). The
"unchanged" key is a fingerprint over all of them (:func:`fingerprint`): a session gains parts
without its own file changing. Releases 1.2 and later keep the same records in
``opencode.db`` (:mod:`palace_lab.ingest.opencode_db`): every session in it is read the same way.

Traps handled on purpose: ids sort in creation order but messages are ordered by
``time.created`` first (ids break ties); a ``tool`` part is both the call (``state.input``) and
its result (``state.output`` or ``state.error``), split into two messages; ``synthetic`` text
(what the CLI adds, such as a read file's content) is kept as system text, never the person's
words, and ``ignored`` text is dropped; ``reasoning`` is kept out of the index; a user message
opening a compaction and the assistant's ``summary`` reply are not requests nor indexed; a
subagent session (``parentID``) never opens an exchange with the task prompt.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from palace_lab.errors import UnknownFormatError
from palace_lab.ingest.base import (
    BOM, RECORD_ERRORS, Parser, ParseResult, conversation_from_entries, read_file_bounded,
    read_head, to_text, utc_from_unix,
)
from palace_lab.ingest.opencode_db import decoded, is_opencode_db, read_rows
from palace_lab.ingest.sqlite_ro import (add_stats, is_sqlite, read_for_parse, sniff_db,
                                         stat_fingerprint)

NAME = "opencode"
SMALL_JSON = 64 << 20
_QUIET_PARTS = {"step-start", "step-finish", "snapshot", "patch", "agent", "retry"}


def sniff(path: Path, head: bytes) -> bool:
    if is_sqlite(head):
        return sniff_db(path, head, is_opencode_db)
    try:
        obj = json.loads(head.removeprefix(BOM))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return False
    return isinstance(obj, dict) and _is_session(obj)


def _is_session(obj: dict) -> bool:
    return isinstance(obj.get("id"), str) and obj["id"].startswith("ses") \
        and isinstance(obj.get("projectID"), str) and isinstance(obj.get("time"), dict)


def is_session_part(path: Path) -> bool:
    """A message or part file of an OpenCode storage folder: its session brings it in."""
    kind = path.parent.parent
    return kind.name in ("message", "part") and (kind.parent / "session").is_dir()


def session_file_of(path: Path) -> Path | None:
    """The session file a message or part file belongs to; None when it cannot be told."""
    kind = path.parent.parent
    if kind.name == "message":
        sid = path.parent.name
    else:
        obj = _load(path)
        sid = obj.get("sessionID") if obj else None
    if not isinstance(sid, str) or not sid:
        return None
    found = sorted((kind.parent / "session").glob(f"*/{sid}.json"))
    return found[0] if found else None


def _storage(path: Path) -> Path:
    return path.parent.parent.parent


def _files(folder: Path) -> list[Path]:
    try:
        return sorted(p for p in folder.glob("*.json") if p.is_file())
    except OSError:
        return []


def fingerprint(path: Path) -> str:
    """A key that changes when the session file or any of its message or part files does (for
    the database: when it or its ``-wal`` does)."""
    if is_sqlite(read_head(path, 16)):
        return stat_fingerprint(path)
    h = hashlib.sha1(read_file_bounded(path, SMALL_JSON))
    root, sid = _storage(path), path.stem
    for msg in _files(root / "message" / sid):
        add_stats(h, (msg, *_files(root / "part" / msg.stem)))
    return h.hexdigest()


def _load(path: Path, result: ParseResult | None = None) -> dict | None:
    try:
        obj = json.loads(read_file_bounded(path, SMALL_JSON).decode("utf-8-sig"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        obj = None
    if not isinstance(obj, dict):
        if result is not None:
            result.skip("unreadable_part_file")
        return None
    return obj


def parse(path: Path) -> ParseResult:
    if is_sqlite(read_head(path, 16)):
        return _parse_db(path)
    session = _load(path)
    if session is None or not _is_session(session):
        raise UnknownFormatError(f"{path.name} is not an OpenCode session file")
    result = ParseResult()
    root = _storage(path)
    messages = _messages(root / "message" / session["id"], result)
    parts = {m["id"]: [p for p in (_load(f, result) for f in _files(root / "part" / m["id"])) if p]
             for m in messages}
    _keep_session(result, path, session, messages, parts)
    return result


def _parse_db(path: Path) -> ParseResult:
    result = ParseResult()
    for row in read_for_parse(path, read_rows, result):
        session, messages, parts = decoded(row, result)
        valid = [m for m in messages if m.get("role") in ("user", "assistant")]
        if len(valid) < len(messages):
            result.skip("malformed_record", len(messages) - len(valid))
        _keep_session(result, path, session, valid, parts)
    return result


def _keep_session(result: ParseResult, path: Path, session: dict, messages: list[dict],
                  parts: dict[str, list[dict]]) -> None:
    child = isinstance(session.get("parentID"), str)
    entries: list[dict] = []
    for msg in messages:
        try:
            entries.extend(_message_entries(msg, parts.get(msg["id"], []), child, result))
        except RECORD_ERRORS:
            result.skip("malformed_record")
    cwd = session.get("directory") if isinstance(session.get("directory"), str) else None
    title = session.get("title") if isinstance(session.get("title"), str) else None
    result.keep(conversation_from_entries(
        entries, conversation_id=session["id"], source_format=NAME, path=path,
        project=Path(cwd).name if cwd else None, title=title, cwd=cwd))


def _messages(folder: Path, result: ParseResult) -> list[dict]:
    out = []
    for f in _files(folder):
        msg = _load(f, result)
        if msg is None:
            continue
        if not isinstance(msg.get("id"), str) or msg.get("role") not in ("user", "assistant"):
            result.skip("malformed_record")
            continue
        out.append(msg)
    return sorted(out, key=lambda m: (_created(m) or 0, m["id"]))


def _created(obj: dict):
    time = obj.get("time")
    value = time.get("created") if isinstance(time, dict) else None
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _stamp(obj: dict) -> str | None:
    created = _created(obj)
    return utc_from_unix(created / 1000) if created is not None else None


def _message_entries(msg: dict, parts: list[dict], child: bool, result: ParseResult) -> list[dict]:
    parts = sorted(parts, key=lambda p: str(p.get("id")))
    stamp = _stamp(msg)
    if msg["role"] == "user":
        return _user_entries(msg, parts, stamp, child)
    out = []
    summary = msg.get("summary") is True
    for p in parts:
        entry = _assistant_part(p, result)
        for e in entry:
            e.update(timestamp=_stamp(p) or stamp)
            if summary:
                e.update(searchable=False, meta={**e.get("meta", {}), "compaction_summary": True})
        out.extend(entry)
    return out


def _user_entries(msg: dict, parts: list[dict], stamp: str | None, child: bool) -> list[dict]:
    words, extra, files = [], [], []
    compaction = any(p.get("type") == "compaction" for p in parts)
    for p in parts:
        kind = p.get("type")
        if kind == "text" and isinstance(p.get("text"), str) and not p.get("ignored"):
            (extra if p.get("synthetic") else words).append(p)
        elif kind == "file":
            files.append(f"[file: {p.get('filename') or p.get('url') or ''}]")
    out = []
    text = "\n".join([*(p["text"] for p in words), *files]).strip()
    if text:
        request = not (child or compaction)
        meta = {"sidechain": True} if child else {"compaction": True} if compaction else {}
        out.append(dict(role="user", text=text, source_key=msg["id"], timestamp=stamp,
                        is_request=request, searchable=not compaction, meta=meta))
    for p in extra:
        out.append(dict(role="system", text=p["text"], source_key=f"{msg['id']}:{p.get('id')}",
                        timestamp=stamp, meta={"synthetic": True}))
    return out


def _assistant_part(p: dict, result: ParseResult) -> list[dict]:
    kind, key = p.get("type"), str(p.get("id"))
    if kind == "text" and isinstance(p.get("text"), str) and p["text"].strip():
        return [dict(role="assistant", text=p["text"], source_key=key)]
    if kind == "reasoning" and isinstance(p.get("text"), str) and p["text"].strip():
        return [dict(role="assistant", text=p["text"], source_key=key, searchable=False,
                     meta={"thinking": True})]
    if kind == "tool":
        return _tool_entries(p, key)
    if kind == "subtask":
        return [dict(role="tool_call", text=to_text(p.get("prompt")), tool_name="subtask",
                     source_key=key, meta={"agent": p.get("agent")})]
    if kind not in _QUIET_PARTS and kind != "text" and kind != "reasoning":
        result.skip(f"part:{kind}")
    return []


def _tool_entries(p: dict, key: str) -> list[dict]:
    state = p.get("state") if isinstance(p.get("state"), dict) else {}
    name = p.get("tool") if isinstance(p.get("tool"), str) else "tool"
    meta = {"call_id": p.get("callID")}
    out = [dict(role="tool_call", text=to_text(state.get("input") or {}), tool_name=name,
                source_key=key, meta=meta)]
    if state.get("status") == "completed":
        out.append(dict(role="tool_result", text=to_text(state.get("output")),
                        source_key=f"{key}#result", meta=meta))
    elif state.get("status") == "error":
        out.append(dict(role="tool_result", text=to_text(state.get("error")),
                        source_key=f"{key}#result", meta={**meta, "is_error": True}))
    return out


PARSER = Parser(NAME, sniff, parse, fingerprint)
