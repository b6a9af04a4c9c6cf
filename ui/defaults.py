"""A palace's own search default and card version: applied from Tuning, used by the Search lab
and the Overview, reset to the project default (stored by :mod:`palace_lab.experiments.prefs`)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from palace_lab.experiments import baselines as tuning_baselines
from palace_lab.experiments import prefs as palace_prefs
from palace_lab.distill.plan import plan_distill
from palace_lab.distill.pipeline import distill_palace
from palace_lab.budget import keep_budget
from palace_lab.evaluate.metrics import evaluate
from palace_lab.search.modes import DEFAULT_MODE
from ui.exchange import md_escape
from ui.search import mode_runs
from ui.state import db_path, palace


def search_default() -> str:
    """This palace's search mode: the one applied from Tuning, else the project default."""
    return palace_prefs.search_mode(db_path())


def set_search_default(mode: str | None) -> None:
    """Store ``mode`` as this palace's search default (``None``: back to the project's), let
    the Search lab's mode B pick it up, and rerun the page."""
    palace_prefs.set_pref(db_path(), "search_mode", mode)
    st.session_state.pop("lab_mode_b", None)
    st.rerun()


def default_note(where: str) -> None:
    """A line saying which default is in use, with a reset when the palace has its own."""
    mode = search_default()
    if mode == DEFAULT_MODE:
        return
    a, b = st.columns([5, 1], vertical_alignment="center")
    a.info(f"{where} uses this palace's search default `{mode}` (applied from "
           f"**Tuning**); the project default is `{DEFAULT_MODE}`.", icon=":material/tune:")
    if b.button("Reset to project default", key=f"{where}_reset_default"):
        set_search_default(None)


def baselines(tuning, queries: list[dict], qrels: dict, *, probe: bool = False) -> None:
    """The tuned fusion against the best verbatim-only mode and the current default, each delta
    with its interval, the recommendation (a change only when significant on graded queries),
    and the button that makes the in-sample best this palace's search default (never from a
    known-item ``probe``)."""
    current, tuned = search_default(), tuning.in_sample["mode"]
    # Once applied, the palace's default is the tuned mode itself: compare with the project's.
    others = [m for m in dict.fromkeys([current, DEFAULT_MODE]) if m != tuned]
    runs = mode_runs([*tuning_baselines.VERBATIM_MODES, *others], queries, k=10)
    means = {m: evaluate(qrels, runs[m], [tuning.metric])[tuning.metric]
             for m in tuning_baselines.VERBATIM_MODES}
    best_verbatim = max(means, key=means.get)
    chosen = {f"best verbatim-only: {best_verbatim}": runs[best_verbatim]}
    chosen.update({(f"project default: {m}" if m == DEFAULT_MODE else f"this palace's default: {m}"):
                   runs[m] for m in others})
    rows = tuning_baselines.against(tuning.held_out, chosen, qrels, tuning.metric)
    st.markdown(f"**Does tuning beat the baselines?** Cross-validated {tuning.metric} of the tuned "
                "fusion (each query scored by knobs chosen without it) against each baseline, "
                "paired t-test over the same queries, delta with its 95% bootstrap interval.")
    st.dataframe(pd.DataFrame(rows).style.format(
        {"baseline_score": "{:.3f}", "tuned_cv": "{:.3f}", "delta": "{:+.3f}", "p": "{:.3f}",
         "delta_lo": "{:+.3f}", "delta_hi": "{:+.3f}"}, na_rep="–"), width="stretch", hide_index=True)
    row = next((r for r in rows if r["baseline"].endswith(f": {current}")), None) \
        if current != tuned else None
    advice = tuning_baselines.recommend(tuned, row, probe=probe, metric=tuning.metric)
    (st.success if advice.change else st.info)(advice.text, icon=":material/recommend:")
    apply_button(tuned, recommended=advice.change, probe=probe)


def apply_button(mode: str, *, recommended: bool, probe: bool = False) -> None:
    current = search_default()
    st.markdown(f"Best on all judged queries: `{mode}`"
                + ("" if recommended else " — not a measured gain over the current default, so "
                   "applying it would be a choice, not a finding."))
    a, b = st.columns(2)
    why = ("a known-item probe cannot set the search default: tune on graded queries"
           if probe else "the Search lab and the Overview use it for this palace")
    if a.button("Apply as search default", type="primary" if recommended else "secondary",
                disabled=mode == current or probe, key="tune_apply", help=why):
        set_search_default(mode)
    if b.button("Reset to project default", disabled=current == DEFAULT_MODE, key="tune_reset",
                help=f"back to {DEFAULT_MODE}"):
        set_search_default(None)
    if current != DEFAULT_MODE:
        st.success(f"Applied: this palace searches with `{current}` by default.",
                   icon=":material/check_circle:")


def make_default_version(distiller) -> None:
    """Distill what the trial version still lacks, then make it the palace's card version."""
    p, db = palace(), db_path()
    current = palace_prefs.load(db).get("distiller_version")
    if current == distiller.version:
        st.success(f"**{md_escape(distiller.version)}** is this palace's default card version.",
                   icon=":material/check_circle:")
        return
    plan = plan_distill(p, distiller)
    if plan.paid:
        st.caption("Making a paid version the default means distilling the whole palace with it: "
                   "use **Load & distill** with that backend.")
        return
    if st.button(f"Make this version the palace's default (distils the other {len(plan.pending):,} "
                 "exchanges first)", key="tune_make_default"):
        with st.spinner("distilling the rest of the palace…"):
            distill_palace(p, distiller, keep=keep_budget)
        palace_prefs.set_pref(db, "distiller_version", distiller.version)
        st.session_state.pop("distiller", None)
        st.rerun()


def overview_default(queries: list[dict], qrels: dict) -> None:
    """On the Overview: the palace's own search default beside the project default, in MRR."""
    mode = search_default()
    if mode == DEFAULT_MODE or not qrels:
        return
    runs = mode_runs([mode, DEFAULT_MODE], queries, k=10)
    mine, project = (evaluate(qrels, runs[m], ["mrr"])["mrr"] for m in (mode, DEFAULT_MODE))
    a, b = st.columns(2)
    a.metric("This palace's search default, MRR", f"{mine:.3f}", delta=f"{mine - project:+.3f} vs project default",
             help=md_escape(f"{mode} (applied from Tuning)"))
    b.metric("Project default, MRR", f"{project:.3f}", help=DEFAULT_MODE)
