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
    layer = d["distilled_layer"]
    said, whole = (d["compression"][f"{x}_over_{layer}"] for x in ("dialogue", "verbatim"))
    c1, c2, c3, c4 = st.columns(4)
    c1.metric("Exchanges", f"{d['exchanges']:,}", help=f"{p.count('conversations'):,} conversations")
    c2.metric("Dialogue tokens", f"{d['layers']['dialogue']['total']:,}",
              help=f"{d['layer_definitions']['dialogue']} · {d['tokenizer']}; with tool traffic "
                   f"(verbatim): {d['layers']['verbatim']['total']:,}")
    c3.metric("Distilled tokens", f"{d['layers'][layer]['total']:,}",
              help=d["layer_definitions"][layer])
    c4.metric("Compression", f"{said['ratio_of_totals'] or 0:.1f}x",
              help=f"ratio of totals: Σ dialogue / Σ distilled ({layer}) tokens; mean of "
                   f"per-exchange ratios {said['mean_of_ratios'] or 0:.1f}x. Counting tool "
                   f"traffic too (verbatim): {whole['ratio_of_totals'] or 0:.1f}x. Paper: 371 → "
                   "38 tokens, 9.8x as a ratio of means, called 11x.")
    if not version:
        st.warning("No cards yet: distill the palace on **Load & distill**.")
    st.subheader("Carrying 1,000 exchanges")
    st.caption(f"Paper: ≈{PAPER['per_1000']['verbatim']:,} verbatim vs "
               f"≈{PAPER['per_1000']['core']:,} distilled tokens. This palace: "
               f"≈{d['per_1000_exchanges']['verbatim'] or 0:,} vs ≈{d['per_1000_exchanges'][layer] or 0:,} "
               f"({d['tokenizer']}, mean tokens per exchange × 1,000).")
    left, right = st.columns([3, 2])
    left.plotly_chart(per_1000_bars(summary), width="stretch")
    right.plotly_chart(token_histogram(rows, distilled=layer), width="stretch")
    retrieval_kept(p, version)
