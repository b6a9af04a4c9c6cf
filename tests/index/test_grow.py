"""An HNSW index of a large layer grows (usearch add/remove) instead of being rebuilt; a small
one is rebuilt, so a small palace always ranks alike. The tiny palace of test_search_modes,
fake embedder; "large" is forced by lowering the growth threshold."""

from __future__ import annotations

import pytest
from conftest import write_jsonl
from marker_palace import TARGET, _conversation, tiny  # noqa: F401  (fixture)

from palace_lab.index import grow
from palace_lab.ingest import ingest_paths
from palace_lab.search import SearchEngine

NEW = _conversation("c-new", "gamma", 9, "How do we keep the platypus cache warm?",
                    "Prefetch the platypus keys at start.")


def _steps(engine) -> list[tuple[str, str, str, int]]:
    return [(e["layer"], e["mechanism"], e["step"], e["n"]) for e in engine.indexes.build_log]


def _add(palace, tmp_path, records, name="more.jsonl"):
    ingest_paths(palace, [write_jsonl(tmp_path / name, records)])


@pytest.fixture
def large(monkeypatch):
    monkeypatch.setattr(grow, "GROW_FROM", 0)


def test_delta_names_dropped_rows_and_added_texts():
    change = grow.delta(["a", "b", "", "c"], ["ha", "hb", "", "hc"],
                        ["a", "c", "d"], ["ha", "hc2", "hd"])
    assert change.dropped == [1, 3]  # b is gone, c's text changed
    assert change.added == [1, 2]  # c (new text) and d


def test_new_exchange_is_added_not_rebuilt(tiny, tmp_path, large):  # noqa: F811
    palace = tiny[0]
    SearchEngine(palace, embedder="fake").search("retry", "hnsw:verbatim", k=1)
    _add(palace, tmp_path, NEW)
    engine = SearchEngine(palace, embedder="fake")
    hits = engine.search("platypus cache", "hnsw:verbatim", k=1)
    assert hits[0].conversation_id == "c-new"
    assert ("verbatim", "hnsw", "grow", 1) in _steps(engine)
    assert not any(s[2] == "index" for s in _steps(engine))  # no graph was rebuilt
    fresh = SearchEngine(palace, embedder="fake", cache=False)
    assert {h.exchange_id for h in fresh.search("platypus retry", "hnsw:verbatim", k=5)} == \
        {h.exchange_id for h in engine.search("platypus retry", "hnsw:verbatim", k=5)}


def test_removed_exchange_never_shows_up(tiny, tmp_path, large, monkeypatch):  # noqa: F811
    palace, by_conv = tiny
    monkeypatch.setattr(grow, "COMPACT_AT", 0.5)  # one blank row of five is allowed
    SearchEngine(palace, embedder="fake").search("zebrafish", "hnsw:verbatim", k=1)
    _add(palace, tmp_path, NEW)  # something to grow by, so the drop happens in a grown index
    gone = by_conv[TARGET].exchange_id
    with palace.transaction() as tx:
        tx.execute("DELETE FROM exchanges WHERE exchange_id=?", (gone,))
    engine = SearchEngine(palace, embedder="fake")
    for filters in (None, {"project": "alpha"}):
        hits = engine.search("zebrafish retry loop", "hnsw:verbatim", k=10, filters=filters)
        assert gone not in {h.exchange_id for h in hits}
    index = engine.indexes.get("verbatim", "hnsw")
    assert "" in index.ids and gone not in index.ids
    assert ("verbatim", "hnsw", "grow", 2) in _steps(engine)  # one dropped, one added


def test_small_layer_is_rebuilt_so_rankings_repeat(tiny, tmp_path):  # noqa: F811
    palace = tiny[0]
    SearchEngine(palace, embedder="fake").search("retry", "hnsw:verbatim", k=1)
    _add(palace, tmp_path, NEW)
    engine = SearchEngine(palace, embedder="fake")
    hits = engine.search("platypus retry", "hnsw:verbatim", k=5)
    assert not any(s[2] == "grow" for s in _steps(engine))
    assert hits == SearchEngine(palace, embedder="fake", cache=False).search(
        "platypus retry", "hnsw:verbatim", k=5)


def test_too_many_blank_rows_compact_by_rebuilding(tiny, tmp_path, large,  # noqa: F811
                                                   monkeypatch):
    palace, by_conv = tiny
    monkeypatch.setattr(grow, "COMPACT_AT", 0.0)
    SearchEngine(palace, embedder="fake").search("retry", "hnsw:verbatim", k=1)
    with palace.transaction() as tx:
        tx.execute("DELETE FROM exchanges WHERE exchange_id=?", (by_conv["c-csv"].exchange_id,))
    engine = SearchEngine(palace, embedder="fake")
    engine.search("retry", "hnsw:verbatim", k=1)
    assert ("verbatim", "hnsw", "index", 3) in _steps(engine)
    assert "" not in engine.indexes.get("verbatim", "hnsw").ids


def test_too_many_new_texts_search_the_previous_index_behind(tiny, tmp_path):  # noqa: F811
    """A search that would embed more than it may inline searches the HNSW index of before
    (says so; removed rows never come back) while BM25 finds the new exchange."""
    from palace_lab.search import DEFAULT_MODE

    palace, by_conv = tiny
    SearchEngine(palace, embedder="fake").search("retry", DEFAULT_MODE, k=1)
    _add(palace, tmp_path, NEW)
    gone = by_conv["c-csv"].exchange_id
    with palace.transaction() as tx:
        tx.execute("DELETE FROM exchanges WHERE exchange_id=?", (gone,))
    engine = SearchEngine(palace, embedder="fake", inline_embed=0)
    answer = engine.answer("platypus csv dtype", "hnsw:verbatim", k=10)
    assert [str(r) for r in answer.readiness.behind] == ["hnsw:verbatim"] and not answer.readiness.missing
    assert answer.readiness.behind_pending == (1,) and "behind" in answer.readiness.note()
    found = {h.conversation_id for h in answer.hits}
    assert "c-csv" not in found and "c-new" not in found and found  # the old rows, less gone
    assert not engine.indexes.is_cached("verbatim", "hnsw")  # nothing was embedded
    fused = engine.answer("platypus cache warm", DEFAULT_MODE, k=3)
    assert fused.readiness.behind and fused.hits[0].conversation_id == "c-new"  # through BM25
    engine.prepare(["hnsw:verbatim"])
    assert not engine.readiness("hnsw:verbatim").degraded
    assert "c-new" in {h.conversation_id for h in engine.search("platypus", "hnsw:verbatim")}
