"""The Rooms page's data and drill-down: cached room stats, projection and co-occurrence."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from palace_lab import rooms
from palace_lab.charts.rooms import co_occurrence_heatmap, projection_scatter, room_map
from palace_lab.experiments import page_figures
from ui.data import cards, content_key
from ui.exchange import paged, show_asked, show_card, show_messages
from ui.search import background, build_status, prepare, ready
from ui.state import (db_path, distiller_version, embedder_name, engine, engine_for, palace,
                      palace_at)

TSNE_MAX_POINTS = 1000
PCA_MAX_POINTS = 5000  # a scatter of 50,000 points took 7 s to send and paint; a sample reads the same
TABLE_ROWS = 200  # rooms shown at a time in the table


def stats() -> list[rooms.RoomStat]:
    """Every room's size in exchanges and verbatim tokens, largest first; kept on disk by the
    palace's content (:func:`page_figures.room_stats`), so a fresh server reads them instead of
    every card (6 s at 50,000)."""
    return page_figures.room_stats(palace(), distiller_version())


@st.cache_data(max_entries=16, show_spinner="Projecting the distilled embeddings…")
def _projection(path: str, version: str, embedder: str, content: str, method: str,
                colour_by: str | None, seed: int) -> tuple[list[dict], int]:
    index = engine_for(path, version, embedder).indexes.get("core", "exact")
    keep = rooms.sample_rows(index.size, TSNE_MAX_POINTS if method == "tsne" else PCA_MAX_POINTS,
                             seed)
    coords = rooms.project(index.index.vectors[keep], method, seed=seed)
    ids = [index.ids[i] for i in keep]
    shown = palace_at(path).cards_by_id(version, ids)  # the sample's cards, not all 50,000
    groups = rooms.colour_groups([shown[e] for e in ids if e in shown], room_type=colour_by)
    return rooms.projection_rows(ids, coords, groups, shown), index.size


def projection(method: str, colour_by: str | None, seed: int = 0) -> tuple[list[dict], int] | None:
    """Rows ``{exchange_id, x, y, room, core}`` and how many exchanges the layer holds; None
    while the core layer is embedded in the background (a large history: the page never
    waits minutes for it, as a search does not)."""
    if not ready(["exact:core"]) and engine().readiness("exact:core").missing:
        background().start(["exact:core"])
        return None
    prepare(["exact:core"])  # embeds a small core layer with progress, once
    return _projection(str(db_path()), distiller_version(), embedder_name(), content_key(),
                       method, colour_by, seed)


def drill_down() -> None:
    """Room → its cards → one exchange, verbatim."""
    all_stats = stats()
    if not all_stats:
        return
    room = st.selectbox("Room", all_stats, key="rooms_pick",
                        format_func=lambda s: f"{s.room_type} · {s.room_label} · {s.exchanges} exchanges")
    members = rooms.room_members(cards(), room.room_type, room.room_key)
    table = pd.DataFrame([{"exchange": c.exchange_id, "relevance": rel, "exchange_core": c.exchange_core,
                           "specific_context": c.specific_context,
                           "keywords": " ".join(c.keywords)} for c, rel in members])
    st.dataframe(table, width="stretch", hide_index=True)
    pick = st.selectbox("Exchange", range(len(members)), key="rooms_exchange",
                        format_func=lambda i: f"{i + 1}. {members[i][0].exchange_core[:90]}")
    card = members[pick][0]
    p = palace()
    st.caption("Distilled card")
    show_card(card)
    exchange = p.exchange(card.exchange_id)
    show_asked(exchange)
    st.caption("Verbatim exchange")
    if exchange is not None:
        show_messages(p, exchange, key="rooms_rd")


def map_panel() -> None:
    a, b = st.columns(2)
    size = a.radio("Size by", ["exchanges", "tokens"], horizontal=True, key="rooms_size",
                   captions=["exchanges filed in the room", "their verbatim tokens"])
    kind = b.radio("Chart", ["treemap", "sunburst"], horizontal=True, key="rooms_kind")
    room_stats = stats()
    st.plotly_chart(room_map(room_stats, size=size, kind=kind), width="stretch")
    _, shown = paged(room_stats, TABLE_ROWS, "rooms_table_page", label="Rooms page",
                     noun="Rooms", order="the largest first")
    st.dataframe([s.to_dict() for s in shown], width="stretch", hide_index=True)


def space_panel() -> None:
    a, b = st.columns(2)
    method = a.radio("Projection", list(rooms.PROJECTIONS), horizontal=True, key="rooms_method",
                     captions=["principal components (fast)", "t-SNE (local structure, slower)"])
    colour = b.selectbox("Colour by the card's most relevant room of type",
                         ["any", "workflow", "concept", "file"], key="rooms_colour")
    made = projection(method, None if colour == "any" else colour)
    if made is None:
        st.info("The distilled layer is embedded in the background (after any build already "
                "running); the projection appears here once it is built.",
                icon=":material/hourglass_top:")
        build_status()
        return
    rows, total = made
    note = f" (a seeded sample of {len(rows):,} of {total:,})" if len(rows) < total else ""
    st.caption(f"The distilled layer (exchange_core + specific_context) embedded by the search "
               f"embedder, projected to 2-D{note}; the 12 commonest rooms get their own colour.")
    st.plotly_chart(projection_scatter(rows), width="stretch")


def pairs_panel() -> None:
    top = st.slider("Largest rooms shown", 5, 40, 20, key="rooms_top")
    pair_stats, matrix = rooms.co_occurrence(cards(), top=top)
    st.caption("Cell: exchanges filed in both rooms (the diagonal, a room with itself, is hidden).")
    st.plotly_chart(co_occurrence_heatmap(pair_stats, matrix), width="stretch")
