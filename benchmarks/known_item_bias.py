"""Does the known-item probe rank the search modes as graded questions do? Rerun it to check.

On three dev sets with gold judgments — the bundled sample's 82 hand-graded queries, the public
DevMemBench and the LoCoMo dev samples (``../shared/benchmarks``, skipped with a reason when
absent) — every mode of :data:`palace_lab.experiments.query_sets.DEFAULT_MODES` is run on the
graded questions and on known-item queries generated from the same palace, from each source
of :mod:`palace_lab.evaluate.known_item` (``verbatim``: the first generator; ``dialogue``: the
less biased one). For each (set, source) it reports:

- Kendall's tau-b and Spearman's rho between the modes' MRR@10 on graded questions and on
  known-item queries (1 = the probe ranks the modes exactly as the graded questions do);
- the mean over seeds when ``--seeds`` > 1 (each seed a different known-item set);
- "kept" (best distilled MRR / best verbatim MRR) on both, the figure the Overview headlines
  (known-item: the mean over seeds);
- bm25:verbatim's MRR and the best mode on each (known-item: the first seed's set).

Every query searches the whole palace (LoCoMo's questions are not scoped to their own
conversation here, unlike ``palace-lab bench``), the same way for both kinds of query. Relevance:
grade >= 2 on the sample and the known-item sets, >= 1 on the benchmarks (their gold is per
exchange or session, grade 1). The palaces are built into ``--work`` (default a temporary
folder) unless given: ``--palace devmembench=DB`` reuses one kept by
``palace-lab bench PATH --keep DB``. A few minutes on 2 cores, mostly embedding the layers.

    PYTHONPATH=. HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/known_item_bias.py [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "benchmarks"
SAMPLE_PARTS = ("claude_code", "codex", "chatgpt")
BENCHES = {"devmembench": SHARED / "devmembench", "locomo": SHARED / "locomo" / "locomo10_dev.json"}


def sample_palace(work: Path):
    """The bundled sample ingested, distilled by rules, its queries imported (set ``sample``)."""
    from palace_lab.distill import get_distiller
    from palace_lab.distill.pipeline import distill_palace
    from palace_lab.budget import keep_budget
    from palace_lab.experiments.query_sets import import_query_files
    from palace_lab.ingest import ingest_paths
    from palace_lab.store import Palace

    db = work / "sample.db"
    fresh = not db.exists()
    palace = Palace.open(db)
    if fresh:
        src = ROOT / "sample_data"
        ingest_paths(palace, [src / p for p in SAMPLE_PARTS if (src / p).exists()])
        distill_palace(palace, get_distiller("rules"), keep=keep_budget)
        import_query_files(palace, src / "queries.jsonl", src / "qrels.txt")
    return palace, "sample", 2


def bench_palace(name: str, work: Path, given: Path | None):
    """A benchmark's palace with its questions as query set ``name`` (as ``bench --keep``)."""
    from palace_lab.bench import build_palace, load_benchmark, qrels_for
    from palace_lab.store import Palace

    db = given or work / f"{name}.db"
    if db.exists():
        return Palace.open(db, create=False), name, 1
    bench = load_benchmark(BENCHES[name])
    palace = build_palace(bench, db)
    qrels = qrels_for(bench.questions, palace.exchanges())
    palace.put_queries(name, [q.to_query() for q in bench.questions if q.query_id in qrels])
    palace.put_judgments(f"qrels:{name}", qrels)
    return palace, bench.name, 1


def mode_mrr(engine, queries, qrels, modes, rel_level: int) -> dict[str, float]:
    from palace_lab.evaluate.metrics import evaluate

    texts = {q["query_id"]: q["query"] for q in queries}
    return {m: evaluate(qrels, engine.run(texts, m, 10), ["mrr"], rel_level=rel_level)["mrr"]
            for m in modes}


def kept(mrr: dict[str, float]) -> tuple[float | None, str]:
    """Best distilled / best verbatim MRR, and the best mode overall."""
    from palace_lab.evaluate.report import headline, mode_table
    from palace_lab.experiments.query_sets import describe_modes

    info = mode_table(describe_modes(mrr))
    h = headline(mrr, info)
    return h.get("distilled_over_verbatim"), max(mrr, key=lambda m: (mrr[m], m))


def correlate(a: dict[str, float], b: dict[str, float]) -> tuple[float, float]:
    from scipy import stats

    modes = sorted(a)
    x, y = [a[m] for m in modes], [b[m] for m in modes]
    return float(stats.kendalltau(x, y).statistic), float(stats.spearmanr(x, y).statistic)


def measure(palace, graded_set: str, rel_level: int, *, n: int, seeds: int, embedder: str) -> list[dict]:
    from palace_lab.evaluate.known_item import SOURCES, known_item_queries
    from palace_lab.experiments.query_sets import DEFAULT_MODES, judged_set
    from palace_lab.experiments.story import main_version
    from palace_lab.index.embed import get_embedder
    from palace_lab.index.recent import RecentEmbedder
    from palace_lab.search import SearchEngine

    engine = SearchEngine(palace, distiller=main_version(palace), embedder=RecentEmbedder(get_embedder(embedder)))
    modes = list(DEFAULT_MODES)
    engine.prepare(modes)
    queries, qrels = judged_set(palace, graded_set)
    graded = mode_mrr(engine, queries, qrels, modes, rel_level)
    g_kept, g_best = kept(graded)
    rows = []
    for source in SOURCES:
        taus, rhos, kis = [], [], []
        for seed in range(seeds):
            items = known_item_queries(palace.exchanges(), n=n, seed=seed, source=source)
            ki = mode_mrr(engine, list(items.queries), items.qrels, modes, 2)
            tau, rho = correlate(graded, ki)
            taus.append(tau), rhos.append(rho), kis.append((ki, len(items.queries)))
        ki0, made = kis[0]
        k_best = kept(ki0)[1]
        ratios = [k for k in (kept(ki)[0] for ki, _ in kis) if k is not None]
        k_kept = sum(ratios) / len(ratios) if ratios else None
        rows.append({"set": graded_set, "graded_queries": len(queries), "source": source,
                     "known_item_queries": made, "seeds": seeds, "kendall_tau": sum(taus) / seeds,
                     "spearman_rho": sum(rhos) / seeds, "kept_graded": g_kept, "kept_known_item": k_kept,
                     "best_graded": g_best, "best_known_item": k_best,
                     "bm25_verbatim_graded": graded["bm25:verbatim"],
                     "bm25_verbatim_known_item": ki0["bm25:verbatim"],
                     "mrr_graded": graded, "mrr_known_item": ki0})
    return rows


def markdown(rows: list[dict]) -> str:
    head = ("| set | graded q | generator source | known-item q | Kendall tau | Spearman rho | "
            "kept (graded) | kept (known-item) | bm25:verbatim MRR graded / known-item | best mode graded | best mode known-item |\n"
            "|---|---|---|---|---|---|---|---|---|---|---|\n")
    pct = lambda v: "–" if v is None else f"{v:.0%}"  # noqa: E731
    return head + "".join(
        f"| {r['set']} | {r['graded_queries']} | {r['source']} | {r['known_item_queries']} | "
        f"{r['kendall_tau']:+.2f} | {r['spearman_rho']:+.2f} | {pct(r['kept_graded'])} | "
        f"{pct(r['kept_known_item'])} | {r['bm25_verbatim_graded']:.3f} / {r['bm25_verbatim_known_item']:.3f} | "
        f"`{r['best_graded']}` | `{r['best_known_item']}` |\n" for r in rows)


def run_one(name: str, work: Path, given: dict, args) -> list[dict]:
    """One set's rows (``sample`` or a benchmark name)."""
    try:  # before torch runs: onnxruntime imported after a torch encode crashed this process
        import onnxruntime  # noqa: F401
    except ImportError:
        pass
    if name != "sample" and name not in given and not BENCHES[name].exists():
        print(f"{name}: skipped, {BENCHES[name]} is absent", file=sys.stderr)
        return []
    if name == "sample":
        palace, graded_set, rel = sample_palace(work)
    else:
        palace, graded_set, rel = bench_palace(name, work, Path(given[name]) if name in given else None)
    started = time.monotonic()
    rows = measure(palace, graded_set, rel, n=args.n, seeds=args.seeds, embedder=args.embedder)
    print(f"{graded_set}: {time.monotonic() - started:.0f} s", file=sys.stderr)
    return rows


def in_child(name: str, work: Path, argv: list[str]) -> list[dict]:
    """Each set in a process of its own: one set's indexes and model never outlive it (a native
    index freed late in a long process is what a crash would come from)."""
    import subprocess

    out = work / f"rows-{name}.json"
    code = subprocess.call([sys.executable, __file__, *argv, "--only", name, "--work", str(work),
                            "--json", str(out)])
    if code or not out.exists():
        print(f"{name}: skipped (exit code {code})", file=sys.stderr)
        return []
    return json.loads(out.read_text(encoding="utf-8"))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--work", type=Path, help="folder for the palaces (default: temporary)")
    parser.add_argument("--palace", action="append", default=[], metavar="NAME=DB",
                        help="reuse a kept benchmark palace (devmembench=DB, locomo=DB)")
    parser.add_argument("--n", type=int, default=100, help="known-item queries per set (default 100)")
    parser.add_argument("--seeds", type=int, default=3, help="known-item sets per source (default 3)")
    parser.add_argument("--embedder", default="minilm")
    parser.add_argument("--only", choices=["sample", *BENCHES], help="one set, in this process")
    parser.add_argument("--json", type=Path, help="also write the rows as JSON")
    args = parser.parse_args(argv)
    given = dict(p.split("=", 1) for p in args.palace)
    with tempfile.TemporaryDirectory(prefix="ki-bias-") as tmp:
        work = args.work or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        if args.only:
            rows = run_one(args.only, work, given, args)
        else:
            passed = [a for a in argv if not a.startswith("--json") and a != str(args.json)]
            rows = [r for name in ["sample", *BENCHES] for r in in_child(name, work, passed)]
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    if not args.only:
        print(markdown(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
