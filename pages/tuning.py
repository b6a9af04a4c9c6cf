"""Tuning: a second card version on a sample (edited prompt or rules knobs) side by side with
the first, fusion weight and RRF k with live metrics, and the cross-validated grid."""

import streamlit as st

from palace_lab.experiments.query_sets import is_probe, judged_set, set_label
from ui.defaults import make_default_version
from ui.state import distiller_version, guard, palace, query_set
from ui.tuning import (compare, fusion_panel, grid_panel, knob_note, prompt_preview, pure_pair,
                       redistill, sample, trial_distiller)

st.title("Tuning")
base = distiller_version()
if not base:
    st.info("Tuning compares against distilled cards: distill the palace on **Load & distill** first.",
            icon=":material/info:")
    st.stop()

queries, qrels = judged_set(palace(), query_set())
st.caption(f"Base card version **{base}** (sidebar) · query set **{set_label(query_set() or 'none')}** with "
           f"{len(queries)} judged queries.")
if is_probe(query_set()):
    st.warning("The sidebar's query set is a **known-item probe**: its queries copy the exchanges' "
               "own words and favour verbatim search, so figures here are a lexical regression "
               "check, and no search default can be applied from them.", icon=":material/science:")
tabs = st.tabs(["Card versions", "Fusion knobs", "Grid search"], key="tune_tab", on_change="rerun")
tab_cards, tab_fusion, tab_grid = tabs
shown = next((t for t in tabs if t.open), tab_cards)
with shown, guard():
    if shown is tab_cards:
        st.caption("Re-distill a sample of exchanges into a second version, then compare the two "
                   "card versions and what each keeps for retrieval.")
        distiller = trial_distiller()
        ids = sample(qrels)
        if distiller.version == base:
            st.info("These settings make the base version itself: change a knob or the prompt.")
        else:
            prompt_preview(distiller, ids)
            knob_note(distiller, ids)
            redistill(distiller, ids)
            compare(distiller.version, ids, queries, qrels)
            make_default_version(distiller)
    elif not qrels:
        st.info("Fusion tuning needs judged queries: import or generate a query set on "
                "**Evaluation**, or grade results in the **Search lab**.")
    else:
        run_a, run_b = pure_pair()
        if shown is tab_fusion:
            fusion_panel(run_a, run_b, queries, qrels)
        else:
            grid_panel(run_a, run_b, queries, qrels, probe=is_probe(query_set()))
