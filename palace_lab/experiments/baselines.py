"""A tuned fusion against the baselines it must beat: the best verbatim-only mode and the
current search default.

The tuned figure compared is the *cross-validated* one (each query scored by the knobs chosen
on the other folds: :attr:`palace_lab.evaluate.sweep.Tuning.held_out`), so a grid that only fits noise
shows no gain. Per-query values of both sides go through the paired t-test of
:mod:`palace_lab.evaluate.stats`; ``significant`` is p < 0.05, and ``verdict`` says in words
whether the tuned fusion is better, worse or not distinguishable. Every delta carries its 95%
bootstrap interval over the queries (:mod:`palace_lab.evaluate.bootstrap`).

:func:`recommend` turns the row of the current default into advice: a change is recommended
only when the tuned fusion is significantly better than the current default (p < ALPHA and an
interval that excludes 0) on *graded* queries; on a known-item probe, or when the gain is not
significant, it says so and recommends no change.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from palace_lab.evaluate.base import Qrels, Run, check_qrels
from palace_lab.evaluate.metrics import per_query
from palace_lab.evaluate.bootstrap import paired_interval
from palace_lab.evaluate.stats import paired_result

VERBATIM_MODES = ("bm25:verbatim", "hnsw:verbatim", "verbatim-fusion")
ALPHA = 0.05


def against(tuned: Mapping[str, float], baselines: Mapping[str, Run], qrels: Qrels,
            metric: str) -> list[dict]:
    """One row per baseline: its mean, the tuned mean, the delta, p and a verdict in words."""
    rows = []
    for name, run in baselines.items():
        base = per_query(check_qrels(qrels), run, [metric])[metric]
        r = paired_result("tuned (cross-validated)", name, tuned, base)
        significant = r.p_t < ALPHA
        verdict = ("not distinguishable" if not significant or r.diff == 0
                   else "better" if r.diff > 0 else "worse")
        iv = paired_interval(tuned, base)
        rows.append({"baseline": name, "baseline_score": r.mean_b, "tuned_cv": r.mean_a,
                     "delta": r.diff, "delta_lo": iv.lo if iv else None,
                     "delta_hi": iv.hi if iv else None, "n": r.n, "p": r.p_t,
                     "significant": significant,
                     "verdict": f"tuned is {verdict}" + (f" (p = {r.p_t:.3f})" if r.p_t == r.p_t else "")})
    return rows


@dataclass(frozen=True)
class Recommendation:
    """Whether to change the search default, and why, in one sentence or two."""

    change: bool
    text: str


def _delta(row: Mapping) -> str:
    if row.get("delta_lo") is None:
        return f"{row['delta']:+.3f} (no interval: fewer than 2 queries)"
    return f"{row['delta']:+.3f} (95% interval {row['delta_lo']:+.3f} to {row['delta_hi']:+.3f})"


def recommend(tuned_mode: str, row: Mapping | None, *, probe: bool, metric: str = "mrr") -> Recommendation:
    """Advice on making ``tuned_mode`` the search default, from :func:`against`'s row of the
    current default (None when the tuned mode already is the default)."""
    if row is None:
        return Recommendation(False, f"`{tuned_mode}` already is the search default: nothing to change.")
    base = row["baseline"].split(": ", 1)[-1]
    gap = (f"cross-validated {metric} {row['tuned_cv']:.3f} vs {row['baseline_score']:.3f} for "
           f"`{base}`: {_delta(row)}, paired t-test p = {row['p']:.3f}, {row['n']} queries")
    if probe:
        return Recommendation(False, "No change recommended: these are known-item probe queries, "
                              "which copy the exchanges' own words and favour verbatim search; a "
                              f"default tuned on them may lose on real questions ({gap}). Tune on "
                              "a graded set: grade your own questions on **Grade your questions**.")
    interval_clear = row.get("delta_lo") is not None and row["delta_lo"] > 0
    if row["significant"] and row["delta"] > 0 and interval_clear:
        return Recommendation(True, f"Recommended: `{tuned_mode}` beats the current default ({gap}).")
    if row["significant"] and row["delta"] < 0:
        return Recommendation(False, "No change recommended: the tuned fusion is significantly "
                              f"worse than the current default ({gap}). Keep the default.")
    return Recommendation(False, f"No change recommended: the tuned fusion is not significantly "
                          f"better than the current default ({gap}). Keep the default, or grade "
                          "more questions to tell them apart.")
