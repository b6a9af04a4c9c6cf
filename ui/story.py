"""The Overview's story: what is compressed, by how much under each definition (the paper's
beside them), and what retrieval the distilled layer keeps.

Token figures come from the cached budget (:mod:`ui.data`); retrieval figures from
:func:`palace_lab.experiments.story.retrieval_figures`, which ``./lab app`` computes before the server
starts, so the sample's Overview shows them at once. Nothing is hard-coded but the paper's
figures; conversation text never appears here (only numbers and escaped names).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from palace_lab.experiments import query_sets as experiments
from palace_lab.experiments.story import retrieval_figures
from palace_lab.paper import BUDGET as PAPER_BUDGET
from palace_lab.paper import RATIO_NAME as PAPER_RATIO
from palace_lab.paper import RETRIEVAL as PAPER
from palace_lab.paper import RETRIEVAL_TEXT as PAPER_TEXT
from ui.exchange import md_escape
from ui.layout import metric_row
from ui.search import ready
from ui.state import embedder_name, engine, palace, query_set


def compression(d: dict) -> tuple[dict, dict, str]:
    layer = d["distilled_layer"]
    said, whole = (d["compression"][f"{x}_over_{layer}"] for x in ("dialogue", "verbatim"))
    return said, whole, layer


def figures(version: str | None, compute: bool = False) -> dict | None:
    """The retrieval figures when cached (or ``compute``: made now, with a progress bar)."""
    if not compute:
        return retrieval_figures(palace(), distiller=version, query_set=query_set(),
                                 embedder=embedder_name(), compute=False)
    bar = st.progress(0.0, text="loading the embedding model and building indexes…")

    def tick(step: str, done: int, total: int) -> None:
        bar.progress(min(done / max(total, 1), 1.0), text=f"{step}: {done:,}/{total:,}")

    made = retrieval_figures(palace(), distiller=version, query_set=query_set(),
                             embedder=embedder_name(), engine=engine(), progress=tick)
    bar.empty()
    return made


def lead(d: dict, kept: dict | None) -> None:
    """The story in three sentences (numbers only, so Markdown is safe)."""
    said, _, layer = compression(d)
    tokens, h = d["layers"], d["headline"]
    text = (f"**{d['exchanges']:,} exchanges** of agent work. What was *said* in them (the "
            f"person's and the agent's words) is **{tokens['dialogue']['total']:,} tokens**; "
            f"distilled into cards it is **{tokens[layer]['total']:,} tokens**: "
            f"**{_x(h['ratio'])} smaller**, where the paper reports "
            f"**{PAPER_RATIO}** ({PAPER_BUDGET['verbatim_mean']} → {PAPER_BUDGET['core_mean']} "
            f"tokens an exchange). The same ratio counting tool calls and their output too is "
            f"one step away, in the table below.")
    if kept and kept.get("distilled_over_verbatim") is not None:
        text += (f" Searching the cards alone finds **{kept['distilled_over_verbatim']:.0%}** of "
                 f"what searching the whole exchanges finds (paper: "
                 f"{PAPER['distilled_over_verbatim']:.0%}).")
    st.markdown(text)
    if said["pairs"] < d["exchanges"]:
        st.warning(f"Only {said['pairs']:,} of the {d['exchanges']:,} exchanges have a card of "
                   f"version {md_escape(d['distiller'])}: the ratios cover those "
                   f"{said['pairs']:,}; token totals cover all.", icon=":material/info:")


def _x(v) -> str:
    return "–" if v is None else f"{v:.1f}x"


def definitions_table(d: dict) -> None:
    """Both definitions of the ratio, as this palace measures them and as the paper does."""
    said, whole, layer = compression(d)
    paper_mean = PAPER_BUDGET["verbatim_mean"] / PAPER_BUDGET["core_mean"]
    rows = {f"dialogue → {layer} (the paper's)": [_x(said["ratio_of_totals"]),
                                                 _x(said["mean_of_ratios"]),
                                                 PAPER_RATIO],
            f"verbatim → {layer} (with tool output)": [_x(whole["ratio_of_totals"]),
                                                      _x(whole["mean_of_ratios"]), "not reported"]}
    st.dataframe(pd.DataFrame(rows, index=["ratio of totals", "mean of per-exchange ratios",
                                           "paper"]).T, width="stretch")
    st.caption(f"*Ratio of totals*: Σ numerator tokens / Σ distilled tokens over the "
               f"{said['pairs']:,} exchanges with a card. *Mean of per-exchange ratios*: the "
               f"average of each exchange's own ratio. **dialogue**: "
               f"{d['layer_definitions']['dialogue']}; **verbatim**: "
               f"{d['layer_definitions']['verbatim']}; **{layer}**: "
               f"{d['layer_definitions'][layer]}. Tokenizer {d['tokenizer']}. The paper: "
               f"{PAPER_BUDGET['verbatim_mean']} → {PAPER_BUDGET['core_mean']} tokens an exchange "
               f"on average ({paper_mean:.1f}x of the means), reported as {PAPER_RATIO}.")


def headline(s: dict) -> None:
    """The paper's headline figures from a report summary, each with the paper's beside it."""
    c = metric_row(5 if s.get("default_value") is not None else 4)
    c[0].metric("Best verbatim MRR", _f(s.get("best_verbatim_value")),
                help=f"{md_escape(s.get('best_verbatim'))} · paper {PAPER['best_verbatim_value']}")
    c[1].metric("Best distilled MRR", _f(s.get("best_distilled_value")),
                help=f"{md_escape(s.get('best_distilled'))} · paper {PAPER['best_distilled_value']}")
    c[2].metric("Retrieval kept", "–" if s.get("distilled_over_verbatim") is None
                else f"{s['distilled_over_verbatim']:.0%}",
                help="best distilled MRR / best verbatim MRR (paper: 0.717 / 0.745 = 96%)")
    c[3].metric("Best cross-layer MRR", _f(s.get("best_cross_value")),
                delta=None if s.get("cross_gain") is None else f"{s['cross_gain']:+.3f} vs verbatim",
                help=f"{md_escape(s.get('best_cross'))} · paper {PAPER['best_cross_value']} "
                     f"({PAPER['cross_gain']:+.3f})")
    if s.get("default_value") is not None and s.get("best_verbatim_value") is not None:
        c[4].metric("Default mode MRR", _f(s["default_value"]),
                    delta=f"{s['default_value'] - s['best_verbatim_value']:+.3f} vs verbatim",
                    help=md_escape(f"{s['default_mode']}: the mode search uses when none is named"))


def _f(v) -> str:
    return "–" if v is None else f"{v:.3f}"


def retrieval_kept(version: str | None, kept: dict | None) -> None:
    st.subheader("Retrieval kept")
    queries, _ = experiments.judged_set(palace(), query_set())
    if not version or not queries:
        st.caption("Needs distilled cards and graded queries: import the sample's queries or "
                   "generate known-item queries on **Evaluation**, or grade results in the "
                   "**Search lab**. " + PAPER_TEXT)
        return
    modes = list(experiments.DEFAULT_MODES)
    if kept is None and (ready(modes) or st.button(
            "Compute retrieval figures (builds the search indexes)", key="ov_compute")):
        if figures(version, compute=True) is not None:
            st.rerun()  # so the headline above shows them too
    if kept is None:
        st.caption(f"{len(queries)} judged queries in set **{md_escape(query_set())}**. "
                   "`./lab app` computes these figures before the server starts; here it "
                   "builds the search indexes first (a minute or more). " + PAPER_TEXT)
        return
    headline(kept)
    st.caption(f"MRR@10 (1 / rank of the first relevant exchange, averaged) over "
               f"{len(queries)} judged queries of set **{md_escape(query_set())}**, best of "
               f"{len(modes)} modes per class: *verbatim* modes search only the whole exchange, "
               "*distilled* modes only card fields, *cross-layer* modes both; *kept* = best "
               "distilled / best verbatim (details on **Evaluation**). " + PAPER_TEXT)
