"""Plain rows and short text renderings shared by the CLI, the app and notebooks."""

from __future__ import annotations

from typing import TYPE_CHECKING

from palace_lab.budget import headline_text, other_text

if TYPE_CHECKING:
    from palace_lab.store import Palace


def exchange_rows(palace: Palace) -> list[dict]:
    """The ``exchanges --json`` contract: one dict per exchange, in conversation order."""
    return [{"exchange_id": e.exchange_id, "conversation_id": e.conversation_id,
             "ply_start": e.ply_start, "ply_end": e.ply_end, "preview": e.preview,
             "files_touched": list(e.files_touched), "project": e.project,
             "timestamp": e.timestamp} for e in palace.exchanges()]


def ingest_text(report) -> str:
    t = report.totals()
    lines = [f"{t['files']} files ({t['unchanged_files']} unchanged): {t['conversations']} "
             f"conversations, {t['messages']} messages, {t['exchanges']} exchanges "
             f"({t['new_exchanges']} new)"]
    for fmt, row in report.by_format().items():
        lines.append(f"  {fmt:<13} {row.get('files', 0):>5} files {row.get('conversations', 0):>6}"
                     f" conversations {row.get('messages', 0):>8} messages"
                     f" {row.get('exchanges', 0):>7} exchanges")
    if t["merged_subagents"]:
        lines.append(f"  {t['merged_subagents']} subagent files merged into their sessions")
    if t["skipped"]:
        lines.append("  skipped: " + ", ".join(f"{k} {v}" for k, v in t["skipped"].items()))
    errors = [s for s in report.sources if s.error]
    for s in errors[:10]:
        lines.append(f"  not ingested: {s.path}: {s.error}")
    return "\n".join(lines)


def budget_text(summary) -> str:
    d = summary.to_dict()
    lines = [f"{d['exchanges']} exchanges, tokenizer {d['tokenizer']}, distiller {d['distiller']}"]
    for layer, s in d["layers"].items():
        lines.append(f"  {layer:<9} total {s['total']:>10,}  mean {s['mean'] or 0:>8}  "
                     f"median {s['median'] or 0:>7}   ({d['layer_definitions'][layer]})")
    lines.insert(0, headline_text(d["headline"]))
    lines.insert(1, "  " + other_text(d["headline"]))
    for name in ("verbatim", "dialogue"):
        c = d["compression"][f"{name}_over_core"]
        lines.append(f"  compression {name}/core: {c['ratio_of_totals']}x (ratio of totals), "
                     f"{c['mean_of_ratios']}x (mean of per-exchange ratios)")
    p = d["per_1000_exchanges"]
    c = d["specific_context"]
    if c.get("cards"):
        lines.append(f"  specific_context: exact substring of its exchange in {c['substring']:,}/"
                     f"{c['cards']:,} cards, {c['escaped']} with a JSON escape, {c['empty']} empty "
                     f"({c['empty_with_detail']} of them where the exchange has a detail)")
    layer = d["distilled_layer"]
    lines.append(f"  per 1,000 exchanges: dialogue ≈ {p['dialogue'] or 0:,} tokens, distilled "
                 f"({layer}) ≈ {p[layer] or 0:,} tokens (paper: ≈407,000 vs ≈39,000); with tool "
                 f"calls and output ≈ {p['verbatim'] or 0:,}")
    return "\n".join(lines)
