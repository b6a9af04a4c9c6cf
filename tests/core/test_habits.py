"""Tests hold behaviour, not speed: no test asserts on elapsed wall time (the benchmarks print
timings). A test that means "it did not wait" counts calls or passes, or injects a clock."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLOCKS = {"time", "perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns", "time_ns",
          "process_time"}
# A figure of time by its name: ``budget_seconds``, ``p50_ms``, ``elapsed``, ``latency``.
TIMED_NAME = re.compile(r"(?:^|_)(?:seconds|secs|ms|elapsed|latency|duration|p50|p95)(?:_|$)", re.I)


def _is_clock_call(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    f = node.func
    if isinstance(f, ast.Attribute):  # time.perf_counter(), time.time()
        return f.attr in CLOCKS and isinstance(f.value, ast.Name) and f.value.id == "time"
    return isinstance(f, ast.Name) and f.id in CLOCKS - {"time"}  # from time import monotonic


def _name_of(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        return str(node.slice.value)
    return None


def _timed_comparison(node: ast.AST) -> bool:
    """``x_seconds > 0``, ``lat["p50_ms"] < 10``: a named time figure against a number."""
    if not isinstance(node, ast.Compare) or not isinstance(node.ops[0], (ast.Lt, ast.LtE, ast.Gt, ast.GtE)):
        return False
    sides = [node.left, *node.comparators]
    named = any((n := _name_of(s)) and TIMED_NAME.search(n) for s in sides)
    return named and any(isinstance(s, ast.Constant) and isinstance(s.value, (int, float)) for s in sides)


def timing_assertions(source: str) -> list[int]:
    """Line numbers of the asserts in ``source`` that read a clock or a time figure."""
    tree = ast.parse(source)
    clocked: set[str] = set()  # names bound to a clock reading: start, elapsed, t0
    for node in ast.walk(tree):
        if isinstance(node.value if isinstance(node, ast.Assign) else None, ast.Lambda):
            continue  # ``later = lambda: time.time() + 60`` is an injected clock, not a reading
        if isinstance(node, ast.Assign) and any(_is_clock_call(n) for n in ast.walk(node.value)):
            clocked.update(t.id for t in node.targets if isinstance(t, ast.Name))
    lines = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assert):
            continue
        parts = list(ast.walk(node.test))
        if any(_is_clock_call(n) or _timed_comparison(n)
               or (isinstance(n, ast.Name) and n.id in clocked) for n in parts):
            lines.append(node.lineno)
    return lines


def test_no_test_asserts_on_elapsed_time():
    offenders = [f"{path.relative_to(ROOT)}:{line}"
                 for path in sorted((ROOT / "tests").rglob("*.py"))
                 for line in timing_assertions(path.read_text())]
    assert offenders == []


def test_the_scan_finds_each_kind_of_timing_assertion():
    found = timing_assertions(
        "import time\n"
        "from time import perf_counter\n"
        "start = time.perf_counter()\n"
        "assert time.perf_counter() - start < 1.0\n"              # 4: a clock in the assert
        "elapsed = perf_counter() - start\n"
        "assert elapsed < 2.5\n"                                   # 6: a name bound to a clock
        "assert made.budget_seconds > 0\n"                         # 7: a time figure by name
        "assert lexical['p50_ms'] > 0\n"                           # 8: ... in a dict
        "assert len(calls) == 2 and waits == [0.2]\n"              # counters: fine
        "assert set(printed) == {'out', 'bytes', 'seconds'}\n"     # a key's name: fine
        "later = lambda: time.time() + 60\n"
        "assert lock(now=later)\n"                                # an injected clock: fine
        "deadline = time.monotonic() + 30\n")
    assert found == [4, 6, 7, 8]
