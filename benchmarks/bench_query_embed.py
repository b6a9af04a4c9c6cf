"""Query embedding alone: MiniLM in numpy, its float ONNX graph and the int8 default, interleaved.

The sample's graded queries (``sample_data/queries.jsonl``), one text per call as a search
embeds them, each timed in numpy and in ONNX back to back (the order alternating per query), so
a load on the machine hits both alike; ``--rounds`` passes over the queries. Both run on one
thread. ``int8`` is the default embedder (``minilm-int8``: its own vectors, so its cosine to
the float paths is not printed). With ``--busy N`` a second phase runs the same under N extra busy-looping processes
(one core each). Printed per phase: p50/p95 ms of each path, the speed-up, the load average,
and the smallest cosine between the two paths' vectors.

    .venv/bin/python benchmarks/bench_query_embed.py [--rounds 2] [--busy 1] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def paths() -> dict:
    from palace_lab.index.embed import _numpy_embed, _query_embed, get_embedder

    int8 = get_embedder("minilm-int8")
    return {"numpy": lambda q: _numpy_embed(256, [q]), "onnx": lambda q: _query_embed(256, [q]),
            "int8": lambda q: int8.embed_batch([q])}


def phase(fns: dict, queries: list[str], rounds: int) -> dict:
    ms = {name: [] for name in fns}
    order = list(fns)
    for r in range(rounds):
        for i, q in enumerate(queries):
            for name in (order if (i + r) % 2 == 0 else order[::-1]):
                start = time.perf_counter()
                fns[name](q)
                ms[name].append((time.perf_counter() - start) * 1000)
    out = {name: {"p50": float(np.percentile(v, 50)), "p95": float(np.percentile(v, 95))}
           for name, v in ms.items()}
    out["speedup_p50"] = out["numpy"]["p50"] / out["onnx"]["p50"]
    out["load_average"] = os.getloadavg()
    return out


def main(argv=None) -> int:
    from palace_lab.evaluate import read_queries
    from palace_lab.index.minilm_onnx import load
    from palace_lab.settings import offline

    offline()
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--busy", type=int, default=0, help="extra busy processes, second phase")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    queries = [q["query"] for q in read_queries(ROOT / "sample_data" / "queries.jsonl")]
    fns = paths()
    start = time.perf_counter()
    vectors = {name: np.vstack([fn(q) for q in queries]) for name, fn in fns.items()}
    from palace_lab.index.embed import minilm_folder
    from palace_lab.settings import cache_dir

    if load(minilm_folder(), cache_dir()) is None:
        print("onnxruntime is not usable here: both paths are numpy", file=sys.stderr)
    report = {"queries": len(queries), "rounds": args.rounds,
              "warmup_s": time.perf_counter() - start,
              "min_cosine": float((vectors["numpy"] * vectors["onnx"]).sum(axis=1).min()),
              "quiet": phase(fns, queries, args.rounds)}
    if args.busy:
        busy = [subprocess.Popen([sys.executable, "-c", "while 1: pass"])
                for _ in range(args.busy)]
        try:
            time.sleep(2)
            report[f"busy{args.busy}"] = phase(fns, queries, args.rounds)
        finally:
            for p in busy:
                p.kill()
                p.wait()
    print(json.dumps(report, indent=1) if args.json else render(report))
    return 0


def render(r: dict) -> str:
    lines = [f"{r['queries']} queries x {r['rounds']} rounds, min cosine numpy/onnx "
             f"{r['min_cosine']:.7f}",
             "| phase | numpy p50 / p95 | ONNX p50 / p95 | int8 (default) p50 / p95 | ONNX x numpy "
             "(p50) | load average |", "|---|---|---|---|---|---|"]
    for name, ph in r.items():
        if isinstance(ph, dict):
            load = " ".join(f"{x:.2f}" for x in ph["load_average"])
            cells = " | ".join(f"{ph[p]['p50']:.2f} / {ph[p]['p95']:.2f}"
                               for p in ("numpy", "onnx", "int8"))
            lines.append(f"| {name} | {cells} | {ph['speedup_p50']:.1f}x | {load} |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
