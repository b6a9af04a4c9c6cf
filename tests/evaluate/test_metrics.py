"""Metrics against values computed by hand from the formulas in palace_lab.evaluate.metrics."""

import math

import pytest
from hypothesis import given, strategies as st

from palace_lab.evaluate import coverage, evaluate, parse_metric, per_query, ranked

# q1 ranks: b (grade 1), e (unjudged), a (3), c (0); d (2) is never retrieved.
# q2 ranks: y, z (unjudged), x (2).  q3: n (0) only; its qrels hold no grade >= 2.
QRELS = {"q1": {"a": 3, "b": 1, "c": 0, "d": 2}, "q2": {"x": 2}, "q3": {"n": 0, "m": 1}}
RUN = {
    "q1": {"b": 0.9, "e": 0.8, "a": 0.7, "c": 0.6},
    "q2": {"y": 0.5, "z": 0.4, "x": 0.3},
    "q3": {"n": 1.0},
}


def values(metric):
    return per_query(QRELS, RUN, [metric])[metric]


def test_mrr_counts_grade_two_and_up_as_relevant():
    assert values("mrr") == {"q1": 1 / 3, "q2": 1 / 3, "q3": 0.0}
    assert evaluate(QRELS, RUN, "mrr") == {"mrr": pytest.approx((1 / 3 + 1 / 3 + 0) / 3)}


def test_mrr_relevance_level_suffix_and_override():
    assert values("mrr-l1") == {"q1": 1.0, "q2": 1 / 3, "q3": 0.0}
    assert per_query(QRELS, RUN, ["mrr"], rel_level=3)["mrr"] == {"q1": 1 / 3, "q2": 0.0, "q3": 0.0}


def test_mrr_with_cutoff():
    assert values("mrr@2") == {"q1": 0.0, "q2": 0.0, "q3": 0.0}


def test_precision_divides_by_k_even_when_the_run_is_shorter():
    assert values("p@1") == {"q1": 0.0, "q2": 0.0, "q3": 0.0}
    assert values("p@3") == {"q1": 1 / 3, "q2": 1 / 3, "q3": 0.0}
    assert values("p@10") == {"q1": 1 / 10, "q2": 1 / 10, "q3": 0.0}
    assert values("precision@3") == values("p@3")


def test_ndcg_linear_gain_by_hand():
    # q1: DCG = 1/log2(2) + 3/log2(4) = 2.5; IDCG over grades 3,2,1,0 = 3 + 2/log2(3) + 1/log2(4)
    q1 = (1 + 3 / 2) / (3 + 2 / math.log2(3) + 1 / 2)
    # q2: DCG = 2/log2(4) = 1, IDCG = 2.  q3: IDCG = 1 (grade 1), DCG = 0.
    assert values("ndcg@10") == pytest.approx({"q1": q1, "q2": 0.5, "q3": 0.0})
    assert values("ndcg") == pytest.approx(values("ndcg@10"))
    assert values("ndcg@2")["q1"] == pytest.approx(1 / (3 + 2 / math.log2(3)))


def test_ndcg_burges_exponential_gain_by_hand():
    q1 = (1 + 7 / 2) / (7 + 3 / math.log2(3) + 1 / 2)
    assert values("ndcg_burges@10") == pytest.approx({"q1": q1, "q2": (3 / 2) / 3, "q3": 0.0})


def test_ndcg_level_drops_lower_grades_from_the_gains():
    # -l2: b (grade 1) earns nothing; ideal grades 3,2 -> IDCG = 3 + 2/log2(3)
    assert values("ndcg@10-l2")["q1"] == pytest.approx((3 / 2) / (3 + 2 / math.log2(3)))


def test_k_larger_than_the_run_is_the_whole_run():
    assert values("ndcg@100") == pytest.approx(values("ndcg@10"))
    assert values("recall@100") == values("recall@10")


def test_recall():
    assert values("recall@10") == {"q1": 1 / 2, "q2": 1.0, "q3": 0.0}
    assert values("recall@2") == {"q1": 0.0, "q2": 0.0, "q3": 0.0}


def test_mean_grade_counts_unjudged_as_zero_over_the_results_shown():
    assert values("mean_grade@3") == pytest.approx({"q1": 4 / 3, "q2": 2 / 3, "q3": 0.0})
    assert values("mean_grade@1") == pytest.approx({"q1": 1.0, "q2": 0.0, "q3": 0.0})
    assert values("mean_grade@10") == pytest.approx({"q1": 1.0, "q2": 2 / 3, "q3": 0.0})


def test_judged_fraction():
    assert values("judged@2") == pytest.approx({"q1": 1 / 2, "q2": 0.0, "q3": 1.0})
    assert values("judged@10") == pytest.approx({"q1": 3 / 4, "q2": 1 / 3, "q3": 1.0})


def test_query_missing_from_the_run_scores_zero_and_extra_run_queries_are_ignored():
    qrels = {"q1": {"a": 3}, "q9": {"z": 2}}
    run = {"q1": {"a": 1.0}, "extra": {"a": 1.0}}
    assert per_query(qrels, run, ["mrr", "mean_grade@10", "judged@10"]) == {
        "mrr": {"q1": 1.0, "q9": 0.0},
        "mean_grade@10": {"q1": 3.0, "q9": 0.0},
        "judged@10": {"q1": 1.0, "q9": 0.0},
    }
    cov = coverage(qrels, run)
    assert cov.missing_from_run == ("q9",) and cov.not_in_qrels == ("extra",)


def test_coverage_counts_unjudged_and_queries_without_relevant_exchanges():
    cov = coverage(QRELS, RUN, 10)
    assert cov.no_relevant == ("q3",)
    assert (cov.retrieved, cov.unjudged) == (8, 3)
    assert cov.to_dict()["judged_fraction"] == pytest.approx(5 / 8)


def test_ties_rank_by_exchange_id_ascending_as_the_engine_shows():
    assert ranked({"b": 1.0, "a": 1.0, "c": 2.0}) == ["c", "a", "b"]
    assert evaluate({"q": {"b": 2}}, {"q": {"b": 1.0, "a": 1.0}}, "mrr") == {"mrr": 0.5}


def test_evaluate_always_returns_a_dict():
    assert set(evaluate(QRELS, RUN, "p@1")) == {"p@1"}


@pytest.mark.parametrize("bad, message", [
    ("foo@10", "valid metrics: judged, mean_grade, mrr, ndcg"),
    ("p", "needs a cut-off"),
    ("ndcg@0", "at least 1"),
    ("mean_grade@5-l2", "takes no relevance level"),
    ("mrr-l4", "must be 1, 2 or 3"),
    ("ndcg@ten", "cannot read metric"),
])
def test_metric_name_errors(bad, message):
    with pytest.raises(ValueError, match=message):
        parse_metric(bad)


def test_metric_names_parse():
    m = parse_metric("NDCG@10")
    assert (m.family, m.k, m.rel_level) == ("ndcg", 10, 1)
    assert parse_metric("p@1").rel_level == 2
    assert parse_metric("mrr-l3").rel_level == 3


def test_bad_grades_and_empty_qrels_are_refused():
    with pytest.raises(ValueError, match="q1/a"):
        evaluate({"q1": {"a": 5}}, RUN, "mrr")
    with pytest.raises(ValueError, match="no query"):
        evaluate({}, RUN, "mrr")


@given(st.permutations(list(RUN["q1"].items())))
def test_metrics_do_not_depend_on_the_order_of_the_run_dict(items):
    shuffled = {**RUN, "q1": dict(items)}
    metrics = ["mrr", "p@1", "ndcg@10", "mean_grade@3", "judged@3"]
    assert per_query(QRELS, shuffled, metrics) == per_query(QRELS, RUN, metrics)
