"""The Memory lifecycle page through AppTest: every tab renders from the entry point, the pack
can be downloaded, and conversation text is shown as text, never as Markdown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lifecycle_data import build_palace

APP = str(Path(__file__).resolve().parents[2] / "app.py")
TABS = ["Tool calls", "Sessions", "Consolidation", "Validation", "Memory pack"]
EVIL = "please fix <img src=x onerror=alert(1)> and [click](http://evil.example) now"


@pytest.fixture
def app_db(tmp_path, monkeypatch):
    from palace_lab.ingest import ingest_paths

    with build_palace(tmp_path / "p.db", days=6, per_day=3) as palace:
        extra = tmp_path / "evil" / "evil.jsonl"
        extra.parent.mkdir()
        extra.write_text("".join(json.dumps(r) + "\n" for r in [
            {"conversation_id": "c-evil", "role": "user", "content": EVIL,
             "timestamp": "2025-03-01T10:00:00Z"},
            {"conversation_id": "c-evil", "role": "assistant", "content": "done <script>x()</script>"}]))
        ingest_paths(palace, [extra])
    monkeypatch.setenv("PALACE_LAB_DB", str(tmp_path / "p.db"))
    monkeypatch.setenv("PALACE_LAB_EMBEDDER", "fake")
    return tmp_path / "p.db"


def test_every_tab_renders_and_shows_conversation_text_as_text(app_db):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.switch_page("pages/lifecycle.py")
    at.run()
    for tab in TABS:
        at.session_state["life_tab"] = tab
        at.run()
        assert not at.exception, (tab, [e.value for e in at.exception])
        assert not at.error, (tab, [e.value for e in at.error])
        rendered = [m.value for m in (*at.markdown, *at.caption, *at.subheader)]
        assert not any("onerror" in m or "evil.example" in m or "<script>" in m for m in rendered)
        if tab == "Sessions":
            at.selectbox(key="life_sess_pick").set_value(0).run()
            assert any("<img src=x onerror=alert(1)>" in t.value for t in at.text)
        if tab == "Memory pack":
            assert at.get("download_button") and at.text[0].value.startswith("# Memory pack")
            assert {m.label for m in at.metric} == {"Tokens", "Items", "Rooms"}


def test_the_tool_call_table_is_paged_heaviest_first_and_its_picker_holds_one_page(
        real_exports, tmp_path, monkeypatch):
    """At 50,000 exchanges the table and the picker would hold every exchange: they show
    ``TABLE_ROWS`` at a time, the most tool traffic first."""
    import ui.lifecycle
    from streamlit.testing.v1 import AppTest

    from palace_lab.ingest import ingest_paths
    from palace_lab.ingest.traffic.toolcalls import toolcall_table
    from palace_lab.store import Palace

    with Palace.open(tmp_path / "tools.db") as palace:
        ingest_paths(palace, [real_exports / "codex", real_exports / "claude_code"])
        every = sorted(toolcall_table(palace), key=lambda r: -r.tokens_before)
    monkeypatch.setenv("PALACE_LAB_DB", str(tmp_path / "tools.db"))
    monkeypatch.setenv("PALACE_LAB_EMBEDDER", "fake")
    assert len(every) > 4
    monkeypatch.setattr(ui.lifecycle, "TABLE_ROWS", 2)
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.switch_page("pages/lifecycle.py")
    at.run()
    table = at.dataframe[0].value
    assert list(table["exchange_id"]) == [r.exchange_id for r in every[:2]]
    assert len(at.selectbox(key="life_tc_pick_0").options) == 2
    at.number_input(key="life_tc_page").set_value(2).run()
    assert list(at.dataframe[0].value["exchange_id"]) == [r.exchange_id for r in every[2:4]]
    assert any(f"of {len(every):,}" in c.value for c in at.caption)
    import streamlit as st

    from palace_lab.ingest.traffic import toolcalls

    st.cache_data.clear()  # a fresh server reads the table back from disk
    monkeypatch.setattr(toolcalls, "toolcall_table", lambda *a, **k: pytest.fail("recomputed"))
    again = AppTest.from_file(APP, default_timeout=60)
    again.run()
    again.switch_page("pages/lifecycle.py")
    again.run()
    assert not again.exception and list(again.dataframe[0].value["exchange_id"]) == \
        [r.exchange_id for r in every[:2]]


def test_the_scatter_shows_an_even_sample_above_its_point_cap(monkeypatch):
    from palace_lab.charts import lifecycle as charts
    from palace_lab.ingest.traffic.toolcalls import ToolCallRow

    rows = [ToolCallRow(f"x{i}", None, None, "", 1, 100 + i, 10) for i in range(50)]
    assert len(charts.toolcall_scatter(rows).data[0].x) == 50
    monkeypatch.setattr(charts, "MAX_POINTS", 10)
    points = charts.toolcall_scatter(rows).data[0]
    assert len(points.x) == 10 and points.x[0] == 100 and points.x[-1] == 149
    assert points.name == "exchanges (10 of 50)"
