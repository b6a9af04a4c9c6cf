"""Build and test runs inside shell commands: which check ran, and how it ended.

A *check* is a command whose outcome matters to the memory of an exchange: a test runner
(pytest, cargo test/nextest, vitest, jest, go test, ``npm test``), a type checker or linter
(tsc, mypy, ruff, eslint) or a build (cargo build/check/clippy, ``npm run build``, make, go
build). :func:`check_kinds` names the checks one command runs; :func:`outcome` reads the output
the agent saw and returns a :class:`CheckOutcome`: ``pass``/``fail``/``unknown``, the runner's own
counts ("1 failed, 8 passed") and the *decisive error line* (the one line a person would quote
to say why it failed).

Rules, in order of precedence:

- fail: a count of failures or errors above zero, a non-zero exit code, the tool result marked
  as an error, or a failure marker (``FAILED``, ``error[E…]``, ``error TS…``, ``panicked at``,
  ``Traceback``, a time-out, ``ERR_PNPM…``/``npm ERR!``);
- pass: counts with no failure, a success marker ("All checks passed!", "Success: no issues",
  "test result: ok", cargo's "Finished"), exit code 0, or a silent run (tsc prints nothing when
  it passes);
- unknown: the run never reported an end (a Codex process still running).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# (kind, pattern on one command segment); the first match names the segment's check.
CHECK_PATTERNS: tuple[tuple[str, re.Pattern], ...] = tuple((k, re.compile(p)) for k, p in (
    ("pytest", r"\bpy\.?test\b"),
    ("cargo test", r"\bcargo\s+(?:test|nextest)\b"),
    ("cargo build", r"\bcargo\s+(?:build|check|clippy)\b"),
    ("vitest", r"\bvitest\b"),
    ("jest", r"\bjest\b"),
    ("go test", r"\bgo\s+test\b"),
    ("go build", r"\bgo\s+(?:build|vet)\b"),
    ("tsc", r"\btsc\b"),
    ("mypy", r"\bmypy\b"),
    ("ruff", r"\bruff\b"),
    ("eslint", r"\beslint\b"),
    ("npm test", r"\b(?:npm|pnpm|yarn|bun)\b.*\s(?:test|t)(?:\s|$)"),
    ("build", r"\b(?:npm|pnpm|yarn|bun)\b.*\sbuild\b|^make\b|\bgradlew?\b|\bmvn\b|--build\b"),
))
# Commands that only look at things never count as checks ("grep pytest setup.cfg").
_LOOKERS = frozenset("grep rg cat sed head tail less echo printf ls find git wc which type "
                     "man nl diff".split())
_SEGMENT_SPLIT = re.compile(r"\s*(?:&&|\|\||;|\n)\s*")
_ENV = re.compile(r"^(?:[A-Z_][A-Z0-9_]*=\S*\s+)+")

_FAIL_WORDS = ("failed", "error", "errors", "fail")
_COUNT_PATTERNS = (
    # pytest: "1 failed, 8 passed in 1.31s" (also inside "==== … ====")
    re.compile(r"(\d+ (?:failed|passed|errors?|skipped|xfailed|xpassed|deselected|warnings?)"
               r"(?:, \d+ (?:failed|passed|errors?|skipped|xfailed|xpassed|deselected|"
               r"warnings?))*) in [\d.]+s"),
    re.compile(r"^\s*Tests\s+(\d+ \w+(?: \| \d+ \w+)*)\s+\(\d+\)\s*$", re.M),  # vitest
    re.compile(r"^Tests:\s+(.+?), \d+ total", re.M),  # jest
    re.compile(r"test result: \w+\. (\d+ passed; \d+ failed)"),  # cargo test
    re.compile(r"Summary \[[^\]]*\]\s+\d+ tests? run: (.+)$", re.M),  # nextest
    re.compile(r"^(Found \d+ errors?)", re.M),  # tsc, mypy, ruff
    re.compile(r"(\d+ problems? \(\d+ errors?, \d+ warnings?\))"),  # eslint
)
_SUCCESS = re.compile(r"All checks passed|Success: no issues found|test result: ok\b|"
                      r"^\s*Finished\b|^ok\s+\S+", re.M)
_FAILURE = re.compile(r"^FAILED\b|\bFAILED\b|error\[E\d+\]|error TS\d+|\bpanicked at\b|"
                      r"^Traceback\b|timed out|ERR_PNPM|npm ERR!|^error:|^--- FAIL|^FAIL\b",
                      re.M | re.I)
_DECISIVE = tuple(re.compile(p, re.M) for p in (
    r"^FAILED \S+.*$",  # pytest's short test summary
    r"^.*\berror(?:\[E\d+\]| TS\d+):.*$",  # rustc, tsc
    r"^E {2,}\S.*$",  # pytest's assertion line
    r"^.*\bpanicked at\b.*$",
    r"^\s*(?:--- )?FAIL\b.*$",
    r"^error:.*$",
    r"^.*\b\w*(?:Error|Exception)\b:.*$",
    r"^.*timed out.*$",
    r"^.*(?:ERR_PNPM\w*|npm ERR!).*$",
))
ERROR_CHARS = 160


@dataclass(frozen=True)
class CheckOutcome:
    """One run of a check: ``status`` is ``pass``, ``fail`` or ``unknown``."""

    kind: str
    command: str
    status: str
    counts: str = ""
    error: str = ""


def segments(command: str) -> list[str]:
    return [s for s in _SEGMENT_SPLIT.split(command) if s.strip()]


def check_kinds(command: str) -> tuple[str, ...]:
    """The checks a command runs, without repeats, in the order of ``CHECK_PATTERNS``."""
    kinds: list[str] = []
    for segment in segments(command):
        for part in segment.split("|")[:1]:  # what a pipe feeds into is not a check
            part = _ENV.sub("", part.strip())
            first = part.split(" ", 1)[0] if part else ""
            if first in _LOOKERS:
                continue
            kind = next((k for k, pattern in CHECK_PATTERNS if pattern.search(part)), None)
            if kind and kind not in kinds:
                kinds.append(kind)
    order = [k for k, _ in CHECK_PATTERNS]
    return tuple(sorted(kinds, key=order.index))  # one name per combination, whatever the order


def counts_in(output: str) -> str:
    """The runner's own summary counts (the last one printed), normalised to "a, b"."""
    found = ""
    for pattern in _COUNT_PATTERNS:
        matches = pattern.findall(output)
        if matches:
            found = matches[-1]
            break
    return found.replace(" | ", ", ").replace("; ", ", ").strip()


def _failed_count(counts: str) -> int:
    total = 0
    for number, word in re.findall(r"(\d+) (\w+)", counts):
        if word.lower() in _FAIL_WORDS:
            total += int(number)
    if counts.startswith("Found "):
        total += int(re.search(r"\d+", counts).group(0))
    return total


def decisive_error(output: str) -> str:
    """The line that says why a run failed (see ``_DECISIVE`` for the order of preference)."""
    for pattern in _DECISIVE:
        m = pattern.search(output)
        if m:
            line = " ".join(m.group(0).split())
            return line if len(line) <= ERROR_CHARS else line[: ERROR_CHARS - 1] + "…"
    return ""


def outcome(kind: str, command: str, output: str, *, exit_code: int | None,
            is_error: bool = False, finished: bool = True) -> CheckOutcome:
    """How one run ended, from what the agent saw (see the module docstring for the rules)."""
    counts = counts_in(output)
    failed = (_failed_count(counts) > 0 or bool(exit_code) or is_error
              or (not counts and bool(_FAILURE.search(output))))
    if failed:
        return CheckOutcome(kind, command, "fail", counts, decisive_error(output))
    if counts or _SUCCESS.search(output) or exit_code == 0 or finished:
        return CheckOutcome(kind, command, "pass", counts)
    return CheckOutcome(kind, command, "unknown", counts)
