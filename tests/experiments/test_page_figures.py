"""The app's palace-wide figures: made once by ``prepare_palace`` (what ``palace-lab index``
runs), then read from the figures cache without counting again, by the core and the pages."""

from __future__ import annotations

import lab_palaces
from palace_lab.experiments import page_figures
from palace_lab.experiments.story import main_version


def test_prepare_makes_every_page_figure_once(tmp_path, monkeypatch):
    with lab_palaces.build(tmp_path / "p.db") as palace:
        version = main_version(palace)
        took = page_figures.prepare_palace(palace)
        made = {"budget2", "toolcalls", "rooms", "importance", "replay", "vocabulary"}
        assert set(took) == {version} and set(took[version]) == made
        kinds = {f.name.split("-")[0] for f in (tmp_path / "p.db.indexes" / "figures").iterdir()}
        assert kinds == made
        rows = page_figures.budget_rows(palace, version)
        rooms = page_figures.room_stats(palace, version)
        calls = page_figures.toolcall_rows(palace)

        def counted(*_a, **_k):
            raise AssertionError("a kept figure was computed again")

        monkeypatch.setattr(page_figures, "count_budget_rows", counted)
        monkeypatch.setattr(page_figures.toolcalls, "toolcall_table", counted)
        monkeypatch.setattr(page_figures.rooms, "room_stats", counted)
        assert page_figures.budget_rows(palace, version) == rows and len(rows) == palace.count("exchanges")
        assert page_figures.room_stats(palace, version) == rooms and rooms
        assert page_figures.toolcall_rows(palace) == calls
        page_figures.prepare_palace(palace)  # nothing left to make


def test_a_changed_palace_is_counted_again(tmp_path):
    with lab_palaces.build(tmp_path / "p.db") as palace:
        version = main_version(palace)
        before = page_figures.budget_rows(palace, version)
        ids = sorted(lab_palaces.exchange_ids(palace).values())
        palace.conn.execute("DELETE FROM cards WHERE exchange_id=?", (ids[0],))
        palace.conn.commit()
        after = page_figures.budget_rows(palace, version)
        assert [r.core for r in after if r.exchange_id == ids[0]] != \
               [r.core for r in before if r.exchange_id == ids[0]]


def test_the_overview_story_is_kept_when_every_mode_is_built(tmp_path):
    from palace_lab.experiments import query_sets
    from palace_lab.experiments.story import retrieval_figures
    from palace_lab.search import SearchEngine

    with lab_palaces.build(tmp_path / "p.db") as palace:
        version = main_version(palace)
        engine = SearchEngine(palace, distiller=version, embedder="fake")
        engine.prepare(list(query_sets.DEFAULT_MODES))
        took = page_figures.prepare_palace(palace, version, engine=engine, embedder="fake")
        assert "story" in took[version]
        kept = retrieval_figures(palace, distiller=version, query_set=None, embedder="fake",
                                 compute=False)
        assert kept is not None and kept["modes"] == len(query_sets.DEFAULT_MODES)


def test_the_story_waits_for_a_layer_not_built(tmp_path):
    from palace_lab.search import SearchEngine

    with lab_palaces.build(tmp_path / "p.db") as palace:
        version = main_version(palace)
        engine = SearchEngine(palace, distiller=version, embedder="fake", inline_embed=0)
        took = page_figures.prepare_palace(palace, version, engine=engine, embedder="fake")
        assert "story" not in took[version]  # nothing embedded for it
        assert not engine.indexes.is_cached("verbatim", "hnsw")
