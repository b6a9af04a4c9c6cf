"""ChatGPT export parser: the visible branch of the tree, parts, hidden and tool messages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import write_zip

from palace_lab.errors import UnknownFormatError
from palace_lab.ingest.base import read_head
from palace_lab.ingest.chatgpt import PARSER

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
EXPORT = FIXTURES / "chatgpt" / "conversations.json"
SINGLE = FIXTURES / "chatgpt" / "single_conversation.json"


def _rows(conversation):
    return [(m.position, m.role, m.source_key, m.is_request, m.searchable)
            for m in conversation.messages]


def test_export_follows_current_node_not_first_child():
    result = PARSER.parse(EXPORT)
    zeros = result.conversations[0]
    assert zeros.conversation_id == "conv-zeros"
    assert zeros.source_format == "chatgpt"
    assert zeros.title == "Leading zeros in CSV"
    assert _rows(zeros) == [
        (0, "system", "sys", False, False),
        (1, "system", "ctx", False, False),
        (2, "user", "u1", True, True),
        (3, "assistant", "a1-new", False, True),
        (4, "user", "u2", True, True),
        (5, "assistant", "think", False, False),
        (6, "tool_call", "call", False, True),
        (7, "tool_result", "out", False, True),
        (8, "assistant", "a2", False, True),
    ]
    texts = [m.text for m in zeros.messages]
    assert "This answer was regenerated away." not in texts
    assert texts[3] == "Pass dtype=str to read_csv."


def test_hidden_messages_are_unsearchable_system_text():
    zeros = PARSER.parse(EXPORT).conversations[0]
    assert zeros.messages[0].text == ""
    assert zeros.messages[1].text == "I am a data engineer.\nAnswer briefly."


def test_image_part_placeholder_and_request_text():
    u2 = PARSER.parse(EXPORT).conversations[0].messages[4]
    assert u2.text == "[image]\nHere is the file; do the ids survive?\n\n[attachment: ids.csv]"
    assert u2.meta["request_text"] == "Here is the file; do the ids survive?"
    assert u2.meta["attachments"] == ["ids.csv"]


def test_tool_call_tool_result_and_thinking():
    messages = PARSER.parse(EXPORT).conversations[0].messages
    think, call, out = messages[5], messages[6], messages[7]
    # Reasoning is kept for drill-down but not searchable: it is not what anyone said.
    assert think.text == "I should load ids.csv with dtype=str."
    assert think.meta == {"thinking": True}
    assert call.tool_name == "python"
    assert call.text == "import pandas as pd\npd.read_csv('ids.csv', dtype=str).head()"
    assert call.meta == {"model": "o3"}
    assert out.tool_name == "python"
    assert out.text == "    id\n0  007"


def test_timestamps_are_utc_iso_and_paths_recorded():
    messages = PARSER.parse(EXPORT).conversations[0].messages
    assert messages[0].timestamp is None
    assert messages[2].timestamp == "2023-11-14T22:13:20.000Z"  # 1700000000.0
    assert messages[3].timestamp == "2023-11-14T22:13:40.250Z"  # 1700000020.25
    assert {m.source_path for m in messages} == {str(EXPORT)}
    assert {m.source_line for m in messages} == {None}


def test_bad_entry_skipped_and_missing_current_node_takes_latest_leaf():
    result = PARSER.parse(EXPORT)
    assert dict(result.skipped) == {"not_a_conversation": 1}
    leaf = result.conversations[1]
    assert leaf.conversation_id == "conv-leaf"
    assert [(m.role, m.text) for m in leaf.messages] == [("user", "Say hi"), ("assistant", "Hi!")]


def test_single_bare_conversation_object():
    result = PARSER.parse(SINGLE)
    assert dict(result.skipped) == {"empty_message": 1}
    [pep8] = result.conversations
    assert pep8.conversation_id == "conv-pep8"
    assert [(m.position, m.role, m.tool_name, m.is_request) for m in pep8.messages] == [
        (0, "user", None, True),
        (1, "tool_call", "browser", False),
        (2, "tool_result", "browser", False),
        (3, "assistant", None, False),
    ]
    assert pep8.messages[2].text == (
        "PEP 8\nhttps://peps.python.org/pep-0008/\n"
        "Limit all lines to a maximum of 79 characters."
    )
    assert pep8.messages[0].timestamp == "2024-03-09T16:00:00.500Z"


def test_zip_export_gives_the_same_conversations(tmp_path):
    archive = write_zip(tmp_path / "export.zip", {
        "conversations.json": EXPORT.read_bytes(),
        "chat.html": b"<html></html>",
        "user.json": b"{}",
    })
    assert PARSER.sniff(archive, read_head(archive))
    from_zip = PARSER.parse(archive)
    from_json = PARSER.parse(EXPORT)
    assert [_rows(c) for c in from_zip.conversations] == [
        _rows(c) for c in from_json.conversations
    ]
    assert from_zip.conversations[0].messages[0].source_path == str(archive)


def test_zip_without_conversations_json_names_what_it_found(tmp_path):
    archive = write_zip(tmp_path / "photos.zip", {"a.png": b"x", "notes.txt": b"y"})
    assert not PARSER.sniff(archive, read_head(archive))
    found = r"without conversations\.json.*a\.png, notes\.txt"
    with pytest.raises(UnknownFormatError, match=found):
        PARSER.parse(archive)


def test_json_that_is_not_chatgpt_raises(tmp_path):
    other = tmp_path / "conversations.json"
    other.write_text(json.dumps([{"uuid": "x", "chat_messages": []}]))
    with pytest.raises(UnknownFormatError, match="none is a ChatGPT conversation"):
        PARSER.parse(other)
    broken = tmp_path / "broken.json"
    broken.write_text('[{"mapping": ')
    with pytest.raises(UnknownFormatError, match="not readable JSON"):
        PARSER.parse(broken)


def test_empty_zip_export_is_sniffed_by_its_companion_files(tmp_path):
    archive = write_zip(tmp_path / "e.zip", {"conversations.json": b"[]", "chat.html": b""})
    assert PARSER.sniff(archive, read_head(archive))
    assert PARSER.parse(archive).conversations == []


@pytest.mark.parametrize(("path", "expected"), [
    (EXPORT, True),
    (SINGLE, True),
    (FIXTURES / "claude_ai" / "conversations.json", False),
    (FIXTURES / "aider" / ".aider.chat.history.md", False),
    (FIXTURES / "palace_jsonl" / "two_conversations.jsonl", False),
])
def test_sniff_decides_on_content(path, expected):
    assert PARSER.sniff(path, read_head(path)) is expected


def test_sniff_rejects_a_jsonl_log_quoting_a_mapping(tmp_path):
    log = tmp_path / "session.jsonl"
    quoted = json.dumps({"type": "user", "message": {"content": '{"mapping": {"a": 1}}'}})
    log.write_text(quoted + "\n")
    assert not PARSER.sniff(log, read_head(log))


def test_sniff_never_raises_on_garbage(tmp_path):
    fake = tmp_path / "fake.zip"
    fake.write_bytes(b"PK\x03\x04 not really a zip")
    assert PARSER.sniff(fake, read_head(fake)) is False
    assert PARSER.sniff(tmp_path / "missing.json", b"PK") is False
