"""The Search lab's pieces: mode pickers, the two result columns with grade buttons, live
metrics and the query history. Session logic lives in :mod:`palace_lab.experiments.ab`."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

import streamlit as st

from palace_lab.experiments import ab
from palace_lab.store.contents import absent_terms, projects, titles
from palace_lab.errors import SearchError
from palace_lab.search.modes import list_modes, parse_mode
from ui.data import cards_of, content_key
from ui.exchange import md_escape, show_asked, show_card, show_messages
from ui.layout import metric_row
from ui.rooms import stats as room_stats
from ui.search import prepare_search
from ui.state import engine, palace

if TYPE_CHECKING:
    from palace_lab.store import Palace

CUSTOM = "type a mode string…"
METRIC_LABELS = {"mrr": "MRR", "p@1": "P@1", "ndcg@10": "nDCG@10", "mean_grade@10": "mean grade@10",
                 "judged@10": "judged@10"}
METRIC_HELP = {"mrr": "1 / rank of the first relevant result (grade ≥ 2); 0 when none is graded so",
               "p@1": "1 when the first result is relevant (grade ≥ 2), else 0",
               "ndcg@10": "graded gain of the top 10, discounted by rank, over the best order possible",
               "mean_grade@10": "the average grade of the top 10 (unjudged count as 0)",
               "judged@10": "the share of the top 10 you have graded"}


def mode_picker(side: str, default: str) -> str | None:
    """A preset/pure mode or any typed mode string; a bad string is one clear error, None."""
    names = [m["name"] for m in list_modes()]
    if default not in names:  # a tuned mode string applied as this palace's default
        names.insert(0, default)
    choice = st.selectbox(f"Mode {side.upper()}", [*names, CUSTOM], index=names.index(default),
                          key=f"lab_mode_{side}")
    if choice != CUSTOM:
        return choice
    text = st.text_input(f"Mode string {side.upper()}", key=f"lab_custom_{side}",
                         placeholder="e.g. rrf(bm25:verbatim,hnsw:core;k=20)")
    if not text.strip():
        return None
    try:
        return str(parse_mode(text))
    except SearchError as exc:
        st.error(f"Mode {side.upper()}: {exc}", icon=":material/error:")
        return None


ALL = "all"
ROOM_OPTIONS = 500  # rooms listed in the filter (a palace of 50,000 exchanges has 23,000)


def filters() -> dict:
    """The CLI's --project, --since, --until and --room as widgets; what is set, as filters."""
    largest = room_stats()[:ROOM_OPTIONS]  # read back from disk, not from every card
    names = dict(sorted((s.room_key, f"{s.room_type} · {s.room_label}") for s in largest))
    cols = st.columns(4)
    chosen = {
        "project": cols[0].selectbox("Project", [ALL, *sorted(projects(palace()))], key="lab_f_project"),
        "date_from": cols[1].text_input("Since", key="lab_f_since", placeholder="YYYY-MM-DD",
                                        help="on or after this date (ISO), as --since"),
        "date_to": cols[2].text_input("Until", key="lab_f_until", placeholder="YYYY-MM-DD",
                                      help="on or before this date (ISO), as --until"),
        "room": cols[3].selectbox("Room", [ALL, *names], key="lab_f_room",
                                  format_func=lambda k: names.get(k, k),
                                  accept_new_options=True,
                                  help=f"needs distilled cards: a card files its exchange in 1-3 "
                                       f"rooms. The {ROOM_OPTIONS} largest are listed; type any "
                                       f"other room's key"),
    }
    return {k: v.strip() for k, v in chosen.items() if v and v.strip() and v != ALL}


@st.cache_data(max_entries=256, show_spinner=False)
def _absent(path: str, content: str, query: str) -> tuple[list[str], list[str]]:
    return absent_terms(palace(), query)


def term_warning(query: str) -> None:
    """Say when the palace holds none (or only some) of the query's words."""
    from ui.state import db_path

    terms, absent = _absent(str(db_path()), content_key(), query)
    if terms and len(absent) == len(terms):
        st.warning("None of this query's words occurs anywhere in this palace ("
                   + ", ".join(f"**{md_escape(t)}**" for t in absent) + "): the hits below are only "
                   "the nearest by meaning and are probably unrelated.", icon=":material/help:")
    elif absent:
        st.caption("Not found anywhere in this palace: "
                   + ", ".join(f"**{md_escape(t)}**" for t in absent))


def search(query: str, mode_a: str, mode_b: str, k: int, chosen: dict | None = None) -> ab.ABResult:
    prepare_search([mode_a, mode_b])
    result = ab.run_ab(partial(engine().search, filters=chosen or None), query, mode_a, mode_b, k)
    ab.remember_query(palace(), result.query)
    return result


def _pick(text: str) -> None:
    st.session_state["lab_query"] = text


def history() -> None:
    rows = ab.history(palace(), limit=12)
    if not rows:
        return
    st.caption("Previous lab queries (click to run again; the number is how many results you graded)")
    with st.container(horizontal=True):
        for i, row in enumerate(rows):
            st.button(f"{md_escape(row['query'][:48])} · {row['graded']}", key=f"lab_hist_{i}",
                      on_click=_pick, args=(row["query"],), type="tertiary")


def metrics(result: ab.ABResult, judged: dict[str, int]) -> None:
    """Both modes' live metrics, one row each (B shows its difference to A)."""
    a = ab.live_metrics(judged, result.hits_a)
    b = ab.live_metrics(judged, result.hits_b)
    graded = sum(1 for e in result.pooled if e in judged)
    for side, mode, values in (("a", result.mode_a, a), ("b", result.mode_b, b)):
        with st.container(key=f"lab_metrics_{side}"):
            st.markdown(f"**{side.upper()}** · {md_escape(mode)}")
            cols = metric_row(len(METRIC_LABELS), width=130)
            for col, (name, label) in zip(cols, METRIC_LABELS.items()):
                delta = f"{values[name] - a[name]:+.3f}" if side == "b" and graded else None
                col.metric(label, f"{values[name]:.3f}", delta=delta, help=METRIC_HELP[name],
                           delta_color="off" if name == "judged@10" else "normal")
    pooled = result.pooled
    if not graded:
        st.info("Nothing graded yet, so every metric is 0: grade the results below, "
                + ", ".join(f"**{g}** {m}" for g, m in ab.GRADE_MEANINGS.items())
                + "; the metrics move as you grade.", icon=":material/grading:")
    st.caption(f"Pooled: {len(pooled)} distinct results ({result.overlap} found by both) · "
               f"{graded} graded · query id `{result.query_id}` in the **lab** set. Grades are "
               "stored as judge *human*; one grade counts for both sides. Grades ≥ 2 count as "
               "relevant for MRR and P@1; unjudged results count as 0.")


def _grade(side: str, query_id: str, exchange_id: str) -> None:
    """Store the grade just chosen (None: deselected) and show it on the other side too."""
    value = st.session_state.get(f"lab_g_{side}_{exchange_id}")
    ab.grade(palace(), query_id, exchange_id, value)
    other = f"lab_g_{'b' if side == 'a' else 'a'}_{exchange_id}"
    if other in st.session_state:
        st.session_state[other] = value


def grade_control(side: str, query_id: str, exchange_id: str, current: int | None) -> None:
    """0-3 as one segmented control, its state kept equal to the palace's judgment."""
    key = f"lab_g_{side}_{exchange_id}"
    if st.session_state.get(key, -1) != current:
        st.session_state[key] = current
    st.segmented_control("Grade", list(ab.GRADE_MEANINGS), key=key, on_change=_grade,
                         args=(side, query_id, exchange_id), label_visibility="collapsed",
                         help=" · ".join(f"{g} {m}" for g, m in ab.GRADE_MEANINGS.items())
                         + " (click the chosen grade again to clear it)")


def _read(exchange_id: str) -> None:
    st.session_state["lab_read"] = exchange_id


def origin(p: Palace, hits) -> dict[str, str]:
    """``{exchange_id: "project · date · conversation title"}`` for the hits' captions."""
    found = {h.exchange_id: p.exchange(h.exchange_id) for h in hits}
    named = titles(p, [e.conversation_id for e in found.values() if e is not None])
    out = {}
    for eid, e in found.items():
        if e is not None:
            title = named.get(e.conversation_id) or e.conversation_id
            out[eid] = " · ".join([e.project or "no project", (e.timestamp or "no date")[:10],
                                   title[:70]])
    return out


def column_heads(result: ab.ABResult) -> None:
    """Both modes' heads in one row, so the two lists start level whatever the names' length
    (a tuned mode string wraps; a head per column would push one list down)."""
    for col, side, mode in zip(st.columns(2), "ab", (result.mode_a, result.mode_b)):
        with col:
            st.markdown(f"**{side.upper()}** · `{mode}`")  # code span: nothing in it is markup
            note = engine().readiness(mode).note()  # which layer is missing, what was searched instead
            if note:
                st.caption(f":material/construction: {md_escape(note)}")


def result_rows(result: ab.ABResult, judged: dict[str, int]) -> None:
    """The two lists rank by rank: hit *i* of A beside hit *i* of B, each row level."""
    p, hits = palace(), (result.hits_a, result.hits_b)
    cards_, where = cards_of(h.exchange_id for h in (*hits[0], *hits[1])), origin(p, [*hits[0], *hits[1]])
    for col, mine in zip(st.columns(2), hits):
        if not mine:
            col.info("No results for this mode (and these filters).")
    for rank in range(max(len(hits[0]), len(hits[1]))):
        for col, side, mine, theirs in zip(st.columns(2), "ab", hits, hits[::-1]):
            if rank < len(mine):
                with col:
                    hit_card(side, mine[rank], result.query_id, judged, cards_, where,
                             {h.exchange_id for h in theirs})


def hit_card(side: str, hit, query_id: str, judged: dict[str, int], cards_: dict,
             where: dict[str, str], other: set[str]) -> None:
    current = judged.get(hit.exchange_id)
    with st.container(border=True):
        st.caption(f"#{hit.rank} · **{md_escape(where.get(hit.exchange_id, ''))}**")
        st.caption(f"`{hit.exchange_id}` · score {hit.score:.4f}"
                   + (" · also in the other list" if hit.exchange_id in other else "")
                   + (f" · graded **{current}**" if current is not None else ""))
        if hit.exchange_id in cards_:
            show_card(cards_[hit.exchange_id])
        show_asked(palace().exchange(hit.exchange_id))
        # A wrapping row: on a narrow column "Read" moves under the grades instead of the
        # grades shrinking into a scroller that hides grade 3.
        with st.container(horizontal=True, wrap=True, vertical_alignment="center"):
            grade_control(side, query_id, hit.exchange_id, current)
            st.button("Read", key=f"lab_read_{side}_{hit.exchange_id}", on_click=_read,
                      args=(hit.exchange_id,), icon=":material/menu_book:",
                      help="open the verbatim exchange here, in a reader over the page")


def _close_reader() -> None:
    st.session_state["lab_read"] = None


def reader() -> None:
    """The verbatim exchange chosen with a hit's **Read**, in a large dialog over the page, so
    it opens where the click happened (a reader below both lists was 1,500 px out of view)."""
    chosen = st.session_state.get("lab_read")
    exchange = palace().exchange(chosen) if chosen else None
    if exchange is None:
        return
    title = origin(palace(), [exchange]).get(exchange.exchange_id, "") or exchange.exchange_id
    st.dialog(md_escape(title), width="large", on_dismiss=_close_reader)(_reader_body)(exchange)


def _reader_body(exchange) -> None:
    with st.container(key="lab_reader"):
        if st.button("Close", key="lab_read_close", icon=":material/close:"):
            _close_reader()
            st.rerun()  # the whole page: a dialog closes only when its script no longer opens it
        card = cards_of([exchange.exchange_id]).get(exchange.exchange_id)
        if card is not None:
            show_card(card)
        show_asked(exchange)
        show_messages(palace(), exchange, key="lab_rd")
