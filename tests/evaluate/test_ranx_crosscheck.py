"""Slow tier: our metrics, our files and the engine's RRF against ranx.

ranx is not a dependency of palace_lab. Install it into the venv to run this tier:
``.venv/bin/pip install ranx`` (it brings numba). Without it every test here skips.
"""

import random

import pytest

pytestmark = pytest.mark.slow
ranx = pytest.importorskip(
    "ranx", reason="ranx is not installed or does not import: .venv/bin/pip install ranx",
    exc_type=ImportError)

from palace_lab.evaluate import evaluate, read_qrels, read_run, write_qrels, write_run  # noqa: E402


def random_case(seed, n_queries=25, n_docs=40):
    """Qrels with grades 0-3 (some queries without any relevant exchange) and a run without
    tied scores (ranx's order of ties is unspecified)."""
    rng = random.Random(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        docs = [f"d{i:03d}" for i in range(n_docs)]
        judged = rng.sample(docs, rng.randint(1, 8))
        qrels[f"q{q:02d}"] = {d: rng.choice([0, 0, 1, 2, 3]) if q % 7 else 0 for d in judged}
        retrieved = rng.sample(docs, rng.randint(1, 20))
        scores = rng.sample(range(1, 10_000), len(retrieved))
        run[f"q{q:02d}"] = {d: s / 100 for d, s in zip(retrieved, scores)}
    return qrels, run


PAIRS = {  # ours -> ranx's name for the same thing
    "mrr": "mrr-l2",
    "mrr@5": "mrr@5-l2",
    "p@1": "precision@1-l2",
    "p@5": "precision@5-l2",
    "ndcg@10": "ndcg@10",
    "ndcg_burges@10": "ndcg_burges@10",
    "recall@10": "recall@10-l2",
}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_metrics_match_ranx(seed):
    qrels, run = random_case(seed)
    ours = evaluate(qrels, run, list(PAIRS))
    theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), list(PAIRS.values()), make_comparable=True)
    for mine, name in PAIRS.items():
        assert ours[mine] == pytest.approx(float(theirs[name]), abs=1e-9), mine


def test_ranx_reads_the_files_we_write(tmp_path):
    qrels, run = random_case(5)
    write_qrels(tmp_path / "qrels.txt", qrels)
    write_run(tmp_path / "run.trec", run, tag="ours")
    r_qrels = ranx.Qrels.from_file(str(tmp_path / "qrels.txt"), kind="trec")
    r_run = ranx.Run.from_file(str(tmp_path / "run.trec"), kind="trec")
    theirs = ranx.evaluate(r_qrels, r_run, ["ndcg@10", "mrr-l2"], make_comparable=True)
    ours = evaluate(read_qrels(tmp_path / "qrels.txt"), read_run(tmp_path / "run.trec"), ["ndcg@10", "mrr"])
    assert ours["ndcg@10"] == pytest.approx(float(theirs["ndcg@10"]))
    assert ours["mrr"] == pytest.approx(float(theirs["mrr-l2"]))


def test_the_engines_rrf_matches_ranx():
    from palace_lab.search import fusion

    _, run_a = random_case(11)
    _, run_b = random_case(12)
    fused = ranx.fuse(runs=[ranx.Run(run_a), ranx.Run(run_b)], method="rrf", params={"k": 60}).to_dict()
    for qid in run_a:
        ours = fusion.rrf([run_a[qid], run_b[qid]], k=60)
        assert ours == pytest.approx(dict(fused[qid])), qid
