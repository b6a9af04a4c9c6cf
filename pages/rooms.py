"""Rooms: how the distilled cards file the palace, where the cards sit in embedding space, which
rooms travel together, and drill-down from a room to its verbatim exchanges."""

import streamlit as st

from ui.rooms import drill_down, map_panel, pairs_panel, space_panel
from ui.state import distiller_version, distiller_versions, guard

st.title("Rooms")
version = distiller_version()
if not version:
    st.info("Rooms come from distilled cards: distill the palace on **Load & distill** first.",
            icon=":material/info:")
    st.stop()

made = next(v["cards"] for v in distiller_versions() if v["version"] == version)
st.caption(f"Distiller version **{version}** · {made:,} cards. A card files its exchange "
           "in 1-3 rooms (file, concept, workflow), so an exchange can count in several rooms.")
tabs = st.tabs(["Room map", "Embedding space", "Rooms together", "Drill-down"], key="rooms_tab",
               on_change="rerun")
panels = dict(zip(tabs, (map_panel, space_panel, pairs_panel, drill_down)))
shown = next((t for t in tabs if t.open), tabs[0])
with shown, guard():
    panels[shown]()
