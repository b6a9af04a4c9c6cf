"""Fusion knobs, live: two pure runs fused with any weight and RRF constant, without searching
again, and a cross-validated grid over weight × k.

The pure runs come from the engine at :data:`DEPTH` (as :class:`~palace_lab.search.SearchEngine`
runs the parts of a fused mode), are fused here with :mod:`palace_lab.search.fusion` and cut to
the top ``cut`` (10), so ``rrf`` and ``wsum`` give exactly what the engine returns for the same
mode string.

The grid searches *weighted* reciprocal rank fusion, ``wRRF(d) = w·1/(k + rank_A(d)) +
(1 − w)·1/(k + rank_B(d))`` (RRF of Cormack et al. 2009 with per-run weights, as in Bruch et al.
2023, "An analysis of fusion functions for hybrid retrieval", ACM TOIS 42(1)). At ``w = 0.5`` it
ranks exactly as ``rrf(A,B;k=K)``. It is the mode language's ``wrrf``
(:func:`palace_lab.search.fusion.wrrf`), so every point of the grid is a mode string that can be
typed into a search. Cross-validation is
:func:`palace_lab.evaluate.sweep.tune` (k folds over queries), so the in-sample best and the
held-out score stand side by side.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from palace_lab.evaluate.base import Qrels, Run
from palace_lab.evaluate.metrics import evaluate
from palace_lab.evaluate.sweep import Tuning, tune
from palace_lab.search import fusion
from palace_lab.search.engine import MIN_DEPTH

DEPTH = MIN_DEPTH  # the depth the engine runs a fused mode's parts at
CUT = 10
METRICS = ("mrr", "p@1", "ndcg@10", "mean_grade@10")
WEIGHTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
KS = (1, 5, 10, 20, 40, 60, 100)
MIN_GRID_QUERIES = 2  # k-fold CV needs 2 <= folds <= queries


def _cut(scores: Mapping[str, float], cut: int) -> dict[str, float]:
    return dict(fusion.rank_order(scores)[:cut])


def fused(a: Run, b: Run, method: str, *, weight: float = 0.5, k: float = 60,
          norm: str | None = None, cut: int = CUT) -> Run:
    """Runs ``a`` and ``b`` fused per query by ``rrf``, ``wsum`` or ``wrrf`` (weights ``weight`` and
    ``1 − weight``) and cut to ``cut``."""
    out: Run = {}
    for qid in sorted(set(a) | set(b)):
        parts = [a.get(qid, {}), b.get(qid, {})]
        scores = fusion.fuse(method, parts, weights=[weight, 1.0 - weight], k=k, norm=norm)
        out[qid] = _cut(scores, cut)
    return out


def mode_strings(a: str, b: str, *, weight: float, k: float, norm: str) -> dict[str, str]:
    """What each fused row is, as the mode string that searches it."""
    return {"rrf": f"rrf({a},{b};k={k:g})",
            "wsum": f"wsum({a}={weight:g},{b}={1 - weight:g};norm={norm})",
            "wrrf": _point_name(a, b, {"w": weight, "k": k})}


def live_rows(a_name: str, b_name: str, a: Run, b: Run, qrels: Qrels, *, weight: float, k: float,
              norm: str = "minmax", metrics: Sequence[str] = METRICS) -> list[dict]:
    """Metrics of A alone, B alone and the three fusions at the chosen knobs."""
    names = mode_strings(a_name, b_name, weight=weight, k=k, norm=norm)
    runs = {a_name: {q: _cut(r, CUT) for q, r in a.items()},
            b_name: {q: _cut(r, CUT) for q, r in b.items()},
            names["rrf"]: fused(a, b, "rrf", k=k),
            names["wsum"]: fused(a, b, "wsum", weight=weight, norm=norm),
            names["wrrf"]: fused(a, b, "wrrf", weight=weight, k=k)}
    return [{"mode": mode, **evaluate(qrels, run, list(metrics))} for mode, run in runs.items()]


def grid_search(a_name: str, b_name: str, a: Run, b: Run, qrels: Qrels, *,
                weights: Sequence[float] = WEIGHTS, ks: Sequence[float] = KS,
                metric: str = "mrr", folds: int = 5, seed: int = 0) -> Tuning:
    """Weighted RRF over ``weights`` × ``ks``, chosen by ``metric`` with k-fold CV."""
    folds = max(2, min(folds, len(qrels)))
    points = [{"w": w, "k": k} for w in weights for k in ks]
    names = {_point_name(a_name, b_name, p): p for p in points}
    cache: dict[str, Run] = {}

    def run_mode(name: str) -> Run:
        if name not in cache:
            p = names[name]
            cache[name] = fused(a, b, "wrrf", weight=p["w"], k=p["k"])
        return cache[name]

    return tune(run_mode, lambda p: _point_name(a_name, b_name, p), points, qrels,
                metric=metric, folds=folds, seed=seed)


def _point_name(a_name: str, b_name: str, p: Mapping) -> str:
    return f"wrrf({a_name}={p['w']:g},{b_name}={1 - p['w']:g};k={p['k']:g})"


def grid_matrix(tuning: Tuning) -> tuple[list[float], list[float], list[list[float]]]:
    """``(weights, ks, scores[weight][k])`` of a weight × k grid, for a heatmap."""
    weights = sorted({g["params"]["w"] for g in tuning.grid_scores})
    ks = sorted({g["params"]["k"] for g in tuning.grid_scores})
    score = {(g["params"]["w"], g["params"]["k"]): g["score"] for g in tuning.grid_scores}
    return weights, ks, [[score[(w, k)] for k in ks] for w in weights]
