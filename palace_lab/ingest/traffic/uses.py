"""An exchange's tool traffic read back into tool uses: what each call asked for and got.

Tool names are matched case-insensitively against small sets (Claude Code, Codex and the common
editor tools of other agents). A tool call's text is its input as JSON; Codex's ``apply_patch``
is the raw patch text. A result is paired with its call by ``tool_use_id``/``call_id`` when the
source kept one, else with the oldest call still without output. Codex ``write_stdin`` polls
carry the output of a command still running: it is added to the command whose session id
("Process running with session ID N") they name.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from palace_lab.ingest.traffic.shell import BASH_INPUT, patch_files, shell_command, shell_files
from palace_lab.model import Message

EDIT_TOOLS = frozenset("edit multiedit write notebookedit apply_patch create_file write_file "
                       "edit_file str_replace_editor str_replace_based_edit_tool".split())
READ_TOOLS = frozenset("read notebookread grep glob ls view read_file list_dir view_file "
                       "search_files".split())
SHELL_TOOLS = frozenset("bash exec_command shell shell_command local_shell run_terminal_cmd container.exec "
                        "run_command".split())
STDIN_TOOLS = frozenset({"write_stdin"})
PLAN_TOOLS = frozenset({"todowrite", "update_plan"})  # plans restate the request: not kept
PATH_KEYS = ("file_path", "notebook_path", "path", "filename", "target_file")
NOTE_KEYS = ("description", "query", "url", "prompt", "question")
NOTE_CHARS = 80
REJECTED = ("doesn't want to proceed", "tool use was rejected", "<tool_use_error>")
_RUNNING = re.compile(r"Process running with session ID (\d+)")
_EXIT = re.compile(r"^(?:Exit code:?|Process exited with code|Error: Exit code)\s*(-?\d+)", re.M)
_CODEX_HEADER = re.compile(r"^(?:Chunk ID|Wall time|Original token count|Exit code|Process "
                           r"(?:exited|running)|Output)\b[^\n]*\n?", re.M)


@dataclass
class ToolUse:
    """One tool call as read from its input, then completed with its output."""

    tool: str
    kind: str  # edit | read | shell | stdin | other
    command: str = ""
    written: list[tuple[str, str]] = field(default_factory=list)  # (path, "" | new | deleted)
    read: list[str] = field(default_factory=list)
    note: str = ""  # what a delegated/search/fetch call was about
    workdir: str | None = None
    session_id: str | None = None
    output: list[str] = field(default_factory=list)
    exit_code: int | None = None
    is_error: bool = False
    rejected: bool = False
    finished: bool = True


def tool_input(text: str) -> dict | str:
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return value if isinstance(value, dict) else {"value": value}


def tool_kind(name: str | None, text: str) -> str:
    lowered = (name or "").lower()
    if not name and BASH_INPUT.search(text):
        return "shell"
    for kind, names in (("edit", EDIT_TOOLS), ("read", READ_TOOLS), ("shell", SHELL_TOOLS),
                        ("stdin", STDIN_TOOLS)):
        if lowered in names:
            return kind
    return "other"


def _note(inp: dict) -> str:
    asked = inp.get("questions")  # Claude Code's AskUserQuestion: the agent asks the person
    if isinstance(asked, list) and asked and isinstance(asked[0], dict):
        inp = asked[0]
    value = next((inp[k] for k in NOTE_KEYS if isinstance(inp.get(k), str) and inp[k].strip()), "")
    flat = " ".join(value.split())
    return flat if len(flat) <= NOTE_CHARS else flat[: NOTE_CHARS - 1] + "…"


def _edit(use: ToolUse, inp: dict | str, path: str | None) -> None:
    if isinstance(inp, str) or "*** Begin Patch" in str(inp.get("input", "")):
        use.written = patch_files(inp if isinstance(inp, str) else inp["input"])
    elif inp.get("command") == "view":  # str_replace_based_edit_tool's read-only command
        use.kind, use.read = "read", [path] if path else []
    elif path:
        use.written = [(path, "new" if inp.get("command") == "create" else "")]


def parse_call(name: str | None, text: str) -> ToolUse:
    """What one tool call asks for, from its name and input text."""
    use = ToolUse(tool=name or "shell", kind=tool_kind(name, text))
    inp = tool_input(text)
    path = None
    if isinstance(inp, dict):
        use.workdir = inp.get("workdir") if isinstance(inp.get("workdir"), str) else None
        path = next((inp[k] for k in PATH_KEYS if isinstance(inp.get(k), str)), None)
    if use.kind == "edit":
        _edit(use, inp, path)
    elif use.kind == "read":
        glob = inp.get("pattern") if isinstance(inp, dict) and use.tool.lower() == "glob" else None
        use.read = [p for p in (path or glob,) if isinstance(p, str)]
    elif use.kind == "shell":
        use.command = shell_command(inp)
        use.read, use.written = shell_files(use.command)
    elif use.kind == "stdin" and isinstance(inp, dict):
        use.session_id = str(inp.get("session_id", "")) or None
    elif isinstance(inp, dict) and use.tool.lower() not in PLAN_TOOLS:
        use.note = _note(inp)
    return use


def tool_counts(uses: Sequence[ToolUse]) -> list[tuple[str, int]]:
    """Calls per tool name, most used first (ties in order of first use)."""
    counts = Counter(u.tool for u in uses)
    first = {name: i for i, name in reversed(list(enumerate(u.tool for u in uses)))}
    return sorted(counts.items(), key=lambda kv: (-kv[1], first[kv[0]]))


def _unwrap(text: str) -> tuple[str, int | None]:
    """Codex's JSON tool output ``{"output": …, "metadata": {"exit_code": N}}``, unwrapped."""
    if text.startswith('{"output"'):
        try:
            data = json.loads(text)
            return str(data.get("output", "")), (data.get("metadata") or {}).get("exit_code")
        except (ValueError, AttributeError):
            pass
    return text, None


def attach(use: ToolUse, m: Message) -> None:
    """Add one tool result to the call it answers."""
    text, code = _unwrap(m.text)
    found = _EXIT.search(text)
    if code is None and found:
        code = int(found.group(1))
    if code is not None:
        use.exit_code = int(code)
    use.finished = not _RUNNING.search(text) or "Process exited" in text
    use.is_error = use.is_error or bool(m.meta.get("is_error"))
    use.rejected = use.rejected or any(s in text for s in REJECTED)
    use.output.append(_CODEX_HEADER.sub("", re.sub(r"</?bash-std(?:out|err)>", "\n", text)))


def _result_key(m: Message) -> str | None:
    return m.meta.get("tool_use_id") or m.meta.get("call_id")


def read_traffic(messages: Sequence[Message]) -> list[ToolUse]:
    """Tool calls in order, each with its output attached (see the module docstring)."""
    uses: list[ToolUse] = []
    by_key: dict[str, ToolUse] = {}
    waiting: list[ToolUse] = []
    sessions: dict[str, ToolUse] = {}
    for m in messages:
        if m.role == "tool_call":
            use = parse_call(m.tool_name, m.text)
            uses.append(use)
            waiting.append(use)
            if _result_key(m):
                by_key[_result_key(m)] = use
            continue
        if m.role != "tool_result":
            continue
        key = _result_key(m)
        use = (by_key.get(key) if key else None) or next(iter(waiting), None)
        if use is None:
            continue
        if use in waiting:
            waiting.remove(use)
        attach(use, m)
        target = sessions.get(use.session_id or "") if use.kind == "stdin" else None
        if target is not None:
            attach(target, m)
        running = _RUNNING.search(m.text)
        if running and use.kind == "shell":
            sessions[running.group(1)] = use
    return uses
