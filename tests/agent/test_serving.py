"""Serving generations: a frozen engine answers while the next one is built; a palace that is
not changing is served as it is (the CLI's ranking), and cache writes never cause a rebuild."""

from __future__ import annotations

import shutil
import time

import pytest
from agent_helpers import sample_palace
from conftest import write_jsonl

from palace_lab.agent.serving import Serving
from palace_lab.ingest import ingest_paths
from palace_lab.search import SearchEngine
from palace_lab.store import Palace

MODE = "bm25:verbatim"


@pytest.fixture
def db(tmp_path_factory, tmp_path):
    copy = tmp_path / "palace.db"
    shutil.copy(sample_palace(tmp_path_factory), copy)
    return copy


def add_exchange(db, tmp_path, word: str) -> None:
    with Palace.open(db) as palace:
        ingest_paths(palace, [write_jsonl(tmp_path / f"{word}.jsonl", [
            {"conversation_id": f"c-{word}", "role": "user", "project": "tidewatch",
             "content": f"the {word} exporter crashes", "timestamp": "2026-11-30T09:00:00Z"},
            {"conversation_id": f"c-{word}", "role": "assistant", "content": "Fixed it."}])])


def hits(engine, query):
    return [h.preview for h in engine.search(query, MODE, 3) if h.score > 0]


def test_a_quiet_palace_is_served_as_it_is(db):
    serving = Serving(db, embedder="fake")
    try:
        with Palace.open(db) as palace:
            fresh = SearchEngine(palace, embedder="fake").search("database locked", MODE, 10)
        served = serving.engine(MODE).search("database locked", MODE, 10)
        assert [h.to_dict() for h in served] == [h.to_dict() for h in fresh]
        for _ in range(5):  # the builders' own cache writes are not content changes
            serving.engine(MODE).search("sync", MODE, 3)
        assert serving.generations == 1
    finally:
        serving.close()


def test_the_previous_generation_answers_while_the_next_builds(db, tmp_path):
    serving = Serving(db, embedder="fake")
    try:
        first = serving.engine(MODE)
        add_exchange(db, tmp_path, "quokka")
        assert serving.engine(MODE) is first  # answers at once, from what it had
        assert not hits(first, "quokka")
        deadline = time.monotonic() + 30
        while serving.generations < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert serving.generations == 2
        assert "the quokka exporter crashes" in hits(serving.engine(MODE), "quokka")
    finally:
        serving.close()


def test_without_background_the_next_call_builds_and_a_new_mode_builds_at_once(db, tmp_path):
    serving = Serving(db, embedder="fake", background=False)
    try:
        serving.engine(MODE)
        add_exchange(db, tmp_path, "wombat")
        assert "the wombat exporter crashes" in hits(serving.engine(MODE), "wombat")
        assert serving.generations == 2
        engine = serving.engine("hnsw:core")
        assert serving.generations == 3 and engine.search("sync", "hnsw:core", 2)
    finally:
        serving.close()
