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
        text += (f" On **{kept.get('queries', 0)} graded questions**, searching the cards alone "
                 f"finds **{kept['distilled_over_verbatim']:.0%}** {_range(kept, 'kept')} of what "
                 f"searching the whole exchanges finds (paper: "
                 f"{PAPER['distilled_over_verbatim']:.0%}).")
    st.markdown(text)
    few_queries(kept)
    if said["pairs"] < d["exchanges"]:
        st.warning(f"Only {said['pairs']:,} of the {d['exchanges']:,} exchanges have a card of "
                   f"version {md_escape(d['distiller'])}: the ratios cover those "
                   f"{said['pairs']:,}; token totals cover all.", icon=":material/info:")


def _range(kept: dict | None, key: str, fmt: str = "{:.0%}") -> str:
    """``(95% interval 80%–101%)`` of a headline figure, or nothing when it has none."""
    iv = ((kept or {}).get("intervals") or {}).get(key)
    return "" if not iv else f"(95% interval {fmt.format(iv['lo'])}–{fmt.format(iv['hi'])})"


def few_queries(kept: dict | None) -> None:
    """A warning when the headline rests on fewer than FEW_QUERIES graded questions."""
    n = (kept or {}).get("queries")
    if n is not None and n < experiments.FEW_QUERIES:
        st.warning(f"These retrieval figures rest on only **{n}** graded "
                   f"question{'s' if n != 1 else ''}: read the intervals, not the point values. "
                   + experiments.HOW_TO_GRADE, icon=":material/warning:")


def kept_metric(col, kept: dict | None) -> None:
    """The "Retrieval kept" card: graded queries only, with how many and the interval."""
    value = None if not kept else kept.get("distilled_over_verbatim")
    col.metric("Retrieval kept", "–" if value is None else f"{value:.0%}",
               help=("best distilled MRR / best verbatim MRR (paper: 96%) on "
                     f"{kept.get('queries')} graded queries of set {kept.get('query_set')} "
                     f"{_range(kept, 'kept')}" if value is not None else
                     "needs graded queries (a known-item probe does not count). "
                     + experiments.HOW_TO_GRADE))


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


def headline(s: dict, *, probe: bool = False) -> None:
    """The paper's headline figures from a report summary, each with the paper's beside it and,
    when the summary has them, its 95% interval; ``probe``: labelled as a known-item probe."""
    tag = " (probe)" if probe else ""
    c = metric_row(5 if s.get("default_value") is not None else 4)
    c[0].metric("Best verbatim MRR" + tag, _f(s.get("best_verbatim_value")),
                help=f"{md_escape(s.get('best_verbatim'))} · paper {PAPER['best_verbatim_value']} "
                     f"{_range(s, 'best_verbatim', '{:.3f}')}")
    c[1].metric("Best distilled MRR" + tag, _f(s.get("best_distilled_value")),
                help=f"{md_escape(s.get('best_distilled'))} · paper {PAPER['best_distilled_value']} "
                     f"{_range(s, 'best_distilled', '{:.3f}')}")
    c[2].metric("Retrieval kept" + tag, "–" if s.get("distilled_over_verbatim") is None
                else f"{s['distilled_over_verbatim']:.0%}",
                help=f"best distilled MRR / best verbatim MRR (paper: 0.717 / 0.745 = 96%) {_range(s, 'kept')}")
    c[3].metric("Best cross-layer MRR" + tag, _f(s.get("best_cross_value")),
                delta=None if s.get("cross_gain") is None else f"{s['cross_gain']:+.3f} vs verbatim",
                help=f"{md_escape(s.get('best_cross'))} · paper {PAPER['best_cross_value']} "
                     f"({PAPER['cross_gain']:+.3f})")
    if s.get("default_value") is not None and s.get("best_verbatim_value") is not None:
        c[4].metric("Default mode MRR" + tag, _f(s["default_value"]),
                    delta=f"{s['default_value'] - s['best_verbatim_value']:+.3f} vs verbatim",
                    help=md_escape(f"{s['default_mode']}: the mode search uses when none is named. "
                                   f"{_range(s, 'default_vs_verbatim', '{:+.3f}')}"))


def _f(v) -> str:
    return "–" if v is None else f"{v:.3f}"


def no_graded_set() -> None:
    """Said plainly where a headline would stand: no graded set, and how to make one."""
    probes = [s for s in palace().query_sets() if experiments.is_probe(s)]
    st.info("**No graded query set yet**, so this palace has no retrieval figure to stand "
            "beside the paper's. " + experiments.HOW_TO_GRADE
            + (f" The known-item probe ({', '.join(probes)}) is not used here: its queries copy "
               "the exchanges' own words, so verbatim search finds almost all of them; it is on "
               "**Evaluation**, labelled as a probe." if probes else ""),
            icon=":material/rule:")


def retrieval_kept(version: str | None, kept: dict | None) -> None:
    st.subheader("Retrieval kept")
    graded = experiments.headline_set(palace(), query_set())
    queries, _ = experiments.judged_set(palace(), graded) if graded else ([], {})
    if not version or not queries:
        if version:
            no_graded_set()
        st.caption("Needs distilled cards and graded queries. " + PAPER_TEXT)
        return
    if graded != query_set():
        st.caption(f"The sidebar's set **{md_escape(experiments.set_label(query_set()))}** is not "
                   f"graded; these figures use the graded set **{md_escape(graded)}**.")
    modes = list(experiments.DEFAULT_MODES)
    if kept is None and (ready(modes) or st.button(
            "Compute retrieval figures (builds the search indexes)", key="ov_compute")):
        if figures(version, compute=True) is not None:
            st.rerun()  # so the headline above shows them too
    if kept is None:
        st.caption(f"{len(queries)} graded queries in set **{md_escape(graded)}**. "
                   "`./lab app` computes these figures before the server starts; here it "
                   "builds the search indexes first (a minute or more). " + PAPER_TEXT)
        return
    headline(kept)
    st.caption(f"MRR@10 (1 / rank of the first relevant exchange, averaged) over "
               f"{len(queries)} graded queries of set **{md_escape(graded)}** (95% bootstrap "
               "intervals over the queries under each figure's help), best of "
               f"{len(modes)} modes per class: *verbatim* modes search only the whole exchange, "
               "*distilled* modes only card fields, *cross-layer* modes both; *kept* = best "
               "distilled / best verbatim (details on **Evaluation**). " + PAPER_TEXT)
