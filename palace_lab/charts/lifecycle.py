"""Figures of the memory lifecycle: tool-call compression, session compression against the
source chapter, consolidation budgets over time, surviving vocabulary per distiller version."""

from __future__ import annotations

from collections.abc import Sequence

LEVEL_COLORS = {0: "#9aa5b1", 1: "#c3a66b", 2: "#2f6f8f", 3: "#6fa88f"}
LEVEL_LABELS = {0: "L0 raw memories", 1: "L1 session summaries", 2: "L2 weekly digests",
                3: "L3 profile"}


MAX_POINTS = 2_000  # a scatter above this shows an even sample along the x axis


def toolcall_scatter(rows: Sequence, *, min_tokens: int = 2000):
    """Tokens of tool traffic before vs after compression, one point per exchange (log-log),
    with the 10x and the source's 20x lines; above :data:`MAX_POINTS` exchanges, an even sample
    of them ordered by tokens before (the smallest and the largest kept), named in the legend."""
    import plotly.graph_objects as go

    every = sorted((r for r in rows if r.tokens_before and r.tokens_after),
                   key=lambda r: r.tokens_before)
    points = every if len(every) <= MAX_POINTS else \
        [every[round(i * (len(every) - 1) / (MAX_POINTS - 1))] for i in range(MAX_POINTS)]
    name = "exchanges" if points is every else f"exchanges ({len(points):,} of {len(every):,})"
    fig = go.Figure()
    fig.add_scatter(x=[r.tokens_before for r in points], y=[r.tokens_after for r in points],
                    mode="markers", text=[r.exchange_id for r in points], name=name,
                    marker=dict(color=["#2f6f8f" if r.tokens_before >= min_tokens else "#9aa5b1"
                                       for r in points], size=7))
    top = max((r.tokens_before for r in points), default=10)
    for ratio, dash in ((10, "dot"), (20, "dash")):
        fig.add_scatter(x=[10, top], y=[10 / ratio, top / ratio], mode="lines", name=f"{ratio}x",
                        line=dict(dash=dash, color="#c3a66b"))
    fig.add_scatter(x=[15000], y=[750], mode="markers", name="source example (15,000 → 750)",
                    marker=dict(symbol="star", size=12, color="#b5523b"))
    fig.update_xaxes(type="log", title="tool traffic tokens (before)", dtick=1, tickformat="~s")
    fig.update_yaxes(type="log", title="compressed block tokens (after)", dtick=1, tickformat="~s")
    fig.update_layout(height=400, margin=dict(t=30, b=10),
                      legend=dict(orientation="h", yanchor="bottom", y=1.02))
    return fig


def session_bars(rows: Sequence[dict]):
    """Ratio and preservation per method: this palace next to the source chapter.

    ``rows``: ``{"method", "ratio", "preservation", "source_ratio", "source_preservation"}``
    with preservation as a fraction (the source's ranges given by their midpoint).
    """
    from plotly.subplots import make_subplots

    fig = make_subplots(rows=1, cols=2, subplot_titles=("compression ratio (x)", "preservation (0-1)"))
    methods = [r["method"] for r in rows]
    for col, key in ((1, "ratio"), (2, "preservation")):
        fig.add_bar(x=methods, y=[r[key] for r in rows], name="this palace", marker_color="#2f6f8f",
                    showlegend=col == 1, row=1, col=col)
        fig.add_bar(x=methods, y=[r[f"source_{key}"] for r in rows], name="source chapter",
                    marker_color="#c3a66b", showlegend=col == 1, row=1, col=col)
    fig.update_layout(barmode="group", height=340, margin=dict(t=40, b=10), legend_orientation="h")
    return fig


def budgets_over_time(snapshots: Sequence):
    """Active tokens per consolidation level over the palace's timeline (stacked areas)."""
    import plotly.graph_objects as go

    fig = go.Figure()
    x = [s.at for s in snapshots]
    for level, label in LEVEL_LABELS.items():
        fig.add_scatter(x=x, y=[s.tokens.get(level, 0) for s in snapshots], name=label,
                        mode="lines", stackgroup="levels", line_color=LEVEL_COLORS[level])
    fig.update_layout(yaxis_title="active tokens", height=360, margin=dict(t=30, b=10),
                      legend_orientation="h")
    return fig


def vocabulary_bars(rows: Sequence[dict]):
    """Surviving-vocabulary rates per distiller version."""
    import plotly.graph_objects as go

    fig = go.Figure()
    versions = [r["distiller"] for r in rows]
    for key, label, color in (("term_rate", "card terms found in the exchange", "#2f6f8f"),
                              ("fact_rate", "salient facts kept", "#6fa88f")):
        fig.add_bar(x=versions, y=[r[key] or 0 for r in rows], name=label, marker_color=color)
    fig.update_layout(barmode="group", yaxis_range=[0, 1], height=320, margin=dict(t=30, b=10),
                      legend_orientation="h")
    return fig
