"""Ingest's entry point: export files → conversations and exchanges in the palace.

``ingest_paths`` walks files and folders, picks each file's format from its content (the
registry below, tried in order), parses it, segments it into exchanges and stores every file in
its own short transaction (parsing and segmenting happen before it begins). Re-ingesting an
unchanged file is skipped by its SHA-1 (or its parser's fingerprint: a session spread over
several files, a database too large to hash each time); a changed file stores its conversations
under the archive rule (:mod:`palace_lab.store.archive`: nothing stored is ever removed). Bad
lines and records are skipped and counted by reason; a file that cannot be read or matches no
format is reported with its reason and the other files go on; when nothing valid was read the
palace is left exactly as it was.
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from palace_lab.errors import (
    NothingToIngestError, PalaceError, TooLargeError, UnknownFormatError,
)
from palace_lab.ingest.base import RECORD_ERRORS, ParseResult, Parser, read_head
from palace_lab.ingest.clean import clean_conversation, copy_beside, unique_exchanges
from palace_lab.ingest.discover import discover_sources, printable_path, quietly
from palace_lab.ingest.report import IngestReport, SourceReport
from palace_lab.ingest.segment import is_clipped, segment

if TYPE_CHECKING:
    from palace_lab.store import Palace

# Order matters only for ties; each sniffer looks for its own format's content.
PARSER_MODULES = {
    "claude-code": "palace_lab.ingest.claude_code",
    "codex": "palace_lab.ingest.codex",
    "chatgpt": "palace_lab.ingest.chatgpt",
    "claude-ai": "palace_lab.ingest.claude_ai",
    "aider": "palace_lab.ingest.aider",
    "gemini-cli": "palace_lab.ingest.gemini",
    "opencode": "palace_lab.ingest.opencode",
    "cursor": "palace_lab.ingest.cursor",
    "copilot": "palace_lab.ingest.copilot",
    "copilot-cli": "palace_lab.ingest.copilot_cli",
    "palace-jsonl": "palace_lab.ingest.palace_jsonl",
}
FORMATS = ("auto", *PARSER_MODULES)
# A transcript that opens with one of our own prompts is the palace talking to itself.
OWN_PROMPT_MARKER = "[palace_lab:"


def get_parser(name: str) -> Parser:
    if name not in PARSER_MODULES:
        raise UnknownFormatError(
            f"unknown format {name!r}; valid formats: {', '.join(FORMATS)}")
    return importlib.import_module(PARSER_MODULES[name]).PARSER


def detect_format(path: Path) -> str:
    """The format of ``path`` judged from its content; UnknownFormatError names those tried."""
    if path.stat().st_size == 0:
        raise UnknownFormatError(f"{path} is empty")
    head = read_head(path)
    for name in PARSER_MODULES:
        if _sniffs(name, path, head):
            return name
    raise UnknownFormatError(
        f"{path} is not a known export; formats tried: {', '.join(PARSER_MODULES)}")


def _sniffs(name: str, path: Path, head: bytes) -> bool:
    """A sniffer's answer; one that breaks on odd content has not recognised its format."""
    try:
        return bool(get_parser(name).sniff(path, head))
    except (OSError, RecursionError, *RECORD_ERRORS):
        return False


def _sha1(path: Path) -> str:
    h = hashlib.sha1()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _is_own_transcript(conv) -> bool:
    first = next((m for m in conv.messages if m.is_request), None)
    return bool(first) and first.text.lstrip().startswith(OWN_PROMPT_MARKER)


def _prepared(parsed: ParseResult, report: SourceReport) -> list[tuple]:
    """(conversation, exchanges) pairs ready to write: cleaned and segmented *before* the
    write transaction begins, so the palace is locked only while rows are written."""
    convs = [c for c in parsed.conversations if not _is_own_transcript(c)]
    if len(convs) < len(parsed.conversations):
        report.skipped["own_prompt_transcript"] = len(parsed.conversations) - len(convs)
    out = []
    for conv in convs:
        conv = clean_conversation(conv, report.skipped)
        exchanges = unique_exchanges(segment(conv), report.skipped)
        clipped = sum(1 for e in exchanges if is_clipped(e.verbatim))
        if clipped:
            report.skipped["exchange_truncated"] = report.skipped.get("exchange_truncated", 0) \
                + clipped
        out.append((conv, exchanges))
    return out


def _store(palace: Palace, path: Path, fmt: str, parsed: ParseResult, sha1: str) -> SourceReport:
    report = SourceReport(printable_path(path), fmt, skipped=dict(parsed.skipped))
    ready = _prepared(parsed, report)
    if not ready:
        report.error = "nothing valid was read"
        return report
    with palace.transaction() as tx:
        for conv, exchanges in ready:
            _store_one(palace, tx, conv, exchanges, report)
        palace.record_source(tx, printable_path(path), fmt, path.stat().st_size, sha1,
                             report.conversations, report.messages, report.skipped)
    return report


def _store_one(palace: Palace, tx, conv, exchanges, report: SourceReport) -> None:
    """One conversation under the archive rule: a trimmed copy keeps the stored history, a
    copy that differs is kept beside it under its own id (nothing stored is removed)."""
    stored = palace.archive_conversation(tx, conv, exchanges, report.path)
    if stored.event:
        report.events[stored.event] = report.events.get(stored.event, 0) + 1
    if stored.event == "kept_stored":
        return
    if stored.event == "diverged":
        conv = copy_beside(conv)
        exchanges = unique_exchanges(segment(conv), report.skipped)
        stored = palace.archive_conversation(tx, conv, exchanges, report.path)
    report.conversations += 1
    report.messages += len(conv.messages)
    report.exchanges += len(exchanges)
    report.new_messages += stored.messages
    report.new_exchanges += stored.exchanges


def ingest_file(palace: Palace, path: Path, fmt: str = "auto", *, explicit: bool = True) -> SourceReport:
    """Ingest one file. An unknown format raises when ``explicit``, else is reported."""
    read = _read(palace, path, fmt)
    if isinstance(read, SourceReport):
        return read
    name, parsed, sha1 = read
    return _store(palace, path, name, parsed, sha1)


def _read(palace: Palace, path: Path, fmt: str):
    """(format, parse result, key) of a file, or its report when it is unchanged. The key is
    the file's SHA-1, or its parser's fingerprint where the parser has one."""
    name = detect_format(path) if fmt == "auto" else fmt
    parser = get_parser(name)
    sha1 = parser.fingerprint(path) if parser.fingerprint else _sha1(path)
    if palace.source_unchanged(printable_path(path), sha1):
        return SourceReport(printable_path(path), None, unchanged=True)
    return name, parser.parse(path), sha1


def ingest_one(palace: Palace, path: Path, fmt: str = "auto") -> SourceReport:
    """Ingest one file; whatever is wrong with the *file* is reported, never raised.

    Reading and parsing are guarded: a file that cannot be read, is of no known format or
    breaks a parser is refused with its reason. Writing is not: a problem of the palace
    itself (locked for too long, read-only, a full disk) would meet every later file too.
    """
    shown = printable_path(path)
    try:
        read = _read(palace, path, fmt)
    except UnknownFormatError as exc:
        return _refused(path, "unknown_format", str(exc))
    except TooLargeError as exc:
        return _refused(path, "too_large", str(exc))
    except PalaceError:
        raise
    except OSError as exc:
        return _refused(path, "unreadable_file", f"{shown} cannot be read ({exc.strerror or exc})")
    except RecursionError:
        return _refused(path, "too_deeply_nested", f"{shown}: its JSON is nested too deeply")
    except MemoryError:
        return _refused(path, "too_large", f"{shown} does not fit in memory")
    except Exception as exc:  # one file's defect must not end the run; the reason is kept
        return _refused(path, "unreadable_content", f"{shown}: {type(exc).__name__}: {exc}")
    if isinstance(read, SourceReport):
        return read
    name, parsed, sha1 = read
    return _store(palace, path, name, parsed, sha1)


def _refused(path: Path, reason: str, error: str) -> SourceReport:
    return SourceReport(printable_path(path), None, skipped={f"file:{reason}": 1}, error=error)


def ingest_paths(palace: Palace, paths: Iterable[str | Path], fmt: str = "auto",
                 progress: Callable[[int, int, str], None] | None = None) -> IngestReport:
    """Ingest every file under ``paths``; a file that cannot be read is reported with its
    reason and the others go on. Raises NothingToIngestError (or the one file's
    UnknownFormatError) when nothing at all could be read."""
    roots = [Path(p).expanduser() for p in paths]
    merged: list[Path] = []
    files, refused = discover_sources(roots, merged)
    explicit = {p for p in roots if quietly(p.is_file)}
    report = IngestReport(sources=list(refused), merged_subagents=len(merged))
    for i, path in enumerate(files):
        source = ingest_one(palace, path, fmt)
        if source.skipped.get("file:unknown_format") and path not in explicit:
            source.skipped = {"unknown_format": 1}  # a folder's other files: counted, not errors
            if quietly(_is_empty, path):  # agents leave empty session files: nothing is wrong
                source.skipped, source.error = {"empty_file": 1}, None
        report.sources.append(source)
        if progress:
            progress(i + 1, len(files), printable_path(path))
    useful = [s for s in report.sources if s.conversations or s.unchanged or s.events]
    if not useful:
        raise _nothing(roots, report)
    return report


def _is_empty(path: Path) -> bool:
    return path.stat().st_size == 0


def _nothing(roots: list[Path], report: IngestReport) -> PalaceError:
    if len(report.sources) == 1 and report.sources[0].error:
        single = report.sources[0]
        unknown = "file:unknown_format" in single.skipped or "unknown_format" in single.skipped
        return (UnknownFormatError if unknown else NothingToIngestError)(single.error)
    where = ", ".join(printable_path(r) for r in roots)
    reasons = report.totals()["skipped"]
    detail = f" (skipped: {reasons})" if reasons else ""
    return NothingToIngestError(f"nothing to ingest in {where}{detail}; formats tried: "
                                f"{', '.join(PARSER_MODULES)}")
