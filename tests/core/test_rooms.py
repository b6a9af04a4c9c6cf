"""Room map data and figures, on hand-written cards with counts worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from palace_lab.charts.rooms import co_occurrence_heatmap, plain, projection_scatter, room_map
from palace_lab.errors import InputError
from palace_lab.model import DistilledCard, Room
from palace_lab.rooms import (OTHER, co_occurrence, colour_groups, project, projection_rows,
                              room_members, room_stats, sample_rows, top_room)


def card(eid: str, *rooms: tuple[str, str, float], label: str | None = None) -> DistilledCard:
    return DistilledCard(eid, "rules:v1", f"core of {eid}", f"detail {eid}",
                         tuple(Room(t, k, label or k.title(), rel) for t, k, rel in rooms), ())


CARDS = [
    card("x1", ("file", "pool.py", 1.0), ("concept", "pool_timeout", 0.8), ("workflow", "debugging", 0.6)),
    card("x2", ("concept", "pool_timeout", 0.9), ("workflow", "debugging", 0.9)),
    card("x3", ("workflow", "testing", 0.5)),
    card("x4", ("file", "pool.py", 0.7), ("workflow", "debugging", 0.4)),
]
TOKENS = {"x1": 100, "x2": 50, "x3": 7, "x4": 20}


def test_room_stats_count_exchanges_and_sum_their_tokens():
    stats = {s.room_key: s for s in room_stats(CARDS, TOKENS)}
    assert stats["debugging"].exchanges == 3 and stats["debugging"].tokens == 170
    assert stats["pool.py"].exchanges == 2 and stats["pool.py"].tokens == 120
    assert stats["testing"].tokens == 7
    assert stats["debugging"].mean_relevance == pytest.approx((0.6 + 0.9 + 0.4) / 3)
    # largest first, ties by (type, key): concept pool_timeout (2) before file pool.py (2)
    assert [s.room_key for s in room_stats(CARDS)] == ["debugging", "pool_timeout", "pool.py", "testing"]


def test_a_room_repeated_on_one_card_counts_once_and_keeps_the_higher_relevance():
    twice = [card("x9", ("concept", "cache", 0.2), ("concept", "cache", 0.7))]
    (only,) = room_stats(twice, {"x9": 10})
    assert (only.exchanges, only.tokens, only.mean_relevance) == (1, 10, 0.7)


def test_the_label_is_the_most_frequent_one():
    cards = [card("a", ("concept", "k", 1.0), label="Pool"), card("b", ("concept", "k", 1.0), label="pool"),
             card("c", ("concept", "k", 1.0), label="Pool")]
    assert room_stats(cards)[0].room_label == "Pool"


def test_top_room_is_the_most_relevant_with_ties_to_the_card_order():
    assert top_room(CARDS[1]).room_key == "pool_timeout"  # 0.9 tie: first on the card wins
    assert top_room(CARDS[0], "workflow").room_key == "debugging"
    assert top_room(CARDS[2], "file") is None


def test_colour_groups_keep_the_commonest_top_rooms_and_pool_the_rest():
    groups = colour_groups(CARDS, room_type="workflow", keep=1)
    assert groups == {"x1": "workflow: Debugging", "x2": "workflow: Debugging",
                      "x3": OTHER, "x4": "workflow: Debugging"}
    assert colour_groups(CARDS, room_type="file")["x2"] == "(no room)"


def test_co_occurrence_counts_exchanges_in_both_rooms():
    stats, matrix = co_occurrence(CARDS, top=3)
    keys = [s.room_key for s in stats]
    assert keys == ["debugging", "pool_timeout", "pool.py"]
    # debugging & pool_timeout: x1, x2; debugging & pool.py: x1, x4; pool_timeout & pool.py: x1
    assert matrix.tolist() == [[3, 2, 2], [2, 2, 1], [2, 1, 2]]
    assert (matrix == matrix.T).all()


def test_room_members_most_relevant_first_then_palace_order():
    members = room_members(CARDS, "workflow", "debugging")
    assert [(c.exchange_id, r) for c, r in members] == [("x2", 0.9), ("x1", 0.6), ("x4", 0.4)]
    assert room_members(CARDS, "file", "nowhere.py") == []


def test_projection_is_deterministic_and_two_dimensional():
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(30, 16)).astype(np.float32)
    a, b = project(vectors, "pca"), project(vectors, "pca")
    assert a.shape == (30, 2) and np.allclose(a, b)
    t = project(vectors, "tsne", seed=3)
    assert t.shape == (30, 2) and np.allclose(t, project(vectors, "tsne", seed=3))
    assert project(vectors[:2], "tsne").shape == (2, 2)
    with pytest.raises(InputError, match="valid projections: pca, tsne"):
        project(vectors, "umap")


def test_sample_rows_keeps_everything_under_the_cap_and_is_seeded_above_it():
    assert sample_rows(5, 10) == [0, 1, 2, 3, 4]
    picked = sample_rows(100, 10, seed=1)
    assert len(picked) == 10 and picked == sorted(picked) and picked == sample_rows(100, 10, seed=1)


def test_figures_build_and_never_carry_markup_from_labels():
    evil = [card("x1", ("concept", "xss", 1.0), label='<a href="javascript:alert(1)">click</a>')]
    fig = room_map(room_stats(evil), size="exchanges")
    labels = list(fig.data[0].labels)
    assert all("<" not in label and ">" not in label for label in labels)
    assert room_map(room_stats(CARDS, TOKENS), size="tokens", kind="sunburst").data[0].type == "sunburst"
    rows = projection_rows(["x1"], np.array([[0.5, -1.0]]), {"x1": "<b>room</b>"}, {"x1": evil[0]})
    scatter = projection_scatter(rows)
    assert scatter.data[0].name == "‹b›room‹/b›"
    stats, matrix = co_occurrence(CARDS)
    assert co_occurrence_heatmap(stats, matrix).data[0].z.shape == (4, 4)
    with pytest.raises(InputError, match="valid sizes"):
        room_map(room_stats(CARDS), size="bytes")


def test_plain_flattens_and_cuts():
    assert plain("a\n b   <c>", 20) == "a b ‹c›"
    assert plain("x" * 100, 10) == "x" * 9 + "…"
