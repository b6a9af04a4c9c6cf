"""A first visit after ``palace-lab index``: the Overview, Budgets, Rooms and Memory lifecycle
read their palace-wide figures from the figures cache instead of counting every exchange,
loading every card or running every mode for the retrieval figures (at 50,000 exchanges each
took 10-40 s on a fresh server)."""

from __future__ import annotations

import pytest
from app_pages import clean, start

import lab_palaces
from palace_lab.experiments import page_figures, story
from palace_lab.store import Palace

PAGES = ("pages/overview.py", "pages/budgets.py", "pages/rooms.py", "pages/lifecycle.py")


@pytest.fixture
def indexed(tmp_path, monkeypatch):
    """A palace whose page figures were made ahead, as ``palace-lab index`` makes them."""
    from palace_lab.experiments.query_sets import DEFAULT_MODES
    from palace_lab.search import SearchEngine

    db = tmp_path / "p.db"
    with lab_palaces.build(db) as palace:
        engine = SearchEngine(palace, embedder="fake")
        engine.prepare(list(DEFAULT_MODES))  # every layer built
        page_figures.prepare_palace(palace, engine.distiller, engine=engine, embedder="fake")
    monkeypatch.setenv("PALACE_LAB_DB", str(db))
    monkeypatch.setenv("PALACE_LAB_EMBEDDER", "fake")
    return db


@pytest.mark.parametrize("page", PAGES)
def test_a_first_visit_reads_the_kept_figures(indexed, monkeypatch, page):
    counted = []

    def no(name):
        def fail(*_a, **_k):
            counted.append(name)
            raise AssertionError(f"{name} was computed on a first visit")
        return fail

    monkeypatch.setattr(page_figures, "count_budget_rows", no("budget rows"))
    monkeypatch.setattr(page_figures.toolcalls, "toolcall_table", no("tool-call table"))
    monkeypatch.setattr(page_figures.rooms, "room_stats", no("room stats"))
    monkeypatch.setattr(Palace, "cards", no("every card"))
    monkeypatch.setattr(story, "_compute", no("the retrieval figures"))
    at = start(page)
    clean(at)
    assert counted == []


def test_the_embedding_space_reads_only_the_sampled_cards(indexed, monkeypatch):
    from palace_lab.store.cards import CardsMixin

    def every_card(*_a, **_k):
        raise AssertionError("every card was loaded for the projection")

    monkeypatch.setattr(CardsMixin, "cards", every_card)
    at = start("pages/rooms.py")
    at.session_state["rooms_tab"] = "Embedding space"
    at.run()
    clean(at)
    assert at.get("plotly_chart")


@pytest.mark.parametrize("tab", ["Consolidation", "Validation", "Memory pack"])
def test_the_slow_lifecycle_tabs_read_the_kept_figures(indexed, monkeypatch, tab):
    """The consolidation replay, the cards' vocabulary and the cards' importance for the pack
    were made by ``palace-lab index`` (45 s, 46 s and 22 s on first opening at 50,000)."""
    from palace_lab.experiments import lifecycle_figures
    from palace_lab.lifecycle import pack

    def no(*_a, **_k):
        raise AssertionError(f"{tab} computed its figure on a first opening")

    monkeypatch.setattr(lifecycle_figures, "replay", no)
    monkeypatch.setattr(lifecycle_figures.vocabulary, "vocabulary_report", no)
    monkeypatch.setattr(pack, "tag", no)  # what importance_of calls
    monkeypatch.setattr(Palace, "exchanges", no)
    at = start("pages/lifecycle.py")
    at.session_state["life_tab"] = tab
    at.run()
    clean(at)
    assert at.get("plotly_chart") or at.get("download_button")
