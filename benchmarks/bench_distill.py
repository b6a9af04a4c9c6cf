"""Distillation speed at the paper's scale: the rules distiller on the 14,340-exchange corpus.

Ingests the synthetic corpus (``palace_lab.synth``) into a temp palace, or opens ``--db``, then
measures, ``--repeat`` times:

- distiller: ``RulesDistiller.distill_batch`` over every exchange, nothing stored (target:
  at least 200 exchanges/s);
- run: ``distill_palace`` into a fresh distiller version, cards written in atomic batches (what
  ``palace-lab distill`` does, corpus statistics included);
- baseline: a naive "first 20 words of the request" card, the floor any distiller pays for
  reading the exchanges, shown beside the distiller as a ratio.

Figures are medians over the repeats (min-max beside them).

    .venv/bin/python benchmarks/bench_distill.py                       # full corpus
    .venv/bin/python benchmarks/bench_distill.py --exchanges 2000 --repeat 3 --json
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

TARGET_PER_SECOND = 200.0


def _palace(args, tmp: Path):
    from palace_lab.ingest import ingest_paths
    from palace_lab.store import Palace

    if args.db:
        return Palace.open(args.db, create=False)
    from palace_lab.synth import generate

    summary = generate(tmp / "corpus", exchanges=args.exchanges, seed=0)
    palace = Palace.open(tmp / "bench.db")
    ingest_paths(palace, [summary.sessions_dir])
    return palace


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _measure(palace, repeat: int) -> dict:
    from palace_lab.distill.rules import RulesDistiller
    from palace_lab.distill.pipeline import distill_palace
    from palace_lab.budget import keep_budget
    from palace_lab.distill.terms import corpus_stats

    exchanges = palace.exchanges()
    stats = corpus_stats((e.verbatim for e in exchanges), (e.dialogue for e in exchanges))
    out = {"distiller": [], "run": [], "baseline": []}
    for i in range(repeat):
        out["distiller"].append(_timed(lambda: RulesDistiller().distill_batch(exchanges, stats=stats)))
        # A fresh version each time (core_chars differs by one) so nothing is cached.
        fresh = RulesDistiller(core_chars=130 + i + 1)
        out["run"].append(_timed(lambda: distill_palace(palace, fresh, batch_size=256, keep=keep_budget)))
        out["baseline"].append(_timed(lambda: [" ".join(e.request.split()[:20]) for e in exchanges]))
    return {"exchanges": len(exchanges), **out}


def _line(name: str, seconds: list[float], n: int, target: str = "") -> str:
    med = statistics.median(seconds)
    return (f"{name:<10} {n / med:>9,.0f} exchanges/s  {med:7.2f} s "
            f"({min(seconds):.2f}-{max(seconds):.2f}) {target}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--exchanges", type=int, default=14340)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--db", help="an existing palace to distill instead of the synthetic corpus")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        palace = _palace(args, Path(tmp))
        result = _measure(palace, args.repeat)
        palace.close()
    n = result["exchanges"]
    if args.json:
        print(json.dumps({k: (statistics.median(v) if isinstance(v, list) else v)
                          for k, v in result.items()}))
        return
    ok = "OK" if n / statistics.median(result["distiller"]) >= TARGET_PER_SECOND else "MISSED"
    print(f"distillation benchmark: {n:,} exchanges, {args.repeat} run(s), median (min-max)")
    print(_line("distiller", result["distiller"], n, f"target >= {TARGET_PER_SECOND:.0f}/s  {ok}"))
    print(_line("run", result["run"], n, "(incl. corpus statistics and card writes)"))
    print(_line("baseline", result["baseline"], n, "(first 20 request words, nothing else)"))
    ratio = statistics.median(result["distiller"]) / statistics.median(result["baseline"])
    print(f"ratio      distiller time / baseline time = {ratio:,.0f}x")


if __name__ == "__main__":
    main()
