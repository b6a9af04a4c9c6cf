"""Fusion knobs on cached runs: weighted RRF by hand, equality with the engine, the CV grid."""

from __future__ import annotations

import pytest

import lab_palaces
from palace_lab.experiments import fusion_tuning as ft
from palace_lab.evaluate.metrics import evaluate
from palace_lab.search import SearchEngine, fusion

A = {"q": {"d1": 9.0, "d2": 5.0, "d3": 1.0}}
B = {"q": {"d3": 0.9, "d1": 0.8}}


def test_weighted_rrf_by_hand():
    scores = fusion.wrrf([A["q"], B["q"]], [0.3, 0.7], k=60)
    assert scores["d1"] == pytest.approx(0.3 / 61 + 0.7 / 62)
    assert scores["d2"] == pytest.approx(0.3 / 62)
    assert scores["d3"] == pytest.approx(0.3 / 63 + 0.7 / 61)


def test_equal_weights_rank_as_plain_rrf():
    half = ft.fused(A, B, "wrrf", weight=0.5, k=10)
    plain = ft.fused(A, B, "rrf", k=10)
    assert list(half["q"]) == list(plain["q"])
    best = fusion.rank_order(fusion.rrf([A["q"], B["q"]], 10))[:1]
    assert ft.fused(A, B, "rrf", k=10, cut=1) == {"q": dict(best)}


def test_live_rows_match_what_the_engine_returns(tmp_path):
    palace = lab_palaces.build(tmp_path / "p.db")
    engine = SearchEngine(palace, embedder="fake")
    qrels = palace.qrels()
    texts = {q["query_id"]: q["query"] for q in palace.queries("sample")}
    a, b = (engine.run(texts, m, ft.DEPTH) for m in ("bm25:verbatim", "hnsw:core"))
    rows = {r["mode"]: r for r in ft.live_rows("bm25:verbatim", "hnsw:core", a, b, qrels, weight=0.3, k=20)}
    for mode in ("rrf(bm25:verbatim,hnsw:core;k=20)",
                 "wsum(bm25:verbatim=0.3,hnsw:core=0.7;norm=minmax)",
                 "wrrf(bm25:verbatim=0.3,hnsw:core=0.7;k=20)"):
        expected = evaluate(qrels, engine.run(texts, mode, 10), list(ft.METRICS))
        assert {m: rows[mode][m] for m in ft.METRICS} == pytest.approx(expected)


def test_grid_search_reports_cv_and_a_full_matrix(tmp_path):
    palace = lab_palaces.build(tmp_path / "p.db")
    engine = SearchEngine(palace, embedder="fake")
    qrels = palace.qrels()
    texts = {q["query_id"]: q["query"] for q in palace.queries("sample")}
    a, b = (engine.run(texts, m, ft.DEPTH) for m in ("bm25:verbatim", "hnsw:core"))
    result = ft.grid_search("bm25:verbatim", "hnsw:core", a, b, qrels, weights=[0.0, 0.5, 1.0],
                            ks=[1, 60], folds=10)
    assert len(result.folds) == 4  # folds capped at the number of judged queries
    weights, ks, scores = ft.grid_matrix(result)
    assert weights == [0.0, 0.5, 1.0] and ks == [1, 60] and len(scores) == 3 and len(scores[0]) == 2
    assert result.in_sample["score"] == max(max(row) for row in scores)
    assert 0.0 <= result.cv_score <= result.in_sample["score"] + 1e-12
