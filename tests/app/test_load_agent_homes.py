"""The Load page offers the agent histories that exist in this home (the test's HOME)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from app_pages import clean, start
from palace_lab.store import Palace
from test_app import app_env, built  # noqa: F401

FIX = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.fixture
def own(app_env, tmp_path, monkeypatch):  # noqa: F811
    monkeypatch.setenv("PALACE_LAB_SAMPLE_DB", str(app_env))
    monkeypatch.setenv("PALACE_LAB_PALACES", str(tmp_path / "own"))
    return tmp_path / "own"


def test_no_agent_history_says_so(own):
    at = start("pages/load.py")
    at.radio(key="load_source").set_value("Local folder or file").run()
    assert any("No agent history in the usual places" in c.value for c in at.caption)


def test_found_histories_are_offered_and_ingested(own):
    home = Path(os.environ["HOME"])
    for agent in ("gemini_cli", "cursor", "copilot_cli"):
        shutil.copytree(FIX / agent / "home", home, dirs_exist_ok=True)
    at = start("pages/load.py")
    at.radio(key="load_source").set_value("Local folder or file").run()
    picker = at.multiselect(key="load_homes")
    assert [o.split(" · ")[0] for o in picker.options] == ["Gemini CLI", "Cursor", "Copilot CLI"]
    picker.set_value([o for o in picker.options if not o.startswith("Copilot")]).run()
    at.button(key="load_path_go").click().run()
    clean(at)
    with Palace.open(own / "my-history.db") as mine:
        formats = {r[0] for r in mine.conn.execute("SELECT source_format FROM conversations")}
    assert formats == {"gemini-cli", "cursor"}
