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
    scores = {m: cd.mrr(dev, r) for m, r in runs.items()}
    scores["card-fusion"] = cd.mrr(dev, card_fusion(dev, runs))
    summary, _ = palace_budget(dev["palace"], version)
    layers = {name: s["total"] for name, s in summary.layers.items()}
    best = max(scores, key=scores.get)
    return {"ratio": layers["dialogue"] / layers["searched"], "best": best,
            "kept": scores[best] / dev["best_verbatim"], "mrr": scores}


def main(argv=None) -> int:
    from palace_lab.distill import get_distiller
    from palace_lab.distill.run import distill_palace
    from palace_lab.settings import offline

    offline()
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shares", default="0.3,0.2,0.15,0.1,0.09",
                    help="fixed shares s to try beside the default rule")
    args = ap.parse_args(argv)
    shares = [float(s) for s in args.shares.split(",") if s]
    rows = []
    with tempfile.TemporaryDirectory(prefix="palace-tradeoff-") as tmp:
        for name, dev in dev_sets(Path(tmp)).items():
            verbatim = cd.component_runs(dev, VERBATIM)
            fused = cd.fused({**dev, "runs": verbatim}, {m: 1 for m in VERBATIM}, 60)
            dev["best_verbatim"] = max([cd.mrr(dev, r) for r in verbatim.values()]
                                       + [cd.mrr(dev, fused)])
            for share in [None, *shares]:
                options = {} if share is None else {"min_share": share, "max_share": share}
                distiller = get_distiller("rules", **options)
                print(f"{name}: {distiller.version}", file=sys.stderr)
                distill_palace(dev["palace"], distiller)
                rows.append({"set": name, "share": share, "version": distiller.version,
                             **measure(dev, distiller.version)})
            dev["palace"].close()
    print(render(rows))
    return 0


def dev_sets(folder: Path) -> dict:
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
             "| set | s | layer ratio (target) | best distilled-only | MRR | kept (target) | both met |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        ratio_target, kept_target = TARGETS[r["set"]]
        met = r["ratio"] >= ratio_target and r["kept"] >= kept_target
        share = "rule" if r["share"] is None else f"{r['share']:g}"
        lines.append(f"| {r['set']} | {share} | {r['ratio']:.1f}x ({ratio_target:g}x) | {r['best']} | "
                     f"{r['mrr'][r['best']]:.3f} | {r['kept']:.1%} ({kept_target:.0%}) | "
                     f"{'yes' if met else 'no'} |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
