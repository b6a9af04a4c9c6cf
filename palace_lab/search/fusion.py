"""Fusion of runs: pure functions over plain runs ``{doc_id: score}`` (higher is better).

Invariants, for every method here:

- the result does not depend on the order of the input runs: per-document contributions are
  summed with :func:`math.fsum` (exactly rounded, hence order-free) and a weight travels with
  its run;
- a document's fused score never decreases when its score in one run increases (for rrf always;
  for the score-based methods with the normalisers below, on non-negative scores);
- a run's ranking, where needed, is by score descending, ties broken by doc id, so equal inputs
  always give equal outputs.

Normalisers map one run's scores to a common scale before score-based fusion (Montague &
Aslam 2001, "Relevance score normalization for metasearch").
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from palace_lab.errors import InputError
from palace_lab.model import rank_order  # (doc, score) best first, ties by id

Scores = Mapping[str, float]  # one query's {exchange_id: score}; a Run is one per query


def minmax(run: Scores) -> dict[str, float]:
    """(s − min) / (max − min) per run; a run whose scores are all equal maps to 1.0."""
    if not run:
        return {}
    lo, hi = min(run.values()), max(run.values())
    if hi == lo:
        return {d: 1.0 for d in run}
    return {d: (s - lo) / (hi - lo) for d, s in run.items()}


def p95(run: Scores) -> dict[str, float]:
    """s / q95, q95 the run's 95th percentile (linear interpolation), as the author's code.

    Scores above the 95th percentile exceed 1, so one outlier does not flatten the rest as it
    does under min-max. When q95 ≤ 0 (scores mostly zero or negative) the ratio is meaningless
    and :func:`minmax` is used instead.
    """
    if not run:
        return {}
    q = float(np.percentile(np.fromiter(run.values(), dtype=np.float64), 95))
    if q <= 0:
        return minmax(run)
    return {d: s / q for d, s in run.items()}


def zscore(run: Scores) -> dict[str, float]:
    """(s − mean) / std (population std) per run; 0.0 for every doc when std is 0."""
    if not run:
        return {}
    values = np.fromiter(run.values(), dtype=np.float64)
    mean, std = float(values.mean()), float(values.std())
    if std == 0:
        return {d: 0.0 for d in run}
    return {d: (s - mean) / std for d, s in run.items()}


NORMALISERS: dict[str, Callable[[Scores], dict[str, float]]] = {
    "minmax": minmax, "p95": p95, "zscore": zscore}


def get_normaliser(name: str) -> Callable[[Scores], dict[str, float]]:
    if name not in NORMALISERS:
        raise InputError(f"unknown normaliser {name!r}; "
                         f"valid normalisers: {', '.join(NORMALISERS)}")
    return NORMALISERS[name]


def _sum(contributions: dict[str, list[float]]) -> dict[str, float]:
    return {d: math.fsum(parts) for d, parts in contributions.items()}


def rrf(runs: Sequence[Scores], k: float = 60) -> dict[str, float]:
    """Reciprocal rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009).

    RRF(d) = Σ_{r ∈ runs, d ∈ r} 1 / (k + rank_r(d)), rank 1-based. A document absent from a
    run gets nothing from it.
    """
    return wrrf(runs, [1.0] * len(runs), k=k)  # every run weighing 1: the plain sum


def wrrf(runs: Sequence[Scores], weights: Sequence[float] | None = None, k: float = 60) -> dict[str, float]:
    """Weighted reciprocal rank fusion: WRRF(d) = Σ_r w_r / (k + rank_r(d)).

    Equal weights (1/n) rank exactly as :func:`rrf`; a weight leans the fusion towards a run
    without trusting its raw scores (ranks only, as RRF).
    """
    if k < 0:
        raise InputError(f"rrf k must be ≥ 0, got {k}")
    weights = [1.0 / len(runs)] * len(runs) if weights is None else list(weights)
    if len(weights) != len(runs):
        raise InputError(f"wrrf needs one weight per run: {len(runs)} runs, {len(weights)} weights")
    parts: dict[str, list[float]] = {}
    for run, weight in zip(runs, weights):
        for rank, (doc, _) in enumerate(rank_order(run), start=1):
            parts.setdefault(doc, []).append(weight / (k + rank))
    return _sum(parts)


def wsum(runs: Sequence[Scores], weights: Sequence[float] | None = None,
         norm: str = "minmax") -> dict[str, float]:
    """Weighted sum of normalised scores (weighted CombSUM, Fox & Shaw, TREC-2 1994).

    WSUM(d) = Σ_i w_i · norm(run_i)(d), a document absent from run i contributing 0. Equal
    weights 1/n when ``weights`` is None.
    """
    weights = [1.0 / len(runs)] * len(runs) if weights is None else list(weights)
    if len(weights) != len(runs):
        raise InputError(f"wsum needs one weight per run: {len(runs)} runs, {len(weights)} weights")
    normalise = get_normaliser(norm)
    parts: dict[str, list[float]] = {}
    for run, weight in zip(runs, weights):
        for doc, score in normalise(run).items():
            parts.setdefault(doc, []).append(weight * score)
    return _sum(parts)


def combmnz(runs: Sequence[Scores], norm: str = "p95") -> dict[str, float]:
    """CombMNZ (Fox & Shaw, TREC-2 1994) over normalised scores, p95 by default as the author.

    MNZ(d) = (Σ_{i: d ∈ run_i} norm(run_i)(d)) × |{i : d ∈ run_i}|.
    """
    normalise = get_normaliser(norm)
    parts: dict[str, list[float]] = {}
    for run in runs:
        for doc, score in normalise(run).items():
            parts.setdefault(doc, []).append(score)
    return {d: math.fsum(p) * len(p) for d, p in parts.items()}


@dataclass(frozen=True)
class Fusion:
    """One fusion method: its function, its parameters with their defaults (the mode string's
    ``;name=value`` part), whether its runs carry weights, and a line for ``palace-lab modes``."""

    function: Callable[..., dict[str, float]]
    params: Mapping[str, object]
    weights: bool
    description: str


# The one registry: the mode parser (search.modes) checks names, weights and parameters
# against it, and :func:`fuse` dispatches through it.
FUSIONS: dict[str, Fusion] = {
    "rrf": Fusion(rrf, {"k": 60.0}, False, "reciprocal rank fusion, Σ 1/(k + rank)"),
    "wrrf": Fusion(wrrf, {"k": 60.0}, True, "weighted reciprocal rank fusion, Σ w/(k + rank)"),
    "wsum": Fusion(wsum, {"norm": "minmax"}, True, "weighted sum of per-run normalised scores"),
    "combmnz": Fusion(combmnz, {"norm": "p95"}, False,
                      "CombMNZ: sum of normalised scores × runs that retrieved the doc"),
}


def get_fusion(name: str) -> Fusion:
    if name not in FUSIONS:
        raise InputError(f"unknown fusion {name!r}; valid fusions: {', '.join(FUSIONS)}")
    return FUSIONS[name]


def fuse(method: str, runs: Sequence[Scores], *, weights: Sequence[float] | None = None,
         **params) -> dict[str, float]:
    """Fuse ``runs`` by the method named ``method`` with its parameters: a parameter given as
    None, or not given, takes the method's default; one the method does not take is ignored (a
    sweep passes one set to every method); ``weights`` only reach a weighted method."""
    spec = get_fusion(method)
    chosen = {name: default if params.get(name) is None else params[name]
              for name, default in spec.params.items()}
    if spec.weights:
        return spec.function(runs, weights, **chosen)
    return spec.function(runs, **chosen)
