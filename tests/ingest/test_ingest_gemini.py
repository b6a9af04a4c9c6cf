"""Gemini CLI: saved chats (JSON and JSONL), logs.json and checkpoints, on files written as
the CLI writes them (tests/fixtures/gemini_cli)."""

from __future__ import annotations

import json
from pathlib import Path

from palace_lab.ingest import detect_format, ingest_paths
from palace_lab.ingest.gemini import parse

TMP = Path(__file__).resolve().parents[1] / "fixtures" / "gemini_cli" / "home" / ".gemini" / "tmp"
CHATS = TMP / "netkit" / "chats"
LEGACY = CHATS / "session-2026-09-01T10-00-5f1a2b3c.json"
JSONL = CHATS / "session-2026-09-02T09-00-7c0ffee1.jsonl"


def test_every_shape_is_detected():
    for path in (LEGACY, JSONL, TMP / "netkit" / "logs.json", TMP / "netkit" / "checkpoint-retry-fix.json"):
        assert detect_format(path) == "gemini-cli", path


def test_a_legacy_chat_keeps_tools_inside_the_exchange():
    [conv] = parse(LEGACY).conversations
    assert conv.conversation_id == "5f1a2b3c-0d4e-4f60-8a7b-9c0d1e2f3a4b"
    assert conv.project == "netkit" and conv.cwd == "/home/me/netkit"  # from .project_root
    requests = [m for m in conv.messages if m.is_request]
    assert len(requests) == 2
    roles = [m.role for m in conv.messages]
    assert roles.count("tool_call") == 2 and roles.count("tool_result") == 2
    assert not any(m.is_request for m in conv.messages if m.role.startswith("tool"))
    thought = next(m for m in conv.messages if m.meta.get("thinking"))
    assert not thought.searchable
    info = [m for m in conv.messages if m.role == "system"]
    assert {m.meta["type"] for m in info} == {"info", "error"} and not any(m.searchable for m in info)
    # displayContent is what the person typed; content holds the expanded @file text
    assert requests[1].meta["request_text"] == "Add a test for it @tests/test_retry.py"


def test_jsonl_updates_replace_in_place_and_a_rewind_keeps_what_was_said():
    result = parse(JSONL)
    [conv] = result.conversations
    assert conv.title == "DNS cache TTL unit mismatch"
    texts = [m.text for m in conv.messages]
    assert texts.count("The TTL is read in seconds but compared to monotonic milliseconds.") == 1
    assert texts.index("The TTL is read in seconds but compared to monotonic milliseconds.") == 1
    assert conv.messages[2].role == "tool_call"  # the second version of b2 brought its tool call
    rewound = [m.text for m in conv.messages if m.meta.get("rewound")]
    assert rewound == ["Rewrite the whole cache with lru_cache instead.",
                       "I would rather keep the cache and fix the unit mismatch."]
    assert conv.messages[-1].text.startswith("Done: entry.ttl * 1000")


def test_logs_and_checkpoints_never_collide_with_the_chat(palace):
    report = ingest_paths(palace, [TMP.parent.parent])  # the home folder
    ids = {r[0] for r in palace.conn.execute("SELECT conversation_id FROM conversations")}
    assert "5f1a2b3c-0d4e-4f60-8a7b-9c0d1e2f3a4b" in ids and "checkpoint:retry-fix" in ids
    # the logged session whose chat is there is left to the chat; the other is kept
    assert "log:5f1a2b3c-0d4e-4f60-8a7b-9c0d1e2f3a4b" not in ids
    assert "log:0000aaaa-1111-4222-8333-444455556666" in ids
    assert report.totals()["skipped"]["logged_session_in_chats"] == 2
    assert report.totals()["errors"] == 0
    [setup] = [m for m in palace.messages("checkpoint:retry-fix") if m.meta.get("setup")]
    assert setup.role == "system" and not setup.is_request


def test_a_logged_command_is_not_a_request(tmp_path):
    path = tmp_path / "logs.json"
    path.write_text(json.dumps([
        {"sessionId": "s", "messageId": 0, "type": "user", "message": "explain the cache"},
        {"sessionId": "s", "messageId": 1, "type": "user", "message": "/chat save x"}]))
    [conv] = parse(path).conversations
    assert conv.conversation_id == "log:s"
    assert [m.is_request for m in conv.messages] == [True, False]


def test_reingest_is_stable_and_a_grown_session_keeps_its_exchange_ids(tmp_path, palace):
    path = tmp_path / "chats" / JSONL.name
    path.parent.mkdir()
    lines = JSONL.read_text("utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:4]), "utf-8")
    ingest_paths(palace, [path])
    before = {e.exchange_id for e in palace.exchanges()}
    path.write_text("".join(lines), "utf-8")
    report = ingest_paths(palace, [path])
    after = {e.exchange_id for e in palace.exchanges()}
    assert before < after and report.totals()["archive_events"] == {"grown": 1}
    assert ingest_paths(palace, [path]).totals()["unchanged_files"] == 1


def test_one_bad_record_is_skipped_and_counted(tmp_path):
    path = tmp_path / JSONL.name
    lines = JSONL.read_text("utf-8").splitlines(keepends=True)
    bad = json.dumps({"id": "zz", "type": "gemini", "content": "x", "toolCalls": 7}) + "\n"
    path.write_text("".join(lines[:3] + [bad, "{cut"] + lines[3:]), "utf-8")
    result = parse(path)
    assert result.skipped == {"malformed_record": 1, "invalid_json": 1}
    assert len([m for m in result.conversations[0].messages if m.is_request]) == 3


def test_a_subagent_session_never_opens_an_exchange(tmp_path):
    folder = tmp_path / "chats" / "parent-session"
    folder.mkdir(parents=True)
    path = folder / "sub-1.jsonl"
    path.write_text(json.dumps({"sessionId": "sub-1", "projectHash": "h", "kind": "subagent"}) + "\n"
                    + json.dumps({"id": "s1", "type": "user", "content": "Investigate the cache"}) + "\n"
                    + json.dumps({"id": "s2", "type": "gemini", "content": "It is fine."}) + "\n")
    [conv] = parse(path).conversations
    assert not any(m.is_request for m in conv.messages)
