"""benchmarks/bench_scale.py labels a vector family that ran its fallback, and times the seed's
approach (BM25 rebuilt per query, flat cosine only over stored vectors) on the tiny palace."""

from __future__ import annotations

import sys
from pathlib import Path

from marker_palace import tiny  # noqa: F401  (fixture)

from palace_lab.search import SearchEngine

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import bench_scale  # noqa: E402


def test_a_family_that_ran_its_fallback_is_labelled_so(tiny):  # noqa: F811
    engine = SearchEngine(tiny[0], embedder="fake", inline_embed=0)
    label = bench_scale.family_label("hnsw", engine.plan("hnsw:core"))
    assert label == "hnsw (fallback: bm25:core; missing hnsw:core)"
    built = SearchEngine(tiny[0], embedder="fake")
    assert bench_scale.family_label("hnsw", built.plan("hnsw:core")) == "hnsw"


def test_seed_approach_uses_stored_vectors_only(tiny):  # noqa: F811
    palace = tiny[0]
    lexical = bench_scale.seed_approach(palace, ["zebrafish", "quokka retry"])
    assert lexical["queries"] == 2 and not lexical["vectors"] and lexical["p50_ms"] > 0
    assert bench_scale.parse_args(["--size", "100000"]).exchanges == 100000
