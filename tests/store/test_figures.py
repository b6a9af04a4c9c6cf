"""The one figures cache: kept by kind and key, read back without computing, and pruned per
kind, so one page's figures never delete another's (the Overview's ``story-*.json`` survived
no run of budget files before)."""

from __future__ import annotations

import os

import pytest

from palace_lab.store import Palace, figures


@pytest.fixture
def palace(tmp_path):
    with Palace.open(tmp_path / "p.db") as p:
        yield p


def test_a_figure_is_computed_once_then_read_back(palace):
    calls = []

    def compute():
        calls.append(1)
        return {"rows": [1, 2, 3]}

    assert figures.cached(palace, "budget2", "abc", compute) == {"rows": [1, 2, 3]}
    assert figures.cached(palace, "budget2", "abc", compute) == {"rows": [1, 2, 3]}
    assert len(calls) == 1
    assert (palace.derived_root / "figures" / "budget2-abc.json").is_file()
    assert not list((palace.derived_root / "figures").glob("*.part"))


def test_pruning_never_deletes_another_kinds_figures(palace):
    story = figures.figure_path(palace, "story", "s1")
    figures.write(story, {"kept": 0.96})
    os.utime(story, (1, 1))  # the oldest file in the folder
    for i in range(3 * figures.KEEP_PER_KIND + 5):  # many newer figures of other pages
        figures.cached(palace, "budget2", f"cl100k_base-{i:04d}-v", lambda: [i])
        figures.cached(palace, "toolcalls", f"{i:04d}", lambda: [i])
    assert figures.read(story) == {"kept": 0.96}
    folder = palace.derived_root / "figures"
    assert len(list(folder.glob("budget2-*.json"))) == figures.KEEP_PER_KIND
    assert len(list(folder.glob("toolcalls-*.json"))) == figures.KEEP_PER_KIND


def test_pruning_keeps_the_newest_of_a_kind(palace):
    paths = [figures.figure_path(palace, "rooms", f"k{i}") for i in range(figures.KEEP_PER_KIND + 2)]
    for i, path in enumerate(paths):
        figures.write(path, i)
        os.utime(path, (100 + i, 100 + i))
    figures.prune(paths[0].parent, "rooms")
    assert [p.is_file() for p in paths] == [False, False] + [True] * figures.KEEP_PER_KIND


def test_a_kind_is_one_word(palace):
    with pytest.raises(ValueError):
        figures.figure_path(palace, "budget-2", "k")
