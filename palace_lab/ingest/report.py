"""The ingest report: per source file what was read, skipped (by reason) and decided.

``skipped`` counts lines and records left out, and files refused (``file:<reason>``);
``events`` counts the archive rule's decisions (``grown``, ``kept_stored``, ``diverged``);
``error`` is the one line that says why a file gave nothing (an empty file found in a folder is
counted as skipped, ``empty_file``, not an error: agents leave them behind); subagent transcripts
merged into their parent session are counted once for the whole ingest.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


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
    events: dict = field(default_factory=dict)  # archive decisions: grown, kept_stored, …


@dataclass
class IngestReport:
    sources: list[SourceReport] = field(default_factory=list)
    merged_subagents: int = 0  # subagent transcripts read with their parent session's file

    def totals(self) -> dict:
        keys = ("conversations", "messages", "exchanges", "new_messages", "new_exchanges")
        out = {k: sum(getattr(s, k) for s in self.sources) for k in keys}
        skipped: Counter = Counter()
        for s in self.sources:
            skipped.update(s.skipped)
        out["skipped"] = dict(sorted(skipped.items()))
        events: Counter = Counter()
        for s in self.sources:
            events.update(s.events)
        out["archive_events"] = dict(sorted(events.items()))
        out["errors"] = sum(1 for s in self.sources if s.error)
        out["files"] = len(self.sources)
        out["unchanged_files"] = sum(s.unchanged for s in self.sources)
        out["empty_files"] = sum(1 for s in self.sources if "empty_file" in s.skipped)
        out["merged_subagents"] = self.merged_subagents
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
