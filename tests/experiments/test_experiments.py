"""Query sets in the palace, the evaluation report of many modes, the recent query vectors."""

from __future__ import annotations

import numpy as np
import pytest

import lab_palaces
from palace_lab.experiments import query_sets as experiments
from palace_lab.index.embed import FakeEmbedder
from palace_lab.index.recent import RecentEmbedder
from palace_lab.evaluate.io import write_qrels, write_queries
from palace_lab.search import SearchEngine


def test_import_query_files_and_list_the_sets(tmp_path):
    palace = lab_palaces.build(tmp_path / "p.db", judged=False)
    ids = lab_palaces.exchange_ids(palace)
    write_queries(tmp_path / "q.jsonl", lab_palaces.QUERIES)
    write_qrels(tmp_path / "qrels.txt", {"q1": {ids["pool"]: 3, "xgone": 1}, "q2": {ids["rounding"]: 2}})
    counts = experiments.import_query_files(palace, tmp_path / "q.jsonl", tmp_path / "qrels.txt")
    assert counts == {"queries": 4, "judgments": 3, "dangling": 1}
    palace.put_queries("lab", [{"query_id": "lab-1", "query": "pool"}])
    palace.put_judgments("human", {"lab-1": {ids["pool"]: 3}})
    assert experiments.set_rows(palace) == [
        {"query_set": "lab", "kind": "graded", "queries": 1, "judged_queries": 1, "judgments_human": 1},
        {"query_set": "sample", "kind": "graded", "queries": 4, "judged_queries": 2,
         "judgments_qrels": 3}]
    queries, qrels = experiments.judged_set(palace, "sample")
    assert [q["query_id"] for q in queries] == ["q1", "q2"] and set(qrels) == {"q1", "q2"}


def test_a_known_item_set_is_a_probe_and_never_the_headline_set(tmp_path):
    palace = lab_palaces.build(tmp_path / "p.db", judged=False)
    ids = lab_palaces.exchange_ids(palace)
    palace.put_queries("known_item", [{"query_id": "ki1", "query": "pool"}])
    palace.put_judgments("qrels:known_item", {"ki1": {ids["pool"]: 3}})
    assert experiments.is_probe("known_item") and not experiments.is_probe("sample")
    assert experiments.set_label("known_item") == "known_item (known-item probe)"
    assert experiments.set_rows(palace)[0]["kind"] == "known-item probe"
    assert experiments.graded_sets(palace) == []
    assert experiments.headline_set(palace, "known_item") is None
    palace.put_queries("mine", [{"query_id": "m1", "query": "pool"}])
    palace.put_judgments("human", {"m1": {ids["pool"]: 2}})
    assert experiments.headline_set(palace, "known_item") == "mine"
    assert experiments.headline_set(palace, "mine") == "mine"


def test_headline_intervals_bracket_the_figures():
    qrels = {f"q{i}": {f"d{i}": 3} for i in range(10)}
    verbatim = {f"q{i}": {f"d{i}": 1.0} for i in range(10)}  # RR 1 everywhere
    core = {f"q{i}": ({f"d{i}": 1.0} if i % 2 else {"x": 2.0, f"d{i}": 1.0}) for i in range(10)}
    summary = {"best_verbatim": "v", "best_distilled": "c", "default_mode": "c"}
    out = experiments.headline_intervals({"v": verbatim, "c": core}, qrels, summary)
    assert out["kept"]["value"] == pytest.approx(0.75) and out["kept"]["n"] == 10
    assert out["kept"]["lo"] <= 0.75 <= out["kept"]["hi"] <= 1.0
    assert out["default_vs_verbatim"]["value"] == pytest.approx(-0.25)
    assert out["best_verbatim"] == {"value": 1.0, "lo": 1.0, "hi": 1.0, "n": 10, "level": 0.95}


def test_describe_modes_reads_presets_pure_names_and_any_string():
    info = experiments.describe_modes(["bm25:verbatim", "hybrid-rrf", "rrf(bm25:core,hnsw:all;k=5)"])
    assert info["bm25:verbatim"] == {"kind": "pure", "layers": ["verbatim"]}
    assert info["hybrid-rrf"] == {"kind": "cross", "layers": ["verbatim", "core"]}
    assert info["rrf(bm25:core,hnsw:all;k=5)"] == {"kind": "cross", "layers": ["core", "all"]}


def test_report_and_significance_name_their_correction(tmp_path):
    palace = lab_palaces.build(tmp_path / "p.db")
    engine = SearchEngine(palace, embedder="fake")
    queries, qrels = experiments.judged_set(palace, "sample")
    texts = {q["query_id"]: q["query"] for q in queries}
    runs = {m: engine.run(texts, m) for m in ("bm25:verbatim", "bm25:core", "hybrid-rrf")}
    report = experiments.report(runs, qrels, queries, correction="holm")
    assert report.comparison.correction == "holm"
    assert report.summary["best_verbatim"] == "bm25:verbatim"
    assert {r["type"] for r in report.by_type} == {"conceptual", "exact_term", "file_path", "error"}
    sig = experiments.significance(runs, qrels, correction="bonferroni")
    assert sig.correction == "bonferroni" and len(sig.rows) == 3  # every pair
    with pytest.raises(ValueError, match="valid corrections: holm, bonferroni"):
        experiments.significance(runs, qrels, correction="sidak")
    with pytest.raises(ValueError, match="at least two modes"):
        experiments.significance({"a": runs["bm25:core"]}, qrels)


def test_memo_embedder_embeds_each_text_once_and_keeps_the_name():
    calls = []

    class Counting(FakeEmbedder):
        def embed_batch(self, texts):
            calls.append(list(texts))
            return super().embed_batch(texts)

    recent = RecentEmbedder(Counting(), size=2)
    assert recent.name == FakeEmbedder().name and recent.dim == 384
    a = recent.embed_batch(["x", "y", "x"])
    b = recent.embed_batch(["y", "x"])
    assert calls == [["x", "y"]]
    assert np.allclose(a[0], b[1]) and np.allclose(a[0], FakeEmbedder().embed_batch(["x"])[0])
    recent.embed_batch(["z"])  # evicts the oldest
    recent.embed_batch(["x"])
    assert calls[-1] == ["x"]
    assert recent.embed_batch([]).shape == (0, 384)
