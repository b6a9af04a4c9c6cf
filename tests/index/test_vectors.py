"""The vector indexes on their own: exact cosine, HNSW against it, filtering, files."""

from __future__ import annotations

import numpy as np
import pytest

from palace_lab.index.exact import ExactIndex, top_rows
from palace_lab.index.hnsw import HNSWIndex, recall_at_k


def unit_rows(n: int, dim: int = 32, seed: int = 7) -> np.ndarray:
    x = np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def test_top_rows_is_best_first_with_ties_by_lower_row():
    rows, scores = top_rows(np.array([0.5, 0.9, 0.5, 0.1], dtype=np.float32), 3)
    assert list(rows) == [1, 0, 2] and list(scores) == pytest.approx([0.9, 0.5, 0.5])
    assert top_rows(np.zeros(2, dtype=np.float32), 0).rows.size == 0
    assert list(top_rows(np.array([1.0, 2.0], dtype=np.float32), 10).rows) == [1, 0]


def test_exact_is_the_cosine_of_unit_rows():
    vectors = unit_rows(50)
    query = vectors[3]
    rows, sims = ExactIndex.build(vectors).search(query, 5)
    assert rows[0] == 3 and sims[0] == pytest.approx(1.0)
    assert sims == pytest.approx(vectors[rows] @ query)


def test_exact_with_allowed_rows_only():
    vectors = unit_rows(20)
    allowed = np.zeros(20, dtype=bool)
    allowed[[4, 9]] = True
    rows, _ = ExactIndex(vectors).search(vectors[0], 10, allowed)
    assert sorted(rows) == [4, 9]


def test_hnsw_finds_what_exact_finds():
    vectors, queries = unit_rows(2000), unit_rows(50, seed=8)
    exact, hnsw = ExactIndex(vectors), HNSWIndex.build(vectors)
    got = [hnsw.search(q, 10).rows for q in queries]
    want = [exact.search(q, 10).rows for q in queries]
    assert recall_at_k(got, want, 10) >= 0.95


def test_hnsw_filtered_search_never_returns_a_row_not_allowed():
    vectors = unit_rows(500)
    allowed = np.zeros(500, dtype=bool)
    allowed[::50] = True  # 10 rows: too few for the graph, so the exact fall-back answers
    rows, _ = HNSWIndex.build(vectors).search(vectors[7], 5, allowed)
    assert len(rows) == 5 and allowed[rows].all()
    assert list(rows) == list(ExactIndex(vectors).search(vectors[7], 5, allowed).rows)


def test_hnsw_saved_and_viewed_answers_the_same(tmp_path):
    vectors = unit_rows(300)
    built = HNSWIndex.build(vectors)
    built.save(tmp_path)
    loaded = HNSWIndex.load(tmp_path, built.params)
    for q in unit_rows(5, seed=9):
        assert list(loaded.search(q, 10).rows) == list(built.search(q, 10).rows)


def test_empty_indexes_find_nothing():
    empty = np.zeros((0, 8), dtype=np.float32)
    assert HNSWIndex.build(empty).search(np.ones(8, dtype=np.float32), 5).rows.size == 0
    assert ExactIndex(empty).search(np.ones(8, dtype=np.float32), 5).rows.size == 0
