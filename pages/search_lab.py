"""Search lab (A/B): one query, two modes side by side, graded results, live metrics."""

import streamlit as st

from palace_lab.experiments.ab import grades
from ui.ab import (column_heads, filters, history, metrics, mode_picker, reader, result_rows, search,
                   term_warning)
from ui.defaults import default_note, search_default
from ui.search import build_status, warm_model
from ui.state import distiller_version, guard, palace

st.title("Search lab (A/B)")
p = palace()
if not p.count("exchanges"):
    st.info("This palace is empty. Load a history on **Load & distill** first.", icon=":material/info:")
    st.stop()

st.caption("Type what you remember; compare two modes (presets, pure `mechanism:layer` modes, or "
           "any mode string) and grade what they return, 0-3. What you see is always the "
           "verbatim exchange; the card is what the distilled layer indexed.")
warm_model()
default_note("Search lab")
query = st.text_input("Query", key="lab_query", placeholder="e.g. why did the relay reconnect storm happen")
left, right, depth = st.columns([5, 5, 1])
with left:
    mode_a = mode_picker("a", "bm25:verbatim")
with right:
    mode_b = mode_picker("b", search_default() if distiller_version() else "hnsw:verbatim")
k = depth.number_input("k", 1, 50, 10, key="lab_k")
chosen = filters()
recent = st.container()  # filled last, so the query just run is already listed

if query.strip() and mode_a and mode_b:
    with guard():
        term_warning(query)
        result = search(query, mode_a, mode_b, int(k), chosen)
        build_status()
        judged = grades(p, result.query_id)
        metrics(result, judged)
        column_heads(result)
        result_rows(result, judged)
        reader()
with recent:
    history()
