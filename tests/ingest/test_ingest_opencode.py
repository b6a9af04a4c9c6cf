"""OpenCode: a session read from its session, message and part files (tests/fixtures/opencode)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from palace_lab.ingest import detect_format, discover, ingest_paths
from palace_lab.ingest.opencode import parse

HOME = Path(__file__).resolve().parents[1] / "fixtures" / "opencode" / "home"
STORAGE = HOME / ".local" / "share" / "opencode" / "storage"
SESSIONS = STORAGE / "session" / "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
MAIN = SESSIONS / "ses_6a1b2c3d4e5fXyZ0123456789.json"
CHILD = SESSIONS / "ses_6a1b2c3d4e6fChild0000001.json"


def test_only_session_files_are_offered_and_detected():
    files = discover([STORAGE])
    assert sorted(files) == sorted([MAIN, CHILD])
    assert detect_format(MAIN) == "opencode"


def test_parts_become_messages_in_order():
    [conv] = parse(MAIN).conversations
    assert (conv.project, conv.cwd, conv.title) == ("shop", "/home/me/shop", "Orders pagination cursor")
    kinds = [(m.role, m.is_request, m.searchable) for m in conv.messages]
    assert kinds[:3] == [("user", True, True), ("system", False, True), ("assistant", False, False)]
    assert [m.role for m in conv.messages[3:8]] == ["tool_call", "tool_result", "tool_call",
                                                    "tool_result", "assistant"]
    failed = conv.messages[6]
    assert failed.meta["is_error"] and failed.text == "oldString not found in content"
    assert conv.messages[1].meta == {"synthetic": True}  # the CLI's words, not the person's
    assert conv.messages[0].timestamp == "2026-08-29T10:40:01.000Z"


def test_a_subagent_session_never_opens_an_exchange():
    [conv] = parse(CHILD).conversations
    assert not any(m.is_request for m in conv.messages)


def copy_storage(tmp_path: Path) -> Path:
    target = tmp_path / "storage"
    shutil.copytree(STORAGE, target)
    return target


def test_a_new_part_is_seen_although_the_session_file_did_not_change(tmp_path, palace):
    storage = copy_storage(tmp_path)
    session = storage / MAIN.relative_to(STORAGE)
    ingest_paths(palace, [session])
    before = {e.exchange_id for e in palace.exchanges()}
    assert ingest_paths(palace, [session]).totals()["unchanged_files"] == 1
    part = storage / "part" / "msg_a00000000004Asst0000002" / "prt_a1b2c300000fText0000002.json"
    part.write_text(json.dumps({"id": part.stem, "type": "text", "text": "Both callers updated."}))
    report = ingest_paths(palace, [session])
    assert report.totals()["unchanged_files"] == 0 and report.totals()["archive_events"] == {"grown": 1}
    assert before == {e.exchange_id for e in palace.exchanges()}  # stable ids
    assert "Both callers updated." in palace.exchanges()[-1].verbatim


def test_broken_part_and_message_files_are_skipped_and_counted(tmp_path):
    storage = copy_storage(tmp_path)
    (storage / "part" / "msg_a00000000002Asst0000001" / "prt_a1b2c3000005Tool0000001.json").write_text("{cut")
    (storage / "message" / "ses_6a1b2c3d4e5fXyZ0123456789" / "msg_a00000000003User0000002.json").write_text(
        json.dumps({"id": "msg_x", "role": 7}))
    result = parse(storage / MAIN.relative_to(STORAGE))
    assert result.skipped == {"unreadable_part_file": 1, "malformed_record": 1}
    assert any(m.is_request for m in result.conversations[0].messages)


def test_a_changed_part_file_makes_the_watcher_ingest_its_session(tmp_path, palace):
    from palace_lab.agent.watch import Watcher
    from palace_lab.ingest.opencode import session_file_of

    storage = copy_storage(tmp_path)
    part = storage / "part" / "msg_a00000000002Asst0000001" / "prt_a1b2c3000007Text0000001.json"
    message = storage / "message" / "ses_6a1b2c3d4e6fChild0000001" / "msg_a00000000005User0000003.json"
    assert session_file_of(part) == storage / MAIN.relative_to(STORAGE)
    assert session_file_of(message) == storage / CHILD.relative_to(STORAGE)
    watcher = Watcher(palace, [storage], warm=False, log=lambda line: None)
    report = watcher.apply([part, message])
    assert (report.files, report.ingested, report.errors) == (2, 2, [])


DB = HOME / ".local" / "share" / "opencode" / "opencode.db"


def test_the_database_of_newer_releases_reads_as_the_storage_files():
    from palace_lab.ingest.homes import location_files, locations_in

    assert detect_format(DB) == "opencode"
    from_db = {c.conversation_id: c for c in parse(DB).conversations}
    from_files = {c.conversation_id: c for c in (*parse(MAIN).conversations, *parse(CHILD).conversations)}
    assert from_db.keys() == from_files.keys()
    for cid, conv in from_files.items():
        key = [(m.role, m.text, m.source_key, m.is_request, m.searchable) for m in conv.messages]
        assert key == [(m.role, m.text, m.source_key, m.is_request, m.searchable)
                       for m in from_db[cid].messages]
    [(loc, folder)] = locations_in(HOME)
    assert DB in location_files(loc, folder)


def test_storage_files_and_the_database_together_store_each_session_once(palace):
    report = ingest_paths(palace, [HOME])
    assert report.totals()["errors"] == 0
    assert palace.count("conversations") == 2
    assert ingest_paths(palace, [DB]).totals()["unchanged_files"] == 1
