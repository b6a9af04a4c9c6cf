"""Hand-made material for the lifecycle tests: tool traffic with known effects, short sessions,
and small palaces spread over several weeks."""

from __future__ import annotations

import json
from pathlib import Path

from palace_lab.model import Message


def msg(i: int, role: str, text: str, *, tool: str | None = None, key: str | None = None,
        error: bool = False, conversation: str = "c1") -> Message:
    meta = {}
    if key:
        meta["tool_use_id"] = key
    if error:
        meta["is_error"] = True
    return Message(conversation, i, role, text, f"k{i}", is_request=(role == "user"),
                   tool_name=tool, meta=meta)


def call(i, tool, data, key):
    return msg(i, "tool_call", data if isinstance(data, str) else json.dumps(data), tool=tool, key=key)


def result(i, text, key, error=False):
    return msg(i, "tool_result", text, key=key, error=error)


ROOT = "/home/u/proj"


def claude_code_exchange() -> list[Message]:
    """Read, a failing then passing pytest, an edit, a new file, a rejected edit, reads by shell."""
    return [
        msg(0, "user", "the pool test fails, fix it"),
        msg(1, "assistant", "Let me look."),
        call(2, "Read", {"file_path": f"{ROOT}/src/db/pool.py"}, "t1"),
        result(3, "     1→pool_size = 10\n", "t1"),
        call(4, "Bash", {"command": f"cd {ROOT} && uv run pytest tests/test_pool.py -q 2>&1 | tail -5"}, "t2"),
        result(5, "F.\nFAILED tests/test_pool.py::test_size - AssertionError: assert 10 == 20\n"
                  "1 failed, 1 passed in 0.12s", "t2"),
        call(6, "Edit", {"file_path": f"{ROOT}/src/db/pool.py", "old_string": "pool_size = 10",
                         "new_string": "pool_size = 20"}, "t3"),
        result(7, f"The file {ROOT}/src/db/pool.py has been updated.", "t3"),
        call(8, "Write", {"file_path": f"{ROOT}/tests/test_timeout.py", "content": "def test(): pass\n"}, "t4"),
        result(9, f"File created successfully at: {ROOT}/tests/test_timeout.py", "t4"),
        call(10, "Edit", {"file_path": f"{ROOT}/README.md", "old_string": "a", "new_string": "b"}, "t5"),
        result(11, "The user doesn't want to proceed with this tool use. The tool use was rejected.",
               "t5", error=True),
        call(12, "Bash", {"command": "cat src/db/config.py && sed -n '1,20p' src/db/engine.py"}, "t6"),
        result(13, "POOL = 20\n", "t6"),
        call(14, "Bash", {"command": "uv run pytest tests/test_pool.py -q"}, "t7"),
        result(15, "..\n2 passed in 0.10s", "t7"),
        call(16, "Bash", {"command": "uv run ruff check src"}, "t8"),
        result(17, "All checks passed!", "t8"),
        msg(18, "assistant", "Fixed: pool_size is 20 now."),
    ]


def codex_exchange() -> list[Message]:
    """exec_command with a workdir, apply_patch, a command finished through write_stdin."""
    def cx(i, role, text, tool=None, call_id=None):
        return Message("c2", i, role, text, f"k{i}", is_request=(role == "user"), tool_name=tool,
                       meta={"call_id": call_id} if call_id else {})
    return [
        cx(0, "user", "raise the pool size and add a test"),
        cx(1, "tool_call", json.dumps({"cmd": "rg -n pool_size src", "workdir": "/w/proj"}),
           "exec_command", "c1"),
        cx(2, "tool_result", "Chunk ID: a\nWall time: 0.1 seconds\nProcess exited with code 0\n"
                             "Original token count: 5\nOutput:\nsrc/db/pool.py:3:pool_size=10", None, "c1"),
        cx(3, "tool_call", "*** Begin Patch\n*** Update File: src/db/pool.py\n@@\n-pool_size=10\n"
                           "+pool_size=20\n*** Add File: tests/test_pool.py\n+def test(): pass\n"
                           "*** End Patch\n", "apply_patch", "c2"),
        cx(4, "tool_result", json.dumps({"output": "Success. Updated the following files:\n"
                                                   "M src/db/pool.py\nA tests/test_pool.py\n",
                                         "metadata": {"exit_code": 0}}), None, "c2"),
        cx(5, "tool_call", json.dumps({"cmd": "npm test -- --run", "workdir": "/w/proj"}),
           "exec_command", "c3"),
        cx(6, "tool_result", "Chunk ID: b\nWall time: 1.0 seconds\nProcess running with session ID 77"
                             "\nOriginal token count: 0\nOutput:\n", None, "c3"),
        cx(7, "tool_call", json.dumps({"session_id": 77, "chars": ""}), "write_stdin", "c4"),
        cx(8, "tool_result", "Chunk ID: c\nWall time: 2.0 seconds\nProcess exited with code 1\n"
                             "Original token count: 30\nOutput:\n FAIL  src/pool.test.ts > pool > size\n"
                             "AssertionError: expected 10 to be 20\n      Tests  1 failed | 3 passed (4)\n",
           None, "c4"),
        cx(9, "assistant", "The test still fails."),
    ]


SESSION = [
    ("user", "Hi! The API times out under load. I prefer small commits."),
    ("assistant", "Thanks for the report. Let me look at the pool. We decided to raise "
                  "pool_size=20 because the load test exhausted 10 connections. The timeout "
                  "is 30 s now. Files: src/db/pool.py."),
    ("user", "ok thanks. Should we also retry?"),
    ("assistant", "Sounds good. Next we should add a retry test in tests/test_pool.py."),
]


TOPICS = ("pool", "cache", "retry")


def session_jsonl(folder: Path, *, days: int, per_day: int, start: str = "2025-03-03",
                  projects: tuple[str, ...] = ("alpha",)) -> Path:
    """One conversation a day (``per_day`` exchanges each, an hour apart), palace JSONL."""
    from datetime import datetime, timedelta

    first = datetime.fromisoformat(start + "T09:00:00+00:00")
    lines = []
    for d in range(days):
        cid = f"day-{d:03d}"
        for k in range(per_day):
            t = (first + timedelta(days=d, hours=k)).strftime("%Y-%m-%dT%H:%M:%SZ")
            lines.append({"conversation_id": cid, "role": "user", "timestamp": t,
                          "project": projects[d % len(projects)],
                          "content": f"request {d}.{k}: tune the {TOPICS[k % 3]} worker_{k} in "
                                     f"src/w{k}.py, I always want ruff before commit"})
            lines.append({"conversation_id": cid, "role": "assistant", "timestamp": t,
                          "content": f"We switched worker_{k} to {k + 2} threads because the "
                                     f"queue backed up. Set timeout={k + 1}s in src/w{k}.py."})
    path = folder / "sessions.jsonl"
    folder.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in lines), "utf-8")
    return path


def build_palace(db: Path, *, days: int = 21, per_day: int = 3, distill: bool = True, **kw):
    from palace_lab.distill import get_distiller
    from palace_lab.distill.pipeline import distill_palace
    from palace_lab.ingest import ingest_paths
    from palace_lab.store import Palace

    palace = Palace.open(db)
    ingest_paths(palace, [session_jsonl(db.parent / "history", days=days, per_day=per_day, **kw)])
    if distill:
        distill_palace(palace, get_distiller("rules"))
    return palace


def session_exchanges():
    """Two exchanges of one session built from :data:`SESSION`."""
    from palace_lab.model import Exchange

    out = []
    for i in range(0, len(SESSION), 2):
        (_, request), (_, answer) = SESSION[i], SESSION[i + 1]
        dialogue = f"[user] {request}\n\n[assistant] {answer}"
        out.append(Exchange(f"x{i}", "s1", i, i + 1, request, dialogue, dialogue,
                            project="alpha", timestamp=f"2025-03-03T1{i}:00:00Z"))
    return out
