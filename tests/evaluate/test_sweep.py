"""Sweeps, cross-validated tuning and pooling, with fake run_mode callables."""

import pytest

from palace_lab.errors import SearchError
from palace_lab.evaluate.sweep import grid, kfold, pool, pool_runs, sweep, tune, unjudged_report

QRELS = {"q1": {"rel": 2}, "q2": {"rel": 2}, "q3": {"rel": 2}}


def at_rank(rank):
    """One query's results with the relevant exchange at ``rank`` (None: not retrieved)."""
    docs = {f"n{i}": 1.0 - i / 10 for i in range(4)}
    if rank is not None:
        docs.pop(f"n{rank - 1}")
        docs["rel"] = 1.0 - (rank - 1) / 10
    return docs


def fake_engine(table):
    """run_mode for a table {mode: {qid: rank of the relevant exchange}}; unknown modes fail."""
    def run_mode(mode):
        if mode not in table:
            raise SearchError(f"unknown mode {mode!r}")
        return {q: at_rank(r) for q, r in table[mode].items()}
    return run_mode


def test_sweep_ranks_modes_and_survives_a_bad_one():
    run_mode = fake_engine({
        "bm25:verbatim": {"q1": 1, "q2": 2, "q3": None},
        "hnsw:core": {"q1": 1, "q2": 1, "q3": 2},
    })
    result = sweep(run_mode, ["bm25:verbatim", "hnsw:core", "nonsense"], QRELS, ["mrr", "p@1"])
    assert [r["mode"] for r in result.rows] == ["hnsw:core", "bm25:verbatim"]
    assert result.rows[0]["mrr"] == pytest.approx((1 + 1 + 0.5) / 3)
    assert result.rows[1]["mrr"] == pytest.approx((1 + 0.5 + 0) / 3)
    assert result.rows[0]["rank"] == 1 and result.rows[0]["unjudged@10"] == 9
    assert "nonsense" in result.errors
    assert result.compare("mrr").rows[0].a == "bm25:verbatim"
    assert "| 1 | hnsw:core |" in result.to_markdown()


def test_grid_and_kfold():
    assert grid(k=[20, 60], w=[0.5]) == [{"k": 20, "w": 0.5}, {"k": 60, "w": 0.5}]
    folds = kfold(["q5", "q1", "q2", "q3", "q4"], 2, seed=3)
    assert sorted(q for f in folds for q in f) == ["q1", "q2", "q3", "q4", "q5"]
    assert sorted(len(f) for f in folds) == [2, 3]
    assert folds == kfold(["q1", "q2", "q3", "q4", "q5"], 2, seed=3)
    with pytest.raises(ValueError, match="folds"):
        kfold(["q1", "q2"], 3)
    with pytest.raises(ValueError, match="axis"):
        grid()


# Per-query MRR of the two grid points: A wins big on q1 only, B wins modestly on q2 and q3.
#        q1   q2   q3          in-sample: A = 1/3, B = (0 + 1/2 + 1/3) / 3 = 5/18 -> A
TUNING_TABLE = {
    "fuse(w=0.3)": {"q1": 1, "q2": None, "q3": None},   # A: 1, 0, 0
    "fuse(w=0.7)": {"q1": None, "q2": 2, "q3": 3},      # B: 0, 1/2, 1/3
}


def test_tune_chooses_on_train_folds_and_shows_the_optimism():
    # Leave-one-out (3 folds over 3 queries). Held out q1: train q2, q3 -> B (5/12 > 0), B scores
    # 0 on q1. Held out q2: train q1, q3 -> A (1/2 > 1/6), A scores 0 on q2. Held out q3: A
    # (1/2 > 1/4), scores 0. So CV = 0 while the in-sample best (A) claims 1/3.
    result = tune(fake_engine(TUNING_TABLE), "fuse(w={w})", {"w": [0.3, 0.7]}, QRELS, folds=3, seed=0)
    by_test = {kfold(QRELS, 3, 0)[f["fold"] - 1][0]: f for f in result.folds}
    assert by_test["q1"]["mode"] == "fuse(w=0.7)" and by_test["q1"]["train_score"] == pytest.approx(5 / 12)
    assert by_test["q2"]["mode"] == "fuse(w=0.3)" and by_test["q2"]["train_score"] == pytest.approx(1 / 2)
    assert by_test["q3"]["mode"] == "fuse(w=0.3)" and by_test["q3"]["params"] == {"w": 0.3}
    assert all(f["test_score"] == 0.0 for f in result.folds)
    assert result.cv_score == 0.0
    assert result.in_sample == {"params": {"w": 0.3}, "mode": "fuse(w=0.3)", "score": pytest.approx(1 / 3)}
    assert result.optimism == pytest.approx(1 / 3)
    assert "optimism +0.333" in result.to_markdown()
    assert result.to_dict()["grid"][1]["score"] == pytest.approx(5 / 18)


def test_tune_two_folds_picks_the_argmax_of_each_train_fold():
    qrels = {f"q{i}": {"rel": 2} for i in range(6)}
    ranks = {"a": [1, 1, 1, None, None, None], "b": [2, 2, 2, 2, 2, 2]}
    table = {f"m({p})": {f"q{i}": r for i, r in enumerate(rs)} for p, rs in ranks.items()}
    result = tune(fake_engine(table), lambda p: f"m({p['x']})", [{"x": "a"}, {"x": "b"}], qrels,
                  folds=2, seed=7)
    values = {"m(a)": [1, 1, 1, 0, 0, 0], "m(b)": [0.5] * 6}
    for fold, test in zip(result.folds, kfold(qrels, 2, 7)):
        train = [int(q[1]) for q in qrels if q not in test]
        means = {m: sum(v[i] for i in train) / len(train) for m, v in values.items()}
        best = max(means, key=lambda m: (means[m], m == "m(a)"))  # ties: first grid point
        assert fold["mode"] == best
        assert fold["test_score"] == pytest.approx(sum(values[best][int(q[1])] for q in test) / len(test))


def test_pool_is_the_union_of_both_top_k_minus_judged_pairs():
    run_a = {"q1": {"a": 0.9, "b": 0.8, "c": 0.7}, "q2": {"x": 1.0}}
    run_b = {"q1": {"d": 0.9, "a": 0.5, "e": 0.1}, "q3": {"z": 1.0}}
    judged = {"q1": {"a": 3}, "q2": {"x": 0}}
    assert pool(run_a, run_b, 2, judged=judged) == {"q1": ["d", "b"], "q3": ["z"]}
    assert pool(run_a, run_b, 3) == {"q1": ["a", "d", "b", "c", "e"], "q2": ["x"], "q3": ["z"]}
    assert pool_runs([run_a], 1) == {"q1": ["a"], "q2": ["x"]}


def test_unjudged_report_counts_per_mode():
    runs = {"m1": {"q1": at_rank(1)}, "m2": {"q1": at_rank(None)}}
    report = unjudged_report(runs, {"q1": {"rel": 2, "n1": 0}}, 10)
    assert report["m1"] == {"k": 10, "retrieved": 4, "unjudged": 2, "judged_fraction": 0.5}
    assert report["m2"]["unjudged"] == 3
