"""A tuned fusion against its baselines: the held-out values are the CV score's parts."""

import pytest

from palace_lab.experiments import baselines as tuning_baselines
from palace_lab.experiments import fusion_tuning

QRELS = {f"q{i}": {f"d{i}": 3} for i in range(6)}
# Run A finds each relevant exchange first on even queries, B on odd ones (second otherwise).
A = {f"q{i}": ({f"d{i}": 2.0, "x": 1.0} if i % 2 == 0 else {"x": 2.0, f"d{i}": 1.0}) for i in range(6)}
B = {f"q{i}": ({f"d{i}": 2.0, "y": 1.0} if i % 2 else {"y": 2.0, f"d{i}": 1.0}) for i in range(6)}


def test_held_out_values_average_to_the_cross_validated_score():
    tuning = fusion_tuning.grid_search("a", "b", A, B, QRELS, folds=3)
    held = tuning.held_out
    assert set(held) == set(QRELS)
    assert sum(held.values()) / len(held) == pytest.approx(tuning.cv_score)


def test_against_reports_delta_and_a_verdict_in_words():
    tuned = {q: 1.0 for q in QRELS}
    rows = tuning_baselines.against(tuned, {"a": A, "same": {q: {f"d{q[1:]}": 1.0} for q in QRELS}},
                                    QRELS, "mrr")
    by = {r["baseline"]: r for r in rows}
    assert by["a"]["baseline_score"] == pytest.approx((3 * 1 + 3 * 0.5) / 6)  # RR 1 or 1/2
    assert by["a"]["delta"] == pytest.approx(0.25)
    assert by["same"]["delta"] == 0 and by["same"]["verdict"].startswith("tuned is not distinguishable")
    assert by["a"]["verdict"].startswith("tuned is")


def test_every_delta_has_a_bootstrap_interval():
    tuned = {q: 1.0 for q in QRELS}
    row = tuning_baselines.against(tuned, {"a": A}, QRELS, "mrr")[0]
    assert row["n"] == 6 and row["delta_lo"] <= row["delta"] <= row["delta_hi"]
    assert row["delta_lo"] >= 0  # the tuned side never loses a query here


def _row(delta, lo, hi, p, significant=True):
    return {"baseline": "project default: hybrid-wrrf", "baseline_score": 0.5, "tuned_cv": 0.5 + delta,
            "delta": delta, "delta_lo": lo, "delta_hi": hi, "n": 40, "p": p, "significant": significant}


def test_a_change_is_recommended_only_when_significant_on_graded_queries():
    win = _row(0.1, 0.04, 0.16, 0.001)
    advice = tuning_baselines.recommend("wrrf(x)", win, probe=False)
    assert advice.change and advice.text.startswith("Recommended") and "+0.040" in advice.text
    on_probe = tuning_baselines.recommend("wrrf(x)", win, probe=True)
    assert not on_probe.change and "known-item probe" in on_probe.text
    noise = tuning_baselines.recommend("wrrf(x)", _row(0.05, -0.02, 0.12, 0.2, False), probe=False)
    assert not noise.change and noise.text.startswith("No change recommended")
    assert "-0.020 to +0.120" in noise.text and "40 queries" in noise.text
    assert not tuning_baselines.recommend("wrrf(x)", None, probe=False).change
    loss = tuning_baselines.recommend("wrrf(x)", _row(-0.06, -0.1, -0.02, 0.01), probe=False)
    assert not loss.change and "significantly worse" in loss.text
