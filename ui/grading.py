"""The "Grade your questions" page: one's own questions, their pooled hits graded with the
keyboard (order hidden), and the paper-style table they make (:mod:`palace_lab.evaluate.pooling`).

Questions, grades and the exchange text are shown as text (never Markdown); the hit on screen
is kept in ``grade_slot`` = (question id, position in its hidden-order pool).
"""

from __future__ import annotations

import streamlit as st

from palace_lab.evaluate import pooling
from palace_lab.experiments import ab
from palace_lab.experiments import query_sets as experiments
from palace_lab.search.modes import DEFAULT_MODE
from ui.data import cards_of
from ui.exchange import clip, show_card
from ui.search import build_status, mode_runs, ready_modes
from ui.state import palace
from ui.story import few_queries, headline

# One mode per family, so the pool holds what each kind of search would show first.
POOL_MODES = ("bm25:verbatim", "hnsw:verbatim", "bm25:core+keywords", "hnsw:core", DEFAULT_MODE)
PREVIEW_CHARS = 1200


def questions_panel() -> list[dict]:
    """Add questions (typed or from a file); returns the questions of the own set."""
    p = palace()
    have = p.queries(pooling.OWN_SET)
    with st.expander(f"Your questions ({len(have)}): add more" if have else "Your questions",
                     expanded=not have, icon=":material/edit_note:"):
        text = st.text_area("Your questions, one per line: what you would really ask of this "
                            "history", key="grade_text", height=110,
                            placeholder="why did we move the index to substring matching?\n"
                                        "where is the retry backoff configured?")
        upload = st.file_uploader("…or a file: one question per line, or a queries JSONL",
                                  type=["txt", "jsonl"], key="grade_file")
        if st.button("Add questions", key="grade_add", icon=":material/add:"):
            raw = text + "\n" + (upload.getvalue().decode("utf-8", "replace") if upload else "")
            added = pooling.add_questions(p, pooling.parse_questions(raw))
            st.session_state["grade_added"] = added
            st.session_state.pop("grade_text", None)
            st.rerun()  # the sidebar's query sets include the new set at once
    if "grade_added" in st.session_state:
        st.success(f"{st.session_state.pop('grade_added')} new question(s) stored in set "
                   f"**{pooling.OWN_SET}**.")
    return p.queries(pooling.OWN_SET)


def _grade(qid: str, exchange_id: str, value: int, pool: dict) -> None:
    """Store a grade and move to the next ungraded hit (wrapping round)."""
    ab.grade(palace(), qid, exchange_id, value)
    judged = palace().qrels(query_ids=list(pool))
    st.session_state["grade_slot"] = pooling.next_ungraded(pool, judged, after=(qid, pool[qid].index(exchange_id)))


def _move(slot: tuple[str, int], step: int, pool: dict) -> None:
    slots = [(q, i) for q in pool for i in range(len(pool[q]))]
    st.session_state["grade_slot"] = slots[(slots.index(slot) + step) % len(slots)]


def pool_of(queries: list[dict]) -> tuple[dict, dict]:
    """``(pool, runs)``: the hidden-order pool of the ready pooling modes at the chosen depth."""
    depth = st.number_input("Hits per mode pooled", 1, 10, pooling.DEPTH, key="grade_depth",
                            help="each mode's top hits join the pool; every pooled mode is then "
                                 "fully judged to this depth")
    now, waiting = ready_modes(list(POOL_MODES))
    if waiting:
        st.info(f"Waiting for a vector layer, built in the background: {', '.join(waiting)}; "
                "their hits join the pool when it is ready.", icon=":material/hourglass:")
        build_status()
    runs = mode_runs(now, queries, k=int(depth))
    return pooling.pooled(runs.values(), int(depth)), runs


def grading_panel(queries: list[dict], pool: dict) -> None:
    """One pooled hit at a time: the question, the exchange as text, 0-3 by keyboard."""
    judged = palace().qrels(query_ids=list(pool))
    done = pooling.progress(pool, judged)
    st.progress(done.graded / max(done.pairs, 1),
                text=f"{done.graded} of {done.pairs} pooled hits graded · {done.questions_done} of "
                     f"{done.questions} questions complete")
    slot = st.session_state.get("grade_slot")
    if not slot or slot[0] not in pool or slot[1] >= len(pool[slot[0]]):
        slot = pooling.next_ungraded(pool, judged) or ((next(iter(pool)), 0) if pool else None)
    if slot is None:
        st.info("No pooled hit yet: add a question above.")
        return
    if done.complete:
        st.success("Every pooled hit is graded: the table below rests on all of them. Back and "
                   "Skip walk the pool to change a grade.", icon=":material/task_alt:")
    qid, position = slot
    exchange_id = pool[qid][position]
    text = {q["query_id"]: q["query"] for q in queries}.get(qid, qid)
    current = judged.get(qid, {}).get(exchange_id)
    with st.container(border=True, key="grade_hit"):
        st.caption(f"Question {list(pool).index(qid) + 1} of {len(pool)} · hit {position + 1} of "
                   f"{len(pool[qid])} (order hidden: no mode, no rank)"
                   + (f" · graded **{current}**" if current is not None else ""))
        st.text(text)
        _keys(qid, exchange_id, slot, pool)
        card = cards_of([exchange_id]).get(exchange_id)
        if card is not None:
            show_card(card)
        exchange = palace().exchange(exchange_id)
        st.text(clip(exchange.verbatim if exchange else exchange_id, PREVIEW_CHARS))


def _keys(qid: str, exchange_id: str, slot: tuple, pool: dict) -> None:
    row = st.container(horizontal=True, wrap=True, key="grade_keys")
    for grade, meaning in ab.GRADE_MEANINGS.items():
        row.button(f"{grade} {meaning}", key=f"grade_{grade}", shortcut=str(grade),
                   on_click=_grade, args=(qid, exchange_id, grade, pool))
    row.button("Back", key="grade_back", shortcut="Left", icon=":material/arrow_back:",
               on_click=_move, args=(slot, -1, pool))
    row.button("Skip", key="grade_skip", shortcut="Right", icon=":material/arrow_forward:",
               on_click=_move, args=(slot, 1, pool))


def results_panel(queries: list[dict], runs: dict) -> None:
    """The paper-style table of the pooled modes on the graded questions, with intervals."""
    graded, qrels = experiments.judged_set(palace(), pooling.OWN_SET)
    st.subheader("Your own table")
    if len(graded) < 2 or not runs:
        st.info(f"{len(graded)} question(s) graded so far: grade at least two (better twenty) to "
                "see the table with its intervals.")
        return
    chosen = {m: {q: r for q, r in run.items() if q in qrels} for m, run in runs.items()}
    report = experiments.report(chosen, qrels, graded)
    summary = {**report.summary, "intervals": experiments.headline_intervals(chosen, qrels, report.summary)}
    headline(summary)
    few_queries({"queries": len(graded)})
    table = report.to_dataframe()
    intervals = experiments.mode_intervals(chosen, qrels)
    table.insert(2, "mrr 95% interval", table["mode"].map(intervals))
    st.dataframe(table, width="stretch", hide_index=True)
    few = len(graded) < experiments.FEW_QUERIES
    st.caption(f"On **{len(graded)} graded questions** of set **{pooling.OWN_SET}** (of "
               f"{len(queries)}); intervals: 95% bootstrap over the questions. Each pooled mode is "
               "fully judged to the pool depth; a hit below it counts as not relevant."
               + (f" Fewer than {experiments.FEW_QUERIES} questions: the intervals are wide, "
                  "and a difference inside them is not a finding." if few else ""))
    st.download_button("Table as Markdown", report.to_markdown(), "my_table.md", key="grade_md")

