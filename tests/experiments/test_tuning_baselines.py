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
