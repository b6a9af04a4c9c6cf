"""Tool-call compression: exact blocks for hand-made traffic, check outcomes, the layer."""

from __future__ import annotations

import pytest
from lifecycle_data import ROOT, call, claude_code_exchange, codex_exchange, msg, result

from palace_lab.ingest.traffic.checks import check_kinds, outcome
from palace_lab.ingest.traffic.toolcalls import (exchange_toolcalls, messages_from_verbatim, summarize,
                                            toolcall_stats, toolcall_table)
from palace_lab.tokens import count_tokens

CLAUDE_BLOCK = """\
tool calls: 8 (Bash 4, Edit 2, Read 1, Write 1)
modified: src/db/pool.py, tests/test_timeout.py (new)
read: src/db/config.py, src/db/engine.py
rejected: README.md
ran: `uv run pytest tests/test_pool.py -q`, `cat src/db/config.py && sed -n '1,20p' src/db/engine.py`, `uv run ruff check src`
pytest: pass (2 passed) after 1 failing run; fixed: FAILED tests/test_pool.py::test_size - AssertionError: assert 10 == 20
ruff: pass"""

CODEX_BLOCK = """\
tool calls: 4 (exec_command 2, apply_patch 1, write_stdin 1)
modified: src/db/pool.py, tests/test_pool.py (new)
ran: `rg -n pool_size src`, `npm test -- --run`
npm test: fail (1 failed, 3 passed) — FAIL src/pool.test.ts > pool > size"""


def test_claude_code_traffic_becomes_the_exact_block():
    messages = claude_code_exchange()
    s = summarize(messages, project="proj")
    assert s.block == CLAUDE_BLOCK
    assert s.modified == ("src/db/pool.py", "tests/test_timeout.py (new)")
    assert s.final_checks()["pytest"].counts == "2 passed"
    traffic = [m.text for m in messages if m.role in ("tool_call", "tool_result")]
    assert s.tokens_before == sum(count_tokens(traffic))
    assert s.tokens_after == count_tokens([CLAUDE_BLOCK])[0]


def test_codex_traffic_with_a_patch_and_a_polled_command():
    s = summarize(codex_exchange())
    assert s.block == CODEX_BLOCK
    run = s.final_checks()["npm test"]
    assert (run.status, run.counts) == ("fail", "1 failed, 3 passed")


def test_the_root_comes_from_files_touched_when_there_is_no_project():
    s = summarize(claude_code_exchange(), files_touched=("src/db/pool.py",))
    assert s.modified[0] == "src/db/pool.py"
    assert summarize(claude_code_exchange()).modified[0] == f"{ROOT}/src/db/pool.py"


def test_an_exchange_without_tools_has_an_empty_block():
    s = summarize([msg(0, "user", "hello"), msg(1, "assistant", "hi")])
    assert (s.calls, s.block, s.tokens_before, s.tokens_after, s.ratio) == (0, "", 0, 0, None)


def test_delegated_and_search_calls_keep_what_they_were_about():
    s = summarize([call(0, "Task", {"description": "Explore the repo", "prompt": "long…"}, "a"),
                   result(1, "a long report " * 200, "a"),
                   call(2, "TodoWrite", {"todos": [{"content": "x"}]}, "b"),
                   result(3, "Todos have been modified", "b")])
    assert s.block == "tool calls: 2 (Task 1, TodoWrite 1)\nother: Task: Explore the repo"


@pytest.mark.parametrize("command,output,exit_code,expected", [
    ("cargo nextest run", "Summary [   0.021s] 3 tests run: 2 passed, 1 failed, 0 skipped\n"
     "        FAIL [   0.009s] notes store::tests::x\nerror: test run failed", None,
     ("fail", "2 passed, 1 failed, 0 skipped", "FAIL [ 0.009s] notes store::tests::x")),
    ("pnpm exec tsc --noEmit", "", None, ("pass", "", "")),
    ("npx tsc", "src/a.ts(1,2): error TS2307: Cannot find module 'x'.", None,
     ("fail", "", "src/a.ts(1,2): error TS2307: Cannot find module 'x'.")),
    ("npx jest", "Tests:       1 failed, 12 passed, 13 total", None, ("fail", "1 failed, 12 passed", "")),
    ("uv run mypy src", "Success: no issues found in 2 source files", None, ("pass", "", "")),
    ("uv run mypy src", "Found 3 errors in 1 file (checked 2 source files)", 1,
     ("fail", "Found 3 errors", "")),
    ("go test ./...", "ok  \texample.com/x\t0.01s", 0, ("pass", "", "")),
    ("cargo test", "test result: FAILED. 11 passed; 1 failed; 0 ignored", 101,
     ("fail", "11 passed, 1 failed", "")),
])
def test_check_outcomes(command, output, exit_code, expected):
    kind = check_kinds(command)[0]
    run = outcome(kind, command, output, exit_code=exit_code)
    assert (run.status, run.counts, run.error) == expected


def test_check_kinds_name_each_check_once_and_skip_lookers():
    assert check_kinds("grep -n pytest setup.cfg") == ()
    assert check_kinds("pnpm -r exec tsc --noEmit && pnpm -r test 2>&1 | tail -3") == ("tsc", "npm test")
    assert check_kinds("cargo build --release && cargo nextest run") == ("cargo test", "cargo build")
    assert check_kinds("git status && ls") == ()


def test_the_toolcalls_layer_is_registered_and_matches_the_message_block(palace):
    from palace_lab.index.layers import LAYERS
    from palace_lab.model import Conversation
    from palace_lab.ingest.segment import segment

    conv = Conversation("c1", "claude-code", tuple(claude_code_exchange()), project="proj")
    with palace.transaction() as tx:
        palace.store_conversation(tx, conv, segment(conv))
    exchange = palace.exchanges()[0]
    from_palace = exchange_toolcalls(palace, exchange)
    assert from_palace.block == CLAUDE_BLOCK
    rebuilt = summarize(messages_from_verbatim(exchange), project="proj", count=False)
    assert rebuilt.block == CLAUDE_BLOCK
    text = LAYERS["toolcalls"].text_fn(exchange, None)
    assert text == "the pool test fails, fix it\n" + CLAUDE_BLOCK
    rows = toolcall_table(palace)
    assert [r.exchange_id for r in rows] == [exchange.exchange_id]
    stats = toolcall_stats(rows, min_tokens=100)
    assert stats["tool_heavy"] == 1 and stats["median_ratio"] == round(rows[0].ratio, 2)


def test_real_tool_heavy_exchanges_compress_at_least_tenfold(real_exports, tmp_path):
    from palace_lab.ingest import ingest_paths
    from palace_lab.store import Palace

    with Palace.open(tmp_path / "real.db") as palace:
        ingest_paths(palace, [real_exports / "codex", real_exports / "claude_code"])
        stats = toolcall_stats(toolcall_table(palace))
    assert stats["tool_heavy"] >= 3
    assert stats["median_ratio"] >= 10 and stats["ratio_of_totals"] >= 10


def test_the_table_is_kept_and_only_changed_exchanges_are_compressed_again(real_exports, tmp_path,
                                                                           monkeypatch):
    from palace_lab.ingest import ingest_paths
    from palace_lab.ingest.traffic import toolcalls
    from palace_lab.store import Palace

    with Palace.open(tmp_path / "real.db") as palace:
        ingest_paths(palace, [real_exports / "codex", real_exports / "claude_code"])
        first = toolcall_table(palace)
        compressed: list[str] = []
        real = toolcalls.exchange_toolcalls

        def counted(p, exchange, **kw):
            compressed.append(exchange.exchange_id)
            return real(p, exchange, **kw)

        monkeypatch.setattr(toolcalls, "exchange_toolcalls", counted)
        assert toolcall_table(palace) == first and compressed == []
        target = first[1].exchange_id
        with palace.transaction() as tx:
            tx.execute("UPDATE exchanges SET hash='changed' WHERE exchange_id=?", (target,))
            tx.execute("UPDATE exchanges SET project='elsewhere' WHERE exchange_id=?",
                       (first[2].exchange_id,))
        again = toolcall_table(palace)
    assert sorted(compressed) == sorted([target, first[2].exchange_id])
    assert again[:2] == first[:2] and again[2].project == "elsewhere"
