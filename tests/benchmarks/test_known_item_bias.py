"""benchmarks/known_item_bias.py: rank correlation by hand, the headline ratio, and a whole
(tiny) measurement with the fake embedder."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import known_item_bias as kib  # noqa: E402


def test_the_same_ranking_correlates_one_and_the_reversed_minus_one():
    graded = {"a": 0.9, "b": 0.5, "c": 0.1}
    assert kib.correlate(graded, {"a": 0.8, "b": 0.7, "c": 0.0}) == pytest.approx((1.0, 1.0))
    assert kib.correlate(graded, {"a": 0.1, "b": 0.5, "c": 0.9}) == pytest.approx((-1.0, -1.0))
    # one swap of three: tau = (2 - 1) / 3, rho = 1 - 6 * 2 / (3 * 8)
    assert kib.correlate(graded, {"a": 0.9, "b": 0.1, "c": 0.5}) == pytest.approx((1 / 3, 0.5))


def test_kept_is_best_distilled_over_best_verbatim():
    ratio, best = kib.kept({"bm25:verbatim": 0.8, "hnsw:core": 0.6, "bm25:core": 0.4, "hybrid-rrf": 0.9})
    assert ratio == pytest.approx(0.75) and best == "hybrid-rrf"


def test_a_tiny_palace_is_measured_for_both_sources(tmp_path, monkeypatch):
    import lab_palaces

    palace = lab_palaces.build(tmp_path / "p.db")
    monkeypatch.setattr(kib, "mode_mrr", _counting(kib.mode_mrr))
    rows = kib.measure(palace, "sample", 2, n=6, seeds=1, embedder="fake")
    assert [r["source"] for r in rows] == ["dialogue", "verbatim"]
    for row in rows:
        assert row["graded_queries"] == len(lab_palaces.RELEVANT) and row["known_item_queries"] >= 1
        assert -1.0 <= row["kendall_tau"] <= 1.0 or row["kendall_tau"] != row["kendall_tau"]
    table = kib.markdown(rows)
    assert table.count("\n| sample | ") == 2 and "Kendall tau" in table


def _counting(fn):
    def wrapped(engine, queries, qrels, modes, rel):
        assert queries and set(qrels) <= {q["query_id"] for q in queries}
        return fn(engine, queries, qrels, modes, rel)
    return wrapped
