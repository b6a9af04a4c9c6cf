"""The paper-style table over hand-made runs whose metrics are known."""

import json

import pytest
from scipy import stats as sp

from palace_lab.evaluate.report import evaluate_modes, layer_class, mode_table, paper_table

QRELS = {f"q{i}": {"rel": 3} for i in range(4)}
QUERIES = [{"query_id": "q0", "query": "a", "type": "exact_term"},
           {"query_id": "q1", "query": "b", "type": "exact_term"},
           {"query_id": "q2", "query": "c", "type": "conceptual"},
           {"query_id": "q3", "query": "d", "type": "conceptual"}]
MODES = [
    {"name": "bm25:verbatim", "kind": "pure", "layers": ["verbatim"]},
    {"name": "hnsw:verbatim", "kind": "pure", "layers": ["verbatim"]},
    {"name": "hnsw:core", "kind": "pure", "layers": ["core"]},
    {"name": "hybrid", "kind": "cross", "layers": ["verbatim", "core"]},
]
RANKS = {  # rank of the relevant exchange per query q0..q3 (None: not retrieved)
    "bm25:verbatim": [1, 1, 2, None],   # mrr (1 + 1 + .5 + 0) / 4 = 0.625
    "hnsw:verbatim": [2, 2, 2, 2],      # 0.5
    "hnsw:core": [1, 1, 4, None],       # (1 + 1 + .25) / 4 = 0.5625
    "hybrid": [1, 1, 1, 2],             # 0.875
}


def run_for(ranks):
    run = {}
    for i, rank in enumerate(ranks):
        docs = {f"n{j}": 1.0 - j / 10 for j in range(4)}
        if rank is not None:
            docs.pop(f"n{rank - 1}")
            docs["rel"] = 1.0 - (rank - 1) / 10
        run[f"q{i}"] = docs
    return run


RUNS = {mode: run_for(ranks) for mode, ranks in RANKS.items()}


def test_layer_classes():
    assert layer_class(["verbatim"]) == "verbatim"
    assert layer_class(["core", "rooms"]) == "distilled"
    assert layer_class(["verbatim", "core"]) == "cross"
    assert layer_class([]) == "unknown"
    assert mode_table(["x"]) == {"x": {"kind": None, "layers": [], "class": "unknown"}}


def test_headline_numbers_by_hand():
    report = paper_table(RUNS, QRELS, MODES, queries=QUERIES)
    s = report.summary
    assert (s["best_verbatim"], s["best_verbatim_value"]) == ("bm25:verbatim", 0.625)
    assert (s["best_distilled"], s["best_distilled_value"]) == ("hnsw:core", 0.5625)
    assert s["distilled_over_verbatim"] == pytest.approx(0.5625 / 0.625)
    assert s["cross_gain"] == pytest.approx(0.875 - 0.625)
    assert s["cross_over_verbatim"] == pytest.approx(0.875 / 0.625)
    assert [r["mode"] for r in report.rows] == ["bm25:verbatim", "hnsw:verbatim", "hnsw:core", "hybrid"]


def test_significance_against_best_verbatim_is_bonferroni_corrected():
    report = paper_table(RUNS, QRELS, MODES, queries=QUERIES)
    row = next(r for r in report.rows if r["mode"] == "hybrid")
    raw = sp.ttest_rel([1, 1, 1, 0.5], [1, 1, 0.5, 0]).pvalue
    assert row["p_adj"] == pytest.approx(min(1.0, 3 * raw))
    assert report.rows[0]["significant"] == "baseline"
    assert report.comparison.baseline == "bm25:verbatim" and len(report.comparison.rows) == 3


def test_per_type_rows_and_ratios():
    report = paper_table(RUNS, QRELS, MODES, queries=QUERIES)
    conceptual = next(h for h in report.summary["by_type"] if h["type"] == "conceptual")
    # conceptual queries q2, q3: bm25:verbatim (.5 + 0)/2, hnsw:verbatim (.5 + .5)/2, core .125
    assert (conceptual["best_verbatim"], conceptual["best_verbatim_value"]) == ("hnsw:verbatim", 0.5)
    assert conceptual["distilled_over_verbatim"] == pytest.approx(0.125 / 0.5)
    exact = next(r for r in report.by_type if r["type"] == "exact_term" and r["mode"] == "hnsw:core")
    assert exact["mrr"] == 1.0 and exact["p@1"] == 1.0 and exact["n"] == 2


def test_renderings():
    report = paper_table(RUNS, QRELS, MODES, queries=QUERIES)
    text = report.to_markdown()
    assert "| mode | class | kind | n | mrr | p@1 | ndcg@10 | mean_grade@10 | judged@10 |" in text
    assert "best distilled: hnsw:core 0.562, ratio to best verbatim 0.900" in text
    data = json.loads(json.dumps(report.to_dict(), allow_nan=False))
    assert data["summary"]["best_cross"] == "hybrid"
    assert report.to_csv().splitlines()[0].startswith("mode,class,kind,n,mrr")
    assert list(report.to_dataframe()["mode"])[0] == "bm25:verbatim"


def test_no_types_no_type_table_and_unknown_modes_stay_out_of_the_headline():
    report = paper_table({"a": RUNS["hybrid"], "b": RUNS["hnsw:core"]}, QRELS)
    assert report.by_type == () and report.summary["best_verbatim"] is None
    assert report.comparison is None and {r["class"] for r in report.rows} == {"unknown"}


def test_evaluate_modes_runs_the_judged_queries_through_the_engine():
    asked = []

    def engine_run(queries, mode, k):
        asked.append((sorted(queries), mode, k))
        return RUNS[mode]

    report = evaluate_modes(engine_run, MODES, QUERIES[:3], QRELS)
    assert asked[0] == (["q0", "q1", "q2"], "bm25:verbatim", 10)
    assert set(report.runs) == {m["name"] for m in MODES}  # kept for save_run and pooling
    assert any("1 judged queries are not in the queries file" in n for n in report.notes)
    with pytest.raises(ValueError, match="none of the queries"):
        evaluate_modes(engine_run, MODES, {"zz": "text"}, QRELS)
