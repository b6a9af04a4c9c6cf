"""Fleiss' kappa against examples computed by hand, and the agreement of grader qrels."""

import math

import pytest

from palace_lab.evaluate.grader import agreement, fleiss_kappa, rating_counts

# The worked example of Fleiss' kappa on Wikipedia ("Fleiss' kappa", Worked example): 10
# subjects, 14 raters, 5 categories; P-bar = 0.378, P-e = 0.213, kappa = 0.210.
WIKIPEDIA = [
    [0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7],
]


def test_worked_example():
    assert fleiss_kappa(WIKIPEDIA) == pytest.approx(0.2099, abs=5e-4)


def test_small_example_by_hand():
    # 3 subjects, 3 raters, 2 categories. p = (5/9, 4/9); P_i = 1, 1, (4 + 1 - 3) / 6 = 1/3;
    # P-bar = 7/9; P-e = 25/81 + 16/81 = 41/81; kappa = (63/81 - 41/81) / (40/81) = 22/40.
    assert fleiss_kappa([[3, 0], [0, 3], [2, 1]]) == pytest.approx(0.55)


def test_perfect_agreement_over_two_categories_is_one():
    assert fleiss_kappa([[2, 0], [0, 2]]) == pytest.approx(1.0)


def test_every_rating_in_one_category_is_undefined():
    assert math.isnan(fleiss_kappa([[3, 0], [3, 0]]))


def test_rows_must_hold_the_same_number_of_ratings():
    with pytest.raises(ValueError, match="same number"):
        fleiss_kappa([[2, 0], [1, 2]])
    with pytest.raises(ValueError, match="same number"):
        fleiss_kappa([[1, 0]])
    with pytest.raises(ValueError, match="at least one"):
        fleiss_kappa([])


def test_agreement_of_graders_uses_pairs_every_grader_graded():
    by_judge = {
        "llm:a": {"q1": {"x": 3, "y": 0}, "q2": {"z": 2}},
        "llm:b": {"q1": {"x": 3, "y": 1}, "q2": {"z": 2, "extra": 1}},
        "llm:c": {"q1": {"x": 2, "y": 0}, "q2": {"z": 2}},
    }
    counts, pairs = rating_counts(by_judge)
    assert pairs == [("q1", "x"), ("q1", "y"), ("q2", "z")]
    assert counts == [[0, 0, 1, 2], [2, 1, 0, 0], [0, 0, 3, 0]]
    result = agreement(by_judge)
    assert result["pairs"] == 3 and result["all_agree"] == pytest.approx(1 / 3)
    # p = (2, 1, 4, 2)/9, P_i = 1/3, 1/3, 1 -> (5/9 - 25/81) / (1 - 25/81) = 20/56
    assert result["fleiss_kappa"] == pytest.approx(20 / 56)
