"""A palace's saved default mode (the lab's "make default", ``<db>.prefs.json``) is what
``palace-lab search`` and ``palace-lab index`` use without ``--mode``/``--modes``, and what the
agent's recall (MCP) searches with and reports; removing it brings back the project's."""

from __future__ import annotations

import json
import sqlite3

import pytest
from agent_helpers import sample_palace

from palace_lab.agent.recall import Recall
from palace_lab.cli import main
from palace_lab.experiments.prefs import set_pref
from palace_lab.search import DEFAULT_MODE

SAVED = "bm25:core"
QUERY = "database is locked"


@pytest.fixture
def db(tmp_path_factory, tmp_path):
    """A copy of the shared sample palace (that one is only read), without its indexes."""
    target = tmp_path / "palace.db"
    with sqlite3.connect(sample_palace(tmp_path_factory)) as source:
        source.execute("VACUUM INTO ?", (str(target),))
    return target


def cli(capsys, *args):
    assert main([*args, "--embedder", "fake", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def ranking(hits):
    return [(h["exchange_id"], round(h["score"], 6)) for h in hits]


def test_the_cli_and_recall_search_with_the_palace_default(db, capsys):
    search = ("search", "--db", str(db), QUERY)
    project = cli(capsys, *search)
    saved = cli(capsys, *search, "--mode", SAVED)
    assert ranking(project) != ranking(saved)  # the two modes rank differently here
    set_pref(db, "search_mode", SAVED)
    assert ranking(cli(capsys, *search)) == ranking(saved)
    assert cli(capsys, "index", "--db", str(db))["modes"] == [SAVED]
    assert ranking(cli(capsys, *search, "--mode", DEFAULT_MODE)) == ranking(project)
    recall = Recall.open(db, embedder="fake", background=False)
    try:
        answer = recall.search(QUERY)
        assert answer["mode"] == SAVED and ranking(answer["hits"]) == ranking(saved)
        assert recall.stats()["default_mode"] == SAVED
        set_pref(db, "search_mode", None)
        assert recall.search(QUERY)["mode"] == DEFAULT_MODE == recall.stats()["default_mode"]
    finally:
        recall.close()
    assert ranking(cli(capsys, *search)) == ranking(project)
