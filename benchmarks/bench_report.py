"""How long ``palace-lab report`` takes, and how big its file is, at a real size (issue 28:
under 10 s and under 5 MB at 50,000 exchanges).

On the synthetic corpus (``palace_lab.synth``, Claude Code format) of ``--size`` exchanges,
ingested and distilled by rules (or a palace given with ``--db``), each ``palace-lab report`` runs
in its own process (``bench_scale.cli``: wall time and peak RSS), ``--repeat`` times, twice:

- **no graded set**: the report says so instead of printing retrieval figures;
- **graded** (``--graded``): the corpus's queries and qrels imported as set ``synth``; the first
  run measures the retrieval figures (builds every index of the 14 modes: minutes at 50,000,
  so ``--embedder minilm-static`` by default), later runs read them from their cache, as a
  report after ``./lab app`` or the Overview does.

    .venv/bin/python benchmarks/bench_report.py --size 50000 --graded
    .venv/bin/python benchmarks/bench_report.py --db /tmp/p50k.db --repeat 5
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_scale import cli  # noqa: E402
from bench_search import log  # noqa: E402


def build(size: int, work: Path) -> tuple[Path, Path]:
    """A synthetic palace of ``size`` exchanges, ingested and distilled; its corpus folder."""
    from palace_lab.synth import generate

    corpus = generate(work / "corpus", exchanges=size, queries=50)
    db = work / f"synth{size}.db"
    for step in (("ingest", "--new-palace", corpus.sessions_dir), ("distill",)):
        run = cli(str(db), *step)
        log(f"{step[0]}: {run['seconds']:.1f} s")
    return db, Path(corpus.out_dir)


def reports(db: Path, out: Path, repeat: int, *extra: str) -> list[dict]:
    runs = []
    for _ in range(repeat):
        run = cli(str(db), "report", "--out", str(out), "--json", *extra)
        runs.append({"seconds": run["seconds"], "rss_mb": run["rss_mb"],
                     "bytes": out.stat().st_size})
        log(f"report {' '.join(extra)}: {run['seconds']:.2f} s, {out.stat().st_size:,} bytes")
    return runs


def graded_copy(db: Path, corpus: Path, work: Path) -> Path:
    """``db`` copied, with the corpus's queries and qrels imported as set ``synth``."""
    copy = work / f"graded-{db.name}"
    shutil.copy(db, copy)
    cli(str(copy), "import-queries", str(corpus / "queries.jsonl"), "--qrels",
        str(corpus / "qrels.txt"), "--set", "synth")
    return copy


def row(name: str, runs: list[dict]) -> str:
    seconds = [r["seconds"] for r in runs]
    return (f"| {name} | {len(runs)} | {statistics.median(seconds):.2f} s | {max(seconds):.2f} s "
            f"| {runs[-1]['bytes']:,} | {max(r['rss_mb'] or 0 for r in runs):.0f} MB |")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=50_000, help="exchanges (default 50,000)")
    ap.add_argument("--db", help="an existing palace instead of a synthetic one")
    ap.add_argument("--corpus", help="with --db and --graded: the synth folder it came from")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--graded", action="store_true", help="also with a graded set (see above)")
    ap.add_argument("--embedder", default="minilm-static")
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="bench_report_"))
    try:
        db, corpus = (Path(args.db), Path(args.corpus or "")) if args.db else build(args.size, work)
        lines = [row("no graded set", reports(db, work / "story.html", args.repeat))]
        if args.graded:
            graded = graded_copy(db, corpus, work)
            extra = ("--embedder", args.embedder)
            lines.append(row("graded set, first (measures retrieval)",
                             reports(graded, work / "story.html", 1, *extra)))
            lines.append(row("graded set, figures cached",
                             reports(graded, work / "story.html", args.repeat, *extra)))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("| palace-lab report | runs | median | max | bytes | peak RSS |\n|---|---|---|---|---|---|")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
