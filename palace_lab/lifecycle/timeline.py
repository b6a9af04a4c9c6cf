"""The palace's exchanges as raw memories (L0), ready to be replayed through consolidation.

Each exchange with a timestamp becomes one L0 :class:`~palace_lab.lifecycle.consolidate.
MemoryItem`: its text is the exchange's verbatim text (``l0="verbatim"``, the raw memory) or
its distilled card (``l0="card"``, when the chosen distiller made one); its notes are the
importance-tagged sentences of its dialogue (filler and code left out) plus two high-level
facts from its tool traffic: the files it modified and the final outcome of each check.
Exchanges without a timestamp cannot be placed on the timeline and are left out (counted in
:func:`raw_memories`' second return value).

:func:`replay` feeds them into a :class:`~palace_lab.lifecycle.consolidate.Memory` as the
palace's own time passes and takes a :class:`~palace_lab.lifecycle.consolidate.Snapshot` at
each step.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from palace_lab.budget import card_text
from palace_lab.errors import InputError
from palace_lab.lifecycle.consolidate import Memory, MemoryItem, Schedule, Snapshot, parse_time
from palace_lab.lifecycle.levels import Note
from palace_lab.ingest.traffic.toolcalls import check_lines, summarize
from palace_lab.lifecycle.units import session_messages, units_of
from palace_lab.tokens import DEFAULT_ENCODING, count_tokens

if TYPE_CHECKING:
    from palace_lab.store import Palace

L0_TEXTS = ("verbatim", "card")


def exchange_notes(palace: Palace, exchange) -> list[Note]:
    """The tagged sentences of one exchange, then its tool facts (modified files, checks)."""
    units = units_of(session_messages([exchange]), count=False)
    notes = [Note(u.tag.importance, u.tag.kind, u.text) for u in units if not u.code and not u.filler]
    messages = palace.messages(exchange.conversation_id, exchange.ply_start, exchange.ply_end)
    tools = summarize(messages, files_touched=exchange.files_touched, project=exchange.project,
                      count=False)
    if tools.modified:
        notes.append(Note("high", "fact", "modified: " + ", ".join(tools.modified)))
    notes += [Note("high", "fact", line) for line in check_lines(tools.checks)]
    return notes


def raw_memories(palace: Palace, *, l0: str = "verbatim", distiller: str | None = None,
                 encoding: str = DEFAULT_ENCODING) -> tuple[list[MemoryItem], int]:
    """(L0 items in time order, number of exchanges left out for want of a timestamp)."""
    if l0 not in L0_TEXTS:
        raise InputError(f"unknown l0 text {l0!r}; valid: {', '.join(L0_TEXTS)}")
    cards = palace.card_map(distiller) if l0 == "card" and distiller else {}
    timed = [(parse_time(e.timestamp), e) for e in palace.exchanges() if e.timestamp]
    left_out = len(palace.exchanges()) - len(timed)
    texts = [card_text(cards[e.exchange_id]) if e.exchange_id in cards else e.verbatim
             for _, e in timed]
    tokens = count_tokens(texts, encoding) if texts else []
    items = [MemoryItem(item_id=e.exchange_id, level=0, start=t, end=t, created=t, text=text,
                        tokens=n, project=e.project, sessions=(e.conversation_id,),
                        notes=tuple(exchange_notes(palace, e)))
             for (t, e), text, n in zip(timed, texts, tokens)]
    return sorted(items, key=lambda i: (i.start, i.item_id)), left_out


def parse_step(step: str | timedelta) -> timedelta:
    """``"7D"``, ``"1W"``, ``"12H"`` (a number and D, W or H) or a timedelta."""
    if isinstance(step, timedelta):
        delta = step
    else:
        m = re.fullmatch(r"\s*(\d+)\s*([DdWwHh])\s*", str(step))
        if not m:
            raise InputError(f"step {step!r} is not like '7D', '1W' or '12H'")
        unit = {"d": "days", "w": "weeks", "h": "hours"}[m.group(2).lower()]
        delta = timedelta(**{unit: int(m.group(1))})
    if delta <= timedelta(0):
        raise InputError("step must be positive")
    return delta


def run_schedule(items: Sequence[MemoryItem], times: Sequence[datetime], *,
                 schedule: Schedule | None = None, encoding: str = DEFAULT_ENCODING
                 ) -> tuple[Memory, list[Snapshot]]:
    """Feed raw memories into a :class:`Memory` as time passes; a snapshot at each time."""
    memory = Memory(schedule, encoding=encoding)
    pending = sorted(items, key=lambda i: (i.end, i.item_id))
    snapshots, fed = [], 0
    for now in times:
        while fed < len(pending) and pending[fed].end <= now:
            memory.add(pending[fed])
            fed += 1
        before = len(memory.events)
        memory.advance(now)
        snapshots.append(memory.snapshot(now, memory.events[before:]))
    return memory, snapshots


def timeline(start: datetime, end: datetime, step: timedelta) -> list[datetime]:
    """``start``, ``start + step``, … up to ``end``, and ``end`` itself."""
    times, t = [], start
    while t < end:
        times.append(t)
        t += step
    return times + [end]


def replay(palace: Palace, start=None, end=None, step: str | timedelta = "7D", *,
           schedule: Schedule | None = None, l0: str = "verbatim", distiller: str | None = None,
           extend_days: int = 0, encoding: str = DEFAULT_ENCODING) -> list[Snapshot]:
    """The palace's memory as of each step of its own timeline.

    ``start`` defaults to the day of the first exchange, ``end`` to the last exchange plus
    ``extend_days`` (so the plot can show the memory settling after the work stops).
    """
    items, _ = raw_memories(palace, l0=l0, distiller=distiller, encoding=encoding)
    if not items:
        return []
    first = items[0].start.replace(hour=0, minute=0, second=0, microsecond=0)
    start = parse_time(start) or first
    end = parse_time(end) or items[-1].end + timedelta(days=extend_days)
    if end < start:
        raise InputError(f"end {end:%Y-%m-%d} is before start {start:%Y-%m-%d}")
    _, snapshots = run_schedule(items, timeline(start, end, parse_step(step)),
                                schedule=schedule, encoding=encoding)
    return snapshots
