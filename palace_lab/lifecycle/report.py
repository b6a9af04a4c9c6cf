"""Figures of the whole lifecycle for one palace, next to the source chapter's.

Each function returns plain dicts (JSON-ready) so the app, a notebook and the CLI show the same
numbers. Ratios are named: *ratio of totals* is Σ before / Σ after; *median ratio* is the
median of per-item before/after. Preservation is pooled over sessions: Σ preserved facts /
Σ facts (see :mod:`palace_lab.lifecycle.validate`), with the mean of per-session scores
beside it.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Sequence
from typing import TYPE_CHECKING

from palace_lab.lifecycle.compress import METHODS, SOURCE_FIGURES, SessionCompression, \
    compress_session

if TYPE_CHECKING:
    from palace_lab.store import Palace

SOURCE_PRESERVATION = {"extractive": 0.95, "abstractive": 0.875}  # ~95%; ~85-90% (midpoint)


def session_ids(palace: Palace, sample: int | None = None, seed: int = 0) -> tuple[list[str], int]:
    """``(ids, total)``: the palace's sessions with exchanges, in palace order, or a seeded
    sample of ``sample`` of them when there are more (the same sample for the same palace)."""
    ids = [c["conversation_id"] for c in palace.conversations() if c["n_exchanges"]]
    if sample is None or len(ids) <= sample:
        return ids, len(ids)
    keep = set(random.Random(seed).sample(ids, sample))
    return [cid for cid in ids if cid in keep], len(ids)


def compress_all(palace: Palace, methods: Sequence[str] = METHODS, *, sample: int | None = None,
                 **options) -> dict[str, list[SessionCompression]]:
    """Every session of the palace (or a seeded ``sample`` of them: :func:`session_ids`)
    compressed by each method (options as compress_session)."""
    ids, _ = session_ids(palace, sample)
    return {m: [compress_session(palace, cid, m, **options) for cid in ids] for m in methods}


def method_summary(method: str, results: Sequence[SessionCompression]) -> dict:
    before = sum(r.tokens_before for r in results)
    after = sum(r.tokens_after for r in results)
    facts = sum(len(r.validation.checks) for r in results)
    kept = sum(len(r.validation.by_status("preserved")) for r in results)
    distorted = sum(len(r.validation.by_status("distorted")) for r in results)
    ratios = [r.ratio for r in results if r.ratio]
    return {
        "method": method, "sessions": len(results), "tokens_before": before,
        "tokens_after": after, "ratio_of_totals": round(before / after, 2) if after else None,
        "median_ratio": round(statistics.median(ratios), 2) if ratios else None,
        "preservation": round(kept / facts, 4) if facts else None,
        "mean_preservation": round(statistics.mean(r.preservation for r in results), 4)
        if results else None,
        "facts": facts, "distorted": distorted,
        "cost_usd": round(sum(r.cost_usd for r in results), 6),
        "source": SOURCE_FIGURES[method],
        "source_preservation": SOURCE_PRESERVATION[method],
    }


def session_report(palace: Palace, methods: Sequence[str] = METHODS, **options) -> list[dict]:
    """One summary row per method (see the module docstring)."""
    results = compress_all(palace, methods, **options)
    return [method_summary(m, rs) for m, rs in results.items()]


def chart_rows(summaries: Sequence[dict]) -> list[dict]:
    """Rows for :func:`palace_lab.charts.lifecycle.session_bars`."""
    return [{"method": s["method"], "ratio": s["ratio_of_totals"] or 0,
             "preservation": s["preservation"] or 0, "source_ratio": s["source"]["ratio"],
             "source_preservation": s["source_preservation"]} for s in summaries]
