"""benchmarks/budget_tradeoff.py: the bootstrap interval of the share kept, the frontier's ends."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import budget_tradeoff as bt  # noqa: E402


def test_the_interval_holds_the_share_and_is_paired():
    # Two questions out of four lost: the share is 0.5; the resamples spread around it.
    low, high = bt.kept_interval([1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0])
    assert 0.0 <= low < 0.5 < high <= 1.0
    # The same questions found by both: every resample keeps 100%, however hard the questions.
    assert bt.kept_interval([1.0, 0.5, 0.0, 0.25], [1.0, 0.5, 0.0, 0.25]) == (1.0, 1.0)
    # Fixed seed: the same figures on every run.
    assert bt.kept_interval([1, 0, 1], [1, 1, 1]) == bt.kept_interval([1, 0, 1], [1, 1, 1])


def _row(share, ratio, kept, interval=(0.9, 1.0)):
    return {"set": "devmembench", "share": share, "request": 1.0, "min_core": 8, "ratio": ratio,
            "best": "hnsw:core+keywords", "mrr": {"hnsw:core+keywords": kept * 0.9},
            "kept": kept, "interval": interval}


def test_the_frontier_names_its_two_ends_and_counts_points_meeting_both():
    rows = [_row(0.1, 9.3, 0.973), _row(0.085, 10.3, 0.943), _row(0.08, 11.5, 0.89)]
    out = bt.render_frontier(rows).splitlines()
    assert out[-3] == ("- most kept on a layer ≥ 10x: 94.3% (90.0%–100.0%) at 10.30x (s 0.085, "
                       "request share 1, clause floor 8, hnsw:core+keywords)")
    assert out[-2].startswith("- largest ratio keeping ≥ 96%: 97.3% (90.0%–100.0%) at 9.30x")
    assert out[-1] == "- points meeting both targets: 0 of 3"
    # Best kept first in the table.
    assert [line.split(" | ")[3] for line in out if line.startswith("| 0.")] == [
        "9.30x", "10.30x", "11.50x"]
    both = bt.render_frontier(rows + [_row(0.09, 10.1, 0.97)]).splitlines()
    assert both[-1] == "- points meeting both targets: 1 of 4"
