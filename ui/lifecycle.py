"""The Memory lifecycle page's panels: tool calls, sessions, consolidation, validation, packs.

Data comes from :mod:`palace_lab.lifecycle` through ``st.cache_data`` keyed by the palace file
and its fingerprint (so a re-ingest is seen on the next rerun). Conversation text, blocks,
summaries are shown with ``st.text`` or in dataframes, never as Markdown; so is the L3 profile,
which the consolidation writes in Markdown but fills with conversation text (rendered, a line of
it became a giant heading).
"""

from __future__ import annotations

import os
from dataclasses import replace
from datetime import timedelta

import pandas as pd
import streamlit as st

from palace_lab.charts import lifecycle as charts
from palace_lab.experiments import lifecycle_figures, page_figures
from palace_lab.ingest.traffic import toolcalls
from palace_lab.lifecycle import compress, consolidate, pack, report, validate
from palace_lab.store.contents import projects
from ui.exchange import clip, md_escape, paged
from ui.state import db_path, distiller_version, distiller_versions, palace, palace_at


TABLE_ROWS = 200  # rows of a palace-wide table shown at a time


def _key() -> tuple[str, str]:
    return str(db_path()), palace().fingerprint()


@st.cache_data(max_entries=4, show_spinner="Compressing tool calls…")
def _toolcall_rows(path: str, fingerprint: str) -> list:
    """The palace's tool-call table, kept on disk by the palace's content
    (:func:`page_figures.toolcall_rows`: a fresh server reads it back)."""
    return page_figures.toolcall_rows(palace_at(path))


SESSION_SAMPLE = 200  # sessions compressed for the table (≈ 10 ms each, two ways: 2 s)


@st.cache_data(max_entries=4, show_spinner="Compressing the sessions two ways…")
def _sessions(path: str, fingerprint: str) -> dict:
    """A seeded sample of :data:`SESSION_SAMPLE` sessions when the palace has more (all
    14,685 of a 50,000-exchange palace took 140 s), compressed two ways."""
    return report.compress_all(palace_at(path), sample=SESSION_SAMPLE)


@st.cache_data(max_entries=8, show_spinner="Replaying consolidation over the timeline…")
def _replay(path: str, fingerprint: str, step: str, extend: int, schedule) -> list:
    """Kept on disk by the palace's content and the settings (made ahead by ``palace-lab
    index`` for the tab's first settings: :mod:`lifecycle_figures`)."""
    return lifecycle_figures.replay_snapshots(palace_at(path), step, extend, schedule)


@st.cache_data(max_entries=4, show_spinner="Measuring surviving vocabulary…")
def _vocabulary(path: str, fingerprint: str, versions: tuple) -> list:
    """Kept on disk by the palace's and the versions' cards' content (made ahead by
    ``palace-lab index``: :mod:`lifecycle_figures`)."""
    return lifecycle_figures.vocabulary_rows(palace_at(path), versions)


def toolcalls_panel() -> None:
    rows = _toolcall_rows(*_key())
    heavy = st.number_input("Tool-heavy from (tokens of tool traffic)", 100, 1_000_000,
                            toolcalls.TOOL_HEAVY_TOKENS, 500, key="life_heavy")
    stats = toolcalls.toolcall_stats(rows, min_tokens=int(heavy))
    a, b, c = st.columns(3)
    a.metric("Tool-heavy exchanges", f"{stats['tool_heavy']} of {stats['exchanges_with_tools']}")
    b.metric("Median ratio", f"{stats['median_ratio'] or 0:.1f}x", help="median of before/after")
    c.metric("Ratio of totals", f"{stats['ratio_of_totals'] or 0:.1f}x",
             help=f"Σ before / Σ after = {stats['tokens_before']:,} / {stats['tokens_after']:,}")
    st.caption("Source example: 15,000 → 750 tokens (20x). Before: every tool call and tool "
               "result text of the exchange; after: the compressed block.")
    st.plotly_chart(charts.toolcall_scatter(rows, min_tokens=int(heavy)), width="stretch")
    heaviest = sorted(rows, key=lambda r: -r.tokens_before)
    page, shown = paged(heaviest, TABLE_ROWS, "life_tc_page", label="Page", noun="Exchanges",
                        order="the most tool traffic first")
    columns = ["exchange_id", "calls", "tokens_before", "tokens_after", "ratio", "project",
               "timestamp", "preview"]
    st.dataframe(pd.DataFrame([r.to_dict() for r in shown], columns=columns), width="stretch",
                 hide_index=True)
    if shown:
        pick = st.selectbox("Exchange", shown, key=f"life_tc_pick_{page}",
                            format_func=lambda r: f"{r.exchange_id} · {r.tokens_before:,} → "
                                                  f"{r.tokens_after:,} · {r.preview[:70]}")
        summary = toolcalls.exchange_toolcalls(palace(), palace().exchange(pick.exchange_id))
        st.text(summary.block)


def sessions_panel() -> None:
    results = _sessions(*_key())
    summaries = [report.method_summary(m, rs) for m, rs in results.items()]
    table = pd.DataFrame([{"method": s["method"], "sessions": s["sessions"],
                           "ratio (Σ/Σ)": s["ratio_of_totals"], "median ratio": s["median_ratio"],
                           "preservation": s["preservation"], "facts": s["facts"],
                           "distorted": s["distorted"], "source ratio": s["source"]["ratio"],
                           "source preservation": s["source"]["preservation"]} for s in summaries])
    st.dataframe(table, width="stretch", hide_index=True)
    shown, total = report.session_ids(palace(), SESSION_SAMPLE)
    if len(shown) < total:
        st.caption(f"A seeded random sample of **{len(shown):,} of the palace's {total:,} "
                   "sessions** (the same sample on every visit): compressing every session two "
                   "ways takes minutes at this size.")
    st.caption("Preservation: Σ preserved facts / Σ facts of the sessions' dialogue "
               "(identifiers, paths, config values, numbers with units, versions, errors, "
               "decisions). The source's figures were measured on its own text.")
    st.plotly_chart(charts.session_bars(report.chart_rows(summaries)), width="stretch")
    extractive = results.get("extractive") or []
    if not extractive:
        return
    i = st.selectbox("Session", range(len(extractive)), key="life_sess_pick",
                     format_func=lambda i: f"{extractive[i].conversation_id[:12]} · "
                                           f"{extractive[i].tokens_before:,} tokens")
    for method, col in zip(results, st.columns(len(results))):
        r = results[method][i]
        col.caption(f"{method}: {r.tokens_before:,} → {r.tokens_after:,} tokens "
                    f"({r.ratio or 0:.1f}x), preservation {r.preservation:.0%}")
        col.text(clip(r.text, 6000))
        lost = [{"status": c.status, "kind": c.fact.kind, "fact": c.fact.text, "found": c.found}
                for c in r.validation.checks if c.status != "preserved"]
        col.dataframe(pd.DataFrame(lost or [{"status": "all facts preserved"}]), hide_index=True)
        if r.dropped:
            col.dataframe(pd.DataFrame([vars(d) for d in r.dropped]), hide_index=True)
    llm_option(extractive[i].conversation_id)


def llm_option(conversation_id: str) -> None:
    key = os.environ.get("ANTHROPIC_API_KEY")
    with st.expander("Compress this session with Claude (optional, paid)"):
        if not key:
            st.info("Set ANTHROPIC_API_KEY to use Claude; everything else here runs offline.")
            return
        from palace_lab.llm.client import LLMClient
        from palace_lab.lifecycle.remote import estimate_cost
        from palace_lab.lifecycle.units import session_messages, units_of

        method = st.radio("Method", compress.METHODS, horizontal=True, key="life_llm_method")
        cap = st.number_input("Cost cap (USD)", 0.01, 100.0, 0.50, key="life_llm_cap")
        client = LLMClient(api_key=key, max_cost_usd=float(cap),
                           base_url=os.environ.get("ANTHROPIC_BASE_URL") or None)
        units = units_of(session_messages(palace().exchanges(conversation_id=conversation_id)))
        st.caption(f"Estimated cost: ${estimate_cost(client, [units], method):.4f} ({client.model})")
        if st.button("Run", key="life_llm_run"):
            r = compress.compress_session(palace(), conversation_id, method, backend="anthropic",
                                          client=client)
            st.caption(f"{r.ratio or 0:.1f}x · preservation {r.preservation:.0%} · ${r.cost_usd:.4f}")
            st.text(r.text)


def consolidation_panel() -> None:
    a, b, c, d = st.columns(4)
    steps = ["1D", "7D", "14D"]
    step = a.selectbox("Step", steps, index=steps.index(lifecycle_figures.REPLAY_STEP),
                       key="life_step")
    extend = b.slider("Days after the last exchange", 0, 120, lifecycle_figures.REPLAY_EXTEND_DAYS,
                      key="life_extend")
    first = consolidate.Schedule()  # the schedule the tab's figure is made ahead with
    min_items = c.number_input("L1 batch (≥ items)", 1, 50, first.l1_min_items, key="life_l1")
    min_sum = d.number_input("L2 digest (≥ summaries)", 1, 20, first.l2_min_summaries,
                             key="life_l2")
    schedule = replace(consolidate.Schedule(), l1_min_items=int(min_items),
                       l2_min_summaries=int(min_sum))
    snaps = _replay(*_key(), step, int(extend), schedule)
    if not snaps:
        st.info("No exchange has a timestamp: nothing to place on a timeline.")
        return
    st.plotly_chart(charts.budgets_over_time(snaps), width="stretch")
    st.dataframe(pd.DataFrame([s.row() for s in snaps]), width="stretch", hide_index=True)
    when = st.select_slider("Profile as of", range(len(snaps)), len(snaps) - 1, key="life_when",
                            format_func=lambda i: snaps[i].at.strftime("%Y-%m-%d"))
    st.caption("L3 profile (refreshed monthly from the last 4 weekly digests)")
    with st.container(border=True):
        st.text(snaps[when].profile or "(no profile yet)")  # built from conversation text
    with st.expander("Schedule"):
        st.json({k: str(v) if isinstance(v, timedelta) else v for k, v in vars(schedule).items()})


def validation_panel() -> None:
    versions = tuple(v["version"] for v in distiller_versions() if v["cards"])  # as prepared
    if versions:
        rows = _vocabulary(*_key(), versions)
        st.dataframe(pd.DataFrame(rows).drop(columns="definitions"), width="stretch", hide_index=True)
        st.caption("term_rate: card terms found in the exchange / card terms · fact_rate: the "
                   "exchange's 5 most salient facts preserved in the card's core text")
        st.plotly_chart(charts.vocabulary_bars(rows), width="stretch")
    st.subheader("Check any compression")
    original = st.text_area("Original", key="life_val_orig", height=150)
    compressed = st.text_area("Compressed", key="life_val_comp", height=100)
    if original and compressed:
        v = validate.validate(original, compressed)
        st.metric("Preservation", f"{v.score:.0%}", help="preserved / facts")
        st.dataframe(pd.DataFrame([c.to_dict() for c in v.checks]), width="stretch", hide_index=True)


def pack_panel() -> None:
    p = palace()
    a, b, c = st.columns(3)
    budget = a.number_input("Budget (tokens)", 100, 2_000_000, 39_000, 1000, key="life_budget")
    project = b.selectbox("Project", [None, *sorted(projects(p))], key="life_project",
                          format_func=lambda x: x or "all projects")
    fmt = c.radio("Format", pack.FORMATS, horizontal=True, key="life_fmt")
    query = st.text_input("Focus query (optional)", key="life_query")
    room = st.text_input("Room key (optional)", key="life_room")
    made = pack.build_pack(p, int(budget), focus_query=query or None, project=project,
                           room=room or None, distiller=distiller_version(), fmt=fmt)
    s = made.summary()
    x, y, z = st.columns(3)
    x.metric("Tokens", f"{made.tokens:,} / {made.budget:,}")
    y.metric("Items", f"{s['items']:,} of {s['candidates']:,}")
    z.metric("Rooms", f"{len(s['rooms']):,}")
    name = "MEMORY.md" if fmt == "markdown" else "memory.json"
    st.download_button(f"Download {md_escape(name)}", made.text, file_name=name, key="life_dl")
    st.text(clip(made.text, 8000))
