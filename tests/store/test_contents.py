"""What a palace holds (projects, sources, span), whether it holds the sample, and which query
words it contains at all."""

from __future__ import annotations

import lab_palaces
from palace_lab.store.contents import (absent_terms, holds_sample, palace_contents, projects,
                                       query_terms, titles)


def test_contents_count_projects_sources_and_span(tmp_path):
    with lab_palaces.build(tmp_path / "p.db") as palace:
        c = palace_contents(palace)
        assert (c.exchanges, c.conversations, c.cards) == (6, 6, 6)
        assert c.judgments == 4
        assert c.projects == (("demo", 3), ("other", 3))  # topics alternate other/demo
        assert [n for n, _ in c.sources] == [palace.conversations()[0]["source_format"]]
        assert c.sources[0][1] == 6
        assert c.first.startswith("2025-01-10") and c.last.startswith("2025-06-15")
        assert projects(palace) == {"demo": 3, "other": 3} == c.to_dict()["projects"]
        assert c.to_dict()["projects"] == {"demo": 3, "other": 3}


def test_a_palace_holds_the_sample_when_a_source_lies_in_its_folder(tmp_path):
    with lab_palaces.build(tmp_path / "p.db") as palace:
        assert holds_sample(palace, tmp_path / "history")  # lab_palaces writes its file there
        assert not holds_sample(palace, tmp_path / "hist")  # a prefix of the name is not the folder
        assert not holds_sample(palace, tmp_path / "elsewhere")


def test_query_terms_drop_stop_words_and_keep_paths():
    assert query_terms("Why did the pool_size in src/db/pool.py time out?") == \
        ["pool_size", "src/db/pool.py", "time", "out"]
    assert query_terms("the a I") == []


def test_absent_terms_name_the_words_no_exchange_contains(tmp_path):
    with lab_palaces.build(tmp_path / "p.db") as palace:
        assert absent_terms(palace, "zorblax quuxify") == (["zorblax", "quuxify"], ["zorblax", "quuxify"])
        assert absent_terms(palace, "POOL zorblax") == (["pool", "zorblax"], ["zorblax"])
        assert absent_terms(palace, "the connection pool") == (["connection", "pool"], [])


def test_titles_of_conversations(tmp_path):
    with lab_palaces.build(tmp_path / "p.db") as palace:
        found = titles(palace, ["c-pool", "c-ci", "c-pool"])
        assert set(found) == {"c-pool", "c-ci"}
        assert titles(palace, []) == {}
