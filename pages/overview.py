"""Overview: the 11x story told with this palace's own figures, for a stakeholder at a glance."""

import streamlit as st

from palace_lab.budget import HEADLINE_NAME, headline_text, other_text
from palace_lab.paper import BUDGET as PAPER
from palace_lab.charts.budget import per_1000_bars, token_histogram
from palace_lab.experiments.query_sets import headline_set, judged_set
from ui.data import budget
from ui.defaults import default_note, overview_default
from ui.layout import metric_row
from ui.palaces import label
from ui.report import download_report
from ui.state import db_path, distiller_version, guard, palace, query_set
from ui.story import (PAPER_RATIO, compression, definitions_table, figures, kept_metric, lead,
                      retrieval_kept)

st.title("Your agent memory, distilled")
p = palace()
version = distiller_version()
if not p.count("exchanges"):
    st.info("This palace is empty. Load a history on **Load & distill** (the bundled sample "
            "is one click).", icon=":material/info:")
    st.stop()

with guard():
    summary, rows = budget()
    d = summary.to_dict()
    said, _, layer = compression(d)
    if not version:
        st.warning("No cards yet: distill the palace on **Load & distill**.")
        st.stop()
    st.caption(f"Palace **{label(db_path())}** · distiller version **{version}** · "
               f"{d['exchanges']:,} exchanges · tokenizer {d['tokenizer']}")
    download_report()
    kept = figures(version)
    lead(d, kept)
    h = d["headline"]
    c1, c2, c4 = metric_row(3)
    c1.metric(HEADLINE_NAME, f"{h['ratio'] or 0:.1f}x",
              help=f"{headline_text(h)}. Mean of per-exchange ratios {said['mean_of_ratios'] or 0:.1f}x. "
                   f"Dialogue: {d['layer_definitions']['dialogue']}. {layer}: "
                   f"{d['layer_definitions'][layer]}. One step away, {other_text(h)}: see "
                   "the table below and **Budgets**.")
    c2.metric("The paper", PAPER_RATIO,
              help=f"{PAPER['verbatim_mean']} → {PAPER['core_mean']} tokens per exchange over "
                   f"{PAPER['exchanges']:,} exchanges ({PAPER['source']})")
    kept_metric(c4, kept)  # graded queries only, with their number and interval
    definitions_table(d)
    retrieval_kept(version, kept)
    default_note("Overview")
    graded = headline_set(p, query_set())  # a known-item probe never makes a headline
    overview_default(*(judged_set(p, graded) if graded else ([], {})))
    st.subheader("Carrying 1,000 exchanges")
    per = d["per_1000_exchanges"]
    st.caption(f"Like for like: the paper's ≈{PAPER['per_1000']['verbatim']:,} tokens (its verbatim, "
               f"without tool output) vs ≈{PAPER['per_1000']['core']:,} distilled; this palace's "
               f"dialogue ≈{per['dialogue'] or 0:,} vs ≈{per[layer] or 0:,} ({layer}), and "
               f"≈{per['verbatim'] or 0:,} counting tool calls and output ({d['tokenizer']}, mean "
               "tokens per exchange × 1,000; log scale).")
    left, right = st.columns([3, 2])
    left.plotly_chart(per_1000_bars(summary), width="stretch")
    right.plotly_chart(token_histogram(rows, distilled=layer), width="stretch")
