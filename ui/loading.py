"""Ingest and distill with live progress, for the Load & distill page."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd
import streamlit as st

from palace_lab.ingest import ingest_paths

if TYPE_CHECKING:
    from palace_lab.store import Palace


@contextmanager
def saved_uploads(files) -> Iterator[Path]:
    """Uploaded files in a fresh folder, keeping their names (formats sniff content); the
    folder is removed afterwards (the palace keeps what was read, as for any vanished source)."""
    folder = Path(tempfile.mkdtemp(prefix="palace_upload_"))
    try:
        for f in files:
            (folder / Path(f.name).name).write_bytes(f.getbuffer())
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def load_sample(palace: Palace, sample_dir: Path) -> None:
    """Ingest the bundled sample's export folders, then store its queries and qrels."""
    from palace_lab.experiments.query_sets import import_query_files

    folders = [sample_dir / d for d in ("claude_code", "codex", "chatgpt") if (sample_dir / d).exists()]
    run_ingest(palace, folders or [sample_dir])
    files = sample_dir / "queries.jsonl", sample_dir / "qrels.txt"
    if all(f.exists() for f in files):
        counts = import_query_files(palace, *files)
        st.session_state["load_queries"] = counts


def agent_histories() -> list[Path]:
    """The agents' history folders found in this home, offered for picking; the chosen ones."""
    from palace_lab.ingest.homes import default_locations

    found = default_locations()
    if not found:
        st.caption("No agent history in the usual places of this home (Claude Code, Codex, "
                   "Gemini CLI, OpenCode, Cursor, Copilot): give a path below.")
        return []
    folders = {f"{label} · {folder}": folder for label, folder in found}
    chosen = st.multiselect("Agent histories found on this machine", list(folders),
                            key="load_homes", placeholder="pick one or more")
    return [folders[c] for c in chosen]


def run_ingest(palace: Palace, paths) -> None:
    bar = st.progress(0.0, text="reading…")

    def tick(done, total, path):
        bar.progress(done / max(total, 1), text=f"{done}/{total} files · {Path(path).name}")

    report = ingest_paths(palace, paths, progress=tick)
    bar.empty()
    st.session_state["load_report"] = {**report.to_dict(), "roots": [str(p) for p in paths]}


def show_report(report: dict) -> None:
    t = report["totals"]
    if t["conversations"] == 0 and t["unchanged_files"]:
        st.success(f"All {t['unchanged_files']:,} files unchanged since the last load: nothing "
                   "new to ingest.", icon=":material/check_circle:")
    else:
        c = st.columns(4)
        c[0].metric("Files", t["files"], help=f"{t['unchanged_files']} unchanged since last time")
        c[1].metric("Conversations", t["conversations"])
        c[2].metric("Exchanges", t["exchanges"], delta=f"{t['new_exchanges']} new")
        c[3].metric("Skipped lines/records", sum(t["skipped"].values()))
    notes = [f"{t['merged_subagents']:,} subagent files merged into their sessions"
             if t.get("merged_subagents") else "",
             f"{t['empty_files']:,} empty files skipped" if t.get("empty_files") else ""]
    if any(notes):
        st.caption(" · ".join(n for n in notes if n) + ".")
    if report["formats"] and t["conversations"]:
        st.dataframe(pd.DataFrame(report["formats"]).T, width="stretch")
    if t["skipped"] and t["conversations"]:
        st.caption("Skipped, by reason (never fatal: good lines are kept)")
        st.dataframe(pd.Series(t["skipped"], name="count"), width="stretch")
    errors = [s for s in report["sources"] if s["error"]]
    if errors:
        st.warning(f"{len(errors)} files were not ingested", icon=":material/warning:")
        st.dataframe(pd.DataFrame([not_ingested(s, report.get("roots", [])) for s in errors]),
                     width="stretch", hide_index=True)


def not_ingested(source: dict, roots: list[str]) -> dict:
    """A refused file as (its path under the folder loaded, the reason without the path), so
    the reason is not pushed out of view by the same long path twice."""
    path = source["path"]
    under = next((r for r in roots if path.startswith(r.rstrip("/") + "/")), None)
    shown = os.path.relpath(path, under) if under else path
    reason = source["error"].replace(path, "", 1).lstrip(": ").strip() or source["error"]
    return {"file": shown, "reason": reason}


BACKENDS = {"rules": "offline, deterministic, free",
            "anthropic": "Claude (opt-in, paid)",
            "openai-compat": "a local model: Ollama, llama.cpp, vLLM, LM Studio (free, offline)"}


def distiller_options(backend: str) -> dict:
    """The widgets of the chosen backend; what they say, as the distiller's options."""
    if backend == "anthropic":
        return {"api_key": st.text_input("Anthropic API key (kept for this session only)",
                                         type="password", key="load_key") or None,
                "model": st.text_input("Model", "claude-haiku-4-5", key="load_model"),
                "max_cost_usd": st.number_input("Hard cost cap (USD)", 0.0, 1000.0, 1.0,
                                                key="load_cap")}
    if backend == "openai-compat":
        return local_server_options()
    return {}


def local_server_options() -> dict:
    """Server URL, a model from its /v1/models (typed in when the list cannot be read)."""
    from palace_lab.llm.openai import OLLAMA_URL

    url = st.text_input("Server (OpenAI-compatible chat completions)", OLLAMA_URL, key="load_url",
                        help="Ollama serves http://127.0.0.1:11434/v1, llama-server "
                             "http://127.0.0.1:8080/v1, vLLM http://127.0.0.1:8000/v1")
    key = st.text_input("API key, for a server that wants one (kept for this session only)",
                        type="password", key="load_local_key")
    models, problem = server_models(url, key or None)
    if models:
        model = st.selectbox("Model", models, key="load_local_model")
    else:
        st.caption(f"No model list: {problem}")
        model = st.text_input("Model", key="load_local_model_name")
    return {"base_url": url, "model": model or None, "api_key": key or None}


@st.cache_data(ttl=30, max_entries=8, show_spinner=False)
def server_models(url: str, key: str | None) -> tuple[list[str], str | None]:
    """(the model ids the server lists, None) or ([], why not)."""
    from palace_lab.errors import PalaceError
    from palace_lab.llm.openai import list_models

    try:
        return list_models(url, api_key=key), None
    except PalaceError as exc:
        return [], str(exc)


def run_distill(palace: Palace, distiller) -> dict:
    from palace_lab.distill.pipeline import distill_palace
    from palace_lab.budget import keep_budget

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

    summary = distill_palace(palace, distiller, batch_size=8, progress=tick, keep=keep_budget)
    bar.empty()
    return summary.to_dict()
