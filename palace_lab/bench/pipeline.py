"""Run a benchmark: ingest into a palace of its own, distill, search every mode, report.

Steps, each a plain function so that notebooks and tests can stop at any of them:

1. :func:`load_benchmark` reads the benchmark's own files (format detected from the path);
2. :func:`build_palace` writes its records as palace JSONL into the palace's folder, ingests
   them and distills every exchange with the chosen distiller (default: the default one);
3. :func:`run_benchmark` runs the modes, each question inside its scope (its project, or the
   whole palace), to a depth of ``max(k, 50)`` so that session recall can see ten sessions,
   and returns a :class:`BenchReport`: the paper-style table (:mod:`palace_lab.evaluate.report`)
   on the exchange-level qrels, cut at ``k``, plus session-level Recall@5/@10 per mode.

Session recall@k is the share of questions for which a gold session is among the first ``k``
distinct sessions of the ranking ("recall_any", the unit other memory tools publish for
LongMemEval and LoCoMo); exchange-level figures use grade 1 as relevant.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from palace_lab.bench.base import Benchmark, Question, gold_sessions, qrels_for
from palace_lab.errors import PalaceError
from palace_lab.model import rank_order
from palace_lab.settings import DEFAULT_EMBEDDER

if TYPE_CHECKING:
    from palace_lab.store import Palace

SESSION_KS = (5, 10)
DEPTH = 50


def detect(path: Path) -> str:
    """The benchmark format of ``path``: locomo, devmembench or longmemeval."""
    path = Path(path)
    if path.is_dir():
        if (path / "sessions.json").is_file() and (path / "questions.json").is_file():
            return "devmembench"
        if any(path.glob("locomo10*.json")):
            return "locomo"
        raise PalaceError(f"{path}: no benchmark found (tried: a LoCoMo locomo10*.json, "
                          "DevMemBench sessions.json + questions.json)")
    head = path.read_text("utf-8", errors="replace")[:20000] if path.is_file() else ""
    if '"haystack_sessions"' in head:
        return "longmemeval"
    if '"qa"' in head and ('"conversation"' in head or '"evidence"' in head):
        return "locomo"
    raise PalaceError(f"{path}: not a benchmark file (tried: LoCoMo, LongMemEval; "
                      "DevMemBench is a folder)")


def load_benchmark(path: str | Path, fmt: str = "auto", *, errata: str | Path | None = None) -> Benchmark:
    from palace_lab.bench.devmembench import load_devmembench
    from palace_lab.bench.locomo import load_locomo
    from palace_lab.bench.longmemeval import load_longmemeval

    path = Path(path).expanduser()
    if not path.exists():
        raise PalaceError(f"{path} does not exist")
    fmt = detect(path) if fmt == "auto" else fmt
    if fmt == "locomo":
        return load_locomo(path, errata)
    if fmt == "devmembench":
        return load_devmembench(path)
    if fmt == "longmemeval":
        return load_longmemeval(path)
    raise PalaceError(f"unknown benchmark format {fmt!r}; valid: auto, locomo, devmembench, longmemeval")


FORMATS = ("auto", "locomo", "devmembench", "longmemeval")


def build_palace(bench: Benchmark, db: str | Path, *, distiller: str = "rules",
                 progress: Callable[[str], None] | None = None):
    """A palace at ``db`` holding the benchmark's conversations, every exchange distilled."""
    from palace_lab.distill import get_distiller
    from palace_lab.distill.pipeline import distill_palace
    from palace_lab.budget import keep_budget
    from palace_lab.ingest import ingest_paths
    from palace_lab.store import Palace

    db = Path(db)
    source = db.with_suffix(".jsonl")
    with source.open("w", encoding="utf-8") as out:
        for record in bench.records:
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    palace = Palace.open(db, create=True)
    ingest_paths(palace, [source], "palace-jsonl")
    if progress:
        progress(f"{bench.name}: {palace.count('exchanges')} exchanges ingested; distilling")
    distill_palace(palace, get_distiller(distiller), keep=keep_budget)
    return palace


@dataclass(frozen=True)
class BenchReport:
    benchmark: dict
    table: object               # a PaperReport
    session_recall: dict        # {mode: {"R@5": x, "R@10": y}}
    default_mode: str | None
    unmapped: int = 0
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict:
        return {"benchmark": self.benchmark, **self.table.to_dict(),
                "session_recall": self.session_recall, "default_mode": self.default_mode,
                "unmapped_questions": self.unmapped, "bench_notes": list(self.notes)}

    def to_markdown(self) -> str:
        b = self.benchmark
        head = (f"## {b['benchmark']}: {b['questions']} questions ({b['gold']}-level gold), "
                f"{b['conversations']} conversations, {b.get('exchanges', '?')} exchanges\n")
        budget = b.get("budget")
        if budget:
            head += (f"\ntokens ({budget['tokenizer']}, {budget['distiller']}): "
                     + ", ".join(f"{k} {v:,}" for k, v in budget["totals"].items())
                     + "; dialogue over " + ", ".join(f"{k.split('_over_')[1]} {v}x" for k, v
                                                     in budget["ratios_of_totals"].items())
                     + " (ratios of totals)\n")
            c = budget.get("specific_context") or {}
            if c.get("cards"):
                head += (f"specific_context: exact substring in {c['substring']}/{c['cards']} cards, "
                         f"{c['escaped']} escaped, {c['empty_with_detail']} empty where a detail "
                         "exists\n")
        recall = ["| mode | session R@5 | session R@10 |", "|---|---|---|"]
        recall += [f"| {m} | {v['R@5']:.3f} | {v['R@10']:.3f} |" for m, v in self.session_recall.items()]
        default = next((r for r in self.table.rows if r["mode"] == self.default_mode), None)
        line = (f"- default mode {self.default_mode}: MRR {default['mrr']:.3f}, gain over best "
                f"verbatim {default['mrr'] - self.table.summary['best_verbatim_value']:+.3f}"
                if default and self.table.summary.get("best_verbatim_value") is not None else "")
        return "\n".join([head, self.table.to_markdown(), line, "", *recall, "", *self.notes])


def _scopes(questions: Sequence[Question]) -> dict[str | None, list[Question]]:
    groups: dict[str | None, list[Question]] = {}
    for q in questions:
        groups.setdefault(q.project, []).append(q)
    return groups


def _mode_run(engine, groups, mode: str, depth: int) -> dict:
    run = {}
    for project, qs in groups.items():
        texts = {q.query_id: q.query for q in qs}
        run.update(engine.run(texts, mode, depth, {"project": project} if project else None))
    return run


def session_recall(run: dict, questions: Sequence[Question], conversation_of: dict,
                   ks: Sequence[int] = SESSION_KS) -> dict[str, float]:
    """Share of questions with a gold session among the first k distinct sessions ranked."""
    hits = {k: 0 for k in ks}
    for q in questions:
        scores = run.get(q.query_id, {})
        sessions = list(dict.fromkeys(conversation_of[e] for e, _ in rank_order(scores)
                                      if e in conversation_of))
        gold = gold_sessions(q)
        for k in ks:
            hits[k] += bool(gold.intersection(sessions[:k]))
    n = len(questions) or 1
    return {f"R@{k}": hits[k] / n for k in ks}


def _cut(run: dict, k: int) -> dict:
    return {q: dict(sorted(s.items(), key=lambda i: (-i[1], i[0]))[:k]) for q, s in run.items()}


def run_benchmark(bench: Benchmark, palace: Palace, modes: Sequence[str], *, embedder=DEFAULT_EMBEDDER,
                  k: int = 10, correction: str = "bonferroni", test: str = "t",
                  progress: Callable[[str], None] | None = None) -> BenchReport:
    from palace_lab.evaluate import paper_table
    from palace_lab.experiments.query_sets import describe_modes
    from palace_lab.search import SearchEngine
    from palace_lab.search.modes import DEFAULT_MODE

    exchanges = palace.exchanges()
    qrels = qrels_for(bench.questions, exchanges)
    questions = [q for q in bench.questions if q.query_id in qrels]
    conversation_of = {e.exchange_id: e.conversation_id for e in exchanges}
    engine = SearchEngine(palace, embedder=embedder)
    groups, runs, recall = _scopes(questions), {}, {}
    for mode in modes:
        if progress:
            progress(f"{bench.name}: {mode}")
        deep = _mode_run(engine, groups, mode, max(k, DEPTH))
        recall[mode] = session_recall(deep, questions, conversation_of)
        runs[mode] = _cut(deep, k)
    table = paper_table(runs, qrels, describe_modes(modes),
                        queries=[q.to_query() for q in questions],
                        metrics=("mrr", "p@1", "ndcg@10", "recall@10"), correction=correction,
                        test=test, rel_level=1)
    summary = {**bench.summary(), "questions": len(questions), "exchanges": len(exchanges),
               "budget": _budget(palace)}
    unmapped = len(bench.questions) - len(questions)
    notes = tuple(bench.notes) + ((f"{unmapped} questions whose evidence maps to no exchange "
                                   "were left out",) if unmapped else ())
    return BenchReport(summary, table, recall, DEFAULT_MODE if DEFAULT_MODE in modes else None,
                       unmapped, notes)


def _budget(palace: Palace) -> dict:
    """Token totals of the layers (cl100k_base) and the dialogue's ratio to each card layer."""
    from palace_lab.budget import palace_budget

    summary, _ = palace_budget(palace)
    layers = {name: s["total"] for name, s in summary.layers.items()}
    ratios = {f"dialogue_over_{name}": round(layers["dialogue"] / layers[name], 2)
              for name in ("core", "searched", "card") if layers.get(name)}
    return {"tokenizer": summary.encoding, "distiller": summary.distiller, "totals": layers,
            "ratios_of_totals": ratios, "specific_context": summary.contexts}
