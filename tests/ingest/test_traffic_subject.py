"""A tool call's subject: the file it read, the command it ran, relative to the project."""

from __future__ import annotations

from person_palace import person_palace

from palace_lab.ingest.traffic.subject import subject, tool_subjects
from palace_lab.ingest.traffic.uses import parse_call
from palace_lab.model import Message
from palace_lab.store import Palace


def test_calls_and_their_results_are_named_by_file_and_command(tmp_path):
    db = person_palace(tmp_path)
    with Palace.open(db, create=False) as palace:
        e = palace.exchanges()[0]
        messages = palace.messages(e.conversation_id, e.ply_start, e.ply_end)
    named = tool_subjects(messages, files_touched=e.files_touched, project=e.project)
    by_role = [(m.role, m.tool_name, named.get(m.position)) for m in messages
               if m.role in ("tool_call", "tool_result")]
    assert by_role == [("tool_call", "Read", "src/app.py"), ("tool_result", None, "src/app.py"),
                       ("tool_call", "Bash", "pytest -q"), ("tool_result", None, "pytest -q")]


def test_other_agents_tools_and_secrets():
    codex = parse_call("apply_patch", "*** Begin Patch\n*** Update File: a.py\n*** Add File: b.py\n")
    assert subject(codex) == "a.py (+1)"
    assert subject(parse_call("WebSearch", '{"query": "sqlite busy timeout"}')) == \
        "sqlite busy timeout"
    assert subject(parse_call("TodoWrite", '{"todos": []}')) == ""
    newer_codex = parse_call("shell_command", '{"command": "cargo test -q", "workdir": "/r"}')
    assert newer_codex.kind == "shell" and subject(newer_codex, "/r/") == "cargo test -q"
    call = Message("c", 0, "tool_call", '{"command": "export GH=ghp_' + "a1B2" * 9 + '"}',
                   "k", tool_name="Bash")
    assert "ghp_" not in tool_subjects([call])[0]
