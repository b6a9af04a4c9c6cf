"""Claude.ai export parser: blocks split into messages, attachments, thinking kept out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import write_zip

from palace_lab.errors import UnknownFormatError
from palace_lab.ingest.base import read_head
from palace_lab.ingest.claude_ai import PARSER

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
FOLDER = FIXTURES / "claude_ai"
EXPORT = FOLDER / "conversations.json"


def test_messages_roles_positions_and_keys():
    result = PARSER.parse(EXPORT)
    regex = result.conversations[0]
    assert (regex.conversation_id, regex.title, regex.source_format) == (
        "c-regex", "Slow regex", "claude-ai")
    assert [(m.position, m.role, m.source_key, m.is_request, m.searchable, m.tool_name)
            for m in regex.messages] == [
        (0, "user", "m1", True, True, None),
        (1, "assistant", "m2", False, False, None),
        (2, "assistant", "m2#1", False, True, None),
        (3, "tool_call", "m2#2", False, True, "web_search"),
        (4, "tool_result", "m2#3", False, True, "web_search"),
        (5, "assistant", "m2#4", False, True, None),
        (6, "user", "m3", True, True, None),
    ]


def test_attachment_text_follows_the_persons_words():
    m1 = PARSER.parse(EXPORT).conversations[0].messages[0]
    assert m1.text == (
        "Why is my regex slow?\n\n"
        "[attachment: pattern.py]\nimport re\nPAT = re.compile('(a+)+$')\n\n"
        "[file: timing.png]"
    )
    assert m1.meta == {
        "request_text": "Why is my regex slow?",
        "attachments": ["pattern.py"],
        "files": ["timing.png"],
    }


def test_blocks_win_over_text_and_thinking_stays_out_of_text():
    messages = PARSER.parse(EXPORT).conversations[0].messages
    # Thinking is its own unsearchable message, so segmentation leaves it out of verbatim.
    assert (messages[1].text, messages[1].meta) == (
        "Probably catastrophic backtracking.", {"thinking": True})
    assert messages[2].text == "Let me check."
    assert messages[3].text == '{"query": "catastrophic backtracking"}'
    assert messages[4].text == (
        "Regex backtracking\nhttps://example.org/re\nNested quantifiers take exponential time."
    )
    assert messages[5].text == "Nested quantifiers like (a+)+ backtrack exponentially."
    assert not any("not supported" in m.text for m in messages)


def test_message_text_is_the_fallback_without_blocks():
    old = PARSER.parse(EXPORT).conversations[1]
    assert old.conversation_id == "c-old"
    assert [(m.role, m.text, m.is_request) for m in old.messages] == [
        ("user", "Hi Claude", True),
        ("assistant", "Hello! How can I help?", False),
    ]


def test_timestamps_normalised_to_utc():
    messages = PARSER.parse(EXPORT).conversations[0].messages
    assert messages[0].timestamp == "2024-06-01T09:00:00.123Z"
    assert messages[1].timestamp == "2024-06-01T09:00:05.000Z"  # +01:00 in the file
    assert messages[6].timestamp == "2024-06-01T09:03:00.000Z"


def test_skips_are_counted_by_reason():
    result = PARSER.parse(EXPORT)
    assert dict(result.skipped) == {
        "empty_message": 1,
        "unknown_sender": 1,
        "not_a_conversation": 1,
        "empty_conversation": 1,
    }
    assert [c.conversation_id for c in result.conversations] == ["c-regex", "c-old"]


def test_project_name_from_projects_json_next_to_the_file():
    result = PARSER.parse(EXPORT)
    assert [c.project for c in result.conversations] == ["Dev tools", None]


def test_zip_export(tmp_path):
    archive = write_zip(tmp_path / "claude.zip", {
        name: (FOLDER / name).read_bytes()
        for name in ("conversations.json", "projects.json", "users.json")
    })
    assert PARSER.sniff(archive, read_head(archive))
    result = PARSER.parse(archive)
    assert [c.conversation_id for c in result.conversations] == ["c-regex", "c-old"]
    assert result.conversations[0].project == "Dev tools"
    assert len(result.conversations[0].messages) == 7


def test_zip_without_conversations_json_raises(tmp_path):
    archive = write_zip(tmp_path / "claude.zip", {"users.json": b"[]"})
    with pytest.raises(UnknownFormatError, match=r"without conversations\.json.*users\.json"):
        PARSER.parse(archive)


def test_chatgpt_list_is_not_claude_ai(tmp_path):
    with pytest.raises(UnknownFormatError, match="none is a Claude.ai conversation"):
        PARSER.parse(FIXTURES / "chatgpt" / "conversations.json")


def test_tool_error_flag_kept(tmp_path):
    path = tmp_path / "one.json"
    path.write_text(json.dumps([{"uuid": "c", "name": "t", "chat_messages": [
        {"uuid": "h", "sender": "human", "text": "run it"},
        {"uuid": "a", "sender": "assistant", "content": [
            {"type": "tool_result", "name": "repl", "content": "boom", "is_error": True},
        ]},
    ]}]))
    [conversation] = PARSER.parse(path).conversations
    result = conversation.messages[1]
    assert (result.role, result.text, result.meta) == ("tool_result", "boom", {"is_error": True})


@pytest.mark.parametrize(("path", "expected"), [
    (EXPORT, True),
    (FIXTURES / "chatgpt" / "conversations.json", False),
    (FIXTURES / "chatgpt" / "single_conversation.json", False),
    (FIXTURES / "aider" / ".aider.chat.history.md", False),
    (FIXTURES / "palace_jsonl" / "two_conversations.jsonl", False),
])
def test_sniff_decides_on_content(path, expected):
    assert PARSER.sniff(path, read_head(path)) is expected


def test_sniff_tells_a_chatgpt_zip_apart(tmp_path):
    archive = write_zip(tmp_path / "export.zip", {
        "conversations.json": (FIXTURES / "chatgpt" / "conversations.json").read_bytes(),
    })
    assert not PARSER.sniff(archive, read_head(archive))
