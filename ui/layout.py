"""Layout helpers: rows of metrics that wrap on a narrow window instead of squeezing to "0.…"."""

from __future__ import annotations

import streamlit as st


def metric_row(n: int, *, width: int = 170, key: str | None = None) -> list:
    """``n`` fixed-width slots in a wrapping row (``st.columns`` would shrink each to fit)."""
    row = st.container(horizontal=True, wrap=True, gap="medium", key=key)
    return [row.container(width=width) for _ in range(n)]
