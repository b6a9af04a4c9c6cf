"""Palace JSONL parser and writer: positions, skips, and parse → write → parse stability."""

from __future__ import annotations

import json
import tempfile
from datetime import timezone
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from palace_lab.errors import UnknownFormatError
from palace_lab.ingest.base import read_head
from palace_lab.ingest.palace_jsonl import PARSER, write_palace_jsonl
from palace_lab.model import Conversation, Message

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
TWO = FIXTURES / "palace_jsonl" / "two_conversations.jsonl"


def _shape(conversations):
    return [
        (c.conversation_id, c.project, c.title,
         [(m.position, m.role, m.text, m.source_key, m.is_request, m.searchable, m.tool_name,
           m.timestamp, m.meta) for m in c.messages])
        for c in conversations
    ]


def test_two_conversations_positions_roles_and_requests():
    result = PARSER.parse(TWO)
    one, two = result.conversations
    assert (one.conversation_id, one.project, one.title) == ("conv-1", "demo", "CSV zeros")
    assert (two.conversation_id, two.project, two.title) == ("conv-2", "demo", None)
    assert [(m.position, m.role, m.source_key, m.source_line, m.is_request, m.searchable)
            for m in one.messages] == [
        (0, "system", "L0", 1, False, False),
        (1, "user", "L1", 2, True, True),
        (2, "assistant", "L2", 3, False, True),
        (3, "tool_result", "L3", 5, False, True),
        (4, "user", "L4", 6, True, True),
    ]
    assert [m.text for m in one.messages] == [
        "You are terse.", "How do I keep leading zeros?", "Use dtype=str.", "   id\n0  007",
        "Thanks \u2014 it works.",
    ]
    assert [(m.position, m.role, m.source_line, m.text) for m in two.messages] == [
        (0, "user", 9, "Hola"), (1, "assistant", 11, "\u00a1Hola!"),
    ]
    assert {m.source_path for m in one.messages + two.messages} == {str(TWO)}


def test_bad_lines_are_counted_by_reason():
    result = PARSER.parse(TWO)
    assert dict(result.skipped) == {
        "invalid_json": 1,
        "invalid_utf8": 1,
        "unknown_role": 1,
        "missing_content": 1,
        "missing_conversation_id": 1,
        "not_an_object": 1,
        "invalid_timestamp": 1,
    }
    assert result.lines == 14


def test_timestamps_normalised_and_bad_ones_dropped():
    one = PARSER.parse(TWO).conversations[0]
    assert [m.timestamp for m in one.messages] == [
        "2024-05-01T10:00:00.000Z", "2024-05-01T10:00:05.000Z", None, None, None,
    ]


def test_truncated_last_line(tmp_path):
    path = tmp_path / "cut.jsonl"
    path.write_text('{"conversation_id": "c", "role": "user", "content": "hi"}\n'
                    '{"conversation_id": "c", "role": "assis')
    result = PARSER.parse(path)
    assert dict(result.skipped) == {"truncated_last_line": 1}
    assert [m.text for m in result.conversations[0].messages] == ["hi"]


def test_file_without_any_record_raises(tmp_path):
    path = tmp_path / "session.jsonl"
    path.write_text(json.dumps({"type": "user", "sessionId": "s"}) + "\nnot json\n")
    with pytest.raises(UnknownFormatError, match="holds no palace JSONL line"):
        PARSER.parse(path)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert PARSER.parse(empty).conversations == []


def test_write_then_parse_keeps_what_the_palace_knows(tmp_path):
    conversation = Conversation(
        conversation_id="s1", source_format="claude-code", project="repo", title="t",
        messages=(
            Message("s1", 0, "user", "<ide_opened_file>a.py</ide_opened_file> fix a.py", "u1",
                    is_request=True, meta={"request_text": "fix a.py"}),
            Message("s1", 1, "tool_call", '{"path": "a.py"}', "u2", tool_name="Read",
                    timestamp="2024-01-01T00:00:00.000Z"),
            Message("s1", 2, "tool_result", "print(1)", "u3", tool_name="Read"),
            Message("s1", 3, "user", "This session is being continued…", "u4",
                    is_request=False, searchable=False),
            Message("s1", 4, "system", "visible notice", "u5", searchable=True),
        ),
    )
    path = tmp_path / "out.jsonl"
    assert write_palace_jsonl([conversation], path) == 5
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert lines[0] == {"conversation_id": "s1", "role": "user",
                        "content": "<ide_opened_file>a.py</ide_opened_file> fix a.py",
                        "project": "repo", "title": "t", "request_text": "fix a.py"}
    assert lines[1]["role"] == "assistant" and lines[1]["tool_call"] is True
    assert lines[2] == {"conversation_id": "s1", "role": "tool", "content": "print(1)",
                        "tool_name": "Read"}
    [back] = PARSER.parse(path).conversations
    assert [(m.position, m.role, m.text, m.is_request, m.searchable, m.tool_name, m.timestamp,
             m.meta) for m in back.messages] == [
        (m.position, m.role, m.text, m.is_request, m.searchable, m.tool_name, m.timestamp,
         m.meta) for m in conversation.messages
    ]
    assert (back.project, back.title) == ("repo", "t")


def test_lone_surrogate_survives_the_round_trip(tmp_path):
    conversation = Conversation("c", "chatgpt", (Message("c", 0, "user", "bad \ud83d", "L0",
                                                         is_request=True),))
    path = tmp_path / "s.jsonl"
    write_palace_jsonl([conversation], path)
    assert PARSER.parse(path).conversations[0].messages[0].text == "bad \ud83d"


@pytest.mark.parametrize(("line", "expected"), [
    ({"conversation_id": "c", "role": "user", "content": "hi"}, True),
    ({"type": "user", "sessionId": "s", "uuid": "u",
      "message": {"role": "user", "content": "hi"}}, False),
    ({"timestamp": "2025-01-01T00:00:00Z", "type": "session_meta", "payload": {"id": "x"}}, False),
    ({"conversation_id": "c", "role": "user", "content": "hi", "type": "user",
      "message": {}}, False),
])
def test_sniff_records(tmp_path, line, expected):
    path = tmp_path / "x.jsonl"
    path.write_text(json.dumps(line) + "\n")
    assert PARSER.sniff(path, read_head(path)) is expected


@pytest.mark.parametrize(("path", "expected"), [
    (TWO, True),
    (FIXTURES / "chatgpt" / "conversations.json", False),
    (FIXTURES / "claude_ai" / "conversations.json", False),
    (FIXTURES / "aider" / ".aider.chat.history.md", False),
])
def test_sniff_fixtures(path, expected):
    assert PARSER.sniff(path, read_head(path)) is expected


# --- property: parse → write → parse is stable ---------------------------------------------

_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40)
_line = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "tool", "system"]), "content": _text},
    optional={
        "timestamp": st.datetimes(timezones=st.just(timezone.utc))
        .map(lambda d: d.isoformat()),
        "project": _text,
        "title": _text,
    },
)
_conversations = st.dictionaries(
    keys=st.text(min_size=1, max_size=12), values=st.lists(_line, min_size=1, max_size=6),
    min_size=1, max_size=4,
)


@settings(max_examples=75, deadline=None)
@given(_conversations)
def test_parse_write_parse_is_stable(conversations):
    with tempfile.TemporaryDirectory() as tmp:
        source, copy = Path(tmp) / "in.jsonl", Path(tmp) / "out.jsonl"
        with open(source, "w", encoding="utf-8") as fh:
            for cid, lines in conversations.items():
                for line in lines:
                    record = {"conversation_id": cid, **line}
                    fh.write(json.dumps(record, ensure_ascii=False) + "\n")
        first = PARSER.parse(source)
        write_palace_jsonl(first.conversations, copy)
        second = PARSER.parse(copy)
    assert not second.skipped
    assert _shape(second.conversations) == _shape(first.conversations)
    assert [c.conversation_id for c in first.conversations] == list(conversations)
    assert [[m.text for m in c.messages] for c in first.conversations] == [
        [line["content"] for line in lines] for lines in conversations.values()
    ]
