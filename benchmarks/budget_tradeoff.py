"""How small can the searchable card be? The budget share against the retrieval it keeps.

Issue 9 asks for two things of the best distilled-only mode at once: a layer at least 10x
smaller than the dialogue on the coding sets (2x on LoCoMo), and at least 96% of the best
verbatim-only MRR (90% on LoCoMo). The rules distiller's budget gives each card
B(e) = max(8, round(s · d)) tokens, d the exchange's dialogue; ``rules:v3`` sets
s = clamp(38 / mean d, 0.05, 0.45). This script distills each dev set at the default rule and
at fixed shares s (every version side by side in one palace per set, so the verbatim runs are
computed once), and prints for each: the layer ratio (dialogue / core+keywords, ratios of
totals, cl100k_base) and the MRR@10 of the distilled-only runs over the best verbatim-only
one (the best of bm25:verbatim, hnsw:verbatim and their RRF). Rerun it to check:

    .venv/bin/python benchmarks/budget_tradeoff.py [--shares 0.3,0.2,0.1]

About 10 minutes on 2 cores. Sets absent from ``../shared/benchmarks`` are skipped with a note.

``--frontier SET`` searches further on one set, near a 10x layer: every share s of
``FRONTIER_SHARES`` with every request share of the core (``request_share``: how much of the
core goes to what was asked) and every readable-clause floor (``min_core``), the two knobs
besides s that decide what a small card keeps. It prints each point and the two ends of the
frontier: the most kept on a layer that meets the set's ratio target, and the largest ratio
that keeps the set's share target. Beside each share kept, its 95% bootstrap interval (the
questions resampled, paired): on a set of 175 questions one card more or less found moves the
share by a point or two. About 2 minutes for DevMemBench.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import choose_default as cd

DISTILLED = ("bm25:core+keywords", "hnsw:core+keywords", "hnsw:core")
VERBATIM = ("bm25:verbatim", "hnsw:verbatim")
TARGETS = {"sample": (10.0, 0.96), "devmembench": (10.0, 0.96), "locomo": (2.0, 0.90)}
FRONTIER_SHARES = (0.1, 0.09, 0.085, 0.08)
FRONTIER_REQUEST = (0.7, 0.85, 1.0)
FRONTIER_MIN_CORE = (6, 8, 10)


def card_fusion(dev: dict, runs: dict) -> dict:
    """The ``card-fusion`` preset, fused from the runs already made."""
    from palace_lab.search.fusion import wrrf
    from palace_lab.search.modes import PRESETS, parse_mode

    mode = parse_mode(PRESETS["card-fusion"][0])
    members = [str(r) for r in mode.runs]
    return {q: wrrf([runs[m].get(q, {}) for m in members], weights=list(mode.weights),
                    k=dict(mode.params).get("k", 60)) for q in dev["qrels"]}


def measure(dev: dict, version: str) -> dict:
    from palace_lab.budget import palace_budget

    runs = cd.component_runs(dev, DISTILLED, version)
    runs["card-fusion"] = card_fusion(dev, runs)
    scores = {m: cd.mrr(dev, r) for m, r in runs.items()}
    summary, _ = palace_budget(dev["palace"], version)
    layers = {name: s["total"] for name, s in summary.layers.items()}
    best = max(scores, key=scores.get)
    return {"ratio": layers["dialogue"] / layers["searched"], "best": best,
            "kept": scores[best] / dev["best_verbatim"], "mrr": scores,
            "interval": kept_interval(cd.reciprocal_ranks(dev, runs[best]), dev["verbatim_rr"])}


def kept_interval(distilled: list[float], verbatim: list[float], resamples: int = 2000,
                  seed: int = 0) -> tuple[float, float]:
    """95% bootstrap interval of the share kept (mean distilled RR / mean verbatim RR), the
    questions resampled with replacement, paired."""
    import numpy as np

    a, b = np.asarray(distilled), np.asarray(verbatim)
    picks = np.random.default_rng(seed).integers(0, len(a), size=(resamples, len(a)))
    shares = a[picks].mean(axis=1) / np.maximum(b[picks].mean(axis=1), 1e-12)
    low, high = np.percentile(shares, [2.5, 97.5])
    return float(low), float(high)


def main(argv=None) -> int:
    from palace_lab.distill import get_distiller
    from palace_lab.distill.pipeline import distill_palace
    from palace_lab.budget import keep_budget
    from palace_lab.settings import offline

    offline()
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shares", default="0.3,0.2,0.15,0.1,0.09",
                    help="fixed shares s to try beside the default rule")
    ap.add_argument("--frontier", choices=sorted(TARGETS), metavar="SET",
                    help="search the share × request share × clause floor grid on one set")
    args = ap.parse_args(argv)
    shares = [float(s) for s in args.shares.split(",") if s]
    grid = ([{}] + [{"min_share": s, "max_share": s} for s in shares]) if not args.frontier else [
        {"min_share": s, "max_share": s, "request_share": r, "min_core": m}
        for s in FRONTIER_SHARES for r in FRONTIER_REQUEST for m in FRONTIER_MIN_CORE]
    rows = []
    with tempfile.TemporaryDirectory(prefix="palace-tradeoff-") as tmp:
        for name, dev in dev_sets(Path(tmp), args.frontier).items():
            verbatim = cd.component_runs(dev, VERBATIM)
            verbatim["rrf"] = cd.fused({**dev, "runs": verbatim}, {m: 1 for m in VERBATIM}, 60)
            best = max(verbatim.values(), key=lambda run: cd.mrr(dev, run))
            dev["best_verbatim"] = cd.mrr(dev, best)
            dev["verbatim_rr"] = cd.reciprocal_ranks(dev, best)
            for options in grid:
                distiller = get_distiller("rules", **options)
                print(f"{name}: {distiller.version}", file=sys.stderr)
                distill_palace(dev["palace"], distiller, keep=keep_budget)
                rows.append({"set": name, "share": options.get("min_share"),
                             "request": distiller.request_share, "min_core": distiller.min_core,
                             "version": distiller.version, **measure(dev, distiller.version)})
            dev["palace"].close()
    print(render_frontier(rows) if args.frontier else render(rows))
    return 0


def dev_sets(folder: Path, only: str | None = None) -> dict:
    if only:
        if only != "sample" and not (cd.SHARED / only).is_dir():
            raise SystemExit(f"{only}: not at {cd.SHARED / only}")
        return {only: cd.sample_set(folder) if only == "sample" else cd.bench_set(only, folder)}
    sets = {"sample": cd.sample_set(folder)}
    for name in ("devmembench", "locomo"):
        if (cd.SHARED / name).is_dir():
            sets[name] = cd.bench_set(name, folder)
        else:
            print(f"skipped {name}: not at {cd.SHARED / name}", file=sys.stderr)
    return sets


def render(rows: list[dict]) -> str:
    lines = ["Budget share s against retrieval kept (best distilled-only MRR@10 / best "
             "verbatim-only; layer = core+keywords, dialogue / layer as a ratio of totals, "
             "cl100k_base)", "",
             "| set | s | layer ratio (target) | best distilled-only | MRR | kept (95% interval; "
             "target) | both met |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        ratio_target, kept_target = TARGETS[r["set"]]
        met = r["ratio"] >= ratio_target and r["kept"] >= kept_target
        share = "rule" if r["share"] is None else f"{r['share']:g}"
        lines.append(f"| {r['set']} | {share} | {r['ratio']:.1f}x ({ratio_target:g}x) | {r['best']} | "
                     f"{r['mrr'][r['best']]:.3f} | {_kept(r)}; {kept_target:.0%} | "
                     f"{'yes' if met else 'no'} |")
    return "\n".join(lines)


def render_frontier(rows: list[dict]) -> str:
    """Every grid point, best kept first, then the frontier's two ends."""
    name = rows[0]["set"]
    ratio_target, kept_target = TARGETS[name]
    lines = [f"{name}: share s × request share × clause floor (best distilled-only MRR@10 / best "
             "verbatim-only; layer = core+keywords, dialogue / layer, ratio of totals, "
             "cl100k_base)", "",
             "| s | request share | clause floor | layer ratio | best distilled-only | MRR | kept "
             "(95% interval) |", "|---|---|---|---|---|---|---|"]
    for r in sorted(rows, key=lambda r: -r["kept"]):
        lines.append(f"| {r['share']:g} | {r['request']:g} | {r['min_core']} | {r['ratio']:.2f}x | "
                     f"{r['best']} | {r['mrr'][r['best']]:.3f} | {_kept(r)} |")
    small = [r for r in rows if r["ratio"] >= ratio_target]
    kept = [r for r in rows if r["kept"] >= kept_target]
    lines.append("")
    lines.append(f"- most kept on a layer ≥ {ratio_target:g}x: " + (
        _point(max(small, key=lambda r: r["kept"])) if small else "no point reaches the ratio"))
    lines.append(f"- largest ratio keeping ≥ {kept_target:.0%}: " + (
        _point(max(kept, key=lambda r: r["ratio"])) if kept else "no point keeps the share"))
    both = [r for r in small if r["kept"] >= kept_target]
    lines.append(f"- points meeting both targets: {len(both)} of {len(rows)}")
    return "\n".join(lines)


def _kept(r: dict) -> str:
    low, high = r["interval"]
    return f"{r['kept']:.1%} ({low:.1%}–{high:.1%})"


def _point(r: dict) -> str:
    return (f"{_kept(r)} at {r['ratio']:.2f}x (s {r['share']:g}, request share "
            f"{r['request']:g}, clause floor {r['min_core']}, {r['best']})")


if __name__ == "__main__":
    sys.exit(main())
