"""Figures of token budgets (verbatim vs distilled), from :mod:`palace_lab.budget` data."""

from __future__ import annotations

from palace_lab.budget import BudgetSummary, ExchangeBudget
from palace_lab.charts.layout import titled
from palace_lab.paper import BUDGET as PAPER

COLORS = {"verbatim": "#9aa5b1", "dialogue": "#c3a66b", "core": "#2f6f8f", "searched": "#2f6f8f",
          "card": "#6fa88f"}
LABELS = {"core": "distilled (core)", "searched": "distilled (core + keywords)",
          "verbatim": "verbatim", "dialogue": "dialogue"}


def per_1000_bars(summary: BudgetSummary):
    """Tokens to carry 1,000 exchanges, like for like with the paper.

    The paper's 371-token "verbatim" exchange is what was said, without tool output: it sits
    beside this palace's ``dialogue``, and the paper's 38-token core beside this palace's
    distilled layer (:attr:`~palace_lab.budget.BudgetSummary.distilled_layer`). This palace's
    whole verbatim text (tool calls and output included, which the paper did not count) is a
    third bar with no paper counterpart. The axis is logarithmic: the layers differ by up to
    three orders of magnitude, and on a linear axis the distilled bars vanish.
    """
    import plotly.graph_objects as go

    ours, distilled = summary.per_1000, summary.distilled_layer
    paper, palace = "paper (14,340)", f"this palace ({summary.exchanges:,})"
    fig = go.Figure()
    # Each bar names itself under the axis (source, then layer): a legend of three long names
    # wrapped into the title on a narrow chart, or into the x labels below it.
    for layer, theirs, short, label in (
            ("dialogue", PAPER["per_1000"]["verbatim"], "said", "said: dialogue (the paper's verbatim)"),
            (distilled, PAPER["per_1000"]["core"], "distilled", LABELS[distilled]),
            ("verbatim", None, "with tools", "with tool calls and output (not in the paper)")):
        sources = [paper, palace] if theirs is not None else [palace]
        values = [theirs, ours.get(layer) or None] if theirs is not None else [ours.get(layer) or None]
        fig.add_bar(name=label, x=[sources, [short] * len(sources)], y=values, showlegend=False,
                    marker_color=COLORS[layer], texttemplate="%{y:,.3s}", textposition="outside",
                    hovertemplate=label + ": %{y:,.0f} tokens<extra></extra>")
    fig.update_yaxes(type="log", title="tokens / 1,000 exchanges (log)", dtick=1, tickformat="~s")
    fig.update_xaxes(tickangle=0)  # "said", "distilled", "with tools": short enough to stay level
    fig.update_layout(barmode="overlay", height=400, margin=dict(b=56))  # room for both rows
    return titled(fig, "Tokens to carry 1,000 exchanges, by layer", legend_on_top=False)


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
            fig.add_scatter(x=centers, y=counts, name=LABELS[layer], mode="lines", line_shape="hvh",
                            fill="tozeroy", line_color=COLORS[layer], opacity=0.75)
    # One tick per power of ten, "10, 100, 1k" (plotly's default log ticks read "2 5 100 2 5").
    fig.update_xaxes(type="log", title="tokens per exchange (log scale)", dtick=1, tickformat="~s")
    fig.update_layout(yaxis_title="exchanges", margin=dict(b=10), height=360)
    return titled(fig, "Exchanges by size, per layer")


def tokens_by_project(rows: list[ExchangeBudget], *, distilled: str = "core"):
    """Tokens per project and layer, on a log axis (the distilled bars are hundreds of times
    shorter than the verbatim ones: on a linear axis they do not show)."""
    import plotly.graph_objects as go

    totals: dict[str, dict[str, int]] = {}
    for r in rows:
        t = totals.setdefault(r.project or "(none)", {"verbatim": 0, distilled: 0})
        t["verbatim"] += r.verbatim
        t[distilled] += getattr(r, distilled) or 0
    projects = sorted(totals, key=lambda p: -totals[p]["verbatim"])
    fig = go.Figure()
    for layer in ("verbatim", distilled):
        fig.add_bar(name=LABELS.get(layer, layer), y=projects,
                    x=[totals[p][layer] or None for p in projects], orientation="h",
                    marker_color=COLORS[layer])
    fig.update_xaxes(type="log", title="tokens (log scale)", dtick=1, tickformat="~s")
    fig.update_layout(barmode="group", margin=dict(b=10), height=150 + 40 * len(projects),
                      yaxis=dict(autorange="reversed"))
    return titled(fig, "Tokens by project, per layer")


def tokens_over_time(rows: list[ExchangeBudget], *, freq: str = "W", distilled: str = "core"):
    """Cumulative tokens per layer over the palace's own timeline, on a log axis."""
    import pandas as pd
    import plotly.graph_objects as go

    df = pd.DataFrame([{"t": r.timestamp, "verbatim": r.verbatim,
                        distilled: getattr(r, distilled) or 0} for r in rows if r.timestamp])
    fig = go.Figure()
    if df.empty:
        return titled(fig, "Cumulative tokens over time, per layer")
    df["t"] = pd.to_datetime(df["t"], utc=True, errors="coerce")
    weekly = df.dropna().set_index("t").resample(freq).sum().cumsum()
    for layer in ("verbatim", distilled):
        fig.add_scatter(x=weekly.index, y=weekly[layer].where(weekly[layer] > 0),
                        name=LABELS.get(layer, layer), mode="lines", line_color=COLORS[layer])
    fig.update_yaxes(type="log", title="cumulative tokens (log scale)", dtick=1, tickformat="~s")
    fig.update_layout(margin=dict(b=10), height=340)
    return titled(fig, "Cumulative tokens over time, per layer")
