"""Figures of the room map, from :mod:`palace_lab.rooms` data: treemap/sunburst, the 2-D
projection of distilled embeddings, and the room co-occurrence heatmap.

Room labels and card text come from conversations (and, with the Anthropic distiller, from a
model), so they are untrusted: plotly renders a few HTML tags inside labels (``<a href>``,
``<br>``...), hence :func:`plain` turns angle brackets into look-alike characters first.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from palace_lab.charts.layout import titled
from palace_lab.errors import InputError
from palace_lab.rooms import RoomStat

TYPE_COLORS = {"file": "#2f6f8f", "concept": "#c3a66b", "workflow": "#6fa88f"}
SIZES = {"exchanges": "exchanges filed in the room",
         "tokens": "verbatim tokens of those exchanges"}


def plain(text: str, limit: int = 90) -> str:
    """``text`` safe to show as a plotly label: no markup, one line, at most ``limit`` chars."""
    flat = " ".join(str(text).split()).replace("<", "‹").replace(">", "›")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _hierarchy(stats: Sequence[RoomStat], size: str):
    if size not in SIZES:
        raise InputError(f"unknown size {size!r}; valid sizes: {', '.join(SIZES)}")
    ids, labels, parents, values, colors = [], [], [], [], []
    for rtype in sorted({s.room_type for s in stats}):
        members = [s for s in stats if s.room_type == rtype]
        ids.append(rtype)
        labels.append(rtype)
        parents.append("")
        values.append(sum(getattr(s, size) for s in members))
        colors.append(TYPE_COLORS.get(rtype, "#9aa5b1"))
        seen = Counter(s.room_label for s in members)
        for s in members:
            ids.append(f"{rtype}/{s.room_key}")
            # Two rooms with one label (README.md of two projects) would read as a double.
            labels.append(plain(s.room_label if seen[s.room_label] == 1 else s.room_key, 40))
            parents.append(rtype)
            values.append(getattr(s, size))
            colors.append(TYPE_COLORS.get(rtype, "#9aa5b1"))
    return ids, labels, parents, values, colors


def room_map(stats: Sequence[RoomStat], *, size: str = "exchanges", kind: str = "treemap",
             max_rooms: int = 60):
    """Room type → room, sized by ``size`` (``exchanges`` or ``tokens``). An exchange filed in
    two rooms counts in both, so the total exceeds the palace's exchange count."""
    import plotly.graph_objects as go

    if size not in SIZES:
        raise InputError(f"unknown size {size!r}; valid sizes: {', '.join(SIZES)}")
    shown = sorted(stats, key=lambda s: -getattr(s, size))[:max_rooms]
    ids, labels, parents, values, colors = _hierarchy(shown, size)
    trace = go.Treemap if kind == "treemap" else go.Sunburst
    fig = go.Figure(trace(ids=ids, labels=labels, parents=parents, values=values,
                          branchvalues="total", marker=dict(colors=colors),
                          textinfo="label+value", textfont=dict(size=14),
                          hovertemplate="%{label}<br>%{value:,} " + SIZES[size] + "<extra></extra>"))
    # A label too small to read is hidden (hover still names the room), not drawn at 4 px.
    fig.update_layout(margin=dict(t=10, l=5, r=5, b=5), height=520,
                      uniformtext=dict(minsize=11, mode="hide"))
    return fig


def projection_scatter(rows: Sequence[dict], *, title: str = ""):
    """Each exchange as a point at its 2-D projection, coloured by its room group."""
    import plotly.graph_objects as go

    fig = go.Figure()
    groups: dict[str, list[dict]] = {}
    for row in rows:
        groups.setdefault(row["room"], []).append(row)
    order = sorted(groups, key=lambda g: (g.startswith("("), -len(groups[g]), g))
    for group in order:
        pts = groups[group]
        fig.add_scattergl(x=[p["x"] for p in pts], y=[p["y"] for p in pts], mode="markers",
                          name=plain(group, 40), marker=dict(size=7, opacity=0.8),
                          text=[plain(p["core"]) for p in pts],
                          customdata=[p["exchange_id"] for p in pts],
                          hovertemplate="%{customdata}<br>%{text}<extra>" + plain(group, 30)
                          + "</extra>")
    fig.update_layout(height=520, margin=dict(b=10), xaxis=dict(showticklabels=False, title=""),
                      yaxis=dict(showticklabels=False, title=""), legend=dict(itemsizing="constant"))
    return titled(fig, title, legend_on_top=False)


def co_occurrence_heatmap(stats: Sequence[RoomStat], matrix: np.ndarray, *,
                          hide_diagonal: bool = True):
    """Exchanges shared by two rooms; the diagonal (a room with itself) hidden by default."""
    import plotly.graph_objects as go

    names = [plain(f"{s.room_type}: {s.room_label}", 36) for s in stats]
    z = np.asarray(matrix, dtype=float).copy()
    if hide_diagonal and len(z):
        np.fill_diagonal(z, np.nan)
    fig = go.Figure(go.Heatmap(z=z, x=names, y=names, colorscale="Blues", hoverongaps=False,
                               hovertemplate="%{y}<br>%{x}<br>%{z} exchanges in both<extra></extra>"))
    fig.update_layout(height=160 + 26 * len(names), margin=dict(t=10, b=10),
                      yaxis=dict(autorange="reversed"))
    return fig
