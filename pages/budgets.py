"""Budgets: token distributions, the 1,000-exchange bars, a context-window calculator, cost."""

import pandas as pd
import streamlit as st

from palace_lab.budget import DEFAULT_PRICES, fits_in_window, headline_text, load_cost, other_text
from palace_lab.charts.budget import per_1000_bars, token_histogram, tokens_by_project, tokens_over_time
from palace_lab.tokens import ENCODINGS
from ui.data import budget
from ui.exchange import md_escape
from ui.state import guard
from ui.story import definitions_table

st.title("Token budgets")
encoding = st.radio("Tokenizer", ENCODINGS, horizontal=True, key="bud_encoding")
with guard():
    summary, rows = budget(encoding)
    d = summary.to_dict()
    st.caption(f"{d['exchanges']:,} exchanges · tokenizer **{encoding}** · distiller "
               f"**{d['distiller'] or 'none yet'}**")
    h = d["headline"]
    st.markdown(f"**{md_escape(headline_text(h))}.** One step away, {md_escape(other_text(h))}; "
                "every ratio under both definitions in the table below.")
    layers = pd.DataFrame(d["layers"]).T.assign(definition=pd.Series(d["layer_definitions"]))
    st.dataframe(layers, width="stretch")
    definitions_table(d)
    layer = summary.distilled_layer
    left, right = st.columns(2)
    left.plotly_chart(per_1000_bars(summary), width="stretch")
    right.plotly_chart(token_histogram(rows, distilled=layer), width="stretch")
    left.plotly_chart(tokens_by_project(rows, distilled=layer), width="stretch")
    right.plotly_chart(tokens_over_time(rows, distilled=layer), width="stretch")

    st.subheader("Context-window calculator")
    window = st.number_input("Context window (tokens)", 1_000, 10_000_000, 200_000, 10_000,
                             key="bud_window")
    fits = fits_in_window(summary, int(window))
    a, b = st.columns(2)
    a.metric("Exchanges that fit verbatim", f"{fits['verbatim'] or 0:,}")
    b.metric(f"Exchanges that fit distilled ({layer})", f"{fits[layer] or 0:,}")

    st.subheader("Cost of loading the whole palace once")
    prices = st.data_editor(pd.DataFrame({"model": list(DEFAULT_PRICES),
                                          "USD per million input tokens": list(DEFAULT_PRICES.values())}),
                            key="bud_prices", width="stretch", num_rows="dynamic")
    table = load_cost(summary, dict(zip(prices["model"], prices["USD per million input tokens"])))
    st.dataframe(pd.DataFrame(table).T, width="stretch")
