"""Search at the paper's scale: index build, query latency, memory, HNSW recall, vs the seed.

On the synthetic corpus (``palace_lab.synth``: 14,340 exchanges by default, with its known-item
queries), ingested and distilled with the rules distiller, embedded with the packaged MiniLM:

- index build time per layer, split into embedding (computed vs found in the palace cache),
  BM25, HNSW and exact, plus the cold-start time to load every index back from its files;
- query latency per mode, p50/p95 over every query, query embedding included (one query at a
  time, as a person searches), after a short warm-up;
- peak memory (``ru_maxrss``) of the whole run;
- HNSW recall@10 against exact search, per layer, on the query vectors;
- the seed's reference approach on the same queries: BM25 rebuilt from scratch for every query
  (whitespace tokens, as the seed's ``rank_bm25`` code; rebuilt with bm25s, which is faster
  than rank_bm25, so the speed ratio is a lower bound) plus flat numpy search over the stored
  core vectors, fused by RRF; the ratio is its p50 over hybrid-rrf's p50 on the same queries;
- MRR@10 per mode against the corpus' qrels (grade ≥ 2), as a sanity check on quality.

Targets printed beside the figures: cross-layer p50 < 20 ms, ≥ 50x faster than the seed,
peak < 2 GB. Embeddings are cached in the palace by content hash: ``--db PATH`` keeps the built
palace (corpus, cards, embeddings) for the next run, whose build then measures BM25/HNSW only.
The machine's load average is recorded: on a shared 2-core machine it moves every figure.

    .venv/bin/python benchmarks/bench_search.py --exchanges 2000
    .venv/bin/python benchmarks/bench_search.py --db /tmp/bench14k.db --json
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TARGET_CROSS_P50_MS = 20.0
TARGET_SPEEDUP = 50.0
TARGET_PEAK_MB = 2048.0
QUERY_SET = "bench"


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def percentile_ms(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values) * 1000, q)) if values else float("nan")


# -- corpus -------------------------------------------------------------------------------


def build_palace(db: Path, exchanges: int, seed: int, n_queries: int):
    """A palace with the synthetic corpus, rules cards and the corpus' queries and qrels."""
    from palace_lab.distill.rules import RulesDistiller
    from palace_lab.distill.pipeline import distill_palace
    from palace_lab.budget import keep_budget
    from palace_lab.ingest import ingest_paths
    from palace_lab.store import Palace
    from palace_lab.synth import generate

    work = Path(tempfile.mkdtemp(prefix="bench_search_"))
    try:
        start = time.perf_counter()
        summary = generate(work / "corpus", exchanges=exchanges, seed=seed, queries=n_queries)
        log(f"synth: {summary.exchanges} exchanges in {time.perf_counter() - start:.1f} s")
        palace = Palace.open(db)
        start = time.perf_counter()
        ingest_paths(palace, [summary.sessions_dir])
        log(f"ingest: {palace.count('exchanges')} exchanges in {time.perf_counter() - start:.1f} s")
        start = time.perf_counter()
        distill_palace(palace, RulesDistiller(), keep=keep_budget)
        log(f"distill (rules): {time.perf_counter() - start:.1f} s")
        queries = [json.loads(line) for line in open(summary.queries_path, encoding="utf-8")]
        palace.put_queries(QUERY_SET, queries)
        palace.put_judgments("qrels:synth", read_qrels(Path(summary.qrels_path)))
        return palace
    finally:
        shutil.rmtree(work, ignore_errors=True)


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        qid, _, eid, grade = line.split()
        out.setdefault(qid, {})[eid] = int(grade)
    return out


def open_palace(args):
    from palace_lab.store import Palace

    if args.db and Path(args.db).exists():
        palace = Palace.open(args.db, create=False)
        log(f"reusing {args.db}: {palace.count('exchanges')} exchanges")
        return palace
    db = Path(args.db) if args.db else Path(tempfile.mkdtemp(prefix="bench_db_")) / "palace.db"
    return build_palace(db, args.exchanges, args.seed, args.queries)


def load_queries(palace, limit: int) -> list[dict]:
    queries = palace.queries(QUERY_SET)
    if not queries:  # a palace of one's own: known-item queries from opening requests
        rng = np.random.default_rng(0)
        exchanges = palace.exchanges()
        picks = rng.choice(len(exchanges), size=min(limit, len(exchanges)), replace=False)
        queries = [{"query_id": f"r{i}", "query": " ".join(exchanges[j].request.split()[:8])}
                   for i, j in enumerate(picks)]
    return queries[:limit]


# -- build --------------------------------------------------------------------------------


def build_indexes(palace, layers: list[str], rebuild: bool) -> dict:
    """Build every (layer, mechanism) index; per-layer seconds by step."""
    from palace_lab.index import cache as index_files
    from palace_lab.search import SearchEngine

    root = index_files.cache_root(palace)
    if rebuild and root.exists():
        shutil.rmtree(root)
    computed = {}
    engine = SearchEngine(palace, embedder="minilm", progress=_progress(computed))
    start = time.perf_counter()
    for layer in layers:
        for mechanism in ("bm25", "hnsw", "exact"):
            engine.indexes.get(layer, mechanism)
    total = time.perf_counter() - start
    per_layer = {layer: {"embedding_s": 0.0, "bm25_s": 0.0, "hnsw_s": 0.0, "exact_s": 0.0,
                         "texts_s": 0.0, "save_s": 0.0, "rows": 0} for layer in layers}
    for entry in engine.indexes.build_log:
        row = per_layer[entry["layer"]]
        row["rows"] = max(row["rows"], entry["n"])
        name = {"embed": "embedding_s", "texts": "texts_s", "save": "save_s"}.get(
            entry["step"], f"{entry['mechanism']}_s")
        row[name] += entry["seconds"]
    for layer, row in per_layer.items():
        row["embedded_now"] = computed.get(f"embedding {layer}", 0)
    return {"total_s": total, "layers": per_layer}


def _progress(computed: dict):
    last = {"t": 0.0}

    def report(stage: str, done: int, total: int) -> None:
        if stage.startswith("embedding"):
            computed[stage] = total
        now = time.perf_counter()
        if done == total or now - last["t"] > 10:
            last["t"] = now
            log(f"  {stage}: {done}/{total}")
    return report


def cold_load(palace, layers: list[str]) -> float:
    """Seconds for a new engine to load every index back from its files."""
    from palace_lab.search import SearchEngine

    start = time.perf_counter()
    engine = SearchEngine(palace, embedder="minilm")
    for layer in layers:
        for mechanism in ("bm25", "hnsw", "exact"):
            engine.indexes.get(layer, mechanism)
    return time.perf_counter() - start


# -- latency, quality, recall ---------------------------------------------------------------


def time_modes(engine, modes: list[dict], queries: list[dict], qrels: dict, warmup: int = 5):
    """Per mode: latency of ``search`` (p50/p95 ms, query embedding included), latency of the
    engine alone (query vector given), and MRR@10 against qrels.

    Modes are interleaved query by query, so a burst of load on the machine hits every mode
    alike instead of whichever mode was being timed.
    """
    names = [m["name"] for m in modes]
    for name in names:
        for q in queries[:warmup]:
            engine.search(q["query"], name, k=10)
    full = {n: [] for n in names}
    alone = {n: [] for n in names}
    rr = {n: [] for n in names}
    for q in queries:
        vector = engine.indexes.embed_queries([q["query"]])[0]
        for name in names:
            start = time.perf_counter()
            hits = engine.search(q["query"], name, k=10)
            full[name].append(time.perf_counter() - start)
            start = time.perf_counter()
            engine.search(q["query"], name, k=10, vector=vector)
            alone[name].append(time.perf_counter() - start)
            rr[name].append(_reciprocal_rank(hits, qrels.get(q["query_id"], {})))
    return {m["name"]: _mode_row(m, full[m["name"]], alone[m["name"]], rr[m["name"]], qrels)
            for m in modes}


def _mode_row(mode: dict, full: list[float], alone: list[float], rr: list[float], qrels) -> dict:
    row = {"kind": mode["kind"], "p50_ms": percentile_ms(full, 50),
           "p95_ms": percentile_ms(full, 95), "mean_ms": float(np.mean(full) * 1000),
           "engine_p50_ms": percentile_ms(alone, 50), "engine_p95_ms": percentile_ms(alone, 95),
           "mrr@10": float(np.mean(rr)) if qrels else None}
    log(f"  {mode['name']:<22} p50 {row['p50_ms']:.2f} ms "
        f"(engine alone {row['engine_p50_ms']:.2f})")
    return row


def _reciprocal_rank(hits, grades: dict[str, int]) -> float:
    return next((1.0 / h.rank for h in hits if grades.get(h.exchange_id, 0) >= 2), 0.0)


def time_query_embedding(engine, queries: list[dict]) -> dict:
    seconds = []
    for q in queries:
        start = time.perf_counter()
        engine.indexes.embed_queries([q["query"]])
        seconds.append(time.perf_counter() - start)
    return {"p50_ms": percentile_ms(seconds, 50), "p95_ms": percentile_ms(seconds, 95)}


def hnsw_recall(engine, layers: list[str], queries: list[dict], k: int = 10) -> dict:
    from palace_lab.index.hnsw import recall_at_k

    vectors = engine.indexes.embed_queries([q["query"] for q in queries])
    out = {}
    for layer in layers:
        hnsw, exact = engine.indexes.get(layer, "hnsw"), engine.indexes.get(layer, "exact")
        approx = [hnsw.search(v, k)[0] for v in vectors]
        truth = [exact.search(v, k)[0] for v in vectors]
        out[layer] = recall_at_k(approx, truth, k)
    return out


# -- the seed's reference approach ----------------------------------------------------------


def seed_baseline(engine, palace, queries: list[dict], k: int = 10) -> dict:
    """Per query: BM25 rebuilt over whitespace tokens + flat cosine over stored core vectors."""
    import bm25s

    from palace_lab.search.fusion import rrf

    exchanges = palace.exchanges()
    verbatim, ids = [e.verbatim for e in exchanges], [e.exchange_id for e in exchanges]
    core = engine.indexes.get("core", "exact")
    seconds = []
    for q in queries:
        start = time.perf_counter()
        retriever = bm25s.BM25()
        retriever.index([t.split() or [""] for t in verbatim], show_progress=False)
        tokens = [t for t in q["query"].split() if t in retriever.vocab_dict] or [""]
        scores = retriever.get_scores(tokens)
        q_vec = engine.indexes.embed_queries([q["query"]])[0]
        sims = core.index.vectors @ q_vec
        top_bm25 = np.argsort(-scores)[:k]
        top_vec = np.argsort(-sims)[:k]
        rrf([{ids[i]: float(scores[i]) for i in top_bm25},
             {core.ids[i]: float(sims[i]) for i in top_vec}], k=60)
        seconds.append(time.perf_counter() - start)
    return {"queries": len(queries), "p50_ms": percentile_ms(seconds, 50),
            "p95_ms": percentile_ms(seconds, 95)}


def ours_on(engine, queries: list[dict], mode: str) -> float:
    seconds = []
    for q in queries:
        start = time.perf_counter()
        engine.search(q["query"], mode, k=10)
        seconds.append(time.perf_counter() - start)
    return percentile_ms(seconds, 50)


# -- report -------------------------------------------------------------------------------


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def summarise(result: dict) -> dict:
    cross = {m: v for m, v in result["modes"].items() if v["kind"] == "cross"}
    worst = max(cross.values(), key=lambda v: v["p50_ms"])["p50_ms"] if cross else float("nan")
    speedup = result["baseline"]["p50_ms"] / result["baseline"]["ours_p50_ms"]
    return {
        "cross_p50_worst_ms": worst, "cross_p50_ok": worst < TARGET_CROSS_P50_MS,
        "speedup_vs_seed": speedup, "speedup_ok": speedup >= TARGET_SPEEDUP,
        "peak_mb": result["peak_mb"], "peak_ok": result["peak_mb"] < TARGET_PEAK_MB,
    }


def print_report(r: dict) -> None:
    t, cpus = r["targets"], r.get("cpus", os.cpu_count())
    print(f"\nsearch benchmark: {r['exchanges']} exchanges, {r['queries']} queries, "
          f"embedder {r['embedder']}, distiller {r['distiller']}; load average "
          f"{r['loadavg_start']:.1f} → {r['loadavg_end']:.1f} on {cpus} CPUs")
    print(f"\nindex build ({r['build']['total_s']:.1f} s; cold load of all indexes "
          f"{r['cold_load_s'] * 1000:.0f} ms)")
    print(f"{'layer':<12}{'rows':>7}{'embedded':>10}{'embed s':>9}{'bm25 s':>8}{'hnsw s':>8}"
          f"{'exact s':>9}{'recall@10':>11}")
    for layer, row in r["build"]["layers"].items():
        print(f"{layer:<12}{row['rows']:>7}{row['embedded_now']:>10}{row['embedding_s']:>9.1f}"
              f"{row['bm25_s']:>8.2f}{row['hnsw_s']:>8.2f}{row['exact_s']:>9.3f}"
              f"{r['hnsw_recall@10'][layer]:>11.3f}")
    print(f"\nquery embedding alone: p50 {r['query_embedding']['p50_ms']:.1f} ms, "
          f"p95 {r['query_embedding']['p95_ms']:.1f} ms")
    print(f"{'mode':<24}{'kind':<7}{'p50 ms':>8}{'p95 ms':>8}{'engine p50':>12}"
          f"{'engine p95':>12}{'MRR@10':>8}")
    for name, m in r["modes"].items():
        mrr = f"{m['mrr@10']:.3f}" if m["mrr@10"] is not None else "-"
        print(f"{name:<24}{m['kind']:<7}{m['p50_ms']:>8.2f}{m['p95_ms']:>8.2f}"
              f"{m['engine_p50_ms']:>12.3f}{m['engine_p95_ms']:>12.3f}{mrr:>8}")
    print("(p50/p95: search() with the query embedded inside it; engine: the query vector given)")
    b = r["baseline"]
    print(f"\nseed's approach ({b['queries']} queries): p50 {b['p50_ms']:.0f} ms, p95 "
          f"{b['p95_ms']:.0f} ms; hybrid-rrf on the same queries p50 {b['ours_p50_ms']:.2f} ms")
    print(f"\ntargets: cross-layer p50 {t['cross_p50_worst_ms']:.2f} ms (worst preset) < "
          f"{TARGET_CROSS_P50_MS:.0f} ms: {verdict(t['cross_p50_ok'])}; "
          f"{t['speedup_vs_seed']:.0f}x faster than the seed ≥ {TARGET_SPEEDUP:.0f}x: "
          f"{verdict(t['speedup_ok'])}; peak {t['peak_mb']:.0f} MB < {TARGET_PEAK_MB:.0f} MB: "
          f"{verdict(t['peak_ok'])}")
    if "peak_mb_at" in r:
        at = ", ".join(f"{k} {v:.0f} MB" for k, v in r["peak_mb_at"].items())
        print(f"(peak RSS after each phase: {at}; the target counts build + search)")


# -- main ---------------------------------------------------------------------------------


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--exchanges", type=int, default=14340)
    ap.add_argument("--queries", type=int, default=200, help="queries timed per mode")
    ap.add_argument("--baseline-queries", type=int, default=20,
                    help="queries for the seed's approach (each rebuilds BM25: seconds apiece)")
    ap.add_argument("--db", help="palace to build once and reuse (embeddings are cached in it)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--layers", default="verbatim,core,core+files,core+rooms,all")
    ap.add_argument("--keep-indexes", action="store_true",
                    help="load existing index files instead of rebuilding them")
    ap.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    ap.add_argument("--show", metavar="RESULT.json", help="print the report of a saved --json run")
    return ap.parse_args(argv)


def run(args) -> dict:
    layers = [layer for layer in args.layers.split(",") if layer]
    if not {"verbatim", "core"} <= set(layers):
        raise SystemExit("--layers must include verbatim and core "
                         "(hybrid-rrf and the seed's approach use them)")
    load_start = os.getloadavg()[0]
    palace = open_palace(args)
    log("building indexes")
    peaks = {}
    build = build_indexes(palace, layers, rebuild=not args.keep_indexes)
    peaks["build"] = peak_mb()
    cold = cold_load(palace, layers)
    result = measure_search(palace, layers, args.queries)
    peaks["search"] = peak_mb()
    result.update(cpus=os.cpu_count(), loadavg_start=load_start, build=build, cold_load_s=cold)
    log(f"seed's approach on {args.baseline_queries} queries")
    engine, queries = result.pop("_engine"), result.pop("_queries")
    subset = queries[:args.baseline_queries]
    result["baseline"] = seed_baseline(engine, palace, subset)
    result["baseline"]["ours_p50_ms"] = ours_on(engine, subset, "hybrid-rrf")
    peaks["with_seed_baseline"] = peak_mb()
    # The target is the engine's own peak (build + search); the seed's harness runs after it.
    result.update(peak_mb=peaks["search"], peak_mb_at=peaks, loadavg_end=os.getloadavg()[0])
    result["targets"] = summarise(result)
    return result


def measure_search(palace, layers: list[str], n_queries: int) -> dict:
    from palace_lab.search import SearchEngine, list_modes

    engine = SearchEngine(palace, embedder="minilm")
    queries = load_queries(palace, n_queries)
    qrels = palace.qrels(query_ids=[q["query_id"] for q in queries])
    modes = [m for m in list_modes() if set(m["layers"]) <= set(layers)]
    log(f"timing {len(modes)} modes x {len(queries)} queries")
    return {"exchanges": palace.count("exchanges"), "queries": len(queries),
            "embedder": engine.indexes.embedder.name, "distiller": engine.distiller,
            "query_embedding": time_query_embedding(engine, queries),
            "modes": time_modes(engine, modes, queries, qrels),
            "hnsw_recall@10": hnsw_recall(engine, layers, queries),
            "_engine": engine, "_queries": queries}


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.show:
        print_report(json.loads(Path(args.show).read_text(encoding="utf-8")))
        return 0
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    result = run(args)
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print_report(result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
