"""Ingest: export files → conversations and exchanges in the palace.

``ingest_paths`` walks files and folders, picks each file's format from its content (the
registry below, tried in order), parses it, segments it into exchanges and stores every file in
its own transaction. Re-ingesting an unchanged file is skipped by its SHA-1; a changed file
replaces only the conversations that changed. Bad lines are skipped and counted by reason; a
file that matches no format is refused with the formats tried; when nothing valid was read the
palace is left exactly as it was.
"""

from __future__ import annotations

import hashlib
import importlib
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from palace_lab.errors import NothingToIngestError, UnknownFormatError
from palace_lab.ingest.base import ParseResult, Parser, read_head
from palace_lab.segment import segment

# Order matters only for ties; each sniffer looks for its own format's content.
PARSER_MODULES = {
    "claude-code": "palace_lab.ingest.claude_code",
    "codex": "palace_lab.ingest.codex",
    "chatgpt": "palace_lab.ingest.chatgpt",
    "claude-ai": "palace_lab.ingest.claude_ai",
    "aider": "palace_lab.ingest.aider",
    "palace-jsonl": "palace_lab.ingest.palace_jsonl",
}
FORMATS = ("auto", *PARSER_MODULES)
CANDIDATE_SUFFIXES = {".jsonl", ".json", ".zip", ".md", ".ndjson"}
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
        if get_parser(name).sniff(path, head):
            return name
    raise UnknownFormatError(
        f"{path} is not a known export; formats tried: {', '.join(PARSER_MODULES)}")


@dataclass
class SourceReport:
    path: str
    format: str | None
    conversations: int = 0
    messages: int = 0
    exchanges: int = 0
    new_messages: int = 0
    new_exchanges: int = 0
    unchanged: bool = False
    skipped: dict = field(default_factory=dict)
    error: str | None = None


@dataclass
class IngestReport:
    sources: list[SourceReport] = field(default_factory=list)

    def totals(self) -> dict:
        keys = ("conversations", "messages", "exchanges", "new_messages", "new_exchanges")
        out = {k: sum(getattr(s, k) for s in self.sources) for k in keys}
        skipped: Counter = Counter()
        for s in self.sources:
            skipped.update(s.skipped)
        out["skipped"] = dict(sorted(skipped.items()))
        out["files"] = len(self.sources)
        out["unchanged_files"] = sum(s.unchanged for s in self.sources)
        return out

    def by_format(self) -> dict:
        out: dict[str, dict] = {}
        for s in self.sources:
            row = out.setdefault(s.format or "unknown", Counter())
            row.update(files=1, conversations=s.conversations, messages=s.messages,
                       exchanges=s.exchanges)
        return {k: dict(v) for k, v in out.items()}

    def to_dict(self) -> dict:
        return {"totals": self.totals(), "formats": self.by_format(),
                "sources": [vars(s) for s in self.sources]}


def discover(paths: Iterable[Path]) -> list[Path]:
    """Files to offer the parsers: given files as they are, folders walked for candidates."""
    from palace_lab.ingest.claude_code import is_attached_subagent

    files: list[Path] = []
    for root in paths:
        root = Path(root).expanduser()
        if not root.exists():
            raise NothingToIngestError(f"{root} does not exist")
        if root.is_file():
            files.append(root)
            continue
        for p in sorted(root.rglob("*")):
            if p.is_file() and p.suffix.lower() in CANDIDATE_SUFFIXES \
                    and "tool-results" not in p.parts and not is_attached_subagent(p):
                files.append(p)
    return files


def _sha1(path: Path) -> str:
    h = hashlib.sha1()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _is_own_transcript(conv) -> bool:
    first = next((m for m in conv.messages if m.is_request), None)
    return bool(first) and first.text.lstrip().startswith(OWN_PROMPT_MARKER)


def _store(palace, path: Path, fmt: str, parsed: ParseResult, sha1: str) -> SourceReport:
    report = SourceReport(str(path), fmt, skipped=dict(parsed.skipped))
    convs = [c for c in parsed.conversations if not _is_own_transcript(c)]
    if len(convs) < len(parsed.conversations):
        report.skipped["own_prompt_transcript"] = len(parsed.conversations) - len(convs)
    if not convs:
        report.error = "nothing valid was read"
        return report
    with palace.transaction() as tx:
        for conv in convs:
            exchanges = segment(conv)
            added_m, added_e = palace.store_conversation(tx, conv, exchanges)
            report.conversations += 1
            report.messages += len(conv.messages)
            report.exchanges += len(exchanges)
            report.new_messages += added_m
            report.new_exchanges += added_e
        palace.record_source(tx, str(path), fmt, path.stat().st_size, sha1,
                             report.conversations, report.messages, report.skipped)
    return report


def ingest_file(palace, path: Path, fmt: str = "auto", *, explicit: bool = True) -> SourceReport:
    """Ingest one file. An unknown format raises when ``explicit``, else is reported."""
    sha1 = _sha1(path)
    if palace.source_unchanged(str(path), sha1):
        return SourceReport(str(path), None, unchanged=True)
    try:
        name = detect_format(path) if fmt == "auto" else fmt
    except UnknownFormatError as exc:
        if explicit:
            raise
        return SourceReport(str(path), None, skipped={"unknown_format": 1}, error=str(exc))
    parsed = get_parser(name).parse(path)
    return _store(palace, path, name, parsed, sha1)


def ingest_paths(palace, paths: Iterable[str | Path], fmt: str = "auto",
                 progress: Callable[[int, int, str], None] | None = None) -> IngestReport:
    """Ingest every file under ``paths``; raises NothingToIngestError if none held anything."""
    roots = [Path(p).expanduser() for p in paths]
    files = discover(roots)
    explicit = {p for p in roots if p.is_file()}
    report = IngestReport()
    for i, path in enumerate(files):
        report.sources.append(ingest_file(palace, path, fmt, explicit=path in explicit))
        if progress:
            progress(i + 1, len(files), str(path))
    useful = [s for s in report.sources if s.conversations or s.unchanged]
    if not useful:
        where = ", ".join(str(r) for r in roots)
        reasons = report.totals()["skipped"]
        detail = f" (skipped: {reasons})" if reasons else ""
        raise NothingToIngestError(f"nothing to ingest in {where}{detail}; formats tried: "
                                   f"{', '.join(PARSER_MODULES)}")
    return report
