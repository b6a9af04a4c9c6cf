"""A tuned fusion against the baselines it must beat: the best verbatim-only mode and the
current search default.

The tuned figure compared is the *cross-validated* one (each query scored by the knobs chosen
on the other folds: :attr:`palace_lab.evaluate.sweep.Tuning.held_out`), so a grid that only fits noise
shows no gain. Per-query values of both sides go through the paired t-test of
:mod:`palace_lab.evaluate.stats`; ``significant`` is p < 0.05, and ``verdict`` says in words
whether the tuned fusion is better, worse or not distinguishable.
"""

from __future__ import annotations

from collections.abc import Mapping

from palace_lab.evaluate.base import Qrels, Run, check_qrels
from palace_lab.evaluate.metrics import per_query
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
        rows.append({"baseline": name, "baseline_score": r.mean_b, "tuned_cv": r.mean_a,
                     "delta": r.diff, "p": r.p_t, "significant": significant,
                     "verdict": f"tuned is {verdict}" + (f" (p = {r.p_t:.3f})" if r.p_t == r.p_t else "")})
    return rows
