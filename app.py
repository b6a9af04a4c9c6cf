"""palace_lab, the Streamlit lab. The entry point only routes; each page is a short script."""

import streamlit as st

st.set_page_config(page_title="palace_lab", page_icon=":material/memory:", layout="wide",
                   initial_sidebar_state="auto")

PAGES = {
    "Story": [
        st.Page("pages/overview.py", title="Overview", icon=":material/insights:", default=True),
    ],
    "Palace": [
        st.Page("pages/load.py", title="Load & distill", icon=":material/upload_file:"),
        st.Page("pages/budgets.py", title="Budgets", icon=":material/token:"),
        st.Page("pages/rooms.py", title="Rooms", icon=":material/meeting_room:"),
    ],
    "Retrieval": [
        st.Page("pages/search_lab.py", title="Search lab (A/B)", icon=":material/compare:"),
        st.Page("pages/grading.py", title="Grade your questions", icon=":material/fact_check:"),
        st.Page("pages/evaluation.py", title="Evaluation", icon=":material/leaderboard:"),
        st.Page("pages/tuning.py", title="Tuning", icon=":material/tune:"),
    ],
    "Lifecycle": [
        st.Page("pages/lifecycle.py", title="Memory lifecycle", icon=":material/history:"),
    ],
}

from ui.state import sidebar, warm_imports  # noqa: E402 - after set_page_config

navigation = st.navigation(PAGES)
sidebar()
try:
    navigation.run()
finally:
    warm_imports()  # after the page, so the first render does not share the CPU with it
