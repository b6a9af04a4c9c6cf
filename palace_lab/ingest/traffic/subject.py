"""A tool call's subject: the file it read or wrote, the command it ran, what it looked up.

The reader names each tool row by its subject ("tool_call · Read · src/app.py", "tool_call ·
Bash · pytest -q") instead of its size alone. The call is read the way the tool-call block
reads it (:func:`palace_lab.ingest.traffic.uses.parse_call`), so both agree on every agent's
tools:

- a shell call: its command, cleaned as the block cleans it (first line, no output plumbing,
  no leading ``cd ROOT &&``, at most 90 characters: :func:`~palace_lab.ingest.traffic.toolcalls.clean_command`);
- an edit or a read: its first path relative to the project root (the block's
  :func:`~palace_lab.ingest.traffic.toolcalls.infer_root`), with ``(+N)`` when it names more;
- any other call: its description, query, URL or prompt (80 characters); else nothing.

A tool result carries the subject of the call it answers when the source paired them
(``tool_use_id``/``call_id``). Subjects are redacted: a command line may hold a token.
"""

from __future__ import annotations

from collections.abc import Sequence

from palace_lab.files import normalise_path
from palace_lab.ingest.traffic.toolcalls import clean_command, infer_root
from palace_lab.ingest.traffic.uses import ToolUse, parse_call
from palace_lab.model import Message
from palace_lab.redact import redact_text


def subject(use: ToolUse, root: str | None = None) -> str:
    """What one tool call is about (see the module docstring); "" when it names nothing."""
    if use.kind == "shell":
        return clean_command(use.command, root)
    paths = [*(p for p, _ in use.written), *use.read]
    if not paths:
        return use.note
    first = normalise_path(paths[0], root.rstrip("/") if root else None)
    return first + (f" (+{len(paths) - 1})" if len(paths) > 1 else "")


def _key(m: Message) -> str | None:
    return m.meta.get("tool_use_id") or m.meta.get("call_id")


def tool_subjects(messages: Sequence[Message], *, files_touched: Sequence[str] = (),
                  project: str | None = None) -> dict[int, str]:
    """``{position: subject}`` of each tool call of ``messages`` that names something, and of
    each tool result paired with such a call by its source's id."""
    calls = [m for m in messages if m.role == "tool_call"]
    uses = [parse_call(m.tool_name, m.text) for m in calls]
    root = infer_root(uses, files_touched, project)
    out: dict[int, str] = {}
    by_key: dict[str, str] = {}
    for m, use in zip(calls, uses):
        named = redact_text(subject(use, root))
        if named:
            out[m.position] = named
            if _key(m):
                by_key[_key(m)] = named
    for m in messages:
        if m.role == "tool_result" and _key(m) in by_key:
            out[m.position] = by_key[_key(m)]
    return out
