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
    label = bench_scale.family_label("hnsw", engine.readiness("hnsw:core"))
    assert label == "hnsw (fallback: bm25:core; missing hnsw:core)"
    built = SearchEngine(tiny[0], embedder="fake")
    assert bench_scale.family_label("hnsw", built.readiness("hnsw:core")) == "hnsw"


def test_the_time_to_full_strength_says_what_it_measured():
    """A reused palace whose vectors were stored: the index step embedded nothing, so no time
    to full strength is claimed; from scratch it is ingest + distill + index, with a target."""
    rows = []
    reused = {"index": {"seconds": 1.0, "rss_mb": 100, "embedded": 0}, "index_modes": "hybrid-wrrf",
              "reused": True, "full_strength_s": 1.0, "embedder": "minilm-int8",
              "first_search": {"embedded": 0}}
    bench_scale.full_strength_rows(reused, lambda *a, **k: rows.append(a), 5000.0)
    assert "0 texts embedded" in rows[0][1] and rows[1][1].startswith("not measured")
    rows.clear()
    fresh = {**reused, "reused": False, "full_strength_s": 900.0,
             "index": {"seconds": 700.0, "rss_mb": 500, "embedded": 50200}}
    bench_scale.full_strength_rows(fresh, lambda *a, **k: rows.append(a), 5000.0)
    assert rows[1][0] == "time to full strength (ingest + distill + first search + index)"
    assert rows[1][1] == "900 s" and rows[1][2] == "< 1200 s PASS"


def test_seed_approach_uses_stored_vectors_only(tiny):  # noqa: F811
    palace = tiny[0]
    lexical = bench_scale.seed_approach(palace, ["zebrafish", "quokka retry"])
    assert lexical["queries"] == 2 and not lexical["vectors"] and "p50_ms" in lexical
    assert bench_scale.parse_args(["--size", "100000"]).exchanges == 100000



def test_todays_path_reads_a_copy_without_the_later_indexes(tiny):  # noqa: F811
    """Today's code (git revision BASELINE_REV, three migrations) reads a copy of the palace
    without m004's indexes at version 3, every row kept, and its ``palace-lab search`` finds
    the exchange this code finds first."""
    import shutil
    import sqlite3

    import pytest

    palace = tiny[0]
    code = bench_scale.baseline_code(bench_scale.BASELINE_REV)
    if code is None:
        pytest.skip(f"revision {bench_scale.BASELINE_REV} is not in this clone's history")
    try:
        copy = bench_scale.baseline_palace(Path(palace.path), code)
        assert copy and copy.parent == code
        with sqlite3.connect(copy) as conn:
            assert conn.execute("PRAGMA user_version").fetchone()[0] == 3
            names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
            rows = conn.execute("SELECT COUNT(*) FROM exchanges").fetchone()[0]
        assert "exchanges_in_order" not in names and "cards_by_version" not in names
        assert rows == palace.count("exchanges")
        today = bench_scale.cli(str(copy), "search", "zebrafish", code=code)["stdout"]
        ours = bench_scale.cli(str(palace.path), "search", "zebrafish")["stdout"]
        assert today.split()[:3] and today.split()[2] == ours.split()[2]  # the same first id
    finally:
        shutil.rmtree(code, ignore_errors=True)
