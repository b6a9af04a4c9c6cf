"""Codex CLI rollouts: injected context is not a request, events do not double messages."""

from __future__ import annotations

from conftest import write_jsonl
from palace_lab.ingest import codex
from palace_lab.ingest.segment import segment


def line(kind, payload, ts="2026-05-11T08:00:00Z"):
    return {"timestamp": ts, "type": kind, "payload": payload}


def msg(role, text, part="input_text"):
    return {"type": "message", "role": role, "content": [{"type": part, "text": text}]}


def rollout(tmp_path, agent_events=True):
    lines = [
        line("session_meta", {"id": "sess-1", "cwd": "/home/ann/src/relay"}),
        line("response_item", msg("developer", "<permissions instructions>sandbox</permissions instructions>")),
        line("response_item", msg("user", "<environment_context>\n<cwd>/x</cwd>\n</environment_context>")),
        line("turn_context", {"cwd": "/home/ann/src/relay"}),
        line("response_item", msg("user", "add backoff to reconnect in src/ws.ts")),
        line("event_msg", {"type": "user_message", "message": "add backoff to reconnect in src/ws.ts"}),
        line("response_item", {"type": "reasoning", "encrypted_content": "gAAAA"}),
        line("response_item", {"type": "function_call", "name": "exec_command", "arguments": '{"cmd": "rg reconnect"}', "call_id": "c1"}),
        line("response_item", {"type": "function_call_output", "call_id": "c1", "output": "src/ws.ts:12: reconnect()"}),
        line("response_item", {"type": "custom_tool_call", "name": "apply_patch", "input": "*** Begin Patch", "call_id": "c2"}),
        line("response_item", {"type": "custom_tool_call_output", "call_id": "c2", "output": "Success"}),
    ]
    if agent_events:
        lines.append(line("event_msg", {"type": "agent_message", "message": "Added exponential backoff."}))
    lines.append(line("response_item", msg("assistant", "Added exponential backoff.", "output_text")))
    return write_jsonl(tmp_path / "rollout-2026-05-11T08-00-00-sess-1.jsonl", lines)


def test_codex_messages_and_requests(tmp_path):
    [conv] = codex.parse(rollout(tmp_path)).conversations
    assert conv.conversation_id == "sess-1" and conv.project == "relay"
    got = [(m.role, m.is_request, m.searchable, m.tool_name) for m in conv.messages]
    assert got == [
        ("system", False, False, None), ("system", False, False, None),
        ("user", True, True, None), ("tool_call", False, True, "exec_command"),
        ("tool_result", False, True, None), ("tool_call", False, True, "apply_patch"),
        ("tool_result", False, True, None), ("assistant", False, True, None),
    ]
    assert [m.source_key for m in conv.messages][:3] == ["L2", "L3", "L5"]
    exchanges = segment(conv)
    assert len(exchanges) == 1 and exchanges[0].request.startswith("add backoff")
    assert "sandbox" not in exchanges[0].verbatim


def test_codex_without_response_items_uses_events(tmp_path):
    path = write_jsonl(tmp_path / "r.jsonl", [
        line("session_meta", {"id": "sess-2", "cwd": "/a"}),
        line("event_msg", {"type": "user_message", "message": "hello there"}),
        line("event_msg", {"type": "agent_message", "message": "hi"}),
    ])
    [conv] = codex.parse(path).conversations
    assert [(m.role, m.text) for m in conv.messages] == [("user", "hello there"), ("assistant", "hi")]


def test_codex_sniff_is_by_content(tmp_path):
    path = rollout(tmp_path)
    assert codex.sniff(path, path.read_bytes()[:65536])
    other = write_jsonl(tmp_path / "rollout-x.jsonl", [{"conversation_id": "a", "role": "user", "content": "x"}])
    assert not codex.sniff(other, other.read_bytes())
