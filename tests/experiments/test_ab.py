"""A/B sessions: query ids, pooled grades, live metrics computed by hand, the history."""

from __future__ import annotations

import math

import pytest

import lab_palaces
from palace_lab.errors import InputError
from palace_lab.experiments import ab
from palace_lab.model import Hit


def hit(eid: str, rank: int) -> Hit:
    return Hit(eid, "c", 0, 1, rank, 1.0 / rank, eid)


def test_query_id_ignores_case_and_spacing():
    assert ab.lab_query_id("Connection  pool\ttimeout") == ab.lab_query_id(" connection pool TIMEOUT ")
    assert ab.lab_query_id("pool") != ab.lab_query_id("pools")
    assert ab.lab_query_id("x").startswith("lab-")


def test_live_metrics_by_hand():
    hits = [hit("a", 1), hit("b", 2), hit("c", 3)]
    judged = {"b": 3, "c": 1, "z": 2}
    m = ab.live_metrics(judged, hits)
    assert m["mrr"] == 0.5  # first grade >= 2 at rank 2
    assert m["p@1"] == 0.0
    dcg = 3 / math.log2(3) + 1 / math.log2(4)
    idcg = 3 + 2 / math.log2(3) + 1 / math.log2(4)
    assert m["ndcg@10"] == pytest.approx(dcg / idcg)
    assert m["mean_grade@10"] == pytest.approx(4 / 3)
    assert m["judged@10"] == pytest.approx(2 / 3)


def test_pooled_union_in_best_rank_order():
    r = ab.ABResult("q", "text", "A", "B", (hit("a", 1), hit("b", 2)), (hit("b", 1), hit("c", 2)))
    assert r.pooled == ["a", "b", "c"] and r.overlap == 1


def test_a_grade_counts_for_both_sides_and_can_be_cleared(tmp_path):
    palace = lab_palaces.build(tmp_path / "p.db", judged=False)
    from palace_lab.search import SearchEngine

    engine = SearchEngine(palace, embedder="fake")
    result = ab.run_ab(engine.search, "connection pool timeout", "bm25:verbatim", "hnsw:core")
    qid = ab.remember_query(palace, result.query)
    ab.remember_query(palace, result.query.upper())  # same id: stored once
    assert [q["query_id"] for q in palace.queries(ab.LAB_SET)] == [qid]
    pool = lab_palaces.exchange_ids(palace)["pool"]
    assert pool in {h.exchange_id for h in result.hits_a} & {h.exchange_id for h in result.hits_b}
    before = ab.live_metrics(ab.grades(palace, qid), result.hits_b)["mrr"]
    ab.grade(palace, qid, pool, 3)
    assert palace.qrels(judge="human") == {qid: {pool: 3}}
    judged = ab.grades(palace, qid)
    assert before == 0.0
    assert ab.live_metrics(judged, result.hits_a)["mrr"] == 1.0
    rank_b = [h.exchange_id for h in result.hits_b].index(pool) + 1
    assert ab.live_metrics(judged, result.hits_b)["mrr"] == 1.0 / rank_b
    assert ab.history(palace) == [{"query_id": qid, "query": "connection pool timeout",
                                   "created_at": ab.history(palace)[0]["created_at"], "graded": 1}]
    ab.grade(palace, qid, pool, None)
    assert ab.grades(palace, qid) == {}


def test_an_empty_query_is_refused():
    with pytest.raises(InputError, match="empty"):
        ab.run_ab(lambda *a: [], "   ", "bm25:verbatim", "hnsw:core")


def test_a_query_with_a_broken_character_is_searched_and_remembered(tmp_path):
    """What the lab's search helper (ui.ab.search) does with a lone surrogate: the engine's
    mending rule, so the query is searched, hashed and stored as ``pool \\ufffd timeout``.
    (AppTest and a browser cannot carry a lone surrogate; this is the same call path.)"""
    from palace_lab.search import SearchEngine

    palace = lab_palaces.build(tmp_path / "p.db", judged=False)
    engine = SearchEngine(palace, embedder="fake")
    result = ab.run_ab(engine.search, "pool \ud83d timeout", "bm25:verbatim", "hnsw:core")
    qid = ab.remember_query(palace, result.query)
    assert result.query == "pool \ufffd timeout" and qid == ab.lab_query_id("pool \ufffd timeout")
    assert [q["query"] for q in palace.queries(ab.LAB_SET)] == ["pool \ufffd timeout"]
    assert [h.exchange_id for h in result.hits_a] == [
        h.exchange_id for h in engine.search("pool \ufffd timeout", "bm25:verbatim")]
