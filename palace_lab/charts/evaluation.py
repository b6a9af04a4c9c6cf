"""Figures of retrieval quality, from :mod:`palace_lab.evaluate` and
:mod:`palace_lab.experiments.fusion_tuning` data: modes by metric and class, modes × query
types, the significance matrix, the tuning grid.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from palace_lab.charts.layout import TOOLBAR_PX, titled

CLASS_COLORS = {"verbatim": "#9aa5b1", "distilled": "#2f6f8f", "cross": "#c3a66b",
                "unknown": "#cccccc"}


def mode_bars(rows: Sequence[Mapping], metric: str = "mrr", *, paper: Mapping[str, float] | None = None):
    """One bar per mode (rows of :class:`~palace_lab.evaluate.report.PaperReport`), coloured by
    layer class; ``paper`` draws reference lines (e.g. ``{"paper best verbatim": 0.745}``)."""
    import plotly.graph_objects as go

    fig = go.Figure()
    for cls, color in CLASS_COLORS.items():
        mine = [r for r in rows if r.get("class") == cls]
        if mine:
            # Values inside the bars' tops: the paper's lines pass behind the bars, so no line
            # runs through a label (outside, a label at 0.72 sat on the 0.717 and 0.745 lines).
            fig.add_bar(name=cls, x=[r["mode"] for r in mine], y=[r.get(metric) or 0 for r in mine],
                        marker_color=color, texttemplate="%{y:.3f}", textposition="inside",
                        insidetextanchor="end", textangle=0, textfont_color="white")
    # The paper's lines go behind the bars and name themselves (labels hold their values) in the
    # right margin: drawn over the plot, line and label hid the bars' value labels.
    for i, (label, value) in enumerate((paper or {}).items()):
        fig.add_hline(y=value, line_dash="dot", line_color="#555", layer="below")
        fig.add_annotation(x=1, xref="paper", xanchor="left", y=value, yref="y",
                           yshift=7 if i % 2 == 0 else -7, text=label,
                           showarrow=False, font=dict(size=11, color="#555"), align="left")
    # The legend sits above the plot: below it, it covered the tilted mode labels.
    fig.update_layout(yaxis_title=metric, yaxis_range=[0, 1.1], height=420, legend_orientation="h",
                      legend=dict(yanchor="bottom", y=1.02, xanchor="left", x=0),
                      margin=dict(t=40 + TOOLBAR_PX, b=10, r=190 if paper else 10),
                      xaxis_tickangle=-30)
    return fig


def type_heatmap(by_type: Sequence[Mapping], metric: str = "mrr"):
    """Modes × query types, cell = mean ``metric`` over that type's queries (n in the label)."""
    import plotly.graph_objects as go

    types = sorted({r["type"] for r in by_type})
    modes = list(dict.fromkeys(r["mode"] for r in by_type))
    value = {(r["mode"], r["type"]): r.get(metric) for r in by_type}
    n = {r["type"]: r["n"] for r in by_type}
    z = [[value.get((m, t)) for t in types] for m in modes]
    fig = go.Figure(go.Heatmap(z=z, x=[f"{t} (n={n[t]})" for t in types], y=modes, zmin=0, zmax=1,
                               colorscale="Viridis", texttemplate="%{z:.2f}",
                               hovertemplate="%{y}<br>%{x}<br>" + metric + " %{z:.3f}<extra></extra>"))
    fig.update_layout(height=140 + 28 * len(modes), margin=dict(t=10, b=10),
                      yaxis=dict(autorange="reversed"))
    return fig


def significance_heatmap(matrix: Mapping[str, Mapping[str, float | None]], *, alpha: float = 0.05,
                         title: str = "", means: Mapping[str, float] | None = None):
    """Corrected p-values of every pair; cells below ``alpha`` marked with ``*``. With the
    modes' ``means``, each cell also says which of its two modes wins: ▲ the row's mode scores
    higher than the column's, ▼ lower (= when equal), so a small p never hides its direction."""
    import plotly.graph_objects as go

    modes = list(matrix)
    z, text = [], []
    for a in modes:
        row, labels = [], []
        for b in modes:
            p = matrix[a].get(b)
            ok = p is not None and not (isinstance(p, float) and math.isnan(p))
            row.append(p if ok else None)
            labels.append("" if not ok else f"{_winner(means, a, b)}{p:.3f}{'*' if p < alpha else ''}")
        z.append(row)
        text.append(labels)
    fig = go.Figure(go.Heatmap(z=z, x=modes, y=modes, text=text, texttemplate="%{text}", zmin=0,
                               zmax=1, colorscale="RdBu", reversescale=False, hoverongaps=False,
                               hovertemplate="%{y} vs %{x}<br>%{text}<br>corrected p %{z:.4f}"
                                             "<extra></extra>"))
    fig.update_layout(height=180 + 30 * len(modes), margin=dict(b=10),
                      yaxis=dict(autorange="reversed"), xaxis_tickangle=-30)
    return titled(fig, title, legend_on_top=False)


def _winner(means: Mapping[str, float] | None, a: str, b: str) -> str:
    """"▲ " when row mode ``a`` has the higher mean, "▼ " when lower, "= " when equal."""
    if not means or a not in means or b not in means:
        return ""
    diff = means[a] - means[b]
    return "▲ " if diff > 1e-12 else "▼ " if diff < -1e-12 else "= "


def grid_heatmap(weights: Sequence[float], ks: Sequence[float], scores: Sequence[Sequence[float]],
                 *, metric: str = "mrr", best: Mapping | None = None):
    """The weight × k grid (mean ``metric`` over all judged queries), the in-sample best boxed."""
    import plotly.graph_objects as go

    fig = go.Figure(go.Heatmap(z=scores, x=[f"{k:g}" for k in ks], y=[f"{w:g}" for w in weights],
                               colorscale="Viridis", texttemplate="%{z:.3f}",
                               hovertemplate="w %{y}, k %{x}<br>" + metric + " %{z:.4f}<extra></extra>"))
    if best:
        fig.add_scatter(x=[f"{best['k']:g}"], y=[f"{best['w']:g}"], mode="markers", showlegend=False,
                        marker=dict(symbol="square-open", size=34, color="white", line_width=3),
                        hoverinfo="skip")
    fig.update_layout(xaxis_title="RRF k", yaxis_title="weight of run A (B gets 1 − w)",
                      height=420, margin=dict(t=10, b=10), xaxis_type="category",
                      yaxis_type="category")
    return fig


def version_bars(rows: Sequence[Mapping], metric: str = "mrr"):
    """Card versions compared mode by mode on the sample."""
    import plotly.graph_objects as go

    fig = go.Figure()
    for version in dict.fromkeys(r["version"] for r in rows):
        mine = [r for r in rows if r["version"] == version]
        fig.add_bar(name=version, x=[r["mode"] for r in mine], y=[r[metric] for r in mine],
                    texttemplate="%{y:.3f}", textposition="outside")
    fig.update_layout(barmode="group", yaxis_title=metric, yaxis_range=[0, 1.1], height=340,
                      legend_orientation="h", margin=dict(t=30, b=10))
    return fig
