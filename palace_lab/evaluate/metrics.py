"""Retrieval metrics over graded qrels, and the metric-name language that selects them.

Per-query metrics are pure functions ``f(judged, results, k, rel_level)`` of one query's
judgments ``{exchange_id: grade}`` and results ``{exchange_id: score}``; ``k=None`` means the
whole run. Ranks come from :func:`palace_lab.evaluate.base.ranked`. With ``rank_i`` the
1-based rank, ``g_i`` the grade of the result at rank i (0 when unjudged), ``L`` the relevance
level and ``R = {d : grade(d) >= L}`` the relevant exchanges:

- ``mrr``: ``1 / rank`` of the first result with ``g >= L``, 0 if none in the top k.
- ``p@k``: ``|{i <= k : g_i >= L}| / k``. The denominator is k even when fewer than k results
  came back, as trec_eval's ``P_k`` and ranx's ``precision@k`` do.
- ``ndcg@k``: ``DCG@k / IDCG@k`` with ``DCG@k = sum_{i<=k} gain(g_i) / log2(i + 1)``. The gain is
  *linear*, ``gain(g) = g`` (Järvelin & Kekäläinen 2002, ACM TOIS 20(4); the gain of
  trec_eval's ``ndcg_cut`` and of ranx's ``ndcg``). IDCG@k is the DCG of the qrels' own grades
  sorted descending. Grades below L count 0; for ndcg L defaults to 1 (every positive grade
  earns its gain). ``ndcg_burges@k`` uses ``gain(g) = 2^g - 1`` (Burges et al. 2005, ICML).
- ``recall@k``: ``|{i <= k : g_i >= L}| / |R|``.
- ``mean_grade@k``: mean of ``g_i`` over the results in the top k (``min(k, n)`` of them;
  unjudged results count 0, and ``judged@k`` says how many were judged). An empty result 0.
- ``judged@k``: the fraction of the results in the top k that have a judgment of any grade.

Relevance level: ``mrr``, ``p``, ``recall`` count grade >= 2 as relevant by default (docs/evaluation.md)
and ``ndcg`` uses every grade >= 1; a ``-lN`` suffix sets L, as in ranx (``"mrr-l3"``).

Which queries are averaged, as ranx ``evaluate(..., make_comparable=True)`` does: every query
of the qrels; a qrels query missing from the run scores 0 on every metric; run queries absent
from the qrels are ignored (:func:`coverage` lists both). A query without any relevant exchange
(no grade >= L) scores 0 on mrr, p, recall and ndcg (ranx returns 0 there too) and still counts
in the mean; :func:`coverage` counts such queries so the dilution is visible.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from palace_lab.errors import InputError
from palace_lab.evaluate.base import DEFAULT_REL_LEVEL, Qrels, Run, check_qrels, check_run, top_k

Judged = Mapping[str, int]
Results = Mapping[str, float]


# ---------------------------------------------------------------------- per-query metrics


def reciprocal_rank(judged: Judged, results: Results, k: int | None = None,
                    rel_level: int = DEFAULT_REL_LEVEL) -> float:
    for rank, doc in enumerate(top_k(results, k), start=1):
        if judged.get(doc, 0) >= rel_level:
            return 1.0 / rank
    return 0.0


def precision(judged: Judged, results: Results, k: int | None,
              rel_level: int = DEFAULT_REL_LEVEL) -> float:
    docs = top_k(results, k)
    denominator = k if k is not None else len(docs)
    hits = sum(1 for d in docs if judged.get(d, 0) >= rel_level)
    return hits / denominator if denominator else 0.0


def linear_gain(grade: int) -> float:
    return float(grade)


def exponential_gain(grade: int) -> float:
    return 2.0**grade - 1.0


def dcg(grades: Iterable[int], gain: Callable[[int], float] = linear_gain) -> float:
    """``sum_i gain(g_i) / log2(i + 1)`` over grades in rank order (i from 1)."""
    return sum(gain(g) / math.log2(i + 1) for i, g in enumerate(grades, start=1) if g > 0)


def ndcg(judged: Judged, results: Results, k: int | None = None, rel_level: int = 1,
         gain: Callable[[int], float] = linear_gain) -> float:
    def kept(g: int) -> int:
        return g if g >= rel_level else 0

    ideal = sorted((kept(g) for g in judged.values()), reverse=True)[:k]
    best = dcg(ideal, gain)
    if best == 0.0:
        return 0.0
    return dcg((kept(judged.get(d, 0)) for d in top_k(results, k)), gain) / best


def ndcg_burges(judged: Judged, results: Results, k: int | None = None, rel_level: int = 1) -> float:
    return ndcg(judged, results, k, rel_level, gain=exponential_gain)


def recall(judged: Judged, results: Results, k: int | None = None,
           rel_level: int = DEFAULT_REL_LEVEL) -> float:
    relevant = {d for d, g in judged.items() if g >= rel_level}
    if not relevant:
        return 0.0
    return len(relevant.intersection(top_k(results, k))) / len(relevant)


def mean_grade(judged: Judged, results: Results, k: int | None = None, rel_level: int = 0) -> float:
    docs = top_k(results, k)
    return sum(judged.get(d, 0) for d in docs) / len(docs) if docs else 0.0


def judged_fraction(judged: Judged, results: Results, k: int | None = None, rel_level: int = 0) -> float:
    docs = top_k(results, k)
    return sum(1 for d in docs if d in judged) / len(docs) if docs else 0.0


# ---------------------------------------------------------------------- the name language


@dataclass(frozen=True)
class MetricKind:
    """A metric family: its per-query function, whether it needs ``@k``, and how it reads
    grades (``"binary"``: relevant iff grade >= L, default L = 2; ``"gain"``: graded gains of
    grades >= L, default L = 1; ``None``: no relevance level)."""

    fn: Callable[..., float]
    needs_k: bool = False
    levels: str | None = "binary"

    @property
    def default_level(self) -> int | None:
        return {"binary": DEFAULT_REL_LEVEL, "gain": 1}.get(self.levels or "")


METRICS: dict[str, MetricKind] = {
    "mrr": MetricKind(reciprocal_rank),
    "p": MetricKind(precision, needs_k=True),
    "ndcg": MetricKind(ndcg, levels="gain"),
    "ndcg_burges": MetricKind(ndcg_burges, levels="gain"),
    "recall": MetricKind(recall),
    "mean_grade": MetricKind(mean_grade, levels=None),
    "judged": MetricKind(judged_fraction, levels=None),
}
ALIASES = {"precision": "p", "rr": "mrr"}
_SYNTAX = re.compile(r"([a-z_]+)(?:@(\d+))?(?:-l(\d+))?")


@dataclass(frozen=True)
class Metric:
    """One parsed metric name: family, cut-off k (None = whole run) and relevance level."""

    text: str
    family: str
    k: int | None
    rel_level: int | None

    def __call__(self, judged: Judged, results: Results) -> float:
        kind = METRICS[self.family]
        level = self.rel_level if self.rel_level is not None else 0
        return kind.fn(judged, results, self.k, level)


def parse_metric(text: str, *, rel_level: int | None = None) -> Metric:
    """``"ndcg@10"``, ``"p@1"``, ``"mrr-l3"`` → :class:`Metric`; ``rel_level`` overrides the
    default level of the binary metrics (mrr, p, recall) when the name has no ``-lN``."""
    match = _SYNTAX.fullmatch(text.strip().lower())
    valid = ", ".join(sorted(METRICS))
    if not match:
        raise InputError(f"cannot read metric {text!r}: write NAME, NAME@K or NAME@K-lLEVEL "
                         f"with NAME one of {valid} (e.g. 'ndcg@10', 'p@1', 'mrr-l3')")
    name, k, level = match.groups()
    family = ALIASES.get(name, name)
    if family not in METRICS:
        raise InputError(f"unknown metric {name!r} in {text!r}; valid metrics: {valid}")
    kind = METRICS[family]
    if kind.needs_k and not k:
        raise InputError(f"metric {text!r} needs a cut-off, e.g. '{family}@10'")
    if k is not None and int(k) < 1:
        raise InputError(f"metric {text!r}: the cut-off must be at least 1")
    return Metric(text.strip(), family, int(k) if k else None, _level(text, kind, level, rel_level))


def _level(text: str, kind: MetricKind, level: str | None, override: int | None) -> int | None:
    if kind.levels is None:
        if level is not None:
            raise InputError(f"metric {text!r} takes no relevance level (-lN)")
        return None
    if level is not None:
        if int(level) not in (1, 2, 3):
            raise InputError(f"metric {text!r}: the relevance level must be 1, 2 or 3")
        return int(level)
    if override is not None and kind.levels == "binary":
        return override
    return kind.default_level


def parse_metrics(metrics: str | Iterable[str], *, rel_level: int | None = None) -> list[Metric]:
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    if not names:
        raise InputError("no metric named; e.g. ['mrr', 'p@1', 'ndcg@10']")
    return [parse_metric(m, rel_level=rel_level) for m in names]


# ---------------------------------------------------------------------- whole runs


def per_query(qrels: Qrels, run: Run, metrics: str | Iterable[str], *,
              rel_level: int | None = None) -> dict[str, dict[str, float]]:
    """``{metric: {query_id: value}}`` over the qrels' queries (see the module docstring)."""
    parsed = parse_metrics(metrics, rel_level=rel_level)
    qrels, run = check_qrels(qrels), check_run(run)
    if not qrels:
        raise InputError("the qrels hold no query: nothing to evaluate")
    qids = sorted(qrels)
    return {m.text: {q: m(qrels[q], run.get(q, {})) for q in qids} for m in parsed}


def evaluate(qrels: Qrels, run: Run, metrics: str | Iterable[str], *,
             rel_level: int | None = None) -> dict[str, float]:
    """``{metric: mean over the qrels' queries}``; always a dict, even for one metric."""
    values = per_query(qrels, run, metrics, rel_level=rel_level)
    return {m: sum(v.values()) / len(v) for m, v in values.items()}


@dataclass(frozen=True)
class Coverage:
    """What the means rest on: which queries were scored, and how much of the top k is judged."""

    queries: int
    missing_from_run: tuple[str, ...]
    not_in_qrels: tuple[str, ...]
    no_relevant: tuple[str, ...]
    retrieved: int
    unjudged: int
    k: int | None
    rel_level: int

    def to_dict(self) -> dict:
        return {
            "queries": self.queries, "missing_from_run": list(self.missing_from_run),
            "not_in_qrels": list(self.not_in_qrels), "no_relevant": list(self.no_relevant),
            "k": self.k, "rel_level": self.rel_level, "retrieved": self.retrieved,
            "unjudged": self.unjudged,
            "judged_fraction": (self.retrieved - self.unjudged) / self.retrieved if self.retrieved else 0.0,
        }


def coverage(qrels: Qrels, run: Run, k: int | None = 10, *,
             rel_level: int = DEFAULT_REL_LEVEL) -> Coverage:
    qrels, run = check_qrels(qrels), check_run(run)
    tops = {q: top_k(run.get(q, {}), k) for q in qrels}
    return Coverage(
        queries=len(qrels),
        missing_from_run=tuple(sorted(q for q in qrels if q not in run)),
        not_in_qrels=tuple(sorted(q for q in run if q not in qrels)),
        no_relevant=tuple(sorted(q for q, d in qrels.items() if not any(g >= rel_level for g in d.values()))),
        retrieved=sum(len(t) for t in tops.values()),
        unjudged=sum(1 for q, t in tops.items() for d in t if d not in qrels[q]),
        k=k,
        rel_level=rel_level,
    )
