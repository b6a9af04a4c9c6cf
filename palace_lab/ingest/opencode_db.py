"""OpenCode's SQLite database (``~/.local/share/opencode/opencode.db``, releases 1.2 and later).

The same records as the JSON storage folders, one table each: ``session`` (``id``,
``parent_id``, ``directory``, ``title``, ``time_created`` in unix ms), ``message`` (``id``,
``session_id``, ``time_created``, ``data``: the message JSON without its id) and ``part``
(``id``, ``message_id``, ``session_id``, ``data``: the part JSON without its id). OpenCode keeps
it in WAL mode; it is read through :mod:`palace_lab.ingest.sqlite_ro` (read-only, lock-free
when locked out). The rows are fetched first and decoded after, so no lock outlives the read.
"""

from __future__ import annotations

import json
import sqlite3

from palace_lab.ingest.base import ParseResult
from palace_lab.ingest.sqlite_ro import has_table

TABLES = ("session", "message", "part")


def is_opencode_db(conn: sqlite3.Connection) -> bool:
    if not all(has_table(conn, t) for t in TABLES):
        return False
    columns = {row[1] for row in conn.execute("PRAGMA table_info(session)")}
    return {"id", "directory", "title"} <= columns


def read_rows(conn: sqlite3.Connection) -> list[tuple]:
    """(session row, its message rows, its part rows) for every session, oldest first."""
    out = []
    sessions = conn.execute("SELECT id, parent_id, directory, title, time_created FROM session "
                            "ORDER BY time_created, id").fetchall()
    for row in sessions:
        messages = conn.execute("SELECT id, time_created, data FROM message WHERE session_id=? "
                                "ORDER BY time_created, id", (row[0],)).fetchall()
        parts = conn.execute("SELECT id, message_id, data FROM part WHERE session_id=? "
                             "ORDER BY id", (row[0],)).fetchall()
        out.append((row, messages, parts))
    return out


def _data(row_id, data, result: ParseResult) -> dict | None:
    try:
        obj = json.loads(data)
    except (TypeError, ValueError, RecursionError):
        obj = None
    if not isinstance(obj, dict):
        result.skip("unreadable_row")
        return None
    return {**obj, "id": row_id}


def decoded(rows: tuple, result: ParseResult) -> tuple[dict, list[dict], dict[str, list[dict]]]:
    """The session, its messages and their parts as the JSON storage files hold them."""
    (sid, parent, directory, title, created), message_rows, part_rows = rows
    session = {"id": sid, "parentID": parent, "directory": directory, "title": title,
               "time": {"created": created}}
    messages = []
    for mid, at, data in message_rows:
        msg = _data(mid, data, result)
        if msg is not None:
            msg.setdefault("time", {"created": at})
            messages.append(msg)
    parts: dict[str, list[dict]] = {}
    for pid, mid, data in part_rows:
        part = _data(pid, data, result)
        if part is not None:
            parts.setdefault(mid, []).append(part)
    return session, messages, parts
