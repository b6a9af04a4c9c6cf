"""The text of each consolidation level, made from importance-tagged notes.

A *note* is one tagged sentence a memory item carries (its importance, kind and text). Each level
renders its notes by the importance rules of :mod:`palace_lab.lifecycle.importance`:

- L1 session summary: critical (``!!``) and high (``!``) notes verbatim, medium notes
  summarised (``~``, cut to a window of their own words), low notes not shown (carried for
  the digest);
- L2 weekly digest: critical and high notes verbatim, medium notes as their fact spans
  (``also:``), low notes only as topics (their most frequent terms);
- L3 profile: the person's preferences, standing (critical) decisions, projects, recurring
  files and the checks they run, from the last digests and the previous profile.

Notes are deduplicated by text; order is the order they happened in.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from palace_lab.lifecycle.facts import find_facts
from palace_lab.lifecycle.units import cut, terms

MEDIUM_CHARS = 90
MEDIUM_PER_SUMMARY = 8
ALSO_PER_DIGEST = 20
TOPICS_PER_DIGEST = 12
PROFILE_LINES = 10
_MARK = {"critical": "!!", "high": "!", "medium": "~"}


@dataclass(frozen=True)
class Note:
    """One importance-tagged sentence carried by a memory item."""

    importance: str
    kind: str
    text: str


def _unique(notes: Sequence[Note]) -> list[Note]:
    seen: dict[str, Note] = {}
    for n in notes:
        seen.setdefault(n.text, n)
    return list(seen.values())


def _day(t: datetime) -> str:
    return t.strftime("%Y-%m-%d")


def summary_text(notes: Sequence[Note], *, project: str | None, sessions: Sequence[str],
                 start: datetime, end: datetime, items: int) -> str:
    """The L1 text of a batch of raw memories."""
    notes = _unique(notes)
    head = (f"## session summary · {project or 'no project'} · "
            f"{', '.join(s[:8] for s in sessions)} · {_day(start)} → {_day(end)} · {items} exchanges")
    lines = [head] + [f"{_MARK[n.importance]} {n.text}" for n in notes if n.importance in ("critical", "high")]
    medium = [n for n in notes if n.importance == "medium"][:MEDIUM_PER_SUMMARY]
    lines += [f"~ {cut(n.text, MEDIUM_CHARS)}" for n in medium]
    return "\n".join(lines)


def _spans(notes: Sequence[Note], limit: int) -> list[str]:
    spans = [f.text for n in notes for f in find_facts(n.text) if f.kind != "error"]
    return [s for s, _ in Counter(spans).most_common(limit)]


def digest_text(notes: Sequence[Note], *, label: str, summaries: int,
                projects: Sequence[str]) -> str:
    """The L2 text of a group of session summaries."""
    notes = _unique(notes)
    lines = [f"## weekly digest · {label} · {summaries} session summaries · "
             f"{', '.join(projects) or 'no project'}"]
    lines += [f"{_MARK[n.importance]} {n.text}" for n in notes if n.importance in ("critical", "high")]
    also = _spans([n for n in notes if n.importance == "medium"], ALSO_PER_DIGEST)
    if also:
        lines.append("also: " + ", ".join(also))
    topics = Counter(t for n in notes if n.importance == "low" for t in terms(n.text))
    if topics:
        lines.append("topics: " + ", ".join(t for t, _ in topics.most_common(TOPICS_PER_DIGEST)))
    return "\n".join(lines)


def profile_text(notes: Sequence[Note], *, at: datetime, digests: Sequence[str],
                 projects: Counter, checks: Counter) -> str:
    """The L3 profile: preferences, standing decisions, projects, files, checks."""
    notes = _unique(notes)
    prefs = [n.text for n in notes if n.kind == "preference"][-PROFILE_LINES:]
    decisions = [n.text for n in notes if n.kind == "decision" and n.importance == "critical"]
    files = Counter(f.text for n in notes for f in find_facts(n.text) if f.kind == "path")
    lines = [f"# profile as of {_day(at)} (from {len(digests)} digests: {', '.join(digests)})"]
    if projects:
        lines.append("projects: " + ", ".join(f"{p} ({n} sessions)" for p, n in projects.most_common()))
    for title, items in (("preferences", prefs), ("standing decisions", decisions[-PROFILE_LINES:])):
        if items:
            lines.append(f"{title}:")
            lines += [f"- {cut(t, 200)}" for t in items]
    if files:
        lines.append("recurring files: " + ", ".join(p for p, _ in files.most_common(8)))
    if checks:
        lines.append("checks run: " + ", ".join(c for c, _ in checks.most_common(8)))
    return "\n".join(lines)
