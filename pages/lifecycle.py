"""Memory lifecycle: tool-call compression, session compression against the source chapter,
consolidation budgets over time with the profile, validation per distiller version, packs."""

import streamlit as st

from ui.lifecycle import (consolidation_panel, pack_panel, sessions_panel, toolcalls_panel,
                          validation_panel)
from ui.state import distiller_version, guard, palace

st.title("Memory lifecycle")
if not palace().count("exchanges"):
    st.info("This palace is empty. Load a history on **Load & distill** first.",
            icon=":material/info:")
    st.stop()

st.caption("Compress, consolidate, validate and pack the palace's memory (the memory-compression "
           "chapter, docs/paper.md). Everything here runs offline; Claude is an option for "
           "session compression.")
tabs = st.tabs(["Tool calls", "Sessions", "Consolidation", "Validation", "Memory pack"],
               key="life_tab", on_change="rerun")
panels = dict(zip(tabs, (toolcalls_panel, sessions_panel, consolidation_panel, validation_panel,
                         pack_panel)))
shown = next((t for t in tabs if t.open), tabs[0])
with shown, guard():
    if panels[shown] is pack_panel and not distiller_version():
        st.info("A pack is made of distilled cards: distill the palace on **Load & distill** first.",
                icon=":material/info:")
    else:
        panels[shown]()
