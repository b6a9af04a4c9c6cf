"""Evaluation: query sets, every chosen mode on the judged queries (the paper's table), per
query type, the distilled/verbatim ratio, a significance matrix, a sweep, and exports."""

import streamlit as st

from palace_lab.experiments import query_sets as experiments
from ui.evaluation import (exports, judged, mode_choice, query_sets_panel, significance_panel,
                           sweep_panel, table_panel)
from ui.search import build_status, mode_runs, ready_modes
from ui.state import guard, palace, query_set

st.title("Evaluation")
if not palace().count("exchanges"):
    st.info("This palace is empty. Load a history on **Load & distill** first.", icon=":material/info:")
    st.stop()

left, mid, right = st.columns([6, 2, 2])
with left:
    modes = mode_choice()
correction = mid.radio("Correction", experiments.CORRECTIONS, index=1, key="eval_correction",
                       help="multiple-comparison correction of the paired tests' p-values")
test = right.radio("Paired test", ["t", "wilcoxon"], key="eval_test")

tabs = st.tabs(["Query sets", "All modes", "Significance", "Sweep"], key="eval_tab",
               on_change="rerun", default="All modes")
tab_sets, tab_table, tab_sig, tab_sweep = tabs
shown = next((t for t in tabs if t.open), tab_table)
with shown, guard():
    found = None if shown is tab_sets else judged()
    if shown is tab_sets:
        query_sets_panel()
    elif found and shown is tab_sweep:
        sweep_panel(*found)
    elif found and modes:
        queries, qrels = found
        now, waiting = ready_modes(modes)
        if waiting:
            st.info(f"Waiting for a vector layer, built in the background: {', '.join(waiting)}."
                    " They join the table when it is ready.", icon=":material/hourglass:")
            build_status()
        if not now:
            st.stop()
        runs = mode_runs(now, queries)
        st.caption(f"Query set **{query_set()}**: {len(queries)} judged queries, "
                   f"{len(runs)} modes, k = 10.")
        if shown is tab_table:
            report = experiments.report(runs, qrels, queries, correction=correction, test=test)
            table_panel(report, len(queries))
            pairs = experiments.significance(runs, qrels, correction=correction, test=test) \
                if len(runs) > 1 else None
            exports(report, pairs)
        elif len(runs) > 1:
            significance_panel(runs, qrels, correction, test)
        else:
            st.info("Choose at least two modes for a significance matrix.")
