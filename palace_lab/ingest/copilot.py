"""GitHub Copilot chat sessions as VS Code stores them (``chatSessions/<sessionId>.json[l]``).

Where: ``<Code>/User/workspaceStorage/<hash>/chatSessions/`` (``workspace.json`` two levels up
names the folder) and ``<Code>/User/globalStorage/emptyWindowChatSessions/`` (chats opened
without a folder), ``<Code>`` being ``~/.config/Code`` (or ``Code - Insiders``), ``~/Library/
Application Support/Code`` or ``%APPDATA%/Code``.

Older releases kept the sessions in the workspace's ``state.vscdb`` (``ItemTable`` key
``interactive.sessions``: a list of the same session objects), read read-only as Cursor's
databases are (:mod:`palace_lab.ingest.sqlite_ro`). Newer ones write two shapes of the same
session object ``{version, sessionId, creationDate (unix ms), customTitle?, requests: [...]}``:

- ``.json`` (releases up to late 2025): the whole object, rewritten on every change.
- ``.jsonl`` (newer releases): a mutation log. Line 1 is ``{"kind": 0, "v": <session>}``; then
  ``{"kind": 1, "k": [path], "v": value}`` sets a value, ``{"kind": 2, "k": [path], "v":
  [items], "i": n?}`` pushes items to an array (cutting it to ``n`` items first when ``i`` is
  given) and ``{"kind": 3, "k": [path]}`` deletes a value. Replaying it gives the session.

A request is ``{requestId, timestamp, message: {text}, response: [parts], result, modelId}``.
Response parts without ``kind`` (or ``markdownContent``) are the answer's markdown; ``thinking``
is reasoning; ``toolInvocationSerialized`` is a tool run (``toolId``, ``invocationMessage``,
``pastTenseMessage``, ``resultDetails.input``/``output``); ``textEditGroup`` is an edit of
``uri``; ``inlineReference`` names a file inside the answer.

Traps handled on purpose: a log line whose path no longer exists is skipped and counted, never
the session; a log cut after ``i`` (the person undid a request) replays as VS Code shows it, and
the archive keeps what an earlier ingest stored; markdown split over many parts is one assistant
message until a tool run or edit interrupts it; a tool's result is taken from
``result.metadata.toolCallResults`` when the part carries none; a canceled request keeps what
was answered.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

from palace_lab.errors import UnknownFormatError
from palace_lab.ingest.base import (
    BOM, RECORD_ERRORS, Parser, ParseResult, conversation_from_entries, iter_jsonl,
    load_json_document, read_head, to_text, utc_from_unix, workspace_folder,
)
from palace_lab.ingest.sqlite_ro import has_table, is_sqlite, read_for_parse, sniff_db

NAME = "copilot"
STATE_KEY = "interactive.sessions"  # where releases before the chatSessions folder kept them
_LOG_START = re.compile(rb'^\{\s*"kind"\s*:\s*0\s*,\s*"v"\s*:\s*\{')
_REQUESTS = re.compile(rb'(?<!\\)"requests"\s*:\s*\[')
_SESSION = re.compile(rb'(?<!\\)"(sessionId|creationDate|requesterUsername)"\s*:')


def sniff(path: Path, head: bytes) -> bool:
    if is_sqlite(head):
        return sniff_db(path, head, _stored_sessions)
    try:
        text = head.removeprefix(BOM).lstrip()
        if _LOG_START.match(text):
            return bool(_SESSION.search(text) or _REQUESTS.search(text))
        return text[:1] == b"{" and bool(_REQUESTS.search(text)) \
            and len(set(m.group(1) for m in _SESSION.finditer(text))) >= 2
    except Exception:  # a sniffer is asked about every file: it must never raise
        return False


def parse(path: Path) -> ParseResult:
    result = ParseResult()
    head = read_head(path, 64)
    if is_sqlite(head):
        return _parse_state_db(path, result)
    log = bool(_LOG_START.match(head.removeprefix(BOM).lstrip()))
    session = _replay(path, result) if log else load_json_document(path)
    if not isinstance(session, dict) or not isinstance(session.get("requests"), list):
        raise UnknownFormatError(f"{path.name} is not a VS Code chat session (no requests)")
    _keep(result, session, path, path.parent.parent)
    return result


def session_entries(session: dict, result: ParseResult) -> list[dict]:
    """The messages of every request of a session; a request that cannot be read is counted."""
    entries: list[dict] = []
    for request in session["requests"]:
        try:
            entries.extend(request_entries(request))
        except RECORD_ERRORS:
            result.skip("malformed_request")
    return entries


def stored_sessions(raw, result: ParseResult) -> list[dict]:
    """The sessions of an ``interactive.sessions`` value; one that is not a session is counted."""
    try:
        sessions = json.loads(raw) if isinstance(raw, (str, bytes)) else None
    except (ValueError, RecursionError):
        sessions = None
    if not isinstance(sessions, list):
        result.skip("malformed_session_list")
        return []
    good = [s for s in sessions if isinstance(s, dict) and isinstance(s.get("requests"), list)]
    if len(good) < len(sessions):
        result.skip("malformed_session", len(sessions) - len(good))
    return good


def _keep(result: ParseResult, session: dict, path: Path, storage: Path) -> None:
    entries = session_entries(session, result)
    sid = session.get("sessionId") if isinstance(session.get("sessionId"), str) else path.stem
    title = session.get("customTitle") if isinstance(session.get("customTitle"), str) else None
    project, cwd = workspace_folder(storage) or (None, None)
    result.keep(conversation_from_entries(entries, conversation_id=sid, source_format=NAME,
                                          path=path, project=project, title=title, cwd=cwd))


# --- sessions kept in state.vscdb by older releases ---------------------------------------


def _stored_sessions(conn: sqlite3.Connection):
    if not has_table(conn, "ItemTable"):
        return None
    row = conn.execute("SELECT value FROM ItemTable WHERE key=?", (STATE_KEY,)).fetchone()
    return row[0] if row else None


def _parse_state_db(path: Path, result: ParseResult) -> ParseResult:
    raw = read_for_parse(path, _stored_sessions, result)
    for session in stored_sessions(raw, result):
        _keep(result, session, path, path.parent)
    return result


# --- the mutation log ---------------------------------------------------------------------


def _replay(path: Path, result: ParseResult):
    state = None
    for _, entry in iter_jsonl(path, result):
        kind = entry.get("kind")
        try:
            if kind == 0:
                state = entry["v"]
            elif state is None:
                result.skip("log_entry_before_initial")
            elif kind in (1, 3):
                _set(state, entry["k"], entry.get("v") if kind == 1 else None, kind == 3)
            elif kind == 2:
                _push(state, entry["k"], entry.get("v") or [], entry.get("i"))
            else:
                result.skip("log_entry_unknown_kind")
        except RECORD_ERRORS:
            result.skip("log_entry_bad_path")
    return state


def _walk(state, path: list):
    node = state
    for key in path:
        node = node[key]
    return node


def _set(state, path: list, value, delete: bool) -> None:
    if not path:
        raise KeyError("empty path")
    parent = _walk(state, path[:-1])
    if isinstance(parent, list) and not isinstance(path[-1], int):
        raise TypeError("list index is not a number")
    if delete:
        if isinstance(parent, dict):
            parent.pop(path[-1], None)
        return
    if isinstance(parent, list) and path[-1] == len(parent):
        parent.append(value)
    else:
        parent[path[-1]] = value


def _push(state, path: list, items: list, cut) -> None:
    target = _walk(state, path)
    if not isinstance(target, list) or not isinstance(items, list):
        raise TypeError("push onto something that is not a list")
    if isinstance(cut, int) and not isinstance(cut, bool):
        del target[cut:]
    target.extend(items)


# --- requests -----------------------------------------------------------------------------


def _value(obj) -> str:
    """The text of a markdown string or ``{value}`` object."""
    if isinstance(obj, str):
        return obj
    if isinstance(obj, dict):
        return to_text(obj.get("value", ""))
    return ""


def request_entries(request: dict) -> list[dict]:
    """The messages of one request: the person's words, then the answer's parts in order."""
    rid = str(request.get("requestId") or request.get("id"))
    stamp = utc_from_unix(request["timestamp"] / 1000) \
        if isinstance(request.get("timestamp"), (int, float)) else None
    message = request.get("message") or {}
    text = message.get("text") if isinstance(message, dict) else message
    if not isinstance(text, str):
        raise TypeError("request text is not a string")
    out = [dict(role="user", text=text, source_key=rid, is_request=True)] if text.strip() else []
    results = ((request.get("result") or {}).get("metadata") or {}).get("toolCallResults") or {}
    out.extend(_response_entries(request.get("response") or [], rid, results))
    for e in out:
        e["timestamp"] = stamp
    return out


def _response_entries(parts: list, rid: str, results: dict) -> list[dict]:
    out: list[dict] = []
    words: list[str] = []

    def flush(i: int) -> None:
        if "".join(words).strip():
            out.append(dict(role="assistant", text="".join(words).strip(),
                            source_key=f"{rid}#{i}"))
        words.clear()

    for i, part in enumerate(parts):
        kind = part.get("kind") if isinstance(part, dict) else None
        if kind in (None, "markdownContent", "markdownVuln"):
            words.append(_value(part.get("content", part) if isinstance(part, dict) else part))
        elif kind == "inlineReference":
            words.append(f"`{_reference(part.get('inlineReference'))}`")
        elif kind == "thinking":
            flush(i)
            thought = _value(part.get("value"))
            if thought.strip():
                out.append(dict(role="assistant", text=thought, source_key=f"{rid}#{i}t",
                                searchable=False, meta={"thinking": True}))
        elif kind in ("toolInvocationSerialized", "toolInvocation"):
            flush(i)
            out.extend(_tool_entries(part, f"{rid}#{i}", results))
        elif kind == "textEditGroup":
            flush(i)
            out.append(_edit_entry(part, f"{rid}#{i}"))
    flush(len(parts))
    return out


def _reference(ref) -> str:
    if isinstance(ref, dict):
        loc = ref.get("uri") if isinstance(ref.get("uri"), dict) else ref
        return str(loc.get("path") or loc.get("fsPath") or ref.get("name") or "")
    return to_text(ref)


def _tool_entries(part: dict, key: str, results: dict) -> list[dict]:
    call_id = part.get("toolCallId")
    details = part.get("resultDetails") if isinstance(part.get("resultDetails"), dict) else {}
    asked = details.get("input") or _value(part.get("invocationMessage"))
    meta = {"call_id": call_id}
    out = [dict(role="tool_call", text=to_text(asked), tool_name=str(part.get("toolId") or "tool"),
                source_key=key, meta=meta)]
    output = details.get("output")
    said = "\n".join(_value(o) for o in output) if isinstance(output, list) else to_text(output)
    if not said.strip() and isinstance(results.get(call_id), dict):
        said = "\n".join(_value(c) for c in results[call_id].get("content") or [])
    said = said.strip() or _value(part.get("pastTenseMessage"))
    if said.strip():
        error = {"is_error": True} if details.get("isError") else {}
        out.append(dict(role="tool_result", text=said, source_key=f"{key}r",
                        meta={**meta, **error}))
    return out


def _edit_entry(part: dict, key: str) -> dict:
    where = _reference(part.get("uri"))
    inserted = [e.get("text", "") for group in part.get("edits") or [] if isinstance(group, list)
                for e in group if isinstance(e, dict) and isinstance(e.get("text"), str)]
    return dict(role="tool_call", text="\n".join([where, *inserted]).strip(), tool_name="edit",
                source_key=key, meta={"file": where})


PARSER = Parser(NAME, sniff, parse)
