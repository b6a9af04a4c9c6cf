"""Aider history parser: runs, inputs, aider output, replies, commits."""

from __future__ import annotations

from datetime import timedelta, timezone
from pathlib import Path

import pytest

from palace_lab.errors import UnknownFormatError
from palace_lab.ingest.aider import PARSER, parse_history
from palace_lab.ingest.base import read_head

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
HISTORY = FIXTURES / "aider" / ".aider.chat.history.md"


def _parse(path: Path = HISTORY):
    return parse_history(path, tz=timezone.utc)


def test_each_run_with_input_is_one_conversation():
    result = _parse()
    assert len(result.conversations) == 2
    # The third run only printed aider's banner; the blank input is not a message.
    assert dict(result.skipped) == {"blank_input": 1, "run_without_input": 1}
    assert result.lines == 58
    first, second = result.conversations
    assert first.conversation_id != second.conversation_id
    assert all(c.source_format == "aider" and c.project == "aider" for c in result.conversations)


def test_first_run_messages():
    first = _parse().conversations[0]
    assert [(m.position, m.role, m.source_key, m.source_line, m.is_request)
            for m in first.messages] == [
        (0, "tool_result", "L4", 4, False),
        (1, "user", "L9", 9, False),
        (2, "tool_result", "L10", 10, False),
        (3, "user", "L12", 12, True),
        (4, "assistant", "L15", 15, False),
        (5, "tool_result", "L24", 24, False),
    ]
    texts = [m.text for m in first.messages]
    assert texts[0] == (
        "Add .aider* to .gitignore (recommended)? (Y)es/(N)o [Yes]: y\n"
        "Added .aider* to .gitignore\n/usr/local/bin/aider --model gpt-4o\nAider v0.50.0"
    )
    assert texts[1] == "/add hello.py"
    assert first.messages[1].meta == {"command": "add"}
    assert texts[3] == "add a greet function\nthat prints hello"
    assert texts[4] == (
        'hello.py\n```python\n<<<<<<< SEARCH\n=======\ndef greet():\n    print("hello")\n'
        ">>>>>>> REPLACE\n```"
    )


def test_commit_sha_recorded_on_its_tool_result():
    first, second = _parse().conversations
    assert first.messages[5].text == (
        "Applied edit to hello.py\nCommit 1a2b3c4 feat: add greet function"
    )
    assert first.messages[5].meta == {"commits": ["1a2b3c4"]}
    assert second.messages[-1].meta == {"commits": ["9f8e7d6"]}


def test_second_run_commands_fences_and_generated_prompt():
    second = _parse().conversations[1]
    assert [(m.position, m.role, m.is_request) for m in second.messages] == [
        (0, "tool_result", False),
        (1, "user", True),
        (2, "assistant", False),
        (3, "user", True),
        (4, "user", False),
        (5, "assistant", False),
        (6, "tool_result", False),
    ]
    ask, reply, lint, fix = (second.messages[i] for i in (1, 2, 3, 4))
    assert (ask.text, ask.meta) == ("/ask what does greet print?", {"command": "ask"})
    # The "> hello" line sits inside the reply's code fence: reply text, not aider output.
    assert reply.text == (
        "It prints `hello`.\n\nRun it like this:\n\n```\n"
        '$ python -c "import hello; hello.greet()"\n> hello\n```'
    )
    assert (lint.text, lint.meta) == ("/lint", {"command": "lint"})
    assert fix.text == (
        "# Fix any errors below, if possible.\n\n## Running: flake8 hello.py\n"
        "hello.py:1:1: F401 'os' imported but unused"
    )
    assert fix.meta == {"generated": True}


def test_run_stamp_is_every_messages_timestamp_in_utc():
    first, second = _parse().conversations
    assert {m.timestamp for m in first.messages} == {"2024-05-01T10:00:00.000Z"}
    assert {m.timestamp for m in second.messages} == {"2024-05-02T09:30:15.000Z"}
    plus_two = parse_history(HISTORY, tz=timezone(timedelta(hours=2)))
    assert plus_two.conversations[0].messages[0].timestamp == "2024-05-01T08:00:00.000Z"


def test_conversation_ids_stable_across_reingest_and_by_path(tmp_path):
    again = _parse()
    assert [c.conversation_id for c in again.conversations] == [
        c.conversation_id for c in _parse().conversations
    ]
    assert all(c.conversation_id.startswith("aider-") for c in again.conversations)
    copy = tmp_path / ".aider.chat.history.md"
    copy.write_bytes(HISTORY.read_bytes())
    moved = _parse(copy)
    assert moved.conversations[0].conversation_id != again.conversations[0].conversation_id
    assert moved.conversations[0].project == tmp_path.name


def test_same_stamp_twice_gives_two_ids(tmp_path):
    path = tmp_path / ".aider.chat.history.md"
    run = "# aider chat started at 2024-01-01 00:00:00\n\n#### hi  \n\nHello.\n\n"
    path.write_text(run + run)
    ids = [c.conversation_id for c in _parse(path).conversations]
    assert len(ids) == 2 and ids[0] != ids[1]


def test_invalid_utf8_line_is_skipped(tmp_path):
    path = tmp_path / ".aider.chat.history.md"
    path.write_bytes(b"# aider chat started at 2024-01-01 00:00:00\n\n#### caf\xe9  \n"
                     b"#### fix the bug  \n\nDone.\n")
    result = _parse(path)
    assert dict(result.skipped) == {"invalid_utf8": 1}
    [conversation] = result.conversations
    assert [(m.role, m.text) for m in conversation.messages] == [
        ("user", "fix the bug"), ("assistant", "Done.")
    ]


def test_plain_markdown_is_not_an_aider_history(tmp_path):
    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\n\nSome text.\n> a quote\n")
    assert not PARSER.sniff(notes, read_head(notes))
    with pytest.raises(UnknownFormatError, match="not an aider chat history"):
        PARSER.parse(notes)


def test_empty_history_has_no_conversations(tmp_path):
    path = tmp_path / ".aider.chat.history.md"
    path.write_text("")
    assert PARSER.parse(path).conversations == []


@pytest.mark.parametrize(("name", "text", "expected"), [
    ("history.md", "# aider chat started at 2024-05-01 10:00:00\n", True),
    (".aider.chat.history.md", "#### fix it  \n\nDone.\n", True),
    (".aider.chat.history.md", "hello\n", False),
    ("README.md", "#### A heading\n", False),
])
def test_sniff_content_decides_name_only_helps(tmp_path, name, text, expected):
    path = tmp_path / name
    path.write_text(text)
    assert PARSER.sniff(path, read_head(path)) is expected


@pytest.mark.parametrize(("path", "expected"), [
    (HISTORY, True),
    (FIXTURES / "chatgpt" / "conversations.json", False),
    (FIXTURES / "claude_ai" / "conversations.json", False),
    (FIXTURES / "palace_jsonl" / "two_conversations.jsonl", False),
])
def test_sniff_fixtures(path, expected):
    assert PARSER.sniff(path, read_head(path)) is expected


def test_an_answer_to_aiders_question_is_no_request(tmp_path):
    # aider writes the person's answer to "Add file to the chat?" as an input line; on real
    # histories such answers opened 21 of 256 exchanges ("Add file to the chat?" as the core).
    history = tmp_path / ".aider.chat.history.md"
    history.write_text(
        "# aider chat started at 2026-04-22 22:40:47\n\n"
        "#### fix the crash in jobs reducer  \n\n"
        "The crash comes from the reducer; please add it to the chat.\n\n"
        "> frontend/src/store/slices/jobs/reducer.ts  \n"
        "> Add file to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]: a  \n\n"
        "#### Add file to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]: all  \n\n"
        "Fixed the reducer: the job list is copied before it is sorted.\n")
    [conv] = parse_history(history, tz=timezone.utc).conversations
    answer = next(m for m in conv.messages if m.text.startswith("Add file"))
    assert answer.role == "user" and not answer.is_request and answer.meta == {"answer": True}
    assert [m.text for m in conv.messages if m.is_request] == ["fix the crash in jobs reducer"]
