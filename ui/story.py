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
from pathlib import Path

import streamlit as st

from palace_lab import experiments
from palace_lab.index.cache import cache_root
from palace_lab.model import content_hash
from ui.evaluation import headline
from ui.search import content_key, mode_runs, ready
from ui.state import embedder_name, query_set

PAPER = "Paper: best distilled 0.717 / best verbatim 0.745 = 96%; best cross-layer 0.759 (+0.014)."


def _figures_file(palace, version: str, modes: list[str], queries: list[dict], qrels: dict) -> Path:
    key = content_hash(content_key(), version, embedder_name(), json.dumps(modes),
                       json.dumps(queries, sort_keys=True), json.dumps(qrels, sort_keys=True))
    return cache_root(palace) / "figures" / f"retrieval-{key[:16]}.json"


def _compute(modes, queries, qrels, path: Path) -> dict:
    report = experiments.report(mode_runs(modes, queries), qrels, queries)
    summary = {k: v for k, v in report.to_dict()["summary"].items() if k != "by_type"}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".part")
    tmp.write_text(json.dumps(summary), encoding="utf-8")
    tmp.replace(path)
    return summary


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
    path = _figures_file(palace, version, modes, queries, qrels)
    if path.is_file():
        summary = json.loads(path.read_text(encoding="utf-8"))
    elif ready(modes) or st.button("Compute retrieval figures (builds the search indexes)", key="ov_compute"):
        summary = _compute(modes, queries, qrels, path)
    else:
        st.caption(f"{len(queries)} judged queries in set **{qset}**. " + PAPER)
        return
    headline(summary)
    st.caption(f"MRR over {len(queries)} judged queries of set **{qset}**, best of "
               f"{len(modes)} modes per layer class (details on **Evaluation**). " + PAPER)
