"""Paired comparison of search modes over per-query metric values.

Two modes are compared on the same queries, so every test is *paired* on the per-query
differences ``d_q = a_q - b_q``:

- paired t-test (Student 1908), ``t = mean(d) / (sd(d) / sqrt(n))`` with n - 1 degrees of
  freedom: ``scipy.stats.ttest_rel``;
- Wilcoxon signed-rank test (Wilcoxon 1945): ``scipy.stats.wilcoxon`` with
  ``zero_method="wilcox"`` (queries whose difference is 0 are dropped before ranking, the
  textbook procedure) and scipy's automatic exact/normal choice;
- effect size: Cohen's d on the paired differences (``d_z``, Cohen 1988; Lakens 2013),
  ``d = mean(d) / sd(d)`` with the sample sd (ddof = 1);
- multiple comparisons over a family of m tests: Bonferroni (``min(1, m p)``) and Holm's
  step-down procedure (Holm 1979): with p sorted ascending, ``p'_(i) = min(1,
  max_{j <= i} (m - j + 1) p_(j))``.

Degenerate cases, stated rather than left to warnings: when every difference is 0 there is
nothing to test and both tests report statistic 0, p = 1, d = 0; with fewer than 2 paired
queries p = 1 and d is undefined (NaN, None in JSON); when all differences are equal and
non-zero the t statistic and d are infinite and the t-test's p is 0 (scipy's answer).

scipy is imported inside the test functions; pandas only when a report is rendered as a
DataFrame.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace

from palace_lab.errors import InputError
from palace_lab.evaluate.base import Qrels, Run
from palace_lab.evaluate.metrics import per_query
from palace_lab.evaluate.table import csv_text, json_safe, markdown, to_dataframe

PerQuery = Mapping[str, float]


def differences(a: Sequence[float], b: Sequence[float]) -> list[float]:
    if len(a) != len(b):
        raise InputError(f"paired values differ in length: {len(a)} and {len(b)}")
    return [float(x) - float(y) for x, y in zip(a, b)]


def paired_t(a: Sequence[float], b: Sequence[float]) -> tuple[float, float]:
    """(t, two-sided p) of the paired t-test; (0, 1) when nothing differs or n < 2."""
    diffs = differences(a, b)
    if len(diffs) < 2 or not any(diffs):
        return 0.0, 1.0
    from scipy import stats

    result = stats.ttest_rel(a, b)
    return float(result.statistic), float(result.pvalue)


def wilcoxon(a: Sequence[float], b: Sequence[float]) -> tuple[float, float]:
    """(W, two-sided p) of the Wilcoxon signed-rank test; (0, 1) when every difference is 0."""
    diffs = differences(a, b)
    if not any(diffs):
        return 0.0, 1.0
    from scipy import stats

    result = stats.wilcoxon(a, b, zero_method="wilcox", alternative="two-sided")
    return float(result.statistic), float(result.pvalue)


def cohens_d(a: Sequence[float], b: Sequence[float]) -> float:
    """``mean(d) / sd(d)`` (ddof 1) over paired differences; 0 when all are 0, NaN if n < 2."""
    diffs = differences(a, b)
    n = len(diffs)
    if n < 2:
        return math.nan
    mean = sum(diffs) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in diffs) / (n - 1))
    if sd == 0.0:
        return 0.0 if mean == 0.0 else math.copysign(math.inf, mean)
    return mean / sd


def bonferroni(pvalues: Mapping[str, float]) -> dict[str, float]:
    m = len(pvalues)
    return {name: min(1.0, p * m) for name, p in pvalues.items()}


def holm(pvalues: Mapping[str, float]) -> dict[str, float]:
    m = len(pvalues)
    adjusted: dict[str, float] = {}
    running = 0.0
    for j, (name, p) in enumerate(sorted(pvalues.items(), key=lambda kv: kv[1]), start=1):
        running = max(running, min(1.0, (m - j + 1) * p))
        adjusted[name] = running
    return {name: adjusted[name] for name in pvalues}


def no_correction(pvalues: Mapping[str, float]) -> dict[str, float]:
    return dict(pvalues)


CORRECTIONS: dict[str, Callable[[Mapping[str, float]], dict[str, float]]] = {
    "holm": holm, "bonferroni": bonferroni, "none": no_correction,
}
TESTS: dict[str, Callable[[Sequence[float], Sequence[float]], tuple[float, float]]] = {
    "t": paired_t, "wilcoxon": wilcoxon,
}


def _pick(registry: Mapping, name: str, what: str):
    if name not in registry:
        raise InputError(f"unknown {what} {name!r}; valid: {', '.join(registry)}")
    return registry[name]


@dataclass(frozen=True)
class PairedResult:
    """Mode ``a`` against mode ``b`` on one metric (``diff = mean_a - mean_b``)."""

    a: str
    b: str
    n: int
    mean_a: float
    mean_b: float
    diff: float
    t: float
    p_t: float
    w: float
    p_w: float
    d: float
    zero_diffs: int = 0  # queries where both modes score the same (Wilcoxon drops them)
    p_t_adj: float = math.nan
    p_w_adj: float = math.nan
    significant: bool = False


def paired_result(a: str, b: str, values_a: PerQuery, values_b: PerQuery) -> PairedResult:
    """Tests over the queries both value maps hold (the same qrels give the same queries)."""
    qids = sorted(set(values_a) & set(values_b))
    if not qids:
        raise InputError(f"modes {a!r} and {b!r} share no query: nothing to compare")
    xs, ys = [values_a[q] for q in qids], [values_b[q] for q in qids]
    t, p_t = paired_t(xs, ys)
    w, p_w = wilcoxon(xs, ys)
    mean_a, mean_b = sum(xs) / len(xs), sum(ys) / len(ys)
    zeros = sum(1 for x, y in zip(xs, ys) if x == y)
    return PairedResult(a, b, len(qids), mean_a, mean_b, mean_a - mean_b, t, p_t, w, p_w,
                        cohens_d(xs, ys), zeros)


def pairs_for(modes: Sequence[str], baseline: str | None) -> list[tuple[str, str]]:
    """Every mode against the baseline, or every unordered pair when there is none."""
    if baseline is None:
        return list(itertools.combinations(modes, 2))
    if baseline not in modes:
        raise InputError(f"baseline {baseline!r} is not among the modes: {', '.join(modes)}")
    return [(m, baseline) for m in modes if m != baseline]


@dataclass(frozen=True)
class Comparison:
    """The report of :func:`compare`: means, one row per paired test, a significance matrix."""

    metric: str
    test: str
    correction: str
    alpha: float
    baseline: str | None
    means: dict[str, float]
    rows: tuple[PairedResult, ...]
    notes: tuple[str, ...] = field(default_factory=tuple)

    COLUMNS = ("a", "b", "n", "zero_diffs", "mean_a", "mean_b", "diff", "d", "t", "p_t",
               "p_t_adj", "w", "p_w", "p_w_adj", "significant")

    def adjusted(self, row: PairedResult) -> float:
        return row.p_t_adj if self.test == "t" else row.p_w_adj

    def matrix(self) -> dict[str, dict[str, float | None]]:
        """``{a: {b: corrected p}}``, symmetric; None on the diagonal and for untested pairs."""
        out: dict[str, dict[str, float | None]] = {m: {n: None for n in self.means} for m in self.means}
        for row in self.rows:
            out[row.a][row.b] = out[row.b][row.a] = self.adjusted(row)
        return out

    def row_dicts(self) -> list[dict]:
        return [asdict(r) for r in self.rows]

    def to_dict(self) -> dict:
        head = {k: getattr(self, k) for k in ("metric", "test", "correction", "alpha", "baseline")}
        body = {"means": self.means, "comparisons": self.row_dicts(), "matrix": self.matrix(),
                "notes": list(self.notes)}
        return json_safe({**head, **body})

    def to_dataframe(self):
        return to_dataframe(self.row_dicts(), self.COLUMNS)

    def to_markdown(self) -> str:
        title = (f"**{self.metric}**, paired {self.test}-test, {self.correction} correction over "
                 f"{len(self.rows)} comparisons, alpha {self.alpha}\n\n")
        table = markdown(self.row_dicts(), self.COLUMNS, digits=4)
        return title + table + "".join(f"\n{n}" for n in self.notes)

    def matrix_markdown(self) -> str:
        modes = list(self.means)
        rows = [{"mode": m, **self.matrix()[m]} for m in modes]
        return markdown(rows, ["mode", *modes], digits=4)

    def to_csv(self) -> str:
        return csv_text(self.row_dicts(), self.COLUMNS)


def compare_values(values: Mapping[str, PerQuery], metric: str, baseline: str | None = None, *,
                   test: str = "t", correction: str = "holm", alpha: float = 0.05) -> Comparison:
    """:class:`Comparison` from precomputed per-query values ``{mode: {query_id: value}}``."""
    _pick(TESTS, test, "test")
    correct = _pick(CORRECTIONS, correction, "correction")
    modes = list(values)
    rows = [paired_result(a, b, values[a], values[b]) for a, b in pairs_for(modes, baseline)]
    keys = [f"{r.a}\x1f{r.b}" for r in rows]
    adj_t = correct(dict(zip(keys, (r.p_t for r in rows))))
    adj_w = correct(dict(zip(keys, (r.p_w for r in rows))))
    rows = [replace(r, p_t_adj=adj_t[k], p_w_adj=adj_w[k]) for r, k in zip(rows, keys)]
    rows = [replace(r, significant=(r.p_t_adj if test == "t" else r.p_w_adj) < alpha) for r in rows]
    means = {m: sum(v.values()) / len(v) if v else 0.0 for m, v in values.items()}
    notes = [f"{r.a} vs {r.b}: every per-query difference is 0, so p = 1 (no test possible)"
             for r in rows if r.zero_diffs == r.n]
    return Comparison(metric, test, correction, alpha, baseline, means, tuple(rows), tuple(notes))


def compare(runs: Mapping[str, Run], qrels: Qrels, metric: str = "mrr", baseline: str | None = None,
            *, test: str = "t", correction: str = "holm", alpha: float = 0.05,
            rel_level: int | None = None) -> Comparison:
    """Evaluate every run on ``metric`` per query and test the modes pairwise (or each against
    ``baseline``), correcting the p-values over the whole family of comparisons."""
    if len(runs) < 2:
        raise InputError("compare needs at least two runs")
    values = {mode: per_query(qrels, run, [metric], rel_level=rel_level)[metric]
              for mode, run in runs.items()}
    return compare_values(values, metric, baseline, test=test, correction=correction, alpha=alpha)
