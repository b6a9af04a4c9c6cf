"""The paper's figures have one home; what is derived from them agrees with them."""

from __future__ import annotations

import pytest

from palace_lab import budget, paper


def test_derived_retrieval_figures_agree_with_the_reported_ones():
    r = paper.RETRIEVAL
    assert r["best_distilled_value"] / r["best_verbatim_value"] == pytest.approx(
        r["distilled_over_verbatim"], abs=0.005)
    assert r["best_cross_value"] - r["best_verbatim_value"] == pytest.approx(r["cross_gain"])
    assert paper.RETRIEVAL_TEXT == ("Paper: best distilled 0.717 / best verbatim 0.745 = 96%; "
                                    "best cross-layer 0.759 (+0.014).")
    assert paper.REFERENCE_LINES == {"paper: best verbatim 0.745": 0.745,
                                     "paper: best distilled 0.717": 0.717}


def test_budget_reports_the_papers_figures_and_prices_from_the_one_table():
    from palace_lab.llm.cost import PRICES_USD_PER_MTOK

    assert paper.BUDGET["source"] == paper.SOURCE
    assert budget.DEFAULT_PRICES == {"claude-haiku-4-5": 1.0, "claude-sonnet-4-5": 3.0,
                                     "claude-opus-4-1": 15.0}
    assert set(budget.DEFAULT_PRICES) == set(PRICES_USD_PER_MTOK)
