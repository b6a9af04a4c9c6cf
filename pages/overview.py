"""Overview: the 11x story told with this palace's own figures, computed live."""

import streamlit as st

from palace_lab.budget import PAPER
from palace_lab.charts.budget import per_1000_bars, token_histogram
from ui.data import budget
from ui.state import distiller_version, guard, palace
from ui.story import retrieval_kept

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
    ratio = d["compression"]["verbatim_over_core"]
    c1, c2, c3, c4 = st.columns(4)
    c1.metric("Exchanges", f"{d['exchanges']:,}", help=f"{p.count('conversations'):,} conversations")
    c2.metric("Verbatim tokens", f"{d['layers']['verbatim']['total']:,}",
              help=f"{d['layer_definitions']['verbatim']} · {d['tokenizer']}")
    c3.metric("Distilled tokens (core)", f"{d['layers']['core']['total']:,}",
              help=d["layer_definitions"]["core"])
    c4.metric("Compression", f"{ratio['ratio_of_totals'] or 0:.1f}x",
              help="ratio of totals: Σ verbatim / Σ core tokens. Mean of per-exchange "
                   f"ratios: {ratio['mean_of_ratios'] or 0:.1f}x")
    if not version:
        st.warning("No cards yet: distill the palace on **Load & distill**.")
    st.subheader("Carrying 1,000 exchanges")
    st.caption(f"Paper: ≈{PAPER['per_1000']['verbatim']:,} verbatim vs "
               f"≈{PAPER['per_1000']['core']:,} distilled tokens. This palace: "
               f"≈{d['per_1000_exchanges']['verbatim'] or 0:,} vs ≈{d['per_1000_exchanges']['core'] or 0:,} "
               f"({d['tokenizer']}, mean tokens per exchange × 1,000).")
    left, right = st.columns([3, 2])
    left.plotly_chart(per_1000_bars(summary), width="stretch")
    right.plotly_chart(token_histogram(rows), width="stretch")
    retrieval_kept(p, version)
