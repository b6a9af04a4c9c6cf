"""Budgets: token distributions, the 1,000-exchange bars, a context-window calculator, cost."""

import pandas as pd
import streamlit as st

from palace_lab.budget import DEFAULT_PRICES, fits_in_window, load_cost
from palace_lab.charts.budget import per_1000_bars, token_histogram, tokens_by_project, tokens_over_time
from palace_lab.tokens import ENCODINGS
from ui.data import budget
from ui.state import guard

st.title("Token budgets")
encoding = st.radio("Tokenizer", ENCODINGS, horizontal=True, key="bud_encoding")
with guard():
    summary, rows = budget(encoding)
    d = summary.to_dict()
    st.caption(f"{d['exchanges']:,} exchanges · tokenizer **{encoding}** · distiller "
               f"**{d['distiller'] or 'none yet'}**")
    layers = pd.DataFrame(d["layers"]).T.assign(definition=pd.Series(d["layer_definitions"]))
    st.dataframe(layers, width="stretch")
    ratio = d["compression"]["verbatim_over_core"]
    st.markdown(f"**Compression verbatim → core:** {ratio['ratio_of_totals']}x as a *ratio of "
                f"totals* (Σ verbatim / Σ core), {ratio['mean_of_ratios']}x as the *mean of "
                "per-exchange ratios*.")
    left, right = st.columns(2)
    left.plotly_chart(per_1000_bars(summary), width="stretch")
    right.plotly_chart(token_histogram(rows), width="stretch")
    left.plotly_chart(tokens_by_project(rows), width="stretch")
    right.plotly_chart(tokens_over_time(rows), width="stretch")

    st.subheader("Context-window calculator")
    window = st.number_input("Context window (tokens)", 1_000, 10_000_000, 200_000, 10_000,
                             key="bud_window")
    fits = fits_in_window(summary, int(window))
    a, b = st.columns(2)
    a.metric("Exchanges that fit verbatim", f"{fits['verbatim'] or 0:,}")
    b.metric("Exchanges that fit distilled (core)", f"{fits['core'] or 0:,}")

    st.subheader("Cost of loading the whole palace once")
    prices = st.data_editor(pd.DataFrame({"model": list(DEFAULT_PRICES),
                                          "USD per million input tokens": list(DEFAULT_PRICES.values())}),
                            key="bud_prices", width="stretch", num_rows="dynamic")
    table = load_cost(summary, dict(zip(prices["model"], prices["USD per million input tokens"])))
    st.dataframe(pd.DataFrame(table).T, width="stretch")
