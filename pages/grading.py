"""Grade your questions: write or import a handful of one's own questions, grade the pooled top
hits of several modes (deduplicated, order hidden) with the keyboard, and get the paper-style
table for one's own history with the number of graded questions and intervals."""

import streamlit as st

from ui.grading import grading_panel, pool_of, questions_panel, results_panel
from ui.state import distiller_version, guard, palace

st.title("Grade your questions")
if not palace().count("exchanges"):
    st.info("This palace is empty. Load a history on **Load & distill** first.", icon=":material/info:")
    st.stop()
st.caption("The honest figure for your own history: questions you would really ask, the top "
           "hits of several search modes pooled (each exchange once, in an order that shows no "
           "mode and no rank), graded by you. Keys **0-3** grade the hit on screen, **←/→** move.")
if not distiller_version():
    st.info("Distil the palace on **Load & distill** first: the pool includes card searches.",
            icon=":material/info:")
    st.stop()

with guard():
    queries = questions_panel()
    if queries:
        pool, runs = pool_of(queries)
        grading_panel(queries, pool)
        results_panel(queries, runs)
