"""Consolidation: raw memories become session summaries, weekly digests and a profile.

Levels: **L0** raw memories (one per exchange), **L1** session summaries, **L2** weekly
digests, **L3** the person's profile. Each memory item is a state machine with two states,
*active* and *archived*: consolidation archives the items it summarises (recording by which
item and when) and never deletes one, so every level can be audited back to its exchanges.
Only active items count in a level's token budget.

The :class:`Schedule` (all thresholds in one frozen dataclass) drives :meth:`Memory.advance`,
which applies, as of a time ``now`` and in this order:

1. L1: active raw memories *strictly* older than ``l1_min_age`` (24 h) are grouped by
   project, whole sessions at a time in the order they started; a group becomes one summary
   as soon as it holds ``l1_min_items`` (5). A remainder smaller than that waits, unless its
   newest item is older than ``l1_max_wait`` (7 days): then it is summarised anyway, so a
   small project is not left raw for ever.
2. L2: active summaries whose calendar week (Monday 00:00 UTC) has ended become one digest
   when there are at least ``l2_min_summaries`` (3), or when the oldest of them is older than
   ``l2_max_age`` (30 days).
3. L3: a profile is made from the last ``l3_digests`` (4) digests (active or archived) and the
   previous profile when there is a digest newer than the current profile and the current
   profile is at least ``l3_period`` (30 days) old; the first profile comes with the first
   digest. The previous profile is archived.
4. Digests older than ``l2_max_age`` that a profile already includes are archived.

Ages are measured from an item's ``end`` (the newest source time it covers).
:func:`replay` runs the schedule over the palace's own timeline and returns a
:class:`Snapshot` per step.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING

from palace_lab.errors import InputError
from palace_lab.lifecycle.levels import Note, digest_text, profile_text, summary_text
from palace_lab.model import content_hash
from palace_lab.tokens import DEFAULT_ENCODING, count_tokens

if TYPE_CHECKING:
    from palace_lab.store import Palace

LEVEL_NAMES = {0: "L0 raw memories", 1: "L1 session summaries", 2: "L2 weekly digests",
               3: "L3 profile"}
_CHECK_NOTE = re.compile(r"^([\w .+-]+): (?:pass|fail|unknown)\b")


@dataclass(frozen=True)
class Schedule:
    """Thresholds of the consolidation pipeline (see the module docstring)."""

    l1_min_age: timedelta = timedelta(hours=24)
    l1_min_items: int = 5
    l1_max_wait: timedelta = timedelta(days=7)
    l2_min_summaries: int = 3
    l2_max_age: timedelta = timedelta(days=30)
    l3_period: timedelta = timedelta(days=30)
    l3_digests: int = 4

    def __post_init__(self) -> None:
        for name in ("l1_min_items", "l2_min_summaries", "l3_digests"):
            if getattr(self, name) < 1:
                raise InputError(f"{name} must be at least 1, got {getattr(self, name)}")


@dataclass(frozen=True)
class MemoryItem:
    """One memory at one level. ``sources`` are the ids of the items it consolidates."""

    item_id: str
    level: int
    start: datetime
    end: datetime
    created: datetime
    text: str
    tokens: int
    project: str | None = None
    sessions: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    notes: tuple[Note, ...] = ()
    archived: bool = False
    archived_at: datetime | None = None
    archived_by: str | None = None

    def to_dict(self) -> dict:
        d = {k: v for k, v in vars(self).items() if k != "notes"}
        for k in ("start", "end", "created", "archived_at"):
            d[k] = d[k].isoformat() if d[k] else None
        return {**d, "sessions": list(self.sessions), "sources": list(self.sources)}


@dataclass(frozen=True)
class Snapshot:
    """The memory as of ``at``: active items and tokens per level, the profile text."""

    at: datetime
    counts: dict[int, int]
    tokens: dict[int, int]
    archived: dict[int, int]
    profile: str = ""
    events: tuple[str, ...] = ()

    def row(self) -> dict:
        out: dict = {"at": self.at.isoformat()}
        for level in LEVEL_NAMES:
            out[f"L{level}_items"] = self.counts.get(level, 0)
            out[f"L{level}_tokens"] = self.tokens.get(level, 0)
            out[f"L{level}_archived"] = self.archived.get(level, 0)
        out["active_tokens"] = sum(self.tokens.values())
        return out

    def to_dict(self) -> dict:
        return {**self.row(), "profile": self.profile, "events": list(self.events)}


class Memory:
    """All memory items of one person, and the transitions between their states."""

    def __init__(self, schedule: Schedule | None = None, *, encoding: str = DEFAULT_ENCODING):
        self.schedule = schedule or Schedule()
        self.encoding = encoding
        self.items: dict[str, MemoryItem] = {}
        self.events: list[str] = []

    # -- state ----------------------------------------------------------------------------

    def add(self, item: MemoryItem) -> None:
        if item.item_id in self.items:
            raise InputError(f"memory item {item.item_id} already exists")
        self.items[item.item_id] = item

    def archive(self, item_id: str, *, by: str, at: datetime) -> None:
        """active → archived (the only transition); archiving twice is an error."""
        item = self.items[item_id]
        if item.archived:
            raise InputError(f"memory item {item_id} is already archived")
        self.items[item_id] = replace(item, archived=True, archived_at=at, archived_by=by)

    def active(self, level: int | None = None) -> list[MemoryItem]:
        return sorted((i for i in self.items.values() if not i.archived
                       and (level is None or i.level == level)), key=lambda i: (i.end, i.item_id))

    def at_level(self, level: int) -> list[MemoryItem]:
        return sorted((i for i in self.items.values() if i.level == level),
                      key=lambda i: (i.end, i.item_id))

    def _make(self, level: int, sources: Sequence[MemoryItem], text: str, now: datetime,
              notes: Sequence[Note], *, project: str | None = None,
              archive: Sequence[MemoryItem] | None = None) -> MemoryItem:
        """A new item consolidating ``sources``; archives ``archive`` (default: the sources)."""
        ids = tuple(s.item_id for s in sources)
        item = MemoryItem(
            item_id=f"L{level}:" + content_hash(*ids)[:12], level=level,
            start=min(s.start for s in sources), end=max(s.end for s in sources), created=now,
            text=text, tokens=count_tokens([text], self.encoding)[0], project=project,
            sessions=tuple(dict.fromkeys(x for s in sources for x in s.sessions)),
            sources=ids, notes=tuple(notes))
        self.add(item)
        for s in sources if archive is None else archive:
            if not self.items[s.item_id].archived:
                self.archive(s.item_id, by=item.item_id, at=now)
        self.events.append(f"{now:%Y-%m-%d %H:%M} L{level} {item.item_id} from {len(ids)} items")
        return item

    # -- the schedule -------------------------------------------------------------------------

    def advance(self, now: datetime) -> None:
        """Apply the schedule as of ``now`` (see the module docstring for the order)."""
        self._summarise(now)
        self._digest(now)
        self._profile(now)
        self._retire_digests(now)

    def _l1_batches(self, now: datetime) -> list[list[MemoryItem]]:
        s = self.schedule
        eligible = [i for i in self.active(0) if now - i.end > s.l1_min_age]
        projects: dict[str, dict[str, list[MemoryItem]]] = {}
        for item in sorted(eligible, key=lambda i: (i.start, i.item_id)):
            projects.setdefault(item.project or "", {}).setdefault(item.sessions[0], []).append(item)
        batches = []
        for sessions in projects.values():
            batch: list[MemoryItem] = []
            for items in sessions.values():
                batch.extend(items)
                if len(batch) >= s.l1_min_items:
                    batches.append(batch)
                    batch = []
            if batch and now - max(i.end for i in batch) > s.l1_max_wait:
                batches.append(batch)
        return batches

    def _summarise(self, now: datetime) -> None:
        for batch in self._l1_batches(now):
            notes = [n for i in batch for n in i.notes]
            sessions = list(dict.fromkeys(x for i in batch for x in i.sessions))
            text = summary_text(notes, project=batch[0].project, sessions=sessions,
                                start=min(i.start for i in batch), end=max(i.end for i in batch),
                                items=len(batch))
            self._make(1, batch, text, now, notes, project=batch[0].project)

    def _digest(self, now: datetime) -> None:
        s = self.schedule
        monday = (now - timedelta(days=now.weekday())).replace(hour=0, minute=0, second=0,
                                                               microsecond=0)
        pending = [i for i in self.active(1) if i.end < monday]
        if not pending:
            return
        if len(pending) < s.l2_min_summaries and now - min(i.end for i in pending) <= s.l2_max_age:
            return
        weeks = sorted({i.end.strftime("%G-W%V") for i in pending})
        label = weeks[0] if len(weeks) == 1 else f"{weeks[0]}…{weeks[-1]}"
        projects = list(dict.fromkeys(i.project or "no project" for i in pending))
        notes = [n for i in pending for n in i.notes]
        text = digest_text(notes, label=label, summaries=len(pending), projects=projects)
        self._make(2, pending, text, now, notes)

    def _profile(self, now: datetime) -> None:
        s = self.schedule
        digests = self.at_level(2)
        current = self.active(3)
        last = current[-1] if current else None
        if not digests or (last and (now - last.created < s.l3_period
                                     or not any(d.created > last.created for d in digests))):
            return
        used = digests[-s.l3_digests:]
        notes = [n for d in used for n in d.notes]
        if last:
            notes = [n for n in last.notes if n.kind in ("preference", "decision")] + notes
        sessions = Counter()
        for d in used:
            for summary_id in d.sources:
                summary = self.items[summary_id]
                sessions[summary.project or "no project"] += len(summary.sessions)
        checks = Counter(m.group(1) for n in notes if (m := _CHECK_NOTE.match(n.text)))
        labels = [d.text.split(" · ")[1] for d in used]
        text = profile_text(notes, at=now, digests=labels, projects=sessions, checks=checks)
        keep = [n for n in notes if n.kind in ("preference", "decision") or _CHECK_NOTE.match(n.text)]
        previous = [last] if last else []
        self._make(3, used + previous, text, now, keep, archive=previous)

    def _retire_digests(self, now: datetime) -> None:
        profiles = self.at_level(3)
        for d in self.active(2):
            included = any(d.item_id in p.sources for p in profiles)
            if included and now - d.end > self.schedule.l2_max_age:
                by = next(p.item_id for p in profiles if d.item_id in p.sources)
                self.archive(d.item_id, by=by, at=now)

    # -- reading ------------------------------------------------------------------------------

    def snapshot(self, now: datetime, events: Sequence[str] = ()) -> Snapshot:
        counts, tokens, archived = Counter(), Counter(), Counter()
        for item in self.items.values():
            if item.archived:
                archived[item.level] += 1
            else:
                counts[item.level] += 1
                tokens[item.level] += item.tokens
        profile = self.active(3)
        return Snapshot(now, dict(counts), dict(tokens), dict(archived),
                        profile[-1].text if profile else "", tuple(events))


def parse_time(value: str | datetime | None) -> datetime | None:
    """An aware UTC datetime from an ISO 8601 string (``Z`` accepted) or a datetime."""
    if value is None or isinstance(value, datetime):
        return value if value is None or value.tzinfo else value.replace(tzinfo=timezone.utc)
    t = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return t if t.tzinfo else t.replace(tzinfo=timezone.utc)


def replay(palace: Palace, start=None, end=None, step="7D", **options) -> list[Snapshot]:
    """The palace's memory as of each step of its timeline; see
    :func:`palace_lab.lifecycle.timeline.replay` (where the palace is read)."""
    from palace_lab.lifecycle.timeline import replay as replay_palace

    return replay_palace(palace, start, end, step, **options)
