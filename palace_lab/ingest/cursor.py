"""Cursor chat and composer history, read from its ``state.vscdb`` SQLite databases.

Where: ``<Cursor>/User/globalStorage/state.vscdb`` (composers: Cursor's chat and agent panel)
and ``<Cursor>/User/workspaceStorage/<hash>/state.vscdb`` (one per opened folder, with
``workspace.json`` beside it naming the folder), ``<Cursor>`` being ``~/.config/Cursor``,
``~/Library/Application Support/Cursor`` or ``%APPDATA%/Cursor``. Both tables are key/value
(``key TEXT UNIQUE``, ``value BLOB`` holding JSON text).

Three shapes, every one read when present:

- ``cursorDiskKV`` ``composerData:<composerId>``: ``{composerId, name, createdAt (unix ms),
  fullConversationHeadersOnly: [{bubbleId, type}]}``, the bubbles themselves under
  ``bubbleId:<composerId>:<bubbleId>``; older composers keep them in ``conversationMap`` or
  inline in ``conversation``.
- ``ItemTable`` ``composer.composerData``: ``{allComposers: [...]}``, entries with an inline
  ``conversation`` in old releases (newer ones only list ids, read from the global database).
- ``ItemTable`` ``workbench.panel.aichat.view.aichat.chatdata``: the old chat panel, ``{tabs:
  [{tabId, chatTitle, bubbles: [{type: user|ai, id, text}]}]}``.
- ``ItemTable`` ``interactive.sessions``: VS Code's own chat panel inside Cursor, in the session
  shape :mod:`palace_lab.ingest.copilot` reads.

A bubble of type 1 (or ``user``) is the person's; type 2 (or ``ai``) the assistant's, with
``text``, ``thinking.text`` (kept out of the index), ``toolFormerData`` (``name``, ``rawArgs``,
``result``, ``status``: a tool call and its result) and ``codeBlocks``.

Traps handled on purpose: the database is opened read-only and, when Cursor holds it locked,
read lock-free (:mod:`palace_lab.ingest.sqlite_ro`); a header whose bubble is missing or is not
JSON is skipped and counted, never the composer; empty bubbles (capability markers) are
dropped; a workspace database that only lists composer ids holds no conversation and is not
claimed; a composer's project comes from the workspace database that lists it.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from palace_lab.ingest.base import (
    RECORD_ERRORS, Parser, ParseResult, conversation_from_entries, to_text, utc_from_iso,
    utc_from_unix, workspace_folder,
)
from palace_lab.ingest.copilot import STATE_KEY, session_entries, stored_sessions
from palace_lab.ingest.sqlite_ro import (
    has_table, key_range, read_db, read_for_parse, sniff_db, stat_fingerprint,
)

NAME = "cursor"
CHAT_KEY = "workbench.panel.aichat.view.aichat.chatdata"
COMPOSERS_KEY = "composer.composerData"
USER_TYPES = (1, "user")
AI_TYPES = (2, "ai")


def sniff(path: Path, head: bytes) -> bool:
    return sniff_db(path, head, _holds_chats)


def _holds_chats(conn: sqlite3.Connection) -> bool:
    if has_table(conn, "cursorDiskKV") and key_range(conn, "cursorDiskKV", "composerData:", 1):
        return True
    if not has_table(conn, "ItemTable"):
        return False
    if _item(conn, CHAT_KEY) is not None:
        return True
    panel = conn.execute("SELECT 1 FROM ItemTable WHERE key=?", (STATE_KEY,)).fetchone()
    if panel and _item(conn, COMPOSERS_KEY) is not None:  # a Cursor workspace, not VS Code's
        return True
    listed = _item(conn, COMPOSERS_KEY)
    return isinstance(listed, dict) and any(
        isinstance(c, dict) and c.get("conversation") for c in listed.get("allComposers") or [])


def _item(conn: sqlite3.Connection, key: str):
    row = conn.execute("SELECT value FROM ItemTable WHERE key=?", (key,)).fetchone()
    return _json(row[0]) if row else None


def _json(value):
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    try:
        return json.loads(value) if isinstance(value, str) else None
    except (ValueError, RecursionError):
        return None


def parse(path: Path) -> ParseResult:
    result = ParseResult()
    raw = read_for_parse(path, _read_all, result)
    projects = _workspace_projects(path)
    for composer, bubbles in raw["composers"]:
        _keep(result, path, _composer_conversation(composer, bubbles, result), projects)
    for tab in raw["tabs"]:
        _keep(result, path, _tab_conversation(tab, result), projects)
    if raw.get("panel") is not None:  # VS Code's own chat panel inside Cursor
        for session in stored_sessions(raw["panel"], result):
            title = session.get("customTitle")
            title = title if isinstance(title, str) else None
            sid = str(session.get("sessionId") or "panel")
            _keep(result, path, (sid, title, session_entries(session, result)), projects)
    return result


def _keep(result: ParseResult, path: Path, conv: tuple | None, projects: dict) -> None:
    if conv is None:
        return
    cid, title, entries = conv
    project, cwd = projects.get(cid) or projects.get("") or (None, None)
    result.keep(conversation_from_entries(entries, conversation_id=cid, source_format=NAME,
                                          path=path, project=project, title=title, cwd=cwd))


def _read_all(conn: sqlite3.Connection) -> dict:
    """Every composer with its bubble rows, and every old chat tab, as raw JSON values."""
    out: dict = {"composers": [], "tabs": [], "panel": None}
    if has_table(conn, "cursorDiskKV"):
        for key, value in key_range(conn, "cursorDiskKV", "composerData:"):
            cid = key.split(":", 1)[1]
            rows = key_range(conn, "cursorDiskKV", f"bubbleId:{cid}:")
            out["composers"].append((_json(value), {k.rsplit(":", 1)[1]: v for k, v in rows}))
    if has_table(conn, "ItemTable"):
        listed = _item(conn, COMPOSERS_KEY)
        for c in (listed.get("allComposers") or []) if isinstance(listed, dict) else []:
            if isinstance(c, dict) and c.get("conversation"):
                out["composers"].append((c, {}))
        chat = _item(conn, CHAT_KEY)
        out["tabs"] = (chat.get("tabs") or []) if isinstance(chat, dict) else []
        row = conn.execute("SELECT value FROM ItemTable WHERE key=?", (STATE_KEY,)).fetchone()
        out["panel"] = row[0] if row else None
    return out


# --- composers and tabs -------------------------------------------------------------------


def _composer_conversation(composer, rows: dict, result: ParseResult):
    if not isinstance(composer, dict) or not isinstance(composer.get("composerId"), str):
        result.skip("malformed_composer")
        return None
    bubbles = []
    inline = {b.get("bubbleId"): b for b in composer.get("conversation") or []
              if isinstance(b, dict)}
    stored = composer.get("conversationMap") if isinstance(composer.get("conversationMap"),
                                                           dict) else {}
    headers = composer.get("fullConversationHeadersOnly") or list(inline.values())
    for header in headers if isinstance(headers, list) else []:
        bid = header.get("bubbleId") if isinstance(header, dict) else None
        bubble = _json(rows[bid]) if bid in rows else stored.get(bid) or inline.get(bid)
        if not isinstance(bubble, dict):
            result.skip("missing_bubble")
            continue
        bubbles.append((bid, bubble))
    since = utc_from_unix(composer["createdAt"] / 1000) \
        if isinstance(composer.get("createdAt"), (int, float)) else None
    entries = _entries(bubbles, since, result)
    title = composer.get("name") if isinstance(composer.get("name"), str) else None
    return composer["composerId"], title, entries


def _tab_conversation(tab, result: ParseResult):
    if not isinstance(tab, dict) or not isinstance(tab.get("tabId"), str):
        result.skip("malformed_chat_tab")
        return None
    bubbles = [(str(b.get("id") or f"b{i}"), b) for i, b in enumerate(tab.get("bubbles") or [])
               if isinstance(b, dict)]
    since = utc_from_unix(tab["lastSendTime"] / 1000) \
        if isinstance(tab.get("lastSendTime"), (int, float)) else None
    title = tab.get("chatTitle") if isinstance(tab.get("chatTitle"), str) else None
    return f"tab:{tab['tabId']}", title, _entries(bubbles, since, result)


def _entries(bubbles: list[tuple[str, dict]], since: str | None, result: ParseResult) -> list:
    out: list[dict] = []
    for bid, bubble in bubbles:
        try:
            out.extend(_bubble_entries(str(bid), bubble, since))
        except RECORD_ERRORS:
            result.skip("malformed_bubble")
    return out


def _stamp(bubble: dict, since: str | None) -> str | None:
    created = bubble.get("createdAt")
    if isinstance(created, (int, float)) and not isinstance(created, bool):
        return utc_from_unix(created / 1000)
    return utc_from_iso(created) or since


def _bubble_entries(bid: str, bubble: dict, since: str | None) -> list[dict]:
    kind, stamp = bubble.get("type"), _stamp(bubble, since)
    text = bubble.get("text") or bubble.get("rawText") or ""
    if not isinstance(text, str):
        raise TypeError("bubble text is not a string")
    if kind in USER_TYPES:
        return [dict(role="user", text=text, source_key=bid, timestamp=stamp,
                     is_request=True)] if text.strip() else []
    if kind not in AI_TYPES:
        raise ValueError(f"unknown bubble type {kind!r}")
    out = []
    thinking = bubble.get("thinking")
    if isinstance(thinking, dict) and isinstance(thinking.get("text"), str) \
            and thinking["text"].strip():
        out.append(dict(role="assistant", text=thinking["text"], source_key=f"{bid}#think",
                        timestamp=stamp, searchable=False, meta={"thinking": True}))
    if not text.strip():
        blocks = [b.get("content") for b in bubble.get("codeBlocks") or []
                  if isinstance(b, dict) and isinstance(b.get("content"), str)]
        text = "\n\n".join(blocks)
    if text.strip():
        out.append(dict(role="assistant", text=text, source_key=bid, timestamp=stamp))
    tool = bubble.get("toolFormerData")
    if isinstance(tool, dict) and tool.get("name"):
        out.extend(_tool_entries(bid, tool, stamp))
    return out


def _tool_entries(bid: str, tool: dict, stamp: str | None) -> list[dict]:
    meta = {"call_id": tool.get("toolCallId"), "status": tool.get("status")}
    args = tool.get("rawArgs") if tool.get("rawArgs") is not None else tool.get("params")
    out = [dict(role="tool_call", text=to_text(args), tool_name=str(tool["name"]),
                source_key=f"{bid}#call", timestamp=stamp, meta=meta)]
    if tool.get("result") is not None:
        error = {"is_error": True} if tool.get("status") == "error" else {}
        out.append(dict(role="tool_result", text=to_text(tool["result"]),
                        source_key=f"{bid}#result", timestamp=stamp, meta={**meta, **error}))
    return out


# --- projects -----------------------------------------------------------------------------


def _listed_ids(conn: sqlite3.Connection) -> list[str]:
    if not has_table(conn, "ItemTable"):
        return []
    listed = _item(conn, COMPOSERS_KEY)
    return [c["composerId"] for c in (listed.get("allComposers") or [])
            if isinstance(c, dict) and isinstance(c.get("composerId"), str)] \
        if isinstance(listed, dict) else []


def _workspace_projects(path: Path) -> dict[str, tuple[str, str]]:
    """composerId → (project, folder) from the workspace databases; ``""`` → this database's
    own folder when it is a workspace database."""
    own = workspace_folder(path.parent)
    if own:
        return {"": own}
    out: dict[str, tuple[str, str]] = {}
    storage = path.parent.parent / "workspaceStorage"
    for db in sorted(storage.glob("*/state.vscdb")) if storage.is_dir() else []:
        folder = workspace_folder(db.parent)
        if folder is None:
            continue
        try:
            ids = read_db(db, _listed_ids)[0]
        except (sqlite3.Error, OSError):
            continue
        out.update({cid: folder for cid in ids})
    return out


PARSER = Parser(NAME, sniff, parse, stat_fingerprint)
