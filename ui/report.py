"""The Overview's "Download the report" button: this palace's story as one offline HTML file
(:mod:`palace_lab.report`), made when the button is clicked, never on a rerun.

The file is built in Streamlit's download thread from plain values read now (palace file,
distiller version, graded set, embedder), on a connection of its own. It shows retrieval
figures only when they are already measured (the Overview's own cache): a click never starts a
minutes-long index build.
"""

from __future__ import annotations

import streamlit as st

from palace_lab.experiments.query_sets import headline_set
from ui.state import db_path, distiller_version, embedder_name, palace, query_set


def report_maker(path: str, version: str | None, graded: str | None, embedder: str):
    """A no-argument function that returns the report's bytes (Streamlit calls it on click)."""
    def make() -> bytes:
        from palace_lab.report import build_report
        from palace_lab.store import Palace

        with Palace.open(path, create=False) as p:
            return build_report(p, distiller=version, query_set=graded, embedder=embedder,
                                compute=False)
    return make


def download_report() -> None:
    path = db_path()
    make = report_maker(str(path), distiller_version(), headline_set(palace(), query_set()),
                        embedder_name())
    st.download_button("Download the report", make, file_name=f"{path.stem}-report.html",
                       mime="text/html", on_click="ignore", icon=":material/download:",
                       key="ov_report",
                       help="One HTML file that opens offline, on a laptop or a phone: the "
                            "figures on this page with their definitions, five typical cards, "
                            "the rooms. Every text passes the redactor.")
