"""Experiments over a palace's own query sets: which sets exist, what is judged, and the
paper-style evaluation of many modes on them.

Query sets live in the palace (``queries.query_set``): the bundled sample's (:data:`SAMPLE_SET`,
judged by its qrels file as judge ``qrels:sample``), the person's A/B queries (``lab``, judge
``human``) and generated known-item queries (``known_item``, judge ``qrels:known_item``; their
bias is :data:`palace_lab.evaluate.known_item.BIAS`), and the person's own questions graded over
pooled hits (``mine``, judge ``human``: :mod:`palace_lab.evaluate.pooling`). A query is *judged*
when the palace holds at least one judgment for it; only judged queries are evaluated.

*Graded* and *probe* sets: a known-item set (any set named ``known_item…``) is a **probe** — its
queries copy the exchanges' own words, so it tells lexical regressions apart but not whether the
cards keep what a person asks for. Every other set with judgments is **graded** (a person or a
qrels file judged it). Headline figures (the Overview, "retrieval kept", a search default
applied from Tuning) rest on graded sets only: :func:`headline_set`.

Evaluating many modes on the same queries embeds them once through
:class:`palace_lab.index.recent.RecentEmbedder`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from palace_lab.errors import InputError
from palace_lab.evaluate.base import Qrels, Run
from palace_lab.evaluate.bootstrap import mean_interval, paired_interval, ratio_interval
from palace_lab.evaluate.io import read_qrels, read_queries
from palace_lab.evaluate.metrics import per_query
from palace_lab.evaluate.report import PaperReport, paper_table
from palace_lab.evaluate.stats import Comparison, compare_values
from palace_lab.search.modes import list_modes, parse_mode

if TYPE_CHECKING:
    from palace_lab.store import Palace

SAMPLE_SET = "sample"
KNOWN_ITEM_SET = "known_item"
DEFAULT_MODES = ("bm25:verbatim", "hnsw:verbatim", "exact:verbatim", "bm25:core", "hnsw:core",
                 "exact:core", "bm25:core+keywords", "hybrid-wrrf", "hybrid-rrf", "hybrid-combmnz",
                 "hybrid-wsum", "verbatim-fusion", "distilled-fusion", "card-fusion")
CORRECTIONS = ("holm", "bonferroni")
FEW_QUERIES = 20  # below this many graded queries a headline figure says how little it rests on
HOW_TO_GRADE = ("Write a handful of your own questions and grade the pooled hits on **Grade your "
                "questions** (or import a queries file with its qrels: `palace-lab import-queries`); "
                "the sample's hand-graded set imports on **Evaluation › Query sets**.")


def is_probe(query_set: str | None) -> bool:
    """True for a known-item set: a probe, never a headline (module docstring)."""
    return bool(query_set) and str(query_set).startswith(KNOWN_ITEM_SET)


def set_label(query_set: str | None) -> str:
    """The set's name as every page shows it: a probe says so."""
    return f"{query_set} (known-item probe)" if is_probe(query_set) else str(query_set)


def graded_sets(palace: Palace) -> list[str]:
    """The sets a headline may rest on: not probes, with at least one judged query; the sample
    first, then the person's own (``mine``, ``lab``), then the rest by name."""
    judged = {r["query_set"] for r in set_rows(palace) if r["judged_queries"]}
    first = [s for s in (SAMPLE_SET, "mine", "lab") if s in judged]
    return first + sorted(s for s in judged if s not in first and not is_probe(s))


def headline_set(palace: Palace, chosen: str | None) -> str | None:
    """``chosen`` when it is a graded set, else the first graded set, else None."""
    sets = graded_sets(palace)
    return chosen if chosen in sets else (sets[0] if sets else None)


def import_query_files(palace: Palace, queries_path: str | Path, qrels_path: str | Path, *,
                       query_set: str = SAMPLE_SET) -> dict:
    """Store a queries file and its qrels (judge ``qrels:<query_set>``); returns the counts.

    Judgments of exchanges the palace does not hold are kept (the data may arrive later) and
    counted as ``dangling``."""
    queries = read_queries(queries_path)
    qrels = read_qrels(qrels_path)
    known = {e.exchange_id for e in palace.exchanges()}
    palace.put_queries(query_set, queries)
    stored = palace.put_judgments(f"qrels:{query_set}", qrels)
    dangling = sum(1 for docs in qrels.values() for e in docs if e not in known)
    return {"queries": len(queries), "judgments": stored, "dangling": dangling}


def set_rows(palace: Palace) -> list[dict]:
    """One row per query set: its kind (graded or probe), queries, judged queries, judgments per
    judge kind."""
    judges: dict[str, dict[str, int]] = {}
    judged: dict[str, set] = {}
    by_query = {q["query_id"]: q["query_set"] for q in palace.queries()}
    for qid, _eid, judge in palace.judgment_rows():
        qset = by_query.get(qid)
        if qset is None:
            continue
        kind = judge.split(":", 1)[0]
        judges.setdefault(qset, {}).setdefault(kind, 0)
        judges[qset][kind] += 1
        judged.setdefault(qset, set()).add(qid)
    counts: dict[str, int] = {}
    for qset in by_query.values():
        counts[qset] = counts.get(qset, 0) + 1
    return [{"query_set": s, "kind": "known-item probe" if is_probe(s) else "graded",
             "queries": n, "judged_queries": len(judged.get(s, ())),
             **{f"judgments_{k}": v for k, v in sorted(judges.get(s, {}).items())}}
            for s, n in sorted(counts.items())]


def judged_set(palace: Palace, query_set: str | None) -> tuple[list[dict], Qrels]:
    """The queries of ``query_set`` (all sets when None) that carry judgments, and their qrels
    merged by judge precedence (human over imported over LLM)."""
    queries = palace.queries(query_set)
    qrels = palace.qrels(query_ids={q["query_id"] for q in queries})
    kept = [q for q in queries if qrels.get(q["query_id"])]
    return kept, {q["query_id"]: qrels[q["query_id"]] for q in kept}


def describe_modes(names: Iterable[str]) -> dict[str, dict]:
    """``{name: {"kind", "layers"}}`` for preset names, pure names or any mode string."""
    listed = {m["name"]: m for m in list_modes()}
    out = {}
    for name in names:
        if name in listed:
            out[name] = {"kind": listed[name]["kind"], "layers": listed[name]["layers"]}
        else:
            mode = parse_mode(name)
            layers = list(dict.fromkeys(r.layer for r in mode.runs))
            out[name] = {"kind": "pure" if len(mode.runs) == 1 else "cross", "layers": layers}
    return out


def report(runs: Mapping[str, Run], qrels: Qrels, queries: Sequence[Mapping], *,
           correction: str = "bonferroni", test: str = "t", primary: str = "mrr") -> PaperReport:
    """The paper table of ``runs`` (significance against the best verbatim mode)."""
    return paper_table(runs, qrels, describe_modes(runs), queries=queries, primary=primary,
                       test=test, correction=_correction(correction))


def significance(runs: Mapping[str, Run], qrels: Qrels, *, metric: str = "mrr",
                 correction: str = "holm", test: str = "t") -> Comparison:
    """Every pair of modes tested on per-query ``metric``, corrected over all pairs."""
    if len(runs) < 2:
        raise InputError("a significance matrix needs at least two modes")
    values = {m: per_query(qrels, run, [metric])[metric] for m, run in runs.items()}
    return compare_values(values, metric, None, test=test, correction=_correction(correction))


def _correction(name: str) -> str:
    if name not in CORRECTIONS:
        raise InputError(f"unknown correction {name!r}; "
                         f"valid corrections: {', '.join(CORRECTIONS)}")
    return name


def headline_intervals(runs: Mapping[str, Run], qrels: Qrels, summary: Mapping, *,
                       metric: str = "mrr") -> dict:
    """Bootstrap intervals (95%, over queries) of a report summary's headline figures: each best
    mode's and the default's mean ``metric``, ``kept`` (best distilled / best verbatim) and
    ``default_vs_verbatim`` (the paired difference). A figure without two queries has None."""
    values = {m: per_query(qrels, run, [metric])[metric] for m, run in runs.items()}
    out: dict[str, dict | None] = {}
    for key in ("best_verbatim", "best_distilled", "best_cross", "default_mode"):
        mode = summary.get(key)
        if mode in values:
            out[key] = _dict(mean_interval(list(values[mode].values())))
    verbatim, distilled = values.get(summary.get("best_verbatim")), values.get(summary.get("best_distilled"))
    default = values.get(summary.get("default_mode"))
    if verbatim is not None and distilled is not None:
        out["kept"] = _dict(ratio_interval(distilled, verbatim))
    if verbatim is not None and default is not None:
        out["default_vs_verbatim"] = _dict(paired_interval(default, verbatim))
    return out


def _dict(interval) -> dict | None:
    return interval.to_dict() if interval is not None else None


def mode_intervals(runs: Mapping[str, Run], qrels: Qrels, *, metric: str = "mrr") -> dict[str, str]:
    """``{mode: "0.712 [0.65, 0.77]"}``: each mode's mean ``metric`` with its 95% bootstrap
    interval over the judged queries ("–" below two queries)."""
    out = {}
    for mode, run in runs.items():
        iv = mean_interval(list(per_query(qrels, run, [metric])[metric].values()))
        out[mode] = iv.text() if iv else "–"
    return out
