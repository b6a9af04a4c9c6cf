"""Ingest and distill with live progress, for the Load & distill page."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pandas as pd
import streamlit as st

from palace_lab.ingest import ingest_paths


def save_uploads(files) -> Path:
    """Write uploaded files into a fresh folder, keeping their names (formats sniff content)."""
    folder = Path(tempfile.mkdtemp(prefix="palace_upload_"))
    for f in files:
        (folder / Path(f.name).name).write_bytes(f.getbuffer())
    return folder


def load_sample(palace, sample_dir: Path) -> None:
    """Ingest the bundled sample's export folders, then store its queries and qrels."""
    from palace_lab.experiments import import_query_files

    folders = [sample_dir / d for d in ("claude_code", "codex", "chatgpt") if (sample_dir / d).exists()]
    run_ingest(palace, folders or [sample_dir])
    files = sample_dir / "queries.jsonl", sample_dir / "qrels.txt"
    if all(f.exists() for f in files):
        counts = import_query_files(palace, *files)
        st.session_state["load_queries"] = counts


def run_ingest(palace, paths) -> None:
    bar = st.progress(0.0, text="reading…")

    def tick(done, total, path):
        bar.progress(done / max(total, 1), text=f"{done}/{total} files · {Path(path).name}")

    report = ingest_paths(palace, paths, progress=tick)
    bar.empty()
    st.session_state["load_report"] = report.to_dict()


def show_report(report: dict) -> None:
    t = report["totals"]
    c = st.columns(4)
    c[0].metric("Files", t["files"], help=f"{t['unchanged_files']} unchanged since last time")
    c[1].metric("Conversations", t["conversations"])
    c[2].metric("Exchanges", t["exchanges"], delta=f"{t['new_exchanges']} new")
    c[3].metric("Skipped lines/records", sum(t["skipped"].values()))
    if report["formats"]:
        st.dataframe(pd.DataFrame(report["formats"]).T, width="stretch")
    if t["skipped"]:
        st.caption("Skipped, by reason (never fatal: good lines are kept)")
        st.dataframe(pd.Series(t["skipped"], name="count"), width="stretch")
    errors = [s for s in report["sources"] if s["error"]]
    if errors:
        st.warning(f"{len(errors)} files were not ingested")
        st.dataframe(pd.DataFrame(errors)[["path", "error"]], width="stretch")


def run_distill(palace, distiller) -> dict:
    from palace_lab.distill.run import distill_palace

    bar = st.progress(0.0, text="distilling…")
    latest = st.empty()
    shown: list[dict] = []

    def tick(done, total, outcomes):
        bar.progress(done / max(total, 1), text=f"{done}/{total} exchanges")
        for o in outcomes[-3:]:
            shown.insert(0, {"exchange": o.card.exchange_id, "exchange_core": o.card.exchange_core,
                             "specific_context": o.card.specific_context,
                             "keywords": " ".join(o.card.keywords), "fallback": o.card.fallback})
        latest.dataframe(pd.DataFrame(shown[:12]), width="stretch", hide_index=True)

    summary = distill_palace(palace, distiller, batch_size=8, progress=tick)
    bar.empty()
    return summary.to_dict()
