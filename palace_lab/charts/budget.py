"""Figures of token budgets (verbatim vs distilled), from :mod:`palace_lab.budget` data."""

from __future__ import annotations

from palace_lab.budget import BudgetSummary, ExchangeBudget
from palace_lab.paper import BUDGET as PAPER

COLORS = {"verbatim": "#9aa5b1", "dialogue": "#c3a66b", "core": "#2f6f8f", "searched": "#2f6f8f",
          "card": "#6fa88f"}
LABELS = {"core": "distilled (core)", "searched": "distilled (core + keywords)",
          "dialogue": "exchange words (dialogue)"}


def per_1000_bars(summary: BudgetSummary, *, said: str = "verbatim"):
    """Tokens to carry 1,000 exchanges: the paper's figures next to this palace's own.

    ``said``: this palace's layer set beside the paper's verbatim figure; ``dialogue`` (the
    person's and the agent's words) is like for like with the paper's 371 tokens, which count
    no tool output (:attr:`BudgetSummary.headline`).
    """
    import plotly.graph_objects as go

    ours = summary.per_1000
    distilled = summary.distilled_layer
    fig = go.Figure()
    for layer, paper, label in ((said, "verbatim", LABELS.get(said, said)),
                                (distilled, "core", LABELS[distilled])):
        fig.add_bar(name=label, x=["paper (14,340 exchanges)", f"this palace ({summary.exchanges:,})"],
                    y=[PAPER["per_1000"][paper], ours.get(layer) or 0],
                    marker_color=COLORS[layer], texttemplate="%{y:,.0f}", textposition="outside")
    fig.update_layout(barmode="group", yaxis_title=f"tokens per 1,000 exchanges ({summary.encoding})",
                      legend_orientation="h", margin=dict(t=50, b=10), height=360,
                      title="Tokens to carry 1,000 exchanges, by layer")
    return fig


def token_histogram(rows: list[ExchangeBudget], *, bins: int = 40, distilled: str = "core"):
    """Distribution of tokens per exchange, verbatim vs a distilled layer (``core`` or
    ``searched``), on a log axis.

    The two layers differ by an order of magnitude, so the bins are spaced logarithmically and
    drawn as filled steps (plotly's own histogram bins linearly and vanishes on a log axis).
    """
    import numpy as np
    import plotly.graph_objects as go

    values = {layer: np.array([getattr(r, layer) for r in rows if getattr(r, layer)], dtype=float)
              for layer in ("verbatim", distilled)}
    everything = np.concatenate([v for v in values.values() if v.size]) if rows else np.array([])
    fig = go.Figure()
    if everything.size:
        # Edges widened a little: float rounding must not drop the smallest or largest value.
        low, high = max(everything.min(), 1) * 0.99, everything.max() * 1.01 + 1
        edges = np.logspace(np.log10(low), np.log10(high), bins + 1)
        centers = np.sqrt(edges[:-1] * edges[1:])
        for layer, v in values.items():
            counts, _ = np.histogram(v, bins=edges)
            fig.add_scatter(x=centers, y=counts, name=layer, mode="lines", line_shape="hvh",
                            fill="tozeroy", line_color=COLORS[layer], opacity=0.75)
    # One tick per power of ten, "10, 100, 1k" (plotly's default log ticks read "2 5 100 2 5").
    fig.update_xaxes(type="log", title="tokens per exchange (log scale)", dtick=1, tickformat="~s")
    fig.update_layout(title="Exchanges by size, per layer", yaxis_title="exchanges", legend_orientation="h", legend_y=-0.25,
                      margin=dict(t=30, b=10), height=360)
    return fig


def tokens_by_project(rows: list[ExchangeBudget]):
    import plotly.graph_objects as go

    totals: dict[str, dict[str, int]] = {}
    for r in rows:
        t = totals.setdefault(r.project or "(none)", {"verbatim": 0, "core": 0})
        t["verbatim"] += r.verbatim
        t["core"] += r.core or 0
    projects = sorted(totals, key=lambda p: -totals[p]["verbatim"])
    fig = go.Figure()
    for layer in ("verbatim", "core"):
        fig.add_bar(name=layer, y=projects, x=[totals[p][layer] for p in projects],
                    orientation="h", marker_color=COLORS[layer])
    fig.update_layout(title="Tokens by project, per layer", barmode="group", xaxis_title="tokens", margin=dict(t=50, b=10),
                      height=120 + 40 * len(projects), legend_orientation="h")
    return fig


def tokens_over_time(rows: list[ExchangeBudget], *, freq: str = "W"):
    """Cumulative tokens per layer over the palace's own timeline."""
    import pandas as pd
    import plotly.graph_objects as go

    df = pd.DataFrame([{"t": r.timestamp, "verbatim": r.verbatim, "core": r.core or 0}
                       for r in rows if r.timestamp])
    fig = go.Figure()
    if df.empty:
        return fig
    df["t"] = pd.to_datetime(df["t"], utc=True, errors="coerce")
    weekly = df.dropna().set_index("t").resample(freq).sum().cumsum()
    for layer in ("verbatim", "core"):
        fig.add_scatter(x=weekly.index, y=weekly[layer], name=layer, mode="lines",
                        line_color=COLORS[layer])
    fig.update_layout(title="Cumulative tokens over time, per layer", yaxis_title="cumulative tokens", margin=dict(t=50, b=10), height=320,
                      legend_orientation="h")
    return fig
