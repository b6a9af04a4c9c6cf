"""Consolidation: the schedule's edges (exactly 24 h, fewer than 5 items, the 30-day limit),
the state machine (archive, never delete) and the replay over a palace's timeline."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from lifecycle_data import build_palace

from palace_lab.errors import InputError
from palace_lab.lifecycle.consolidate import Memory, MemoryItem, Schedule
from palace_lab.lifecycle.levels import Note
from palace_lab.lifecycle.timeline import parse_step, raw_memories, replay, run_schedule, timeline

T = datetime(2025, 3, 5, 12, 0, tzinfo=timezone.utc)  # a Wednesday
DAY, SECOND = timedelta(days=1), timedelta(seconds=1)


def item(i: int, t: datetime, *, level: int = 0, session: str = "s1", project: str = "p") -> MemoryItem:
    notes = (Note("critical", "decision", f"We decided to set pool_size={i} because it ran out."),
             Note("medium", "fact", f"The code is in src/m{i}.py."),
             Note("low", "context", "chatting about the weather"))
    return MemoryItem(f"L{level}-{i}", level, t, t, t, f"text {i}", 10, project, (session,), (), notes)


def memory_with(*items: MemoryItem) -> Memory:
    m = Memory()
    for i in items:
        m.add(i)
    return m


def test_raw_memories_exactly_24_hours_old_wait_one_second_more():
    m = memory_with(*(item(i, T) for i in range(5)))
    m.advance(T + timedelta(hours=24))
    assert m.active(1) == [] and len(m.active(0)) == 5
    m.advance(T + timedelta(hours=24) + SECOND)
    [summary] = m.active(1)
    assert summary.sources == tuple(f"L0-{i}" for i in range(5))
    assert all(m.items[f"L0-{i}"].archived_by == summary.item_id for i in range(5))
    assert "!! We decided to set pool_size=0 because it ran out." in summary.text
    assert "~ The code is in src/m0.py." in summary.text and "weather" not in summary.text


def test_fewer_than_five_items_wait_until_the_longest_wait():
    m = memory_with(*(item(i, T) for i in range(4)))
    m.advance(T + 2 * DAY)
    assert m.active(1) == []
    m.advance(T + 7 * DAY)  # exactly l1_max_wait: not yet
    assert m.active(1) == []
    m.advance(T + 7 * DAY + SECOND)
    assert len(m.active(1)) == 1 and m.active(0) == []


def test_small_sessions_of_one_project_are_summarised_together():
    m = memory_with(*(item(i, T, session="a") for i in range(3)),
                    *(item(i, T + SECOND, session="b") for i in range(3, 5)),
                    *(item(i, T, session="c", project="other") for i in range(5, 8)))
    m.advance(T + 2 * DAY)
    [summary] = m.active(1)
    assert summary.sessions == ("a", "b") and len(summary.sources) == 5
    assert len(m.active(0)) == 3  # the other project waits


def summaries(n: int, end: datetime = T) -> Memory:
    return memory_with(*(item(i, end, level=1, session=f"s{i}") for i in range(n)))


def test_a_digest_needs_a_finished_week_and_three_summaries():
    m = summaries(3)
    m.advance(datetime(2025, 3, 9, 23, 0, tzinfo=timezone.utc))  # Sunday: the week runs on
    assert m.active(2) == []
    m.advance(datetime(2025, 3, 10, tzinfo=timezone.utc))  # Monday 00:00
    [digest] = m.active(2)
    assert len(digest.sources) == 3 and m.active(1) == []
    assert "weekly digest · 2025-W10 · 3 session summaries" in digest.text
    assert digest.text.splitlines()[-2:] == ["also: src/m0.py, src/m1.py, src/m2.py",
                                             "topics: chatting, weather"]
    [profile] = m.active(3)  # the first profile comes with the first digest
    assert digest.item_id in profile.sources and not digest.archived


def test_two_summaries_wait_for_the_30_day_limit():
    m = summaries(2)
    m.advance(T + 30 * DAY)
    assert m.active(2) == []
    m.advance(T + 30 * DAY + SECOND)
    [digest] = m.at_level(2)
    assert len(digest.sources) == 2
    # older than 30 days and already in the first profile: it leaves active memory at once
    assert digest.archived and digest.archived_by == m.active(3)[0].item_id


def test_a_digest_leaves_active_memory_after_30_days_once_a_profile_holds_it():
    m = summaries(3)
    monday = datetime(2025, 3, 10, tzinfo=timezone.utc)
    m.advance(monday)
    [digest] = m.active(2)
    m.advance(digest.end + 30 * DAY)
    assert not m.items[digest.item_id].archived
    m.advance(digest.end + 30 * DAY + SECOND)
    archived = m.items[digest.item_id]
    assert archived.archived and archived.archived_by == m.active(3)[0].item_id


def test_the_profile_is_refreshed_monthly_from_the_last_four_digests():
    m = Memory()
    week = timedelta(days=7)
    monday = datetime(2025, 3, 10, tzinfo=timezone.utc)
    for w in range(4):
        for i in range(3):
            m.add(item(10 * w + i, T + w * week, level=1, session=f"w{w}s{i}"))
        m.advance(monday + w * week)
    first = m.at_level(3)[0]
    assert len(m.at_level(2)) == 4 and len(m.at_level(3)) == 1  # weekly digests, one profile
    m.advance(first.created + 30 * DAY - SECOND)
    assert len(m.at_level(3)) == 1
    m.advance(first.created + 30 * DAY)
    profiles = m.at_level(3)
    assert len(profiles) == 2 and m.items[first.item_id].archived
    newest = m.active(3)[0]
    digests = [d.item_id for d in m.at_level(2)[-4:]]
    assert newest.sources == (*digests, first.item_id)
    assert "standing decisions:" in newest.text


def test_archiving_is_the_only_transition_and_nothing_is_deleted():
    m = memory_with(item(0, T))
    m.archive("L0-0", by="someone", at=T)
    with pytest.raises(ValueError, match="already archived"):
        m.archive("L0-0", by="someone", at=T)
    with pytest.raises(ValueError, match="already exists"):
        m.add(item(0, T))
    assert not hasattr(m, "delete") and not hasattr(m, "remove")


def test_schedule_and_step_validation():
    with pytest.raises(InputError, match="l1_min_items"):
        Schedule(l1_min_items=0)
    assert parse_step("7D") == timedelta(days=7) and parse_step("12h") == timedelta(hours=12)
    with pytest.raises(InputError, match="like '7D'"):
        parse_step("weekly")
    assert timeline(T, T + 2 * DAY, DAY) == [T, T + DAY, T + 2 * DAY]


def test_replay_over_a_palace_archives_everything_and_keeps_it(tmp_path):
    with build_palace(tmp_path / "p.db", days=21, per_day=3, distill=False) as palace:
        items, left_out = raw_memories(palace)
        first = items[0].start.replace(hour=0, minute=0)
        times = timeline(first, items[-1].end + 40 * DAY, DAY)
        memory, snapshots = run_schedule(items, times)
        replayed = replay(palace, step="1D", extend_days=40)
    assert left_out == 0 and len(items) == 63
    assert [s.row() for s in replayed] == [s.row() for s in snapshots]
    raw = memory.at_level(0)
    assert len(raw) == 63 and all(i.archived for i in raw)  # every exchange kept, archived
    for i in memory.items.values():
        if i.archived:
            assert memory.items[i.archived_by].level > i.level or i.level == 3
    last = snapshots[-1]
    total = {lvl: last.counts.get(lvl, 0) + last.archived.get(lvl, 0) for lvl in range(4)}
    assert sum(total.values()) == len(memory.items)
    assert last.tokens.get(0, 0) == 0 and last.counts[3] == 1
    assert "preferences:" in last.profile and "always want ruff" in last.profile
