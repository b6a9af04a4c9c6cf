"""Pooled grading: questions parsed and stored once, pools deduplicated in a hidden order,
progress and the next pair to grade."""

from palace_lab.evaluate import pooling

A = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d9": 1.0}}
B = {"q1": {"d3": 9.0, "d4": 8.0}, "q2": {"d9": 5.0, "d8": 4.0}}


def test_questions_come_one_per_line_or_as_jsonl_and_repeat_once():
    text = '# mine\nwhy did we pick SQLite?\n\n{"query_id": "x", "query": "the retry  backoff"}\nWhy did we pick sqlite?\n'
    qs = pooling.parse_questions(text)
    assert [q["query"] for q in qs] == ["why did we pick SQLite?", "the retry backoff"]
    assert qs[0]["query_id"] == pooling.own_query_id("WHY did we   pick sqlite?")
    assert qs[0]["query_id"].startswith("mine-") and len(qs[0]["query_id"]) == 17


def test_the_pool_is_each_runs_top_k_once_in_an_order_no_rank_decides():
    pool = pooling.pooled([A, B], depth=2)
    assert sorted(pool["q1"]) == ["d1", "d2", "d3", "d4"]  # d3: B's first, A's third (cut)
    assert sorted(pool["q2"]) == ["d8", "d9"]
    assert pool == pooling.pooled([B, A], depth=2)  # the runs' order does not matter
    reversed_scores = {q: {d: -s for d, s in r.items()} for q, r in A.items()}
    assert pooling.pooled([reversed_scores], depth=3)["q1"] == pooling.pooled([A], depth=3)["q1"]


def test_progress_and_next_ungraded_walk_the_pool():
    pool = {"q1": ["d2", "d1"], "q2": ["d9"]}
    qrels = {"q1": {"d2": 0}}
    p = pooling.progress(pool, qrels)
    assert (p.graded, p.pairs, p.questions_done, p.questions, p.complete) == (1, 3, 0, 2, False)
    assert pooling.next_ungraded(pool, qrels) == ("q1", 1)
    assert pooling.next_ungraded(pool, qrels, after=("q1", 1)) == ("q2", 0)
    full = {"q1": {"d2": 0, "d1": 3}, "q2": {"d9": 1}}
    assert pooling.next_ungraded(pool, full) is None and pooling.progress(pool, full).complete


def test_questions_are_stored_in_the_own_set_once(tmp_path):
    import lab_palaces

    palace = lab_palaces.build(tmp_path / "p.db", judged=False)
    qs = pooling.parse_questions("pool timeout\nrounding of amounts")
    assert pooling.add_questions(palace, qs) == 2
    assert pooling.add_questions(palace, qs) == 0
    assert {q["query"] for q in palace.queries(pooling.OWN_SET)} == {"pool timeout", "rounding of amounts"}
