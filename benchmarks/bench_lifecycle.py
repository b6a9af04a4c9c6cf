"""The memory lifecycle's figures on real histories, next to the source chapter's, with timings.

Ingests the given folders into a temporary palace (or opens ``--db``), distills with the rules
distiller when there are no cards, then measures:

- tool-call compression on tool-heavy exchanges (median of per-exchange ratios and ratio of
  totals; source example 15,000 → 750 tokens, 20x);
- session compression, extractive and abstractive (ratio of totals and fact preservation;
  source 3.0x / ~95% and 6.0x / ~85-90%);
- consolidation budgets over the palace's own timeline (active tokens per level);
- surviving vocabulary per distiller version; a 39,000-token memory pack.

    .venv/bin/python benchmarks/bench_lifecycle.py sample_data ../shared/real_exports
    .venv/bin/python benchmarks/bench_lifecycle.py --db palace.db --json
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path


def _timed(fn, *args, **kwargs):
    start = time.perf_counter()
    value = fn(*args, **kwargs)
    return value, round(time.perf_counter() - start, 2)


def open_palace(args, tmp: Path):
    from palace_lab.distill import get_distiller
    from palace_lab.distill.pipeline import distill_palace
    from palace_lab.budget import keep_budget
    from palace_lab.ingest import ingest_paths
    from palace_lab.store import Palace

    palace = Palace.open(args.db or tmp / "bench.db")
    if args.paths:
        ingest_paths(palace, args.paths)
    if not palace.latest_distiller():
        distill_palace(palace, get_distiller("rules"), keep=keep_budget)
    return palace


def measure(palace, step: str, extend_days: int) -> dict:
    from palace_lab.lifecycle.pack import build_pack
    from palace_lab.lifecycle.report import session_report
    from palace_lab.lifecycle.timeline import replay
    from palace_lab.ingest.traffic.toolcalls import toolcall_stats, toolcall_table
    from palace_lab.lifecycle.vocabulary import vocabulary_report

    rows, t_tools = _timed(toolcall_table, palace)
    sessions, t_sessions = _timed(session_report, palace)
    snapshots, t_replay = _timed(replay, palace, step=step, extend_days=extend_days)
    vocabulary, t_vocab = _timed(vocabulary_report, palace)
    pack, t_pack = _timed(build_pack, palace, 39_000)
    return {
        "exchanges": palace.count("exchanges"),
        "toolcalls": toolcall_stats(rows), "sessions": sessions,
        "consolidation": [s.row() for s in snapshots],
        "vocabulary": [{k: v for k, v in r.items() if k != "definitions"} for r in vocabulary],
        "pack": pack.summary() | {"exchange_ids": len(pack.items)},
        "seconds": {"toolcalls": t_tools, "sessions": t_sessions, "replay": t_replay,
                    "vocabulary": t_vocab, "pack": t_pack},
    }


def print_table(result: dict) -> None:
    tc = result["toolcalls"]
    print(f"{result['exchanges']} exchanges")
    print(f"tool calls: {tc['tool_heavy']} tool-heavy (≥{tc['min_tokens']} tokens) of "
          f"{tc['exchanges_with_tools']}; {tc['tokens_before']:,} → {tc['tokens_after']:,} tokens; "
          f"median {tc['median_ratio']}x, ratio of totals {tc['ratio_of_totals']}x (source 20x)")
    for s in result["sessions"]:
        print(f"{s['method']:<11} {s['sessions']} sessions, {s['tokens_before']:,} → "
              f"{s['tokens_after']:,} tokens: {s['ratio_of_totals']}x, preservation "
              f"{s['preservation']:.1%} (source {s['source']['ratio']}x / {s['source']['preservation']})")
    print("date        L0 items/tokens  L1  L2  L3  active tokens")
    for r in result["consolidation"]:
        print(f"{r['at'][:10]}  {r['L0_items']:>4} {r['L0_tokens']:>8,}  "
              f"{r['L1_tokens']:>6,} {r['L2_tokens']:>6,} {r['L3_tokens']:>5,}  {r['active_tokens']:>8,}")
    for v in result["vocabulary"]:
        print(f"vocabulary {v['distiller']}: term_rate {v['term_rate']}, fact_rate {v['fact_rate']}")
    p = result["pack"]
    print(f"pack: {p['items']} items in {len(p['rooms'])} rooms, {p['tokens']:,} / {p['budget']:,} tokens")
    print("seconds:", result["seconds"])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", help="export files or folders to ingest")
    parser.add_argument("--db", help="an existing palace instead of a temporary one")
    parser.add_argument("--step", default="7D")
    parser.add_argument("--extend-days", type=int, default=30)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not args.paths and not args.db:
        parser.error("give export paths or --db")
    with tempfile.TemporaryDirectory() as tmp:
        with open_palace(args, Path(tmp)) as palace:
            result = measure(palace, args.step, args.extend_days)
    if args.json:
        json.dump(result, sys.stdout, indent=1)
        print()
    else:
        print_table(result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
