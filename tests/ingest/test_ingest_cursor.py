"""Cursor: composers and old chat tabs read from state.vscdb, read-only, even while locked
(tests/fixtures/cursor, written by its build.py as Cursor writes them)."""

from __future__ import annotations

import hashlib
from contextlib import contextmanager
import json
import shutil
import sqlite3
from pathlib import Path

from palace_lab.ingest import detect_format, ingest_paths
from palace_lab.ingest.cursor import parse

USER = Path(__file__).resolve().parents[1] / "fixtures" / "cursor" / "home" / ".config" / "Cursor" / "User"
GLOBAL = USER / "globalStorage" / "state.vscdb"
WORKSPACE = USER / "workspaceStorage" / "8e1f2a3b4c5d6e7f8091a2b3c4d5e6f7" / "state.vscdb"
COMPOSER = "0b5e7c1a-3d2f-4e6a-9b8c-7d6e5f4a3b2c"


def copy_user(tmp_path: Path) -> Path:
    target = tmp_path / "User"
    shutil.copytree(USER, target)
    return target


def digest(path: Path) -> str:
    return hashlib.sha1(path.read_bytes()).hexdigest()


def test_detection_and_a_palace_is_not_a_cursor_database(palace):
    assert detect_format(GLOBAL) == "cursor" and detect_format(WORKSPACE) == "cursor"
    from palace_lab.ingest.cursor import sniff
    from palace_lab.ingest.base import read_head

    assert not sniff(Path(palace.path), read_head(Path(palace.path)))


def test_a_composer_with_tools_thinking_and_a_missing_bubble():
    result = parse(GLOBAL)
    [conv] = result.conversations  # the empty draft composer is counted, not kept
    assert result.skipped == {"missing_bubble": 1, "empty_conversation": 1}
    assert (conv.conversation_id, conv.title, conv.project) == (COMPOSER, "Dark mode toggle", "webapp")
    assert [m.role for m in conv.messages] == ["user", "assistant", "tool_call", "tool_result",
                                               "assistant", "user", "assistant"]
    assert not conv.messages[1].searchable and conv.messages[2].tool_name == "read_file"
    assert conv.messages[0].timestamp == "2026-09-04T08:00:00.000Z"


def test_old_chat_tabs_in_a_workspace_database():
    [conv] = parse(WORKSPACE).conversations
    assert (conv.conversation_id, conv.project, conv.cwd) == ("tab:tab-legacy-1", "webapp", "/home/me/webapp")


def test_reading_never_writes(tmp_path):
    user = copy_user(tmp_path)
    db = user / "globalStorage" / "state.vscdb"
    before = digest(db)
    parse(db)
    assert digest(db) == before
    assert sorted(p.name for p in db.parent.iterdir()) == ["state.vscdb"]


@contextmanager
def writing(db: Path, *, wal: bool):
    """Another connection in the middle of a write: exclusive in rollback-journal mode (readers
    are locked out), an open write transaction in WAL mode (readers are not)."""
    owner = sqlite3.connect(db, isolation_level=None)
    if wal:
        owner.execute("PRAGMA journal_mode=WAL")
    owner.execute("BEGIN IMMEDIATE" if wal else "BEGIN EXCLUSIVE")
    owner.execute("UPDATE ItemTable SET value='{}' WHERE key='some.setting'")
    try:
        yield
    finally:
        owner.execute("ROLLBACK")
        owner.close()


def test_a_locked_database_is_read_without_taking_a_lock(tmp_path):
    db = copy_user(tmp_path) / "globalStorage" / "state.vscdb"
    with writing(db, wal=False):
        result = parse(db)
    assert result.skipped["database_locked_read_without_lock"] == 1
    assert [c.conversation_id for c in result.conversations] == [COMPOSER]


def test_a_wal_database_with_a_writer_is_read_normally(tmp_path):
    db = copy_user(tmp_path) / "globalStorage" / "state.vscdb"
    with writing(db, wal=True):
        result = parse(db)
    assert "database_locked_read_without_lock" not in result.skipped
    assert len(result.conversations) == 1


def test_a_new_bubble_is_seen_and_exchange_ids_are_stable(tmp_path, palace):
    user = copy_user(tmp_path)
    db = user / "globalStorage" / "state.vscdb"
    ingest_paths(palace, [db])
    before = {e.exchange_id for e in palace.exchanges()}
    assert ingest_paths(palace, [db]).totals()["unchanged_files"] == 1
    conn = sqlite3.connect(db)
    data = json.loads(conn.execute("SELECT value FROM cursorDiskKV WHERE key=?",
                                   (f"composerData:{COMPOSER}",)).fetchone()[0])
    data["fullConversationHeadersOnly"].append({"bubbleId": "u3", "type": 1})
    conn.execute("UPDATE cursorDiskKV SET value=? WHERE key=?", (json.dumps(data), f"composerData:{COMPOSER}"))
    conn.execute("INSERT INTO cursorDiskKV VALUES (?, ?)", (f"bubbleId:{COMPOSER}:u3", json.dumps(
        {"type": 1, "bubbleId": "u3", "text": "Also add a keyboard shortcut"})))
    conn.commit()
    conn.close()
    report = ingest_paths(palace, [db])
    assert report.totals()["archive_events"] == {"grown": 1}
    assert before < {e.exchange_id for e in palace.exchanges()}


def test_broken_bubbles_are_skipped_and_counted(tmp_path):
    user = copy_user(tmp_path)
    db = user / "globalStorage" / "state.vscdb"
    conn = sqlite3.connect(db)
    conn.execute("UPDATE cursorDiskKV SET value='{cut' WHERE key=?", (f"bubbleId:{COMPOSER}:a3",))
    conn.execute("UPDATE cursorDiskKV SET value=? WHERE key=?",
                 (json.dumps({"type": 1, "text": ["no"]}), f"bubbleId:{COMPOSER}:u2"))
    conn.execute("INSERT INTO cursorDiskKV VALUES ('composerData:broken', '[1, 2]')")
    conn.commit()
    conn.close()
    result = parse(db)
    assert result.skipped == {"missing_bubble": 2, "malformed_bubble": 1, "malformed_composer": 1,
                              "empty_conversation": 1}
    assert result.conversations[0].messages[0].is_request
