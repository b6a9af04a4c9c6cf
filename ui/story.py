"""The retrieval half of the Overview story: live figures from the palace's own graded queries.

Best distilled MRR / best verbatim MRR and the cross-layer gain, over the default modes on the
judged queries of the sidebar's query set, next to the paper's (0.717 / 0.745 = 96%; best
cross-layer 0.759). Nothing is hard-coded but the paper's figures; when the indexes are not
built yet, building them is one click (it can take minutes on a large palace).
"""

from __future__ import annotations

import streamlit as st

from palace_lab import experiments
from ui.evaluation import headline
from ui.search import mode_runs, ready
from ui.state import query_set

PAPER = "Paper: best distilled 0.717 / best verbatim 0.745 = 96%; best cross-layer 0.759 (+0.014)."


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
    if not ready(modes) and not st.button("Compute retrieval figures (builds the search indexes)",
                                          key="ov_compute"):
        st.caption(f"{len(queries)} judged queries in set **{qset}**. " + PAPER)
        return
    runs = mode_runs(modes, queries)
    report = experiments.report(runs, qrels, queries)
    headline(report)
    st.caption(f"MRR over {len(queries)} judged queries of set **{qset}**, best of "
               f"{len(modes)} modes per layer class (details on **Evaluation**). " + PAPER)
