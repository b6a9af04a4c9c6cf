"""Paired tests, effect sizes and corrections: by hand and against scipy called directly."""

import json
import math
import statistics

import pytest
from scipy import stats as sp

from palace_lab.evaluate.stats import (
    bonferroni, cohens_d, compare, compare_values, holm, paired_t, wilcoxon,
)

A = [0.5, 1.0, 0.25, 1.0]
B = [0.25, 0.5, 0.25, 0.5]  # differences 0.25, 0.5, 0, 0.5


def test_paired_t_by_hand_and_against_scipy():
    diffs = [0.25, 0.5, 0.0, 0.5]
    mean, sd = statistics.mean(diffs), statistics.stdev(diffs)  # sd with n - 1
    t, p = paired_t(A, B)
    assert t == pytest.approx(mean / (sd / math.sqrt(4)))
    assert t == pytest.approx(2.611164839335468)
    expected = sp.ttest_rel(A, B)
    assert (t, p) == pytest.approx((expected.statistic, expected.pvalue))


def test_wilcoxon_against_scipy_drops_zero_differences():
    xs = [0.9, 0.4, 0.7, 0.2, 1.0, 0.5, 0.33, 0.25]
    ys = [0.5, 0.5, 0.2, 0.2, 0.33, 0.1, 0.5, 1.0]
    w, p = wilcoxon(xs, ys)
    expected = sp.wilcoxon(xs, ys, zero_method="wilcox")
    assert (w, p) == pytest.approx((expected.statistic, expected.pvalue))


def test_all_zero_differences_give_p_one():
    assert paired_t(A, A) == (0.0, 1.0)
    assert wilcoxon(A, A) == (0.0, 1.0)
    assert cohens_d(A, A) == 0.0


def test_cohens_d_by_hand():
    # mean(d) = 0.3125, sd(d) = sqrt(0.171875 / 3)
    assert cohens_d(A, B) == pytest.approx(0.3125 / math.sqrt(0.171875 / 3))
    assert cohens_d(B, A) == pytest.approx(-cohens_d(A, B))


def test_cohens_d_degenerate_cases():
    assert math.isnan(cohens_d([1.0], [0.0]))
    assert cohens_d([1.0, 2.0], [0.0, 1.0]) == math.inf  # constant non-zero difference


def test_bonferroni_by_hand():
    assert bonferroni({"a": 0.01, "b": 0.04, "c": 0.03}) == pytest.approx({"a": 0.03, "b": 0.12, "c": 0.09})
    assert bonferroni({"a": 0.6, "b": 0.01}) == pytest.approx({"a": 1.0, "b": 0.02})


def test_holm_by_hand():
    # sorted: a .01 x3 = .03; c .03 x2 = .06; b .04 x1 = .04 -> raised to .06 (monotone)
    assert holm({"a": 0.01, "b": 0.04, "c": 0.03}) == pytest.approx({"a": 0.03, "b": 0.06, "c": 0.06})
    assert holm({"a": 0.01, "b": 0.02, "c": 0.025}) == pytest.approx({"a": 0.03, "b": 0.04, "c": 0.04})
    assert holm({"a": 0.5, "b": 0.9}) == pytest.approx({"a": 1.0, "b": 1.0})


QRELS = {f"q{i}": {"rel": 2} for i in range(6)}


def run_with_rank(ranks):
    """A run whose relevant exchange sits at the given rank per query (None: not retrieved)."""
    run = {}
    for i, rank in enumerate(ranks):
        docs = {f"n{j}": 1.0 - j / 10 for j in range(5)}
        if rank is not None:
            docs = {d: s for d, s in docs.items() if d != f"n{rank - 1}"} | {"rel": 1.0 - (rank - 1) / 10}
        run[f"q{i}"] = docs
    return run


def test_compare_against_a_baseline_corrects_over_the_family():
    runs = {
        "base": run_with_rank([2, 2, 3, None, 2, 4]),
        "good": run_with_rank([1, 1, 1, 1, 1, 2]),
        "same": run_with_rank([2, 2, 3, None, 2, 4]),
    }
    report = compare(runs, QRELS, "mrr", baseline="base", correction="bonferroni")
    assert [(r.a, r.b) for r in report.rows] == [("good", "base"), ("same", "base")]
    good = report.rows[0]
    raw = sp.ttest_rel([1, 1, 1, 1, 1, 0.5], [0.5, 0.5, 1 / 3, 0, 0.5, 0.25]).pvalue
    assert good.p_t == pytest.approx(raw)
    assert good.p_t_adj == pytest.approx(min(1.0, 2 * raw))
    assert report.rows[1].p_t_adj == 1.0 and report.rows[1].zero_diffs == 6
    assert any("every per-query difference is 0" in n for n in report.notes)
    matrix = report.matrix()
    assert matrix["good"]["base"] == matrix["base"]["good"] == good.p_t_adj
    assert matrix["good"]["same"] is None


def test_compare_all_pairs_and_renderings():
    runs = {"a": run_with_rank([1, 2, 1, 3, 1, 1]), "b": run_with_rank([2, 2, 3, 3, None, 1]),
            "c": run_with_rank([1, 1, 1, 1, 1, 1])}
    report = compare(runs, QRELS, "mrr", test="wilcoxon")
    assert len(report.rows) == 3
    json.dumps(report.to_dict(), allow_nan=False)
    assert report.to_markdown().count("\n| ") >= 4
    assert "| mode | a | b | c |" in report.matrix_markdown()
    assert list(report.to_dataframe().columns)[:2] == ["a", "b"]
    assert report.to_csv().startswith("a,b,n,")


def test_compare_errors_name_the_valid_choices():
    runs = {"a": run_with_rank([1] * 6), "b": run_with_rank([2] * 6)}
    with pytest.raises(ValueError, match="valid: holm, bonferroni, none"):
        compare(runs, QRELS, correction="sidak")
    with pytest.raises(ValueError, match="valid: t, wilcoxon"):
        compare(runs, QRELS, test="sign")
    with pytest.raises(ValueError, match="baseline 'z'"):
        compare(runs, QRELS, baseline="z")
    with pytest.raises(ValueError, match="at least two"):
        compare({"a": runs["a"]}, QRELS)


def test_compare_values_pairs_on_shared_queries():
    report = compare_values({"a": {"q1": 1.0, "q2": 0.5}, "b": {"q1": 0.5, "q2": 0.5}}, "mrr")
    assert report.rows[0].n == 2 and report.rows[0].diff == pytest.approx(0.25)
