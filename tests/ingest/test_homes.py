"""Agent histories found from a home folder: by ``palace-lab ingest HOME`` and for the Load page."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from palace_lab.cli import main
from palace_lab.ingest import discover
from palace_lab.ingest.homes import default_locations

FIX = Path(__file__).resolve().parents[1] / "fixtures"
AGENTS = ("gemini_cli", "opencode", "cursor", "copilot", "copilot_cli")


def make_home(tmp_path: Path) -> Path:
    """One home holding every new agent's fixture history, and things that are not history."""
    home = tmp_path / "home"
    for agent in AGENTS:
        shutil.copytree(FIX / agent / "home", home, dirs_exist_ok=True)
    (home / "notes.json").write_text('{"hello": "world"}')
    (home / "projects" / "app").mkdir(parents=True)
    (home / "projects" / "app" / "data.jsonl").write_text('{"a": 1}\n')
    code = home / ".config" / "Code" / "User"
    (code / "settings.json").write_text("{}")
    (code / "History" / "1a2b").mkdir(parents=True)
    (code / "History" / "1a2b" / "entries.json").write_text('{"version": 1, "entries": []}')
    return home


def test_a_home_offers_only_agent_history_files(tmp_path):
    home = make_home(tmp_path)
    names = {p.name for p in discover([home])}
    assert "notes.json" not in names and "data.jsonl" not in names
    assert "settings.json" not in names and "entries.json" not in names
    assert {"logs.json", "events.jsonl", "state.vscdb"} <= names
    assert not any(p.parent.parent.name in ("message", "part") for p in discover([home]))


def test_an_agent_folder_given_directly_uses_its_own_globs(tmp_path):
    home = make_home(tmp_path)
    names = {p.name for p in discover([home / ".config" / "Code" / "User"])}
    assert names == {"c0pi1077-0000-4000-8000-000000000001.json",
                     "c0pi1077-0000-4000-8000-000000000002.jsonl"}


def test_ingest_from_a_home_reads_every_agent(tmp_path, capsys):
    home = make_home(tmp_path)
    db = str(tmp_path / "p.db")
    assert main(["ingest", str(home), "--db", db, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report["formats"]) == {"gemini-cli", "opencode", "cursor", "copilot", "copilot-cli"}
    assert report["totals"]["errors"] == 0


def test_default_locations_name_what_exists(tmp_path):
    home = make_home(tmp_path)
    found = default_locations(home)
    assert [label for label, _ in found] == ["Gemini CLI", "OpenCode", "Cursor",
                                             "Copilot in VS Code", "Copilot CLI"]
    assert all(folder.is_dir() for _, folder in found)
    assert default_locations(tmp_path / "empty") == []


def test_the_watcher_follows_agent_folders_and_their_history_files_only(tmp_path):
    from palace_lab.agent.watch import _owning_source, wanted
    from palace_lab.ingest.homes import watch_folders

    home = make_home(tmp_path)
    folders = watch_folders([home])
    assert home not in folders and home / ".gemini" / "tmp" in folders
    user = home / ".config" / "Cursor" / "User"
    db = user / "globalStorage" / "state.vscdb"
    assert wanted(db) and wanted(db.with_name("state.vscdb-wal"))
    assert _owning_source(db.with_name("state.vscdb-wal")) == db
    assert not wanted(user / "History" / "1a2b" / "entries.json")
    assert not wanted(home / ".config" / "Code" / "User" / "settings.json")
    assert wanted(home / ".local" / "share" / "opencode" / "opencode.db")
    assert wanted(home / "elsewhere" / "session.jsonl")  # outside every location: by suffix
