"""Fusion and normalisers: values computed by hand from the formulas, and invariants."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from palace_lab.search import fusion

A = {"d1": 3.0, "d2": 2.0, "d3": 1.0}
B = {"d3": 0.9, "d4": 0.5, "d1": 0.1}


def test_rrf_by_hand():
    fused = fusion.rrf([A, B], k=60)
    assert fused["d1"] == pytest.approx(1 / (60 + 1) + 1 / (60 + 3))
    assert fused["d2"] == pytest.approx(1 / (60 + 2))
    assert fused["d3"] == pytest.approx(1 / (60 + 3) + 1 / (60 + 1))
    assert fused["d4"] == pytest.approx(1 / (60 + 2))
    assert fusion.rrf([A], k=0)["d1"] == 1.0


def test_rrf_ties_rank_by_doc_id():
    fused = fusion.rrf([{"b": 1.0, "a": 1.0}], k=60)
    assert fused["a"] == pytest.approx(1 / 61) and fused["b"] == pytest.approx(1 / 62)


def test_minmax_by_hand():
    assert fusion.minmax(A) == {"d1": 1.0, "d2": 0.5, "d3": 0.0}
    assert fusion.minmax({"x": 4.0, "y": 4.0}) == {"x": 1.0, "y": 1.0}
    assert fusion.minmax({}) == {}


def test_p95_by_hand():
    # numpy's linear percentile of [1, 2, 3]: position 0.95 * 2 = 1.9 → 2 + 0.9 * (3 - 2) = 2.9
    got = fusion.p95(A)
    assert got == pytest.approx({"d1": 3 / 2.9, "d2": 2 / 2.9, "d3": 1 / 2.9})
    assert fusion.p95({"x": 0.0, "y": 0.0}) == {"x": 1.0, "y": 1.0}  # q95 ≤ 0: min-max


def test_zscore_by_hand():
    got = fusion.zscore(A)  # mean 2, population std sqrt(2/3)
    s = math.sqrt(2 / 3)
    assert got == pytest.approx({"d1": 1 / s, "d2": 0.0, "d3": -1 / s})
    assert fusion.zscore({"x": 5.0}) == {"x": 0.0}


def test_wsum_by_hand():
    fused = fusion.wsum([A, B], [0.3, 0.7], norm="minmax")
    # minmax(B): d3 1.0, d4 0.5, d1 0.0
    assert fused["d1"] == pytest.approx(0.3 * 1.0 + 0.7 * 0.0)
    assert fused["d2"] == pytest.approx(0.3 * 0.5)
    assert fused["d3"] == pytest.approx(0.3 * 0.0 + 0.7 * 1.0)
    assert fused["d4"] == pytest.approx(0.7 * 0.5)
    assert fusion.wsum([A, B])["d3"] == pytest.approx(0.5)  # equal weights by default


def test_combmnz_by_hand():
    fused = fusion.combmnz([A, B], norm="p95")
    qa, qb = 2.9, 0.5 + 0.9 * (0.9 - 0.5)  # q95 of [0.1, 0.5, 0.9] = 0.86
    assert fused["d1"] == pytest.approx((3 / qa + 0.1 / qb) * 2)
    assert fused["d2"] == pytest.approx(2 / qa * 1)
    assert fused["d3"] == pytest.approx((1 / qa + 0.9 / qb) * 2)
    assert fused["d4"] == pytest.approx(0.5 / qb * 1)


def test_bad_arguments():
    with pytest.raises(ValueError, match="valid normalisers: minmax, p95, zscore"):
        fusion.wsum([A, B], norm="max")
    with pytest.raises(ValueError, match="one weight per run"):
        fusion.wsum([A, B], [1.0])
    with pytest.raises(ValueError, match="valid fusions"):
        fusion.fuse("borda", [A, B])


def test_fuse_dispatch():
    assert fusion.fuse("rrf", [A, B], k=10) == fusion.rrf([A, B], k=10)
    assert fusion.fuse("wsum", [A, B], weights=[0.5, 0.5], norm="p95") == \
        fusion.wsum([A, B], [0.5, 0.5], norm="p95")
    assert fusion.fuse("combmnz", [A, B]) == fusion.combmnz([A, B], norm="p95")


docs = st.sampled_from([f"d{i}" for i in range(8)])
scores = st.floats(min_value=0.01, max_value=100.0, allow_nan=False)
runs_strategy = st.lists(st.dictionaries(docs, scores, min_size=1, max_size=8), min_size=2,
                         max_size=4)


def _methods():
    return [
        ("rrf", lambda runs, w: fusion.rrf(runs, k=60)),
        ("wsum-minmax", lambda runs, w: fusion.wsum(runs, w, norm="minmax")),
        ("wsum-p95", lambda runs, w: fusion.wsum(runs, w, norm="p95")),
        ("wsum-zscore", lambda runs, w: fusion.wsum(runs, w, norm="zscore")),
        ("combmnz-p95", lambda runs, w: fusion.combmnz(runs, norm="p95")),
        ("combmnz-minmax", lambda runs, w: fusion.combmnz(runs, norm="minmax")),
    ]


@settings(max_examples=150, deadline=None)
@given(runs=runs_strategy, data=st.data())
def test_fusion_ignores_the_order_of_runs(runs, data):
    weights = [data.draw(st.floats(0.0, 1.0)) for _ in runs]
    order = data.draw(st.permutations(range(len(runs))))
    for name, method in _methods():
        forward = method(runs, weights)
        shuffled = method([runs[i] for i in order], [weights[i] for i in order])
        assert forward == shuffled, name


@settings(max_examples=150, deadline=None)
@given(runs=runs_strategy, data=st.data())
def test_fusion_is_monotone_in_a_docs_score(runs, data):
    which = data.draw(st.integers(0, len(runs) - 1))
    doc = data.draw(st.sampled_from(sorted(runs[which])))
    bump = data.draw(st.floats(0.0, 50.0))
    raised = [dict(r) for r in runs]
    raised[which][doc] += bump
    weights = [1.0 / len(runs)] * len(runs)
    for name, method in _methods():
        before, after = method(runs, weights)[doc], method(raised, weights)[doc]
        assert after >= before - 1e-9, name
