"""Overview: the 11x story told with this palace's own figures, for a stakeholder at a glance."""

import streamlit as st

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
    said, whole, layer = compression(d)
    if not version:
        st.warning("No cards yet: distill the palace on **Load & distill**.")
        st.stop()
    st.caption(f"Palace **{label(db_path())}** · distiller version **{version}** · "
               f"{d['exchanges']:,} exchanges · tokenizer {d['tokenizer']}")
    download_report()
    kept = figures(version)
    lead(d, kept)
    c1, c2, c3, c4 = metric_row(4)
    c1.metric("Dialogue → cards", f"{said['ratio_of_totals'] or 0:.1f}x",
              help=f"The paper's definition: Σ dialogue / Σ {layer} tokens (ratio of totals); mean of per-exchange "
                   f"ratios {said['mean_of_ratios'] or 0:.1f}x. Dialogue: "
                   f"{d['layer_definitions']['dialogue']}. {layer}: {d['layer_definitions'][layer]}.")
    c2.metric("The paper", PAPER_RATIO,
              help=f"{PAPER['verbatim_mean']} → {PAPER['core_mean']} tokens per exchange over "
                   f"{PAPER['exchanges']:,} exchanges ({PAPER['source']})")
    c3.metric("With tool output", f"{whole['ratio_of_totals'] or 0:.1f}x",
              help=f"Σ verbatim / Σ {layer} tokens. Verbatim: {d['layer_definitions']['verbatim']}.")
    kept_metric(c4, kept)  # graded queries only, with their number and interval
    definitions_table(d)
    retrieval_kept(version, kept)
    default_note("Overview")
    graded = headline_set(p, query_set())  # a known-item probe never makes a headline
    overview_default(*(judged_set(p, graded) if graded else ([], {})))
    st.subheader("Carrying 1,000 exchanges")
    st.caption(f"Paper: ≈{PAPER['per_1000']['verbatim']:,} verbatim vs "
               f"≈{PAPER['per_1000']['core']:,} distilled tokens. This palace: "
               f"≈{d['per_1000_exchanges']['verbatim'] or 0:,} vs ≈{d['per_1000_exchanges'][layer] or 0:,} "
               f"({d['tokenizer']}, mean tokens per exchange × 1,000).")
    left, right = st.columns([3, 2])
    left.plotly_chart(per_1000_bars(summary), width="stretch")
    right.plotly_chart(token_histogram(rows, distilled=layer), width="stretch")
