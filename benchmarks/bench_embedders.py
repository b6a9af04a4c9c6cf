"""Faster embedders beside MiniLM: throughput, query latency and retrieval, in one process.

Embedders (``palace_lab.index.embed.EMBEDDERS`` plus the numpy path of MiniLM):

- ``minilm`` — all-MiniLM-L6-v2 in PyTorch (sentence-transformers, batches of 64, 256 pieces);
- ``minilm-numpy`` — the same network in numpy, one text at a time (what a one-shot query
  uses; vectors equal to torch's, so its retrieval is minilm's and is not run again);
- ``minilm-static`` — word-piece vectors distilled from it (``palace_lab.index.static``); the
  one-time distillation is timed separately (it is cached in the cache dir afterwards).

Speed: the sample palace's verbatim texts as documents (docs/s, one ``embed_batch`` over all;
best of ``--repeat``) and its queries one at a time (median ms), the same texts for every
embedder, ratios to minilm in the same run (2 shared cores: compare ratios, not seconds).

Retrieval: MRR@10 of ``hnsw:verbatim``, ``hnsw:core+keywords`` and the default mode on the
sample (82 graded queries), DevMemBench and LoCoMo (``../shared/benchmarks``, skipped with a
reason when absent), each set ingested and distilled once (as ``choose_default.py`` does);
*kept* is the MRR over minilm's for the same set and mode.

    .venv/bin/python benchmarks/bench_embedders.py [--sets sample,devmembench,locomo] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import choose_default as cd  # noqa: E402

MODES = ("hnsw:verbatim", "hnsw:core+keywords", "hybrid-wrrf")
SETS = ("sample", "devmembench", "locomo")


def _numpy_minilm():
    from palace_lab.index.embed import _numpy_embed

    class NumpyPath:
        name, dim = "minilm-numpy", 384

        def embed_batch(self, texts):
            return _numpy_embed(256, texts)

    return NumpyPath()


def embedders(names) -> dict:
    from palace_lab.index.embed import get_embedder

    return {n: (_numpy_minilm() if n == "minilm-numpy" else get_embedder(n)) for n in names}


def speed(embedder, docs: list[str], queries: list[str], repeat: int) -> dict:
    embedder.embed_batch(queries[:2])  # load the model (and distil a static table) first
    seconds = []
    for _ in range(repeat):
        start = time.perf_counter()
        embedder.embed_batch(docs)
        seconds.append(time.perf_counter() - start)
    latencies = []
    for q in queries:
        start = time.perf_counter()
        embedder.embed_batch([q])
        latencies.append((time.perf_counter() - start) * 1000)
    return {"docs_per_s": len(docs) / min(seconds), "query_ms": statistics.median(latencies)}


def distillation_seconds() -> float | None:
    """Seconds to distil the static table when it is not cached yet (None: it was)."""
    from palace_lab.index.static import StaticEmbedder

    emb = StaticEmbedder()
    if emb.table_path().is_file():
        return None
    start = time.perf_counter()
    emb.table()
    return time.perf_counter() - start


def dev_sets(names, folder: Path) -> dict:
    out = {}
    for name in names:
        if name != "sample" and not (cd.SHARED / name).is_dir():
            print(f"skipped {name}: not at {cd.SHARED / name}", file=sys.stderr)
            continue
        print(f"{name}: ingest and distill", file=sys.stderr)
        out[name] = cd.sample_set(folder) if name == "sample" else cd.bench_set(name, folder)
    return out


def retrieval(devs: dict, embedder) -> dict:
    scores = {}
    for name, dev in devs.items():
        print(f"{name}: {embedder.name}", file=sys.stderr)
        runs = cd.component_runs(dev, MODES, embedder=embedder)
        scores[name] = {m: cd.mrr(dev, runs[m]) for m in MODES}
    return scores


def main(argv=None) -> int:
    from palace_lab.index.layers import layer_texts
    from palace_lab.settings import offline

    offline()
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--embedders", default="minilm,minilm-numpy,minilm-static")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    names = args.embedders.split(",")
    report = {"distill_s": distillation_seconds() if "minilm-static" in names else None,
              "speed": {}, "mrr": {}}
    with tempfile.TemporaryDirectory(prefix="palace-embedders-") as tmp:
        devs = dev_sets(args.sets.split(","), Path(tmp))
        sample = devs.get("sample") or cd.sample_set(Path(tmp))
        docs = layer_texts(sample["palace"], "verbatim", None)[1]
        queries = list(sample["groups"][None].values())
        report["texts"] = {"docs": len(docs), "queries": len(queries)}
        for name, emb in embedders(names).items():
            print(f"speed: {name}", file=sys.stderr)
            report["speed"][name] = speed(emb, docs, queries, args.repeat)
            if name != "minilm-numpy":
                report["mrr"][name] = retrieval(devs, emb)
        for dev in devs.values():
            dev["palace"].close()
    print(json.dumps(report, indent=1) if args.json else render(report))
    return 0


def render(r: dict) -> str:
    base = r["speed"].get("minilm")
    lines = [f"speed: {r['texts']['docs']} sample verbatim texts, {r['texts']['queries']} queries "
             "one at a time", "", "| embedder | docs/s | × minilm | query ms (median) |",
             "|---|---|---|---|"]
    for name, sp in r["speed"].items():
        ratio = f"{sp['docs_per_s'] / base['docs_per_s']:.1f}x" if base else "–"
        lines.append(f"| {name} | {sp['docs_per_s']:,.1f} | {ratio} | {sp['query_ms']:.2f} |")
    names = list(r["mrr"])
    lines += ["", "MRR@10 (kept: over minilm's); minilm-numpy gives minilm's vectors", "",
              "| set | mode | " + " | ".join(names) + " |", "|---|---|" + "---|" * len(names)]
    for s in next(iter(r["mrr"].values()), {}):
        for m in MODES:
            ref = r["mrr"].get("minilm", {}).get(s, {}).get(m)
            cells = [f"{r['mrr'][n][s][m]:.3f}" + (f" ({r['mrr'][n][s][m] / ref:.0%})"
                                                   if ref and n != "minilm" else "")
                     for n in names]
            lines.append(f"| {s} | {m} | " + " | ".join(cells) + " |")
    if r.get("distill_s") is not None:
        lines.append(f"\nminilm-static: distilled once in {r['distill_s']:.0f} s (cached afterwards)")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
