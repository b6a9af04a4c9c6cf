"""Where a figure's title and legend go, so that plotly's toolbar never covers them.

The toolbar (the mode bar) sits in the top right corner of the figure, about 30 px tall, and
shows whenever the pointer is over the chart. A title is placed left-aligned *below* that strip
(:data:`TOOLBAR_PX`); a legend hangs from under the title, in a top margin tall enough for one
row per entry (on a narrow chart a horizontal legend wraps, and anchored to the plot it grew up
into the title), so nothing that names the figure is under the toolbar at any width. Buttons
these figures do not need are left out, so the toolbar stays one row on a narrow chart.
"""

from __future__ import annotations

TOOLBAR_PX = 34  # the mode bar's height (one row) and a little air
TITLE_PX = 28
LEGEND_ROW_PX = 20
# Buttons these figures do not need (box and lasso selection, zoom steps, autoscale): with them
# the bar wraps to a second row on a narrow chart (51 px at 215 px wide) and reaches the title.
SPARE_BUTTONS = ["select2d", "lasso2d", "zoomIn2d", "zoomOut2d", "autoScale2d"]
DEFAULT_HEIGHT = 450  # plotly's, when a builder sets none


def titled(fig, title: str = "", *, legend_on_top: bool = True):
    """``fig`` with ``title`` left-aligned under the toolbar's strip and, when
    ``legend_on_top``, a horizontal legend under the title, above the plot (a legend under the
    plot covers the x labels of a narrow chart). Call it after the traces and the height."""
    head = TOOLBAR_PX + (TITLE_PX if title else 0)
    rows = sum(1 for t in fig.data if t.showlegend is not False) if legend_on_top else 0
    if title:
        fig.update_layout(title=dict(text=title, x=0, xanchor="left", xref="container",
                                     y=1, yanchor="top", yref="container",
                                     pad=dict(t=TOOLBAR_PX, l=8)))
    if rows:
        height = fig.layout.height or DEFAULT_HEIGHT
        fig.update_layout(legend=dict(orientation="h", yref="container", yanchor="top",
                                      y=1 - head / height, xanchor="left", x=0))
    fig.update_layout(margin=dict(t=head + LEGEND_ROW_PX * rows + 8),
                      modebar=dict(remove=SPARE_BUTTONS))
    return fig
