"""Ingest at the paper's scale: wall time, throughput and peak memory, against a plain parse.

Generates the synthetic 14,340-exchange Claude Code corpus (``palace_lab.synth``) into a temp
folder, or reads ``--corpus DIR``, then runs, ``--repeat`` times each in a fresh process so that
peak RSS belongs to the phase measured:

- ingest: ``ingest_paths`` into an empty palace (targets: under 60 s, under 1 GB peak RSS);
- re-ingest: the same files again into the same palace (must be a no-op);
- baseline: the naive approach, ``json.loads`` on every line and every text collected in a list,
  nothing stored: the floor that any ingest pays, shown beside ingest as a ratio.

Figures are medians over the repeats (min-max beside them). ``--tracemalloc`` adds one untimed
ingest with tracemalloc on, for the Python-heap peak (tracing slows ingest several times).

    .venv/bin/python benchmarks/bench_ingest.py                  # full corpus, 1 run
    .venv/bin/python benchmarks/bench_ingest.py --exchanges 2000 --repeat 3 --json
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_SECONDS = 60.0
TARGET_RSS_MB = 1024.0


# -- workers: each runs in its own process and prints one JSON line -------------------------


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def _collect_texts(obj: dict, texts: list[str]) -> None:
    content = (obj.get("message") or {}).get("content")
    if isinstance(content, str):
        texts.append(content)
        return
    for block in content or ():
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            texts.append(block.get("text", ""))
        elif kind == "tool_use":
            texts.append(json.dumps(block.get("input", {}), ensure_ascii=False))
        elif kind == "tool_result":
            inner = block.get("content")
            texts.append(inner if isinstance(inner, str) else json.dumps(inner))


def worker_baseline(root: Path) -> dict:
    start = time.perf_counter()
    texts: list[str] = []
    lines = 0
    for path in sorted(root.rglob("*.jsonl")):
        with open(path, "rb") as fh:
            for raw in fh:
                lines += 1
                _collect_texts(json.loads(raw), texts)
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "rss_mb": _peak_rss_mb(), "lines": lines,
            "texts": len(texts), "text_chars": sum(map(len, texts))}


def worker_ingest(root: Path, db: Path, trace: bool = False) -> dict:
    from palace_lab.ingest import ingest_paths
    from palace_lab.store import Palace

    if trace:
        import tracemalloc

        tracemalloc.start()
    start = time.perf_counter()
    palace = Palace.open(db)
    report = ingest_paths(palace, [root])
    totals = report.totals()
    palace.close()
    seconds = time.perf_counter() - start
    out = {"seconds": seconds, "rss_mb": _peak_rss_mb(), **totals}
    if trace:
        out["tracemalloc_peak_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
    return out


def _run_worker(kind: str, root: Path, db: Path | None = None) -> dict:
    cmd = [sys.executable, __file__, "--worker", kind, "--corpus", str(root)]
    if db is not None:
        cmd += ["--db", str(db)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{kind} worker failed:\n{proc.stderr.strip()}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# -- the benchmark --------------------------------------------------------------------------


def _corpus(args, tmp: Path) -> tuple[Path, dict]:
    """The folder to ingest and what is known about it (generated here or given)."""
    if args.corpus:
        given = Path(args.corpus)
        root = given / "claude_code" if (given / "claude_code").is_dir() else given
        return root, {"generated": False, "path": str(given)}
    from palace_lab.synth import generate

    start = time.perf_counter()
    summary = generate(tmp / "corpus", exchanges=args.exchanges, seed=args.seed)
    return Path(summary.sessions_dir), {
        "generated": True, "generate_seconds": time.perf_counter() - start,
        "exchanges_requested": args.exchanges, "sessions": summary.conversations,
        "seed": args.seed}


def _spread(values: list[float]) -> dict:
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "runs": values}


def run(args) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="bench_ingest_"))
    try:
        root, corpus = _corpus(args, tmp)
        files = sorted(root.rglob("*.jsonl"))
        corpus.update(files=len(files), mb=sum(f.stat().st_size for f in files) / 1e6)
        ingests, reingests, baselines = [], [], []
        for i in range(args.repeat):
            baselines.append(_run_worker("baseline", root))
            db = tmp / f"palace-{i}.db"
            ingests.append(_run_worker("ingest", root, db))
            reingests.append(_run_worker("ingest", root, db))
            corpus["db_mb"] = sum(p.stat().st_size for p in tmp.glob(f"palace-{i}.db*")) / 1e6
            for p in tmp.glob(f"palace-{i}.db*"):
                p.unlink()
        traced = _run_worker("trace", root, tmp / "trace.db") if args.tracemalloc else None
        return _figures(corpus, ingests, reingests, baselines, traced)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _figures(corpus, ingests, reingests, baselines, traced) -> dict:
    wall = _spread([r["seconds"] for r in ingests])
    rss = _spread([r["rss_mb"] for r in ingests])
    base = _spread([r["seconds"] for r in baselines])
    last = ingests[-1]
    return {
        "corpus": corpus,
        "ingest": {"seconds": wall, "rss_mb": rss,
                   "mb_per_s": corpus["mb"] / wall["median"],
                   "exchanges_per_s": last["exchanges"] / wall["median"],
                   "exchanges": last["exchanges"], "conversations": last["conversations"],
                   "messages": last["messages"], "skipped": last["skipped"],
                   "tracemalloc_peak_mb": traced and traced["tracemalloc_peak_mb"]},
        "reingest": {"seconds": _spread([r["seconds"] for r in reingests]),
                     "new_exchanges": max(r["new_exchanges"] for r in reingests),
                     "unchanged_files": min(r["unchanged_files"] for r in reingests)},
        "baseline": {"seconds": base, "rss_mb": _spread([r["rss_mb"] for r in baselines]),
                     "mb_per_s": corpus["mb"] / base["median"], "lines": baselines[-1]["lines"]},
        "ratio_ingest_to_baseline": wall["median"] / base["median"],
        "targets": {"seconds": TARGET_SECONDS, "rss_mb": TARGET_RSS_MB,
                    "seconds_ok": wall["median"] < TARGET_SECONDS,
                    "rss_ok": rss["max"] < TARGET_RSS_MB},
    }


def _mm(s: dict, fmt: str, unit: str) -> str:
    text = f"{fmt.format(s['median'])} {unit}"
    if len(s["runs"]) > 1:
        text += f" ({fmt.format(s['min'])}-{fmt.format(s['max'])})"
    return text


def render(fig: dict) -> list[str]:
    c, i, r, b, t = (fig[k] for k in ("corpus", "ingest", "reingest", "baseline", "targets"))
    ok = {True: "OK", False: "OVER TARGET"}
    made = (f"{c['exchanges_requested']:,} exchanges requested, {c['sessions']:,} sessions, "
            f"generated in {c['generate_seconds']:.1f} s" if c["generated"] else c["path"])
    runs = len(i["seconds"]["runs"])
    lines = [
        f"ingest benchmark: {runs} run(s), median (min-max)",
        f"corpus      {c['mb']:.1f} MB in {c['files']:,} files ({made})",
        f"ingest      {_mm(i['seconds'], '{:.1f}', 's'):<26} target < {t['seconds']:.0f} s    "
        f"{ok[t['seconds_ok']]}",
        f"throughput  {i['mb_per_s']:.2f} MB/s, {i['exchanges_per_s']:,.0f} exchanges/s",
        f"peak RSS    {_mm(i['rss_mb'], '{:.0f}', 'MB'):<26} target < 1 GB    {ok[t['rss_ok']]}",
    ]
    if i["tracemalloc_peak_mb"] is not None:
        lines.append(f"tracemalloc {i['tracemalloc_peak_mb']:.0f} MB Python-heap peak "
                     "(one extra untimed run)")
    lines += [
        f"re-ingest   {_mm(r['seconds'], '{:.2f}', 's'):<26} no-op: {r['new_exchanges']} new "
        f"exchanges, {r['unchanged_files']:,}/{c['files']:,} files unchanged",
        f"baseline    {_mm(b['seconds'], '{:.2f}', 's'):<26} json.loads every line + collect "
        f"texts, no store ({b['mb_per_s']:.1f} MB/s, peak RSS {b['rss_mb']['median']:.0f} MB)",
        f"ratio       palace ingest / baseline parse = {fig['ratio_ingest_to_baseline']:.1f}x",
        f"palace      {i['exchanges']:,} exchanges, {i['conversations']:,} conversations, "
        f"{i['messages']:,} messages, db {c['db_mb']:.0f} MB",
        "skipped     " + ", ".join(f"{k} {v:,}" for k, v in i["skipped"].items()),
    ]
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--exchanges", type=int, default=14340)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--corpus", help="ingest this folder instead of generating one")
    ap.add_argument("--repeat", type=int, default=1, help="runs per phase; medians reported")
    ap.add_argument("--tracemalloc", action="store_true", help="add an untimed traced run")
    ap.add_argument("--json", action="store_true", help="print one JSON document")
    ap.add_argument("--worker", choices=("baseline", "ingest", "trace"), help=argparse.SUPPRESS)
    ap.add_argument("--db", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        root = Path(args.corpus)
        out = worker_baseline(root) if args.worker == "baseline" else \
            worker_ingest(root, Path(args.db), trace=args.worker == "trace")
        print(json.dumps(out))
        return 0
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    fig = run(args)
    print(json.dumps(fig, indent=1) if args.json else "\n".join(render(fig)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
