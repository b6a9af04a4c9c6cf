"""Many modes at once: rank mode strings, tune fusion knobs honestly, pool results for judging.

- :func:`sweep` evaluates a list of mode strings through a ``run_mode(mode) -> Run`` callable
  (``lambda m: engine.run(queries, m, k)``) and ranks them on one metric.
- :func:`tune` picks fusion parameters (weights, the RRF constant k) by grid search and reports
  the choice with k-fold cross-validation over *queries*: for every fold the parameters are
  chosen on the other folds and scored on the held-out one. The cross-validated score is the
  mean over all queries of their held-out values (each query is held out once); next to it
  stands the in-sample best (chosen and scored on all queries). The gap between the two is the
  optimism of tuning on the test queries, i.e. how much of the "best" is over-fitting.
- :func:`pool` is what the person still has to grade to compare two modes fairly: the union of
  both top-k lists per query, minus the pairs already judged (TREC-style depth-k pooling).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from palace_lab.errors import InputError, PalaceError
from palace_lab.evaluate.base import Qrels, Run, check_qrels, top_k
from palace_lab.evaluate.metrics import coverage, per_query
from palace_lab.evaluate.stats import Comparison, compare_values
from palace_lab.evaluate.table import csv_text, json_safe, markdown

RunMode = Callable[[str], Run]
SWEEP_METRICS = ("mrr", "p@1", "ndcg@10", "mean_grade@10", "judged@10")


# ---------------------------------------------------------------------------------- sweep


@dataclass(frozen=True)
class Sweep:
    """Modes ranked on ``rank_by``; ``values`` keeps ``{mode: {metric: {qid: value}}}``."""

    rank_by: str
    metrics: tuple[str, ...]
    rows: tuple[dict, ...]
    values: dict[str, dict[str, dict[str, float]]]
    errors: dict[str, str] = field(default_factory=dict)

    @property
    def columns(self) -> list[str]:
        return ["rank", "mode", *self.metrics, "unjudged@10"]

    def compare(self, metric: str | None = None, baseline: str | None = None, **options) -> Comparison:
        """Paired tests between the swept modes on per-query values already computed."""
        metric = metric or self.rank_by
        return compare_values({m: v[metric] for m, v in self.values.items()}, metric, baseline, **options)

    def to_dict(self) -> dict:
        return json_safe({"rank_by": self.rank_by, "metrics": list(self.metrics),
                          "rows": list(self.rows), "errors": self.errors})

    def to_markdown(self) -> str:
        text = markdown(self.rows, self.columns)
        return text + "".join(f"\n{mode}: {message}" for mode, message in self.errors.items())

    def to_csv(self) -> str:
        return csv_text(self.rows, self.columns)


def sweep(run_mode: RunMode, modes: Iterable[str], qrels: Qrels,
          metrics: Sequence[str] = SWEEP_METRICS, *, rank_by: str | None = None,
          rel_level: int | None = None) -> Sweep:
    """Evaluate every mode string and rank them (best first; ties by mode name). A mode the
    engine refuses (a PalaceError or ValueError) is listed in ``errors`` and the sweep goes on."""
    qrels = check_qrels(qrels)
    rank_by = rank_by or metrics[0]
    names = list(dict.fromkeys([*metrics, rank_by]))
    values, errors, rows = {}, {}, []
    for mode in dict.fromkeys(modes):
        try:
            run = run_mode(mode)
        except (PalaceError, ValueError) as exc:
            errors[mode] = str(exc)
            continue
        values[mode] = per_query(qrels, run, names, rel_level=rel_level)
        means = {m: sum(v.values()) / len(v) for m, v in values[mode].items()}
        rows.append({"mode": mode, **means, "unjudged@10": coverage(qrels, run, 10).unjudged})
    rows.sort(key=lambda r: (-r[rank_by], r["mode"]))
    ranked_rows = tuple({"rank": i, **row} for i, row in enumerate(rows, start=1))
    return Sweep(rank_by, tuple(names), ranked_rows, values, errors)


# ---------------------------------------------------------------------------------- tuning


def grid(**axes: Sequence) -> list[dict]:
    """Every combination of the axes' values, in order: ``grid(k=[20, 60], w=[0.3, 0.7])``."""
    if not axes or any(len(v) == 0 for v in axes.values()):
        raise InputError("a grid needs at least one axis and every axis at least one value")
    names = list(axes)
    return [dict(zip(names, combo)) for combo in itertools.product(*axes.values())]


def kfold(query_ids: Iterable[str], folds: int, seed: int = 0) -> list[list[str]]:
    """Queries shuffled with ``seed`` and dealt round-robin into ``folds`` folds (sizes differ by
    at most one). Deterministic for a seed and independent of the input order."""
    qids = sorted(set(query_ids))
    if not 2 <= folds <= len(qids):
        raise InputError(f"cross-validation needs 2 <= folds <= queries; "
                         f"got {folds} folds, {len(qids)} queries")
    random.Random(seed).shuffle(qids)
    return [sorted(qids[i::folds]) for i in range(folds)]


def _mean(values: Mapping[str, float], qids: Iterable[str]) -> float:
    qids = list(qids)
    return sum(values[q] for q in qids) / len(qids)


def _argmax(scores: Sequence[Mapping[str, float]], qids: Sequence[str]) -> tuple[int, float]:
    """Index of the best grid point on ``qids`` (ties: the first in grid order) and its score."""
    means = [_mean(s, qids) for s in scores]
    best = max(range(len(means)), key=lambda i: (means[i], -i))
    return best, means[best]


def _mode_for(template: str | Callable[[dict], str], params: Mapping) -> str:
    return template(dict(params)) if callable(template) else template.format(**params)


@dataclass(frozen=True)
class Tuning:
    """Grid-search result: per-fold choices, the CV score and the in-sample best side by side;
    ``held_out`` is each query's value under the knobs chosen without it (the CV score is their
    mean), what a paired test against a baseline compares."""

    metric: str
    seed: int
    folds: tuple[dict, ...]
    cv_score: float
    in_sample: dict
    grid_scores: tuple[dict, ...]
    held_out: Mapping[str, float] = field(default_factory=dict)

    @property
    def optimism(self) -> float:
        """In-sample best minus the cross-validated score: what tuning on the test set adds."""
        return round(self.in_sample["score"] - self.cv_score, 12) + 0.0  # no "-0.000"

    def to_dict(self) -> dict:
        return json_safe({"metric": self.metric, "seed": self.seed, "folds": list(self.folds),
                          "cv_score": self.cv_score, "in_sample": self.in_sample,
                          "optimism": self.optimism, "grid": list(self.grid_scores)})

    def to_markdown(self) -> str:
        head = (f"{self.metric}: cross-validated {self.cv_score:.3f} over {len(self.folds)} folds; "
                f"in-sample best {self.in_sample['score']:.3f} ({self.in_sample['mode']}), "
                f"optimism {self.optimism:+.3f}\n\n")
        return head + markdown(self.folds, ["fold", "mode", "n_train", "train_score", "n_test", "test_score"])


def tune(run_mode: RunMode, template: str | Callable[[dict], str], params: Sequence[Mapping] | Mapping,
         qrels: Qrels, *, metric: str = "mrr", folds: int = 5, seed: int = 0,
         rel_level: int | None = None) -> Tuning:
    """Grid search of ``params`` (a list of dicts or ``{axis: values}``) over the mode strings
    ``template.format(**p)`` (or ``template(p)``), reported with k-fold cross-validation."""
    points = grid(**params) if isinstance(params, Mapping) else [dict(p) for p in params]
    if not points:
        raise InputError("the parameter grid is empty")
    qrels = check_qrels(qrels)
    modes = [_mode_for(template, p) for p in points]
    scores = [per_query(qrels, run_mode(m), [metric], rel_level=rel_level)[metric] for m in modes]
    held_out: dict[str, float] = {}
    fold_rows = []
    for number, test in enumerate(kfold(qrels, folds, seed), start=1):
        held = set(test)
        train = [q for q in sorted(qrels) if q not in held]
        best, train_score = _argmax(scores, train)
        held_out.update({q: scores[best][q] for q in test})
        fold_rows.append({"fold": number, "params": points[best], "mode": modes[best],
                          "n_train": len(train), "train_score": train_score,
                          "n_test": len(test), "test_score": _mean(scores[best], test)})
    best, score = _argmax(scores, sorted(qrels))
    in_sample = {"params": points[best], "mode": modes[best], "score": score}
    grid_scores = tuple({"params": p, "mode": m, "score": _mean(s, s)}
                        for p, m, s in zip(points, modes, scores))
    return Tuning(metric, seed, tuple(fold_rows), _mean(held_out, held_out), in_sample, grid_scores,
                  held_out)


# ---------------------------------------------------------------------------------- pooling


def pool_runs(runs: Iterable[Run], k: int = 10, *, judged: Qrels | None = None) -> dict[str, list[str]]:
    """``{query_id: [exchange_id, ...]}``: the union of every run's top k, minus judged pairs.

    Within a query, exchanges come in order of their best rank in any run (then by id), so a
    person grading from the top sees first what some mode put first."""
    judged = judged or {}
    best: dict[str, dict[str, int]] = {}
    for run in runs:
        for qid, results in run.items():
            for rank, doc in enumerate(top_k(results, k), start=1):
                seen = best.setdefault(qid, {})
                seen[doc] = min(rank, seen.get(doc, rank))
    out = {}
    for qid in sorted(best):
        todo = [d for d in sorted(best[qid], key=lambda d: (best[qid][d], d)) if d not in judged.get(qid, {})]
        if todo:
            out[qid] = todo
    return out


def pool(run_a: Run, run_b: Run, k: int = 10, *, judged: Qrels | None = None) -> dict[str, list[str]]:
    """What needs grades before modes A and B can be compared at depth ``k``."""
    return pool_runs([run_a, run_b], k, judged=judged)


def unjudged_report(runs: Mapping[str, Run], qrels: Qrels, k: int = 10) -> dict[str, dict]:
    """Per mode: results in the top k, how many are unjudged, and the judged fraction."""
    out = {}
    for mode, run in runs.items():
        cov = coverage(qrels, run, k).to_dict()
        out[mode] = {key: cov[key] for key in ("k", "retrieved", "unjudged", "judged_fraction")}
    return out
