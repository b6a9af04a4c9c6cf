"""The retrieval half of the Overview story: live figures from the palace's own graded queries.

Best distilled MRR / best verbatim MRR and the cross-layer gain, over the default modes on the
judged queries of the sidebar's query set, next to the paper's (0.717 / 0.745 = 96%; best
cross-layer 0.759). Nothing is hard-coded but the paper's figures.

The figures are a derived cache: a small JSON file beside the palace's index caches, named by a
hash of everything they depend on (exchanges and cards, embedder, modes, queries, judgments).
A fresh server finds them there without loading the embedding model; any change to what they
depend on changes the name, so a stale figure is never shown. When the indexes are not built
yet, building them is one click (it can take minutes on a large palace).
"""

from __future__ import annotations

import json

import streamlit as st

from palace_lab import experiments
from palace_lab.model import content_hash
from palace_lab.search import DEFAULT_MODE
from ui.data import code_key, content_key, disk_cached, has_cached
from ui.exchange import md_escape
from ui.search import mode_runs, ready
from ui.state import db_path, embedder_name, query_set

PAPER = "Paper: best distilled 0.717 / best verbatim 0.745 = 96%; best cross-layer 0.759 (+0.014)."


def _figures_name(version: str, modes: list[str], queries: list[dict], qrels: dict) -> str:
    code = code_key("palace_lab.search.engine", "palace_lab.search.fusion", "palace_lab.search.modes",
                    "palace_lab.layers", "palace_lab.evaluate.metrics", "palace_lab.evaluate.report")
    key = content_hash(content_key(), code, version, embedder_name(), json.dumps(modes),
                       json.dumps(queries, sort_keys=True), json.dumps(qrels, sort_keys=True))
    return f"retrieval-{key[:16]}"


def _compute(modes, queries, qrels) -> dict:
    report = experiments.report(mode_runs(modes, queries), qrels, queries).to_dict()
    summary = {k: v for k, v in report["summary"].items() if k != "by_type"}
    default = next((r for r in report["modes"] if r["mode"] == DEFAULT_MODE), None)
    summary["default_mode"], summary["default_value"] = DEFAULT_MODE, default and default["mrr"]
    return summary


def headline(s: dict) -> None:
    """The paper's headline figures from a report summary (best per class, ratio, gain)."""
    c = st.columns(5 if s.get("default_value") is not None else 4)
    c[0].metric("Best verbatim MRR", _f(s.get("best_verbatim_value")),
                help=md_escape(s.get("best_verbatim")))
    c[1].metric("Best distilled MRR", _f(s.get("best_distilled_value")),
                help=md_escape(s.get("best_distilled")))
    c[2].metric("Distilled / verbatim", "–" if s.get("distilled_over_verbatim") is None
                else f"{s['distilled_over_verbatim']:.0%}",
                help="best distilled MRR / best verbatim MRR (paper: 0.717 / 0.745 = 96%)")
    c[3].metric("Best cross-layer MRR", _f(s.get("best_cross_value")),
                delta=None if s.get("cross_gain") is None else f"{s['cross_gain']:+.3f} vs verbatim",
                help=md_escape(s.get("best_cross")))
    if s.get("default_value") is not None and s.get("best_verbatim_value") is not None:
        c[4].metric("Default mode MRR", _f(s["default_value"]),
                    delta=f"{s['default_value'] - s['best_verbatim_value']:+.3f} vs verbatim",
                    help=md_escape(f"{s['default_mode']}: the mode search uses when none is named"))


def _f(v) -> str:
    return "–" if v is None else f"{v:.3f}"


def retrieval_kept(palace, version) -> None:
    st.subheader("Retrieval kept")
    qset = query_set()
    queries, qrels = experiments.judged_set(palace, qset)
    if not version or not queries:
        st.caption("Needs distilled cards and graded queries: import the sample's queries or "
                   "generate known-item queries on **Evaluation**, or grade results in the "
                   "**Search lab**. " + PAPER)
        return
    modes = list(experiments.DEFAULT_MODES)
    name = _figures_name(version, modes, queries, qrels)
    if has_cached(name) or ready(modes) or st.button(
            "Compute retrieval figures (builds the search indexes)", key="ov_compute"):
        summary = disk_cached(str(db_path()), name, lambda: _compute(modes, queries, qrels))
    else:
        st.caption(f"{len(queries)} judged queries in set **{qset}**. " + PAPER)
        return
    headline(summary)
    st.caption(f"MRR@10 over {len(queries)} judged queries of set **{qset}**, best of "
               f"{len(modes)} modes per class: *verbatim* modes search only the whole exchange, "
               "*distilled* modes only card fields, *cross-layer* modes both; kept = best "
               "distilled / best verbatim (details on **Evaluation**). " + PAPER)
