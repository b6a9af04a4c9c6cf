"""Aider chat history (``.aider.chat.history.md``) → conversations.

Format: markdown that aider appends to, run after run. ``# aider chat started at YYYY-MM-DD
HH:MM:SS`` opens a run, and each run is one conversation. ``#### `` lines are what the person
typed (consecutive ``#### `` lines are one input); ``> `` lines are aider's own output and
confirmations; everything else is the model's markdown reply, SEARCH/REPLACE blocks included.
``> Commit <sha> <message>`` ties an exchange to a git commit: the sha goes to the tool result's
``meta["commits"]``.

Traps:

- No per-message timestamps. The run stamp is the wall clock of the machine that wrote the
  file, without a zone: it is read as local time (or the ``tz`` given) and converted to UTC.
- Input lines end with two spaces (markdown line breaks); an empty input is ``#### <blank>``.
- Not every input is a request. ``/ask``, ``/code``, ``/architect``, ``/context``, ``/help`` and
  ``/run`` (``!``) with words, and ``/lint``/``/test``, make the model work; ``/add``, ``/drop``,
  ``/clear``, ``/tokens``… only act locally. ``/lint`` and ``/test`` write aider's own
  "# Fix any errors below" prompt as ``#### `` lines: machine text, not the person's request.
- The person's answer to one of aider's questions is written as a ``#### `` line too:
  ``#### Add file to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]: all``. It
  is their words (kept, searched) but no request: it continues the exchange that asked.
- A reply may hold ``> `` lines inside a code fence (a shell session): inside a fence of the
  reply they stay reply text.
- The file has no ids: a run's conversation id is derived from the file's resolved path and the
  run stamp (a second run with the same stamp gets ``#2``), so re-ingest finds the same ids;
  message source keys are ``L<line number>``, stable because aider only appends.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone, tzinfo
from pathlib import Path

from palace_lab.errors import UnknownFormatError
from palace_lab.ingest.base import Parser, ParseResult, SkipRecord, read_file_bounded
from palace_lab.model import Conversation, Message, content_hash

NAME = "aider"
HISTORY_NAME = ".aider.chat.history.md"

_HEADER = re.compile(r"^# aider chat started at (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\s*$")
_HEADER_BYTES = re.compile(rb"^# aider chat started at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d", re.M)
_USER_BYTES = re.compile(rb"^#### ", re.M)
_COMMIT = re.compile(r"^Commit ([0-9a-f]{7,40})\b")
# Commands that send the person's words to the model; and those that make it work bare.
_PROMPT_COMMANDS = frozenset({"ask", "code", "architect", "context", "help", "run"})
_ACTION_COMMANDS = frozenset({"lint", "test"})
_GENERATED_PROMPTS = ("# Fix any errors below",)
# An answer to aider's own question: "... (Y)es/(N)o/... [Yes]: all".
_ANSWER = re.compile(r"\(Y\)es/\(N\)o\b.*\[\w+\]:\s*\S*\s*$")



@dataclass
class _Run:
    stamp: str | None
    lines: list[tuple[int, str]] = field(default_factory=list)


@dataclass
class _Block:
    kind: str  # user | tool | text
    line: int
    lines: list[str]
    closed: bool = False


def sniff(path: Path, head: bytes) -> bool:
    """True for a file with an aider run header (or aider's name and ``#### `` input lines)."""
    try:
        if _HEADER_BYTES.search(head):
            return True
        # A history whose first header was cut off: the name helps, content still decides.
        return path.name == HISTORY_NAME and _USER_BYTES.search(head) is not None
    except Exception:  # a sniffer is asked about every file: it must never raise
        return False


def parse(path: Path) -> ParseResult:
    return parse_history(path)


PARSER = Parser(NAME, sniff, parse)


def parse_history(path: Path, *, tz: tzinfo | None = None) -> ParseResult:
    """Parse one history file; run stamps are read in ``tz`` (default: this machine's zone)."""
    result = ParseResult()
    runs = _split_runs(_read_lines(path, result))
    if runs and not any(r.stamp for r in runs) and not _has_input(runs):
        raise UnknownFormatError(
            f"{path.name} has no '# aider chat started at' line and no '#### ' input line, "
            "so it is not an aider chat history."
        )
    folder = path.resolve().parent  # aider writes its history at the repository root
    for run, cid in zip(runs, _run_ids(path, runs)):
        messages = _messages(run, cid, path, tz, result)
        if not any(m.role == "user" for m in messages):
            result.skip("run_without_input")  # started and quit: only aider's banner
            continue
        result.conversations.append(Conversation(
            conversation_id=cid, source_format=NAME, messages=tuple(messages),
            project=folder.name or None, source_path=str(path), cwd=str(folder),
        ))
    return result


def _read_lines(path: Path, result: ParseResult) -> list[tuple[int, str]]:
    data = read_file_bounded(path)
    raws = data.split(b"\n")
    if raws and raws[-1] == b"":
        raws.pop()  # the file's final newline ends the last line, it does not start one
    lines: list[tuple[int, str]] = []
    for number, raw in enumerate(raws, start=1):
        result.lines += 1
        try:
            text = raw.decode("utf-8").rstrip("\r")
        except UnicodeDecodeError:
            result.skip("invalid_utf8")
            continue
        lines.append((number, text.lstrip("\ufeff") if number == 1 else text))
    return lines


def _split_runs(lines: list[tuple[int, str]]) -> list[_Run]:
    runs: list[_Run] = []
    for number, text in lines:
        match = _HEADER.match(text)
        if match:
            runs.append(_Run(match.group(1)))
        elif runs:
            runs[-1].lines.append((number, text))
        elif text.strip():
            runs.append(_Run(None, [(number, text)]))  # a history whose first header is lost
    return runs


def _has_input(runs: list[_Run]) -> bool:
    return any(_classify(text)[0] == "user" for run in runs for _, text in run.lines)


def _run_ids(path: Path, runs: list[_Run]) -> list[str]:
    where = str(path.resolve())
    seen: Counter = Counter()
    ids = []
    for run in runs:
        stamp = run.stamp or "no-header"
        seen[stamp] += 1
        key = stamp if seen[stamp] == 1 else f"{stamp}#{seen[stamp]}"
        ids.append("aider-" + content_hash(where, key)[:16])
    return ids


# --- blocks -------------------------------------------------------------------------------


def _classify(line: str) -> tuple[str, str]:
    """(kind, body) of one line: blank, user, tool or text."""
    bare = line.rstrip()
    if not bare:
        return "blank", ""
    if bare == "####" or bare.startswith("#### "):
        return "user", bare[5:]
    if bare == ">" or bare.startswith("> "):
        return "tool", bare[2:]
    return "text", line


def _blocks(lines: list[tuple[int, str]]) -> list[_Block]:
    blocks: list[_Block] = []
    in_fence = False
    for number, line in lines:
        kind, body = _classify(line)
        current = blocks[-1] if blocks else None
        if kind == "tool" and in_fence and current is not None and current.kind == "text":
            kind, body = "text", line  # a "> " line inside the reply's code fence
        if kind == "blank":
            if current is not None and current.kind == "text":
                current.lines.append("")  # paragraphs of a reply
            elif current is not None and current.kind == "user":
                current.closed = True  # the next input is a new one
            continue
        if current is not None and current.kind == kind and not current.closed:
            current.lines.append(body)
        else:
            blocks.append(_Block(kind, number, [body]))
        if kind == "text" and body.lstrip().startswith("```"):
            in_fence = not in_fence
        elif kind != "text":
            in_fence = False
    return blocks


# --- messages -----------------------------------------------------------------------------


def _messages(run: _Run, cid: str, path: Path, tz, result: ParseResult) -> list[Message]:
    stamp = _run_time(run.stamp, tz)
    messages: list[Message] = []
    for block in _blocks(run.lines):
        try:
            fields = _fields(block)
        except SkipRecord as skip:
            result.skip(skip.reason)
            continue
        messages.append(Message(
            conversation_id=cid, position=len(messages), source_key=f"L{block.line}",
            timestamp=stamp, source_path=str(path), source_line=block.line, **fields,
        ))
    return messages


def _fields(block: _Block) -> dict:
    text = "\n".join(block.lines).strip("\n")
    if block.kind == "tool":
        commits = [m.group(1) for m in map(_COMMIT.match, block.lines) if m]
        meta = {"commits": commits} if commits else {}
        return {"role": "tool_result", "text": text, "meta": meta}
    if block.kind == "text":
        if not text.strip():
            raise SkipRecord("empty_message")
        return {"role": "assistant", "text": text, "meta": {}}
    if text.strip() in ("", "<blank>"):
        raise SkipRecord("blank_input")
    return _user_fields(text)


def _user_fields(text: str) -> dict:
    if text.startswith(_GENERATED_PROMPTS):
        return {"role": "user", "text": text, "is_request": False, "meta": {"generated": True}}
    if _ANSWER.search(text):
        return {"role": "user", "text": text, "is_request": False, "meta": {"answer": True}}
    command, words = _command(text)
    if command is None:
        return {"role": "user", "text": text, "is_request": True, "meta": {}}
    is_request = command in _ACTION_COMMANDS or (command in _PROMPT_COMMANDS and bool(words))
    return {"role": "user", "text": text, "is_request": is_request, "meta": {"command": command}}


def _command(text: str) -> tuple[str | None, str]:
    """(command name, its words) when the input is an aider command, else (None, text)."""
    if text.startswith("!"):
        return "run", text[1:].strip()
    if not text.startswith("/"):
        return None, text
    parts = text[1:].split(None, 1)
    if not parts:
        return "", ""
    return parts[0].lower(), parts[1].strip() if len(parts) > 1 else ""


def _run_time(stamp: str | None, tz: tzinfo | None) -> str | None:
    if stamp is None:
        return None
    moment = datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S")
    # A naive datetime's astimezone() reads it as this machine's local time.
    moment = moment.replace(tzinfo=tz) if tz is not None else moment.astimezone()
    text = moment.astimezone(timezone.utc).isoformat(timespec="milliseconds")
    return text.replace("+00:00", "Z")
