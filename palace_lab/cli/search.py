"""The retrieval and memory commands of ``palace-lab``: modes, search, eval, pack."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from palace_lab.cli.common import EMBEDDER_HELP
from palace_lab.errors import PalaceError
from palace_lab.settings import DEFAULT_EMBEDDER

if TYPE_CHECKING:
    from palace_lab.store import Palace


def _engine(args, palace: Palace):
    from palace_lab.search import SearchEngine

    return SearchEngine(palace, distiller=args.distiller, embedder=args.embedder,
                        inline_embed=getattr(args, "inline_embed", None))


def _filters(args) -> dict | None:
    chosen = {k: v for k, v in (("project", args.project), ("date_from", args.since),
                                ("date_to", args.until), ("room", args.room)) if v}
    return chosen or None


def _modes(spec: str) -> list[str]:
    from palace_lab.search.modes import parse_mode_list

    return parse_mode_list(spec)


def cmd_modes(args) -> None:
    from palace_lab.cli.common import _emit
    from palace_lab.search import list_modes

    modes = list_modes()
    _emit(args, modes, "\n".join(f"{m['name']:<28} {m['kind']:<5} {m.get('description', '')}"
                                 for m in modes))


def _hits_from_run(run: dict, exchanges: dict) -> dict:
    from palace_lab.model import hits_of, rank_order

    return {qid: [h.to_dict() for h in hits_of(rank_order(scores), exchanges)]
            for qid, scores in run.items()}


def cmd_search(args) -> None:
    from palace_lab.cli.common import _emit, _palace

    if bool(args.query) == bool(args.queries):
        raise PalaceError("give either one QUERY or --queries FILE")
    with _palace(args) as palace:
        engine = _engine(args, palace)
        args.mode = args.mode or _palace_mode(palace)
        if args.query:
            if args.build:
                engine.prepare([args.mode], progress=_build_progress())
            answer = engine.answer(args.query, args.mode, args.k, _filters(args))
            _tell_readiness(answer.readiness, args)
            hits = [h.to_dict() for h in answer.hits]
            _emit(args, hits, "\n".join(f"{h['rank']:>3}. {h['score']:.4f}  {h['exchange_id']}  "
                                        f"{h['preview'][:100]}" for h in hits) or "no hits")
            return
        from palace_lab.evaluate import read_queries

        texts = {q["query_id"]: q["query"] for q in read_queries(args.queries)}
        exchanges = {e.exchange_id: e for e in palace.exchanges()}
        modes = _modes(args.modes or args.mode)
        result = {m: _hits_from_run(engine.run(texts, m, args.k, _filters(args)), exchanges)
                  for m in modes}
    _emit(args, result, "\n".join(f"{m}: {len(r)} queries" for m, r in result.items()))


def _palace_mode(palace: Palace) -> str:
    """The palace's saved default mode (the lab's "make default"), else the project's."""
    from palace_lab.experiments.prefs import search_mode

    return search_mode(palace.path)


def _tell_readiness(ready, args) -> None:
    """A substitute mode is said on stderr (``--json`` keeps stdout a list of hits)."""
    if ready.degraded:
        db = f" --db {args.db}" if args.db else ""
        print(f"palace-lab: note: {ready.note()}; build it with `palace-lab index{db}` "
              "or search with --build", file=sys.stderr)


def cmd_index(args) -> None:
    """Build (or load) every index the named modes need, with progress on stderr."""
    from palace_lab.cli.common import _emit, _palace
    from palace_lab.experiments import page_figures

    with _palace(args) as palace:
        modes = _modes(args.modes or _palace_mode(palace))
        engine = _engine(args, palace)
        engine.prepare(modes, progress=_build_progress(), compact=True)
        log = engine.indexes.build_log
        figures = page_figures.prepare_palace(palace, engine.distiller, engine=engine,
                                              embedder=args.embedder)  # the app's first visit
    steps = _summarise_build(log)
    text = "\n".join(f"{s['layer']:<14} {s['mechanism']:<6} {s['step']:<6} {s['n']:>7} rows"
                     f"  {s['seconds']:.1f} s" for s in steps) or "nothing to build"
    made = ", ".join(f"{kind} {t:.1f} s" for took in figures.values() for kind, t in took.items())
    _emit(args, {"modes": modes, "steps": steps, "page_figures": figures},
          f"{text}\npage figures: {made}")


def _summarise_build(log: list[dict]) -> list[dict]:
    return [{**entry, "seconds": round(entry["seconds"], 3)} for entry in log]


def cmd_eval(args) -> None:
    from palace_lab.cli.common import _emit, _palace
    from palace_lab.evaluate import evaluate_modes, read_qrels, read_queries
    from palace_lab.search import list_modes

    queries = read_queries(args.queries)
    qrels = read_qrels(args.qrels)
    names = _modes(args.modes)
    known = {m["name"]: m for m in list_modes()}
    modes = [known.get(n, n) for n in names]
    with _palace(args) as palace:
        engine = _engine(args, palace)
        engine.prepare(names, progress=_build_progress())
        report = evaluate_modes(engine.run, modes, queries, qrels, k=args.k,
                                correction=args.correction, test=args.test)
    _emit(args, report.to_dict(), report.to_markdown())


def cmd_pack(args) -> None:
    from pathlib import Path

    from palace_lab.cli.common import _emit, _palace
    from palace_lab.lifecycle import build_pack

    with _palace(args) as palace:
        pack = build_pack(palace, args.budget, focus_query=args.query, project=args.project,
                          room=args.room, distiller=args.distiller, fmt=args.format)
    Path(args.out).expanduser().write_text(pack.text, "utf-8")
    summary = {**pack.summary(), "out": str(args.out)}
    _emit(args, summary, f"wrote {args.out}: {summary}")


def cmd_import_queries(args) -> None:
    from palace_lab.cli.common import _emit, _palace
    from palace_lab.experiments.query_sets import import_query_files

    with _palace(args, create=False) as palace:
        counts = import_query_files(palace, args.queries, args.qrels, query_set=args.set)
    _emit(args, {"query_set": args.set, **counts},
          f"query set {args.set!r}: {counts['queries']} queries, {counts['judgments']} judgments"
          f" ({counts['dangling']} for exchanges not in this palace)")


def cmd_bench(args) -> None:
    import tempfile
    from pathlib import Path

    from palace_lab.bench import build_palace, load_benchmark, run_benchmark
    from palace_lab.cli.common import _emit

    bench = load_benchmark(args.path, args.format, errata=args.errata)
    if not bench.questions:
        raise PalaceError(f"{args.path}: no answerable question in this benchmark")
    say = (lambda m: print(f"bench: {m}", file=sys.stderr)) if sys.stderr.isatty() else None
    with tempfile.TemporaryDirectory(prefix="palace-bench-") as tmp:
        db = Path(args.keep).expanduser() if args.keep else Path(tmp) / f"{bench.name}.db"
        if args.keep and db.exists():
            raise PalaceError(f"{db} exists: --keep writes a new palace; remove it or name another")
        palace = build_palace(bench, db, distiller=args.distiller, progress=say)
        try:
            report = run_benchmark(bench, palace, _modes(args.modes), embedder=args.embedder,
                                   k=args.k, correction=args.correction, test=args.test,
                                   progress=say)
            if args.keep:
                _store_query_set(palace, bench, report)
        finally:
            palace.close()
    _emit(args, report.to_dict(), report.to_markdown())


def _store_query_set(palace: Palace, bench, report) -> None:
    """The benchmark's questions and qrels as a query set of the kept palace (the app's
    Evaluation page reads it)."""
    from palace_lab.bench import qrels_for

    qrels = qrels_for(bench.questions, palace.exchanges())
    palace.put_queries(bench.name, [q.to_query() for q in bench.questions if q.query_id in qrels])
    palace.put_judgments(f"qrels:{bench.name}", qrels)


def _build_progress():
    def tick(*parts):
        print("  building " + " ".join(str(p) for p in parts), file=sys.stderr, end="\r")
    return tick if sys.stderr.isatty() else None


def add_search_commands(command) -> None:
    """Register the retrieval subcommands on the main parser."""
    command("modes", cmd_modes, "list search modes: every pure mode and the cross-layer presets",
            db=False)
    for add in (_add_search, _add_index, _add_eval, _add_bench, _add_import_queries, _add_pack):
        add(command)


def _add_search(command) -> None:
    from palace_lab.search.modes import DEFAULT_MODE

    c = command("search", cmd_search, "search one query, or a queries file over several modes")
    c.add_argument("query", nargs="?", help="the query (or use --queries)")
    c.add_argument("--queries", help="JSONL file of {query_id, query, type?} for a batch run")
    c.add_argument("--mode", help="mode name or mode string (default: the palace's saved "
                   f"default, else {DEFAULT_MODE})")
    c.add_argument("--modes", help="batch: all | presets | M1,M2,… (default: --mode)")
    c.add_argument("--build", action="store_true",
                   help="build a missing vector layer first (with progress) instead of "
                        "searching without it")
    c.add_argument("--inline-embed", type=int, metavar="N",
                   help="embed at most N texts inside a search before leaving a vector layer "
                        "out (default 500)")
    _common(c)


def _add_index(command) -> None:
    from palace_lab.search.modes import DEFAULT_MODE

    c = command("index", cmd_index, "build the indexes the modes need (embedding vector layers, "
                "with progress), so searches never wait or leave a layer out")
    c.add_argument("--modes", help="all | presets | M1,M2,… (default: the palace's saved "
                   f"default mode, else {DEFAULT_MODE})")
    c.add_argument("--distiller", help="distiller version for distilled layers (default: latest)")
    c.add_argument("--embedder", default=DEFAULT_EMBEDDER, help=EMBEDDER_HELP)


def _add_eval(command) -> None:
    c = command("eval", cmd_eval, "evaluate modes on graded queries: the paper-style table")
    c.add_argument("--queries", required=True, help="JSONL file of {query_id, query, type?}")
    c.add_argument("--qrels", required=True, help="TREC qrels or JSON {query_id: {exchange_id: grade}}")
    c.add_argument("--modes", default="all", help="all | presets | M1,M2,… (mode names or strings)")
    c.add_argument("--test", default="t", choices=["t", "wilcoxon"], help="paired test")
    c.add_argument("--correction", default="holm", choices=["holm", "bonferroni"])
    _common(c)


def _add_bench(command) -> None:
    from palace_lab.bench import FORMATS as BENCH_FORMATS

    c = command("bench", cmd_bench, "run a public memory benchmark (LoCoMo, DevMemBench, "
                "LongMemEval) through a palace of its own and print the paper-style table",
                db=False)
    c.add_argument("path", help="the benchmark's file or folder, in its own format")
    c.add_argument("--format", default="auto", choices=BENCH_FORMATS)
    c.add_argument("--errata", help="LoCoMo: folder of errors_conv_<i>.json (default: beside it)")
    c.add_argument("--modes", default="all", help="all | presets | M1,M2,… (default: all)")
    c.add_argument("--distiller", default="rules", help="distiller backend (default: rules)")
    c.add_argument("--embedder", default=DEFAULT_EMBEDDER, help=EMBEDDER_HELP)
    c.add_argument("--k", type=int, default=10, help="cut-off of the exchange metrics")
    c.add_argument("--test", default="t", choices=["t", "wilcoxon"], help="paired test")
    c.add_argument("--correction", default="bonferroni", choices=["holm", "bonferroni"])
    c.add_argument("--keep", metavar="DB", help="keep the benchmark's palace at DB, with its "
                   "questions as a query set for the app")


def _add_import_queries(command) -> None:
    c = command("import-queries", cmd_import_queries,
                "store a queries file and its graded qrels in the palace (for the app)")
    c.add_argument("queries", help="JSONL file of {query_id, query, type?}")
    c.add_argument("--qrels", required=True, help="TREC qrels or JSON {query_id: {exchange_id: grade}}")
    c.add_argument("--set", default="sample", help="query set name (default: sample)")


def _add_pack(command) -> None:
    c = command("pack", cmd_pack, "write a memory pack of distilled cards that fits a token budget")
    c.add_argument("--budget", type=int, required=True, help="token budget (e.g. 39000)")
    c.add_argument("--out", required=True, help="file to write (Markdown or JSON)")
    c.add_argument("--format", default="markdown", choices=["markdown", "json"])
    c.add_argument("--query", help="focus: rank memories by this query")
    c.add_argument("--project", help="focus: only this project")
    c.add_argument("--room", help="focus: only this room key")
    c.add_argument("--distiller", help="distiller version (default: latest)")


def _common(c) -> None:
    c.add_argument("--k", type=int, default=10, help="results per query (default 10)")
    c.add_argument("--distiller", help="distiller version for distilled layers (default: latest)")
    c.add_argument("--embedder", default=DEFAULT_EMBEDDER, help=EMBEDDER_HELP)
    c.add_argument("--project", help="only exchanges of this project")
    c.add_argument("--since", help="only exchanges on or after this date (ISO)")
    c.add_argument("--until", help="only exchanges before this date (ISO)")
    c.add_argument("--room", help="only exchanges filed under this room key")
