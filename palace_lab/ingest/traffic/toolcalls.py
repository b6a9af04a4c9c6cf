"""Tool-call compression: an exchange's tool traffic as a compact block.

An agent's tool traffic (tool inputs and outputs) is most of an exchange's tokens and little of
what is worth remembering. The block keeps what the memory-compression chapter keeps — files
modified, files only read, the final outcome of build/test runs — plus the commands that ran:

    tool calls: 14 (Bash 6, Edit 4, Read 3, Write 1)
    modified: src/app/db.py, tests/test_db.py (new)
    read: src/app/config.py
    ran: `uv run pytest -q`, `uv run ruff check src`
    pytest: pass (47 passed) after 1 failing run; fixed: FAILED tests/test_db.py::test_pool - …
    ruff: pass

Invariants:

- Paths are made relative to the project root (the Codex ``workdir``, else the prefix that
  turns an absolute path into one of the exchange's ``files_touched``, else the folder named
  like the project) and listed once, in order of first appearance. A file both read and
  modified is listed as modified only. An edit whose result is an error or a rejection
  modified nothing.
- Commands are shown by their first line without output plumbing (``2>&1``, ``| tail -N``,
  ``| head -N``) or a leading ``cd ROOT &&``, cut to ``COMMAND_CHARS`` (90) characters,
  deduplicated after that clean-up, in order.
- Each check (see :mod:`palace_lab.ingest.traffic.checks`) reports its *final* run; the error line
  is the decisive one of that run when it failed, or of the last failing run it fixed.
- ``tokens_before`` counts every tool_call and tool_result text of the exchange (each message
  counted on its own, summed); ``tokens_after`` counts the block; both with the real tokenizer.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING

from palace_lab.files import normalise_path
from palace_lab.ingest.segment import split_messages
from palace_lab.ingest.traffic.checks import CheckOutcome, check_kinds, outcome
from palace_lab.ingest.traffic.shell import strip_heredocs
from palace_lab.ingest.traffic.uses import ToolUse, read_traffic, tool_counts
from palace_lab.model import Exchange, Message, content_hash
from palace_lab.store.memo import Memo, code_version
from palace_lab.tokens import DEFAULT_ENCODING, count_tokens

if TYPE_CHECKING:
    from palace_lab.store import Palace

TOOL_HEAVY_TOKENS = 2000  # an exchange is tool-heavy from this much tool traffic
COMMAND_CHARS = 90
_PLUMBING = re.compile(r"\s*(?:2>&1|\|\s*(?:tail|head)(?:\s+-n)?\s+-?\d+|\|\s*cat)\b\s*")


@dataclass(frozen=True)
class ToolCallSummary:
    """The compression of one exchange's tool traffic; ``block`` is its rendering."""

    calls: int
    tools: tuple[tuple[str, int], ...]
    modified: tuple[str, ...] = ()
    read: tuple[str, ...] = ()
    rejected: tuple[str, ...] = ()
    commands: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    checks: tuple[CheckOutcome, ...] = ()
    block: str = ""
    tokens_before: int = 0
    tokens_after: int = 0

    @property
    def ratio(self) -> float | None:
        """tokens_before / tokens_after (None without tool traffic)."""
        return self.tokens_before / self.tokens_after if self.tokens_after else None

    def final_checks(self) -> dict[str, CheckOutcome]:
        """The last run of each check kind."""
        return {run.kind: run for run in self.checks}

    def render(self) -> str:
        if not self.calls:
            return ""
        lines = [f"tool calls: {self.calls} (" + ", ".join(f"{t} {n}" for t, n in self.tools) + ")"]
        for label, items in (("modified", self.modified), ("read", self.read),
                             ("rejected", self.rejected)):
            if items:
                lines.append(f"{label}: " + ", ".join(items))
        if self.commands:
            lines.append("ran: " + ", ".join(f"`{c}`" for c in self.commands))
        if self.notes:
            lines.append("other: " + "; ".join(self.notes))
        lines.extend(check_lines(self.checks))
        return "\n".join(lines)

    def to_dict(self) -> dict:
        d = {k: v for k, v in vars(self).items() if k != "checks"}
        d.update(tools=dict(self.tools), checks=[vars(c) for c in self.checks], ratio=self.ratio)
        return {k: list(v) if isinstance(v, tuple) else v for k, v in d.items()}


# -- summarising -----------------------------------------------------------------------------


def infer_root(uses: Sequence[ToolUse], files_touched: Sequence[str] = (),
               project: str | None = None) -> str | None:
    """The project root that absolute paths are made relative to (see the module docstring)."""
    workdirs = Counter(u.workdir for u in uses if u.workdir)
    if workdirs:
        return workdirs.most_common(1)[0][0].rstrip("/") + "/"
    paths = [p for u in uses for p in [*u.read, *(w for w, _ in u.written)] if p.startswith("/")]
    roots = Counter(p[: len(p) - len(rel)] for p in paths for rel in files_touched
                    if not rel.startswith("/") and p.endswith("/" + rel))
    if roots:
        return roots.most_common(1)[0][0]
    if project:
        for p in paths:
            cut = p.find(f"/{project}/")
            if cut >= 0:
                return p[: cut + len(project) + 2]
    return None


def clean_command(command: str, root: str | None) -> str:
    first = strip_heredocs(command).strip().splitlines()[0] if command.strip() else ""
    if root:
        first = re.sub(rf"^cd\s+{re.escape(root.rstrip('/'))}/?\s*&&\s*", "", first)
        first = first.replace(root, "")
    first = _PLUMBING.sub(" ", first).strip()
    return first if len(first) <= COMMAND_CHARS else first[: COMMAND_CHARS - 1] + "…"


def _ordered(items) -> list:
    return list(dict.fromkeys(items))


def _files(uses: Sequence[ToolUse], root: str | None) -> tuple[list[str], list[str], list[str]]:
    """(modified, only read, rejected) paths, relative to ``root``, in order of appearance."""
    rel = lambda p: normalise_path(p, root.rstrip("/") if root else None)  # noqa: E731
    changes: dict[str, str] = {}
    refused: list[str] = []
    for u in uses:
        if u.rejected or (u.kind == "edit" and u.is_error):
            refused.extend(rel(p) for p, _ in u.written)
            continue
        for path, change in u.written:
            key = rel(path)
            if change == "" and "File created successfully" in "".join(u.output):
                change = "new"
            changes[key] = change if key not in changes or change == "deleted" else changes[key]
    read = [p for p in _ordered(rel(p) for u in uses for p in u.read) if p not in changes]
    modified = [p + (f" ({c})" if c else "") for p, c in changes.items()]
    return modified, read, [p for p in _ordered(refused) if p not in changes]


def _check_outcomes(uses: Sequence[ToolUse], root: str | None) -> list[CheckOutcome]:
    runs = []
    for u in uses:
        kinds = check_kinds(u.command) if u.kind == "shell" else ()
        if kinds:
            runs.append(outcome(" + ".join(kinds), clean_command(u.command, root),
                                "\n".join(u.output), exit_code=u.exit_code,
                                is_error=u.is_error, finished=u.finished))
    return runs


def check_lines(runs: Sequence[CheckOutcome]) -> list[str]:
    """One line per check kind: its final run, failing runs before it, the decisive error."""
    lines = []
    for kind in _ordered(r.kind for r in runs):
        mine = [r for r in runs if r.kind == kind]
        final, earlier = mine[-1], [r for r in mine[:-1] if r.status == "fail"]
        line = f"{kind}: {final.status}" + (f" ({final.counts})" if final.counts else "")
        if earlier:
            line += f" after {len(earlier)} failing run{'s' if len(earlier) > 1 else ''}"
        if final.status == "fail" and final.error:
            line += f" — {final.error}"
        elif earlier and earlier[-1].error:
            line += f"; fixed: {earlier[-1].error}"
        lines.append(line)
    return lines


def summarize(messages: Sequence[Message], *, files_touched: Sequence[str] = (),
              project: str | None = None, root: str | None = None,
              encoding: str = DEFAULT_ENCODING, count: bool = True) -> ToolCallSummary:
    """Compress the tool traffic among ``messages`` (one exchange's, in order).

    ``count=False`` skips the token counts (the search layer needs only the block).
    """
    uses = read_traffic(messages)
    root = root or infer_root(uses, files_touched, project)
    visible = [u for u in uses if u.kind != "stdin"]
    modified, read, rejected = _files(uses, root)
    commands = (clean_command(u.command, root) for u in visible if u.kind == "shell")
    notes = (f"{u.tool}: {u.note}" for u in visible if u.note)
    summary = ToolCallSummary(len(uses), tuple(tool_counts(uses)), tuple(modified), tuple(read),
                              tuple(rejected), tuple(_ordered(c for c in commands if c)),
                              tuple(_ordered(notes)), tuple(_check_outcomes(visible, root)))
    block = summary.render()
    before = after = 0
    if count:
        traffic = [m.text for m in messages if m.role in ("tool_call", "tool_result")]
        before = sum(count_tokens(traffic, encoding)) if traffic else 0
        after = count_tokens([block], encoding)[0] if block else 0
    return replace(summary, block=block, tokens_before=before, tokens_after=after)


# -- exchanges, the palace, the search layer ----------------------------------------------


def exchange_toolcalls(palace: Palace, exchange: Exchange, *, encoding: str = DEFAULT_ENCODING
                       ) -> ToolCallSummary:
    """The compression of one exchange, from its messages in the palace."""
    messages = palace.messages(exchange.conversation_id, exchange.ply_start, exchange.ply_end)
    return summarize(messages, files_touched=exchange.files_touched, project=exchange.project,
                     encoding=encoding)


@dataclass(frozen=True)
class ToolCallRow:
    """One line of the palace-wide table."""

    exchange_id: str
    project: str | None
    timestamp: str | None
    preview: str
    calls: int
    tokens_before: int
    tokens_after: int

    @property
    def ratio(self) -> float | None:
        return self.tokens_before / self.tokens_after if self.tokens_after else None

    def to_dict(self) -> dict:
        return {**vars(self), "ratio": self.ratio}


def toolcall_table(palace: Palace, *, encoding: str = DEFAULT_ENCODING) -> list[ToolCallRow]:
    """Every exchange with tool traffic, in conversation order.

    Each exchange's figures are kept by its hash and project (:class:`palace_lab.store.memo.Memo`):
    after a change only the new exchanges' messages are read and compressed again."""
    facets = palace.exchange_facets()
    keys = {content_hash(h, facets[eid][0] or ""): eid for eid, h in palace.exchange_hashes().items()}

    def compress(missing: list[str]) -> dict[str, tuple]:
        asked, out = {keys[k]: k for k in missing}, {}
        for e in palace.exchanges_by_id(list(asked)).values():
            s = exchange_toolcalls(palace, e, encoding=encoding)
            out[asked[e.exchange_id]] = (s.calls, s.tokens_before, s.tokens_after,
                                         e.preview if s.calls else "")
        return out

    memo = Memo(palace, f"toolcalls_{encoding}", _version(), ("calls", "before", "after", "preview"))
    figures = memo.fill(keys, compress)
    return [ToolCallRow(eid, *facets[eid], preview, calls, before, after)
            for key, eid in keys.items() if key in figures
            for calls, before, after, preview in (figures[key],) if calls]


@lru_cache(maxsize=1)
def _version() -> str:
    return code_version(__name__, "palace_lab.ingest.traffic.checks", "palace_lab.ingest.traffic.shell",
                        "palace_lab.ingest.traffic.uses", "palace_lab.ingest.segment", "palace_lab.files",
                        "palace_lab.model", "palace_lab.tokens")


def toolcall_stats(rows: Sequence[ToolCallRow], *, min_tokens: int = TOOL_HEAVY_TOKENS) -> dict:
    """Median of per-exchange ratios and ratio of totals, over tool-heavy exchanges.

    Tool-heavy: at least ``min_tokens`` tokens of tool traffic. Both ratios are named: the
    *ratio of totals* is Σ before / Σ after; the *median ratio* is the median of before/after.
    """
    heavy = [r for r in rows if r.tokens_before >= min_tokens and r.tokens_after]
    out = {"exchanges_with_tools": len(rows), "tool_heavy": len(heavy), "min_tokens": min_tokens,
           "tokens_before": sum(r.tokens_before for r in heavy),
           "tokens_after": sum(r.tokens_after for r in heavy),
           "median_ratio": None, "ratio_of_totals": None,
           "source_example": {"before": 15_000, "after": 750, "ratio": 20.0}}
    if heavy:
        out["median_ratio"] = round(statistics.median(r.ratio for r in heavy), 2)
        out["ratio_of_totals"] = round(out["tokens_before"] / out["tokens_after"], 2)
    return out


_LABELS = {"tool call": "tool_call", "tool result": "tool_result", "user": "user",
           "assistant": "assistant", "system": "system"}


def messages_from_verbatim(exchange: Exchange) -> list[Message]:
    """Messages rebuilt from the exchange's rendered text (no ids: results pair in order)."""
    out = []
    for i, (label, text) in enumerate(split_messages(exchange.verbatim)):
        name = label[len("tool call "):] if label.startswith("tool call ") else None
        role = "tool_call" if name is not None else _LABELS.get(label, "assistant")
        out.append(Message(exchange.conversation_id, exchange.ply_start + i, role, text,
                           str(i), tool_name=name))
    return out


def toolcalls_layer_text(exchange: Exchange, card=None) -> str:
    """The ``toolcalls`` search layer: the request, then the exchange's tool-call block."""
    block = summarize(messages_from_verbatim(exchange), files_touched=exchange.files_touched,
                      project=exchange.project, count=False).block
    return f"{exchange.request}\n{block}".strip()
