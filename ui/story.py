"""The retrieval half of the Overview story (filled once evaluation results exist)."""

from __future__ import annotations

import streamlit as st


def retrieval_kept(palace, version) -> None:
    st.subheader("Retrieval kept")
    st.caption("Run an evaluation on the **Evaluation** page to see how much retrieval quality "
               "the distilled layer keeps on your own graded queries.")
