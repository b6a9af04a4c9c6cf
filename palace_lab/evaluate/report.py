"""The paper-style table: every mode's MRR, P@1, nDCG@10 and mean grade, overall and per
query type, with the paper's two headline ratios and significance against best verbatim.

Modes are classed by the layers they search (metadata ``{mode: {"kind", "layers"}}``, as
``palace-lab modes --json`` lists them): **verbatim** when every layer is ``verbatim``,
**distilled** when none is, **cross** otherwise (a fusion across the two). A mode without
layer metadata is ``unknown`` and takes no part in the headline numbers.

Headline numbers, all on the primary metric (MRR unless set):

- ``distilled_over_verbatim`` = best distilled / best verbatim (the paper: 0.717 / 0.745 = 96%);
- ``cross_gain`` = best cross - best verbatim, and ``cross_over_verbatim`` their ratio (the
  paper: 0.759 vs 0.745);
- significance of every mode against the best verbatim mode on the per-query primary metric,
  paired t-test by default, Bonferroni-corrected over all those comparisons as in the paper.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from palace_lab.errors import InputError
from palace_lab.evaluate.base import Qrels, Run, check_qrels
from palace_lab.evaluate.metrics import coverage, per_query
from palace_lab.evaluate.stats import Comparison, compare_values
from palace_lab.evaluate.table import csv_text, json_safe, markdown, to_dataframe

PAPER_METRICS = ("mrr", "p@1", "ndcg@10", "mean_grade@10")
CLASS_ORDER = ("verbatim", "distilled", "cross", "unknown")
VERBATIM_LAYER = "verbatim"


def layer_class(layers: Iterable[str]) -> str:
    layers = list(layers)
    if not layers:
        return "unknown"
    verbatim = [layer == VERBATIM_LAYER for layer in layers]
    return "verbatim" if all(verbatim) else "distilled" if not any(verbatim) else "cross"


def mode_table(modes: Mapping[str, Mapping] | Iterable[Mapping | str]) -> dict[str, dict]:
    """``{name: {"kind", "layers", "class"}}`` from a mapping, ``list_modes()`` dicts or names."""
    items = modes.items() if isinstance(modes, Mapping) else (
        (m, {}) if isinstance(m, str) else (m["name"], m) for m in modes)
    out = {}
    for name, meta in items:
        layers = list(meta.get("layers") or [])
        out[str(name)] = {"kind": meta.get("kind"), "layers": layers, "class": layer_class(layers)}
    return out


def _best(means: Mapping[str, float], info: Mapping[str, dict], cls: str) -> tuple[str | None, float | None]:
    candidates = [(means[m], m) for m in means if info[m]["class"] == cls]
    if not candidates:
        return None, None
    value, mode = min(candidates, key=lambda vm: (-vm[0], vm[1]))  # ties: first by name
    return mode, value


def _ratio(num: float | None, den: float | None) -> float | None:
    return num / den if num is not None and den else None


def headline(means: Mapping[str, float], info: Mapping[str, dict]) -> dict:
    """Best mode per class and the paper's ratios over one metric's means."""
    out: dict = {}
    for cls in ("verbatim", "distilled", "cross"):
        out[f"best_{cls}"], out[f"best_{cls}_value"] = _best(means, info, cls)
    v, d, c = (out[f"best_{k}_value"] for k in ("verbatim", "distilled", "cross"))
    out["distilled_over_verbatim"] = _ratio(d, v)
    out["cross_over_verbatim"] = _ratio(c, v)
    out["cross_gain"] = c - v if c is not None and v is not None else None
    return out


def _means(values: Mapping[str, float], qids: Sequence[str]) -> float | None:
    return sum(values[q] for q in qids) / len(qids) if qids else None


@dataclass(frozen=True)
class PaperReport:
    """What ``palace-lab eval`` prints: rows per mode, rows per (mode, query type), headline."""

    metrics: tuple[str, ...]
    primary: str
    rows: tuple[dict, ...]
    by_type: tuple[dict, ...]
    summary: dict
    comparison: Comparison | None
    notes: tuple[str, ...] = field(default_factory=tuple)
    runs: dict = field(default_factory=dict, repr=False, compare=False)  # {mode: Run}, not rendered

    @property
    def columns(self) -> list[str]:
        return ["mode", "class", "kind", "n", *self.metrics, "d", "p_adj", "significant"]

    def to_dict(self) -> dict:
        return json_safe({
            "metrics": list(self.metrics), "primary": self.primary, "modes": list(self.rows),
            "by_type": list(self.by_type), "summary": self.summary, "notes": list(self.notes),
            "comparison": self.comparison.to_dict() if self.comparison else None,
        })

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1)

    def to_csv(self) -> str:
        return csv_text(self.rows, self.columns)

    def to_dataframe(self):
        return to_dataframe(self.rows, self.columns)

    def to_markdown(self) -> str:
        parts = [markdown(self.rows, self.columns), self._summary_markdown()]
        if self.by_type:
            parts.append(markdown(self.by_type, ["type", "mode", "class", "n", *self.metrics]))
            parts.append(markdown(self.summary.get("by_type", []), [
                "type", "best_verbatim", "best_verbatim_value", "best_distilled",
                "best_distilled_value", "distilled_over_verbatim"]))
        parts.extend(self.notes)
        return "\n".join(parts)

    def _summary_markdown(self) -> str:
        s, p = self.summary, self.primary
        lines = [f"- best verbatim ({p}): {s.get('best_verbatim')} {_fmt(s.get('best_verbatim_value'))}",
                 f"- best distilled: {s.get('best_distilled')} {_fmt(s.get('best_distilled_value'))}, "
                 f"ratio to best verbatim {_fmt(s.get('distilled_over_verbatim'))}",
                 f"- best cross-layer: {s.get('best_cross')} {_fmt(s.get('best_cross_value'))}, "
                 f"gain over best verbatim {_fmt(s.get('cross_gain'), signed=True)}"]
        if self.comparison:
            lines.append(f"- significance: {self.comparison.test}-test on per-query {p} against "
                         f"{self.comparison.baseline}, {self.comparison.correction}-corrected over "
                         f"{len(self.comparison.rows)} comparisons, alpha {self.comparison.alpha}")
        return "\n".join(lines) + "\n"


def _fmt(value: float | None, *, signed: bool = False) -> str:
    if value is None:
        return "–"
    return f"{value:+.3f}" if signed else f"{value:.3f}"


def _mode_rows(values: Mapping[str, dict], info: Mapping[str, dict], metrics: Sequence[str]) -> list[dict]:
    rows = []
    for mode, per_metric in values.items():
        row = {"mode": mode, "class": info[mode]["class"], "kind": info[mode]["kind"],
               "n": len(per_metric[metrics[0]])}
        rows.append({**row, **{m: _means(per_metric[m], list(per_metric[m])) for m in metrics}})
    return rows


def _type_rows(values: Mapping[str, dict], info: Mapping[str, dict], metrics: Sequence[str],
               types: Mapping[str, str], primary: str) -> tuple[list[dict], list[dict]]:
    rows, heads = [], []
    for qtype in sorted(set(types.values())):
        qids = sorted(q for q, t in types.items() if t == qtype)
        for mode, per_metric in values.items():
            row = {"type": qtype, "mode": mode, "class": info[mode]["class"], "n": len(qids)}
            rows.append({**row, **{m: _means(per_metric[m], qids) for m in metrics}})
        means = {mode: _means(per_metric[primary], qids) for mode, per_metric in values.items()}
        heads.append({"type": qtype, "n": len(qids), **headline(means, info)})
    return rows, heads


def _sort_key(row: dict, primary: str) -> tuple:
    return CLASS_ORDER.index(row["class"]), -(row[primary] or 0.0), row["mode"]


def _with_significance(rows: list[dict], comparison: Comparison | None) -> list[dict]:
    if comparison is None:
        return rows
    tests = {r.a: r for r in comparison.rows}
    out = []
    for row in rows:
        test = tests.get(row["mode"])
        extra = {"d": test.d, "p_adj": comparison.adjusted(test), "significant": test.significant} \
            if test else {"significant": "baseline" if row["mode"] == comparison.baseline else None}
        out.append({**row, **extra})
    return out


def _types_of(queries: Iterable[Mapping] | None, qids: Iterable[str]) -> dict[str, str]:
    """``{query_id: type}`` over the judged queries; empty when no query carries a type."""
    given = {str(q["query_id"]): q.get("type") for q in queries or ()}
    if not any(given.values()):
        return {}
    return {q: given.get(q) or "(none)" for q in qids}


def _notes(runs: Mapping[str, Run], qrels: Qrels, rel_level: int | None) -> list[str]:
    notes = []
    for mode, run in runs.items():
        cov = coverage(qrels, run, 10, rel_level=rel_level or 2)
        if cov.missing_from_run:
            notes.append(f"{mode}: {len(cov.missing_from_run)} judged queries have no results (scored 0)")
        if cov.unjudged:
            notes.append(f"{mode}: {cov.unjudged} of {cov.retrieved} top-10 results are unjudged "
                         "(grade 0 assumed)")
    no_relevant = coverage(qrels, {}, 10, rel_level=rel_level or 2).no_relevant
    if no_relevant:
        notes.append(f"{len(no_relevant)} judged queries have no relevant exchange; they score 0 "
                     "on mrr, p, recall and ndcg and stay in the means (as ranx)")
    return notes


def paper_table(runs: Mapping[str, Run], qrels: Qrels, modes: Mapping | Iterable | None = None, *,
                queries: Iterable[Mapping] | None = None, metrics: Sequence[str] = PAPER_METRICS,
                primary: str = "mrr", test: str = "t", correction: str = "bonferroni",
                alpha: float = 0.05, rel_level: int | None = None) -> PaperReport:
    """The paper's table for ``runs`` ``{mode: Run}`` judged by ``qrels``; ``modes`` gives each
    mode's ``kind`` and ``layers`` and ``queries`` their ``type`` (see the module docstring)."""
    if not runs:
        raise InputError("no run to report on")
    qrels = check_qrels(qrels)
    info = {m: {"kind": None, "layers": [], "class": "unknown"} for m in runs}
    info.update({m: v for m, v in mode_table(modes or {}).items() if m in runs})
    columns = list(dict.fromkeys([*metrics, primary, "judged@10"]))
    values = {mode: per_query(qrels, run, columns, rel_level=rel_level) for mode, run in runs.items()}
    summary = headline({m: _means(v[primary], list(v[primary])) for m, v in values.items()}, info)
    comparison = None
    if summary["best_verbatim"] and len(runs) > 1:
        comparison = compare_values({m: v[primary] for m, v in values.items()}, primary,
                                    summary["best_verbatim"], test=test, correction=correction, alpha=alpha)
    rows = sorted(_mode_rows(values, info, columns), key=lambda r: _sort_key(r, primary))
    types = _types_of(queries, sorted(qrels))
    by_type, summary["by_type"] = _type_rows(values, info, columns, types, primary)
    return PaperReport(tuple(columns), primary, tuple(_with_significance(rows, comparison)),
                       tuple(by_type), summary, comparison, tuple(_notes(runs, qrels, rel_level)),
                       dict(runs))


def evaluate_modes(engine_run: Callable[[dict[str, str], str, int], Run], modes: Mapping | Iterable,
                   queries: Iterable[Mapping] | Mapping[str, str], qrels: Qrels, *, k: int = 10,
                   **table_options) -> PaperReport:
    """Run every mode over the judged queries and build the paper table: what
    ``palace-lab eval`` prints. ``engine_run(queries, mode, k)`` is
    ``SearchEngine(palace).run``; ``modes`` is ``list_modes()`` output, a ``{name: meta}``
    mapping or mode names; ``queries`` is ``[{"query_id", "query", "type"?}]`` or ``{qid: text}``."""
    qrels = check_qrels(qrels)
    query_list = [{"query_id": q, "query": t} for q, t in queries.items()] if isinstance(queries, Mapping) \
        else [dict(q) for q in queries]
    texts = {str(q["query_id"]): q["query"] for q in query_list if str(q["query_id"]) in qrels}
    if not texts:
        raise InputError("none of the queries has a judgment in the qrels: nothing to evaluate")
    info = mode_table(modes)
    runs = {mode: engine_run(texts, mode, k) for mode in info}
    report = paper_table(runs, qrels, info, queries=query_list, **table_options)
    unasked = sorted(set(qrels) - set(texts))
    if unasked:
        note = (f"{len(unasked)} judged queries are not in the queries file (scored 0): "
                f"{', '.join(unasked[:5])}")
        report = replace(report, notes=(*report.notes, note))
    return report
