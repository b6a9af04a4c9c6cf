"""What every export parser shares: the parse result, skip accounting and safe line reading.

A parser turns one file into :class:`~palace_lab.model.Conversation` values. It never raises on
a bad line: it counts it under a reason in ``ParseResult.skipped`` and goes on, so good lines
are always kept. It raises :class:`~palace_lab.errors.UnknownFormatError` only when the file as
a whole is not of its format.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import datetime, timezone
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from palace_lab.errors import TooLargeError
from palace_lab.model import Conversation, Message
from palace_lab.text.broken import mend

SNIFF_BYTES = 64 * 1024
# Documented limits (docs/guarantees.md): what is over them is refused with the
# reason, never read whole. A JSON export document (conversations.json, in a ZIP or not) is
# parsed in one piece, so its size bounds the memory an ingest needs.
MAX_JSON_BYTES = 512 << 20
MAX_LINE_BYTES = 64 << 20
BOM = b"\xef\xbb\xbf"
# What a record of a well-formed line can still raise when its fields have the wrong shape (a
# number where a string belongs, a list where an object does, nesting deeper than the stack).
RECORD_ERRORS = (TypeError, AttributeError, ValueError, KeyError, IndexError, RecursionError)


@dataclass
class ParseResult:
    """Conversations read from one file, plus what was skipped and why."""

    conversations: list[Conversation] = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)
    lines: int = 0

    def skip(self, reason: str, n: int = 1) -> None:
        self.skipped[safe_reason(reason)] += n

    def keep(self, conversation: Conversation) -> None:
        """Keep a parsed conversation; one with no message is counted, not kept."""
        if conversation.messages:
            self.conversations.append(conversation)
        else:
            self.skip("empty_conversation")


_SPACES = re.compile(r"\s+")


def safe_reason(reason: str, limit: int = 80) -> str:
    """A skip reason that can be printed and stored: a reason may quote a record's own type
    (``record:<type>``), which can be anything, of any length."""
    reason = mend(reason)
    return reason if len(reason) <= limit else reason[: limit - 1] + "…"


def squash_spaces(text: str) -> str:
    """``" ".join(text.split())`` without the list of every word (a 50 MB text has millions)."""
    return _SPACES.sub(" ", text).strip()


def read_head(path: Path, n: int = SNIFF_BYTES) -> bytes:
    with open(path, "rb") as fh:
        return fh.read(n)


def first_json_lines(head: bytes, limit: int = 20) -> list[dict]:
    """The JSON objects among the first lines of a file's head (for sniffing)."""
    out: list[dict] = []
    for raw in head.removeprefix(BOM).splitlines()[:limit]:
        try:
            obj = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            continue
        if isinstance(obj, dict):
            out.append(obj)
    return out


def iter_jsonl(path: Path, result: ParseResult) -> Iterator[tuple[int, dict]]:
    """Yield ``(line_number, object)`` for each valid JSON object line (1-based numbers).

    Bad lines are counted in ``result.skipped``: ``invalid_utf8``, ``invalid_json``,
    ``truncated_last_line`` (a last line without newline that does not parse: a write cut
    off), ``not_an_object``, ``too_deeply_nested``. Blank lines are ignored; a UTF-8 byte
    order mark before the first line is not part of it.
    """
    with open(path, "rb") as fh:
        for number, raw in enumerate(_bounded_lines(fh, result), start=1):
            result.lines += 1
            obj = _line_object(raw, number, result)
            raw = None  # a long line's bytes are not held while its record is processed
            if obj is not None:
                yield number, obj


def _line_object(raw: bytes | None, number: int, result: ParseResult) -> dict | None:
    """The object of one line, or None (blank, or skipped and counted)."""
    if raw is None:
        return None  # a line over MAX_LINE_BYTES, counted by _bounded_lines
    if number == 1:
        raw = raw.removeprefix(BOM)
    if not raw or raw.isspace():
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        result.skip("invalid_utf8")
        return None
    try:
        obj = json.loads(text)
    except ValueError:
        result.skip("invalid_json" if raw.endswith(b"\n") else "truncated_last_line")
        return None
    except RecursionError:
        result.skip("too_deeply_nested")
        return None
    if not isinstance(obj, dict):
        result.skip("not_an_object")
        return None
    return obj


def _bounded_lines(fh, result: ParseResult) -> Iterator[bytes | None]:
    """The lines of a binary file, each read up to MAX_LINE_BYTES; a longer line is skipped
    (``line_too_long``) without ever being held whole, and yields None in its place."""
    limit = MAX_LINE_BYTES
    while True:
        raw = fh.readline(limit + 1)
        if not raw:
            return
        if len(raw) <= limit or raw.endswith(b"\n") and len(raw) == limit + 1:
            yield raw
            continue
        while raw and not raw.endswith(b"\n"):
            raw = fh.readline(1 << 20)
        result.skip("line_too_long")
        yield None


def read_bounded(source, name: str, limit: int | None = None) -> bytes:
    """All bytes of an open binary file or ZIP member, refused past ``limit`` (default
    MAX_JSON_BYTES) after reading at most one byte more: a declared size can lie."""
    limit = MAX_JSON_BYTES if limit is None else limit
    data = source.read(limit + 1)
    if len(data) > limit:
        raise TooLargeError(f"{name} is larger than {limit >> 20} MiB, the limit for one JSON "
                            "export document; split it (one conversation per file also works)")
    return data


def read_file_bounded(path: Path, limit: int | None = None) -> bytes:
    with open(path, "rb") as fh:
        return read_bounded(fh, path.name, limit)


def load_json_document(path: Path):
    """A whole JSON document (a BOM allowed), within MAX_JSON_BYTES; UnknownFormatError when
    it does not parse: a file that is not JSON is not of the format that expected it."""
    from palace_lab.errors import UnknownFormatError

    try:
        return json.loads(read_file_bounded(path).decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise UnknownFormatError(f"{path.name} is not readable JSON ({exc})") from exc


def read_member_bounded(zf, member: str, owner: str, limit: int | None = None) -> bytes:
    """A ZIP member's bytes; a member whose declared size is over the limit is refused unread."""
    limit = MAX_JSON_BYTES if limit is None else limit
    name = f"{owner}:{member}"
    if zf.getinfo(member).file_size > limit:
        raise TooLargeError(f"{name} is larger than {limit >> 20} MiB, the limit for one JSON "
                            "export document; split it (one conversation per file also works)")
    with zf.open(member) as fh:
        return read_bounded(fh, name, limit)


def project_from_folder(path: Path) -> str | None:
    """Project name from a Claude Code style folder (``-home-me-repo`` → ``repo``)."""
    name = path.parent.name
    if not name or name in (".", "/"):
        return None
    return name.strip("-").split("-")[-1] or name


@dataclass(frozen=True)
class Parser:
    """A registered format: its name, a content sniffer and the parser itself.

    ``fingerprint(path)``, when given, replaces the file's SHA-1 as the "unchanged since the
    last ingest" key: for a source whose content lives beside the file offered (OpenCode's
    message and part files) or that is too large to hash on every run (Cursor's databases).
    """

    name: str
    sniff: "object"
    parse: "object"
    fingerprint: "object" = None


class SkipRecord(Exception):
    """One record cannot become a message; ``reason`` is the skip counter key."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _utc_text(moment: datetime) -> str:
    text = moment.astimezone(timezone.utc).isoformat(timespec="milliseconds")
    return text.replace("+00:00", "Z")


def utc_from_iso(value) -> str | None:
    """ISO 8601 UTC (milliseconds, ``Z``) from an ISO string; naive stamps are taken as UTC."""
    if not isinstance(value, str) or not value:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return _utc_text(moment)


def utc_from_unix(value) -> str | None:
    """ISO 8601 UTC (milliseconds, ``Z``) from unix seconds (int or float)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        return _utc_text(datetime.fromtimestamp(value, tz=timezone.utc))
    except (OverflowError, OSError, ValueError):
        return None


def zip_member(zf, name: str) -> str | None:
    """The shallowest member of an export ZIP whose file name is ``name``."""
    from pathlib import PurePosixPath

    found = [n for n in zf.namelist() if PurePosixPath(n).name == name]
    return min(found, key=len) if found else None


def looks_like_export_json(head: bytes, key, key_name: str) -> bool:
    """Whether a file's head is a JSON export (list or object) holding ``key`` as a JSON key.

    A complete first line that parses to an object without ``key_name`` is a JSONL log that
    merely quotes such a key, not an export.
    """
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text[:1] not in (b"[", b"{") or not key.search(text):
        return False
    try:
        first = json.loads(text.split(b"\n", 1)[0])
    except ValueError:
        return True  # pretty-printed or longer than the head: the key decided
    return not (isinstance(first, dict) and key_name not in first)


def sniff_export_zip(path: Path, looks_like, companions_decide) -> bool:
    """Sniff an export ZIP by its ``conversations.json``; an empty list (an account with no
    conversations) is decided by ``companions_decide(zipfile)``."""
    import zipfile

    with zipfile.ZipFile(path) as zf:
        member = zip_member(zf, "conversations.json")
        if member is None:
            return False
        with zf.open(member) as fh:
            head = fh.read(SNIFF_BYTES)
        if head.strip() == b"[]":
            return companions_decide(zf)
        return looks_like(head)


def to_text(value) -> str:
    """Any JSON value as text for the verbatim layer: strings as they are, the rest as JSON."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    return json.dumps(value, ensure_ascii=False)


def conversation_from_entries(entries: list[dict], *, conversation_id: str, source_format: str,
                              path: Path, project: str | None = None, title: str | None = None,
                              cwd: str | None = None) -> Conversation:
    """A conversation whose messages are ``entries`` (Message fields) at positions 0..n-1."""
    messages = tuple(Message(conversation_id=conversation_id, position=i, source_path=str(path),
                             **e) for i, e in enumerate(entries))
    return Conversation(conversation_id=conversation_id, source_format=source_format,
                        messages=messages, project=project, title=title, source_path=str(path),
                        cwd=cwd)


def workspace_folder(storage: Path) -> tuple[str, str] | None:
    """(project name, folder path) that a VS Code-style ``workspaceStorage/<hash>`` folder
    stands for, from its ``workspace.json`` (``{"folder": "file:///home/me/repo"}``)."""
    from urllib.parse import unquote, urlparse

    try:
        data = json.loads((storage / "workspace.json").read_text("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return None
    uri = data.get("folder") if isinstance(data, dict) else None
    if not isinstance(uri, str):
        return None
    where = unquote(urlparse(uri).path) or uri
    return Path(where).name or where, where
