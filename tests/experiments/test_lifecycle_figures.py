"""The Memory lifecycle page's consolidation replay and card vocabulary: made once (by
``prepare_palace``, what ``palace-lab index`` runs), then read from the figures cache (at 50,000
exchanges each took about 45 s on the tab's first opening)."""

from __future__ import annotations

from dataclasses import replace

import pytest

import lab_palaces
from palace_lab.experiments import lifecycle_figures as kept
from palace_lab.lifecycle.consolidate import Schedule
from palace_lab.lifecycle.timeline import replay


def _no(*_a, **_k):
    raise AssertionError("a kept figure was computed again")


def test_the_replay_is_kept_and_read_back_equal(tmp_path, monkeypatch):
    with lab_palaces.build(tmp_path / "p.db") as palace:
        fresh = replay(palace, step=kept.REPLAY_STEP, extend_days=kept.REPLAY_EXTEND_DAYS)
        assert fresh and kept.replay_snapshots(palace) == fresh
        monkeypatch.setattr(kept, "replay", _no)
        assert kept.replay_snapshots(palace) == fresh  # read from the file, equal values
        other = replace(Schedule(), l1_min_items=2)
        monkeypatch.undo()
        assert kept.replay_snapshots(palace, "1D", 0, other) != fresh  # other settings: computed


def test_the_vocabulary_is_kept_per_set_of_versions(tmp_path, monkeypatch):
    with lab_palaces.build(tmp_path / "p.db") as palace:
        versions = kept.carded_versions(palace)
        rows = kept.vocabulary_rows(palace, versions)
        assert [r["distiller"] for r in rows] == list(versions) and rows[0]["cards"]
        monkeypatch.setattr(kept.vocabulary, "vocabulary_report", _no)
        assert kept.vocabulary_rows(palace, versions) == rows


def test_a_changed_palace_is_replayed_again(tmp_path, monkeypatch):
    with lab_palaces.build(tmp_path / "p.db") as palace:
        kept.prepare(palace)
        palace.conn.execute("DELETE FROM exchanges WHERE exchange_id = (SELECT MIN(exchange_id)"
                            " FROM exchanges)")
        palace.conn.commit()
        monkeypatch.setattr(kept, "replay", _no)
        with pytest.raises(AssertionError, match="computed again"):
            kept.replay_snapshots(palace)  # another content: another name, computed
