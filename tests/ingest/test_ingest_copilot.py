"""GitHub Copilot: VS Code chat sessions (JSON and the JSONL mutation log) and Copilot CLI
events (tests/fixtures/copilot, tests/fixtures/copilot_cli)."""

from __future__ import annotations

import json
from pathlib import Path

from palace_lab.ingest import detect_format, ingest_paths
from palace_lab.ingest import copilot, copilot_cli

FIX = Path(__file__).resolve().parents[1] / "fixtures"
WS = FIX / "copilot" / "home" / ".config" / "Code" / "User" / "workspaceStorage" / \
    "3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c"
SESSION = WS / "chatSessions" / "c0pi1077-0000-4000-8000-000000000001.json"
LOG = WS / "chatSessions" / "c0pi1077-0000-4000-8000-000000000002.jsonl"
EVENTS = FIX / "copilot_cli" / "home" / ".copilot" / "session-state" / \
    "9d3e4f50-1a2b-4c3d-8e9f-a0b1c2d3e4f5" / "events.jsonl"


def test_detection():
    assert detect_format(SESSION) == "copilot"
    assert detect_format(LOG) == "copilot"
    assert detect_format(EVENTS) == "copilot-cli"


def test_a_vscode_session_keeps_tool_runs_and_edits_inside_the_exchange():
    [conv] = copilot.parse(SESSION).conversations
    assert (conv.project, conv.title) == ("deploy-kit", "Slim Docker image")
    assert [m.text for m in conv.messages if m.is_request] == [
        "Make the Dockerfile a multi-stage build so the final image is slim",
        "Why is the image still 900 MB?"]
    edit = next(m for m in conv.messages if m.tool_name == "edit")
    assert edit.meta["file"] == "/home/me/deploy-kit/Dockerfile" and "AS builder" in edit.text
    # the result of run_in_terminal is only in result.metadata.toolCallResults
    terminal = conv.messages[conv.messages.index(
        next(m for m in conv.messages if m.tool_name == "run_in_terminal")) + 1]
    assert terminal.role == "tool_result" and "612MB" in terminal.text
    assert conv.messages[1].text.startswith("I'll split the build into a `/home/me/deploy-kit/Dockerfile`")


def test_the_mutation_log_replays_to_the_session():
    [conv] = copilot.parse(LOG).conversations
    assert conv.title == "Pin base image digest"
    assert [m.role for m in conv.messages] == ["user", "assistant", "user", "assistant"]


def test_an_undone_request_in_the_log_never_shrinks_the_archive(tmp_path, palace):
    path = tmp_path / LOG.name
    path.write_text(LOG.read_text("utf-8"), "utf-8")
    ingest_paths(palace, [path])
    with open(path, "a", encoding="utf-8") as fh:  # the person undid the second request
        fh.write(json.dumps({"kind": 2, "k": ["requests"], "v": [], "i": 1}) + "\n")
    report = ingest_paths(palace, [path])
    assert report.totals()["archive_events"] == {"kept_stored": 1}
    assert len(palace.exchanges()) == 2


def test_bad_log_lines_are_skipped_and_counted(tmp_path):
    path = tmp_path / LOG.name
    lines = LOG.read_text("utf-8").splitlines(keepends=True)
    bad = [json.dumps({"kind": 1, "k": ["requests", 9, "x"], "v": 1}) + "\n",
           json.dumps({"kind": 2, "k": ["customTitle"], "v": [1]}) + "\n", "[1]\n"]
    path.write_text("".join(lines[:2] + bad + lines[2:]), "utf-8")
    result = copilot.parse(path)
    assert result.skipped == {"log_entry_bad_path": 2, "not_an_object": 1}
    assert len(result.conversations[0].messages) == 4


def test_copilot_cli_events():
    result = copilot_cli.parse(EVENTS)
    [conv] = result.conversations
    assert (conv.conversation_id, conv.project) == ("9d3e4f50-1a2b-4c3d-8e9f-a0b1c2d3e4f5", "clikit")
    assert [m.text for m in conv.messages if m.is_request] == [
        "Rename the --dry-run flag to --plan everywhere in the CLI",
        "Update the README usage section too\n[file: README.md]"]
    calls = [m for m in conv.messages if m.role == "tool_call"]
    assert [c.tool_name for c in calls] == ["bash", "edit"]  # announced twice, kept once
    failed = next(m for m in conv.messages if m.meta.get("is_error"))
    assert failed.text == "old_str matched 2 places"
    assert not any("I'll search" == m.text for m in conv.messages)  # ephemeral delta dropped
    assert result.skipped == {"record:session.info": 1, "record:assistant.turn_start": 1,
                              "record:assistant.turn_end": 1}


def test_copilot_cli_stable_ids_and_a_bad_event(tmp_path, palace):
    path = tmp_path / "s1" / "events.jsonl"
    path.parent.mkdir()
    lines = EVENTS.read_text("utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:8]), "utf-8")
    ingest_paths(palace, [path])
    first = {e.exchange_id for e in palace.exchanges()}
    bad = json.dumps({"type": "user.message", "data": {"content": ["not", "text"]}, "id": "bad"})
    path.write_text("".join(lines[:8]) + bad + "\n" + "".join(lines[8:]), "utf-8")
    report = ingest_paths(palace, [path])
    assert report.totals()["skipped"]["malformed_record"] == 1
    assert first < {e.exchange_id for e in palace.exchanges()}


def state_db(path: Path, items: dict) -> Path:
    import sqlite3

    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    conn.executemany("INSERT INTO ItemTable VALUES (?, ?)",
                     [(k, json.dumps(v)) for k, v in items.items()])
    conn.commit()
    conn.close()
    return path


def test_sessions_kept_in_state_vscdb_by_older_releases(tmp_path):
    session = json.loads(SESSION.read_text("utf-8"))
    ws = tmp_path / "workspaceStorage" / "abc"
    (ws).mkdir(parents=True)
    (ws / "workspace.json").write_text(json.dumps({"folder": "file:///home/me/old-app"}))
    db = state_db(ws / "state.vscdb", {"interactive.sessions": [session, "not a session"],
                                       "workbench.editor": {"x": 1}})
    assert detect_format(db) == "copilot"
    result = copilot.parse(db)
    [conv] = result.conversations
    assert (conv.conversation_id, conv.project) == (session["sessionId"], "old-app")
    assert result.skipped == {"malformed_session": 1}
    plain = state_db(tmp_path / "plain" / "state.vscdb", {"workbench.editor": {"x": 1}})
    from palace_lab.ingest.base import read_head
    assert not copilot.sniff(plain, read_head(plain))


def test_vscode_chat_inside_a_cursor_workspace_database_is_cursors(tmp_path):
    from palace_lab.ingest import cursor

    session = json.loads(SESSION.read_text("utf-8"))
    db = state_db(tmp_path / "ws" / "state.vscdb", {
        "composer.composerData": {"allComposers": [{"composerId": "x"}]},
        "interactive.sessions": [session]})
    assert detect_format(db) == "cursor"
    [conv] = cursor.parse(db).conversations
    assert conv.source_format == "cursor" and conv.conversation_id == session["sessionId"]
    assert [m.is_request for m in conv.messages].count(True) == 2
