"""Experiments over a palace's own query sets: which sets exist, what is judged, and the
paper-style evaluation of many modes on them.

Query sets live in the palace (``queries.query_set``): the bundled sample's (:data:`SAMPLE_SET`,
judged by its qrels file as judge ``qrels:sample``), the person's A/B queries (``lab``, judge
``human``) and generated known-item queries (``known_item``, judge ``qrels:known_item``; their
bias is :data:`palace_lab.evaluate.known_item.BIAS`). A query is *judged* when the palace holds
at least one judgment for it; only judged queries are evaluated.

Evaluating many modes on the same queries embeds them once through
:class:`palace_lab.index.memo.MemoEmbedder`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from palace_lab.errors import InputError
from palace_lab.evaluate.base import Qrels, Run
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
    """One row per query set: queries, judged queries, judgments per judge kind."""
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
    return [{"query_set": s, "queries": n, "judged_queries": len(judged.get(s, ())),
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
