"""The person in every result (AppTest): a Search lab hit shows the opening of the person's
request under its card, redacted; the reader names each tool row by its file or command."""

from __future__ import annotations

import pytest
from app_pages import clean, start
from person_palace import ASKED, KIND, SECRET, STALE_SECRET, first_exchange, person_palace


@pytest.fixture
def db(tmp_path, monkeypatch):
    db = person_palace(tmp_path)
    monkeypatch.setenv("PALACE_LAB_DB", str(db))
    monkeypatch.setenv("PALACE_LAB_EMBEDDER", "fake")
    return db


def shown(at) -> list[str]:
    return [t.value for t in at.text]


def test_a_hit_shows_what_the_person_asked_redacted(db):
    at = start("pages/search_lab.py")
    at.selectbox(key="lab_mode_b").set_value("bm25:core")
    at.text_input(key="lab_query").input("nightly ledger sync").run()
    clean(at)
    asked = [t for t in shown(at) if t.startswith("asked: ")]
    assert f"asked: {ASKED} gh token [REDACTED:{KIND}]" in asked
    assert len(asked) >= 2  # under the hit of each side
    assert not [t for t in asked if "ide_opened" in t or "The user opened" in t]
    assert not [t for t in shown(at) if SECRET in t or STALE_SECRET in t]


def test_the_reader_names_tool_rows_by_file_and_command(db):
    at = start("pages/search_lab.py")
    at.session_state["lab_read"] = first_exchange(db).exchange_id
    at.text_input(key="lab_query").input("nightly ledger sync").run()
    clean(at)
    rows = [e.label.replace("\\", "") for e in at.expander]
    assert [r.split(" · ")[:3] for r in rows] == [
        ["tool_call", "Read", "src/app.py"], ["tool_result", "src/app.py", "30 characters"],
        ["tool_call", "Bash", "pytest -q"], ["tool_result", "pytest -q", "19 characters"]]
    assert f"asked: {ASKED} gh token [REDACTED:{KIND}]" in shown(at)  # under the reader's card
