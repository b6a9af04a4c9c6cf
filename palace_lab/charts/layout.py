"""Where a figure's title and legend go, so that plotly's toolbar never covers them.

The toolbar (the mode bar) sits in the top right corner of the figure, about 30 px tall, and
shows whenever the pointer is over the chart. A title is placed left-aligned *below* that strip
(:data:`TOOLBAR_PX`), and the top margin grows to hold the title and a legend above the plot,
so nothing that names the figure is under the toolbar at any width; buttons these figures do
not need are left out, so the toolbar stays one row on a narrow chart.
"""

from __future__ import annotations

TOOLBAR_PX = 34  # the mode bar's height (one row) and a little air
# Buttons these figures do not need (box and lasso selection, zoom steps, autoscale): with them
# the bar wraps to a second row on a narrow chart (51 px at 215 px wide) and reaches the title.
SPARE_BUTTONS = ["select2d", "lasso2d", "zoomIn2d", "zoomOut2d", "autoScale2d"]
TITLE_PX = 26
LEGEND_PX = 26


def titled(fig, title: str = "", *, legend_on_top: bool = True):
    """``fig`` with ``title`` left-aligned under the toolbar's strip and, when
    ``legend_on_top``, a horizontal legend between the title and the plot (a legend under the
    plot covers the x labels of a narrow chart)."""
    top = TOOLBAR_PX + (TITLE_PX if title else 0) + (LEGEND_PX if legend_on_top else 0)
    if title:
        fig.update_layout(title=dict(text=title, x=0, xanchor="left", xref="container",
                                     y=1, yanchor="top", yref="container",
                                     pad=dict(t=TOOLBAR_PX, l=8)))
    if legend_on_top:
        fig.update_layout(legend=dict(orientation="h", yanchor="bottom", y=1.0, xanchor="left",
                                      x=0))
    fig.update_layout(margin=dict(t=top), modebar=dict(remove=SPARE_BUTTONS))
    return fig
