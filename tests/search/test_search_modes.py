"""Search modes end to end on a tiny palace, with the fake embedder and hand-written cards.

The palace holds four exchanges. The target exchange carries one marker word per layer, so a
query for that word can only be matched by the layers whose text contains it:

- ``zebrafish``: only in the verbatim text (tool output);
- ``quokka``: in the card's exchange_core (core, core+files, core+rooms, core+keywords, all);
- ``narwhal``: in the card's files_touched (core+files, all);
- ``pangolin``: in the card's keywords (core+keywords, all);
- ``axolotl``: in a room label/key (core+rooms, all).
"""

from __future__ import annotations

import pytest
from conftest import write_jsonl
from marker_palace import MARKERS, TARGET, _put_cards, _records, tiny  # noqa: F401  (fixture)

from palace_lab.errors import SearchError
from palace_lab.text.tokenize import Tokenizer
from palace_lab.ingest import ingest_paths
from palace_lab.index.layers import LAYERS, layer_texts
from palace_lab.search import SearchEngine, list_modes, parse_mode
from palace_lab.search.modes import PRESETS, FusedMode, PureMode


@pytest.fixture
def engine(tiny):
    return SearchEngine(tiny[0], embedder="fake")


# -- parsing and listing ------------------------------------------------------------------


def test_parse_pure_fused_and_presets():
    assert parse_mode("bm25:verbatim") == PureMode("bm25", "verbatim")
    fused = parse_mode(" rrf( bm25:verbatim , hnsw:core ; k=20 ) ")
    assert isinstance(fused, FusedMode) and fused.param("k") == 20
    assert str(fused) == "rrf(bm25:verbatim,hnsw:core;k=20)"
    assert str(parse_mode("hybrid-rrf")) == "rrf(bm25:verbatim,hnsw:core;k=60)"
    assert str(parse_mode("wsum(bm25:verbatim=0.2,hnsw:core)")) == \
        "wsum(bm25:verbatim=0.2,hnsw:core=0.8;norm=minmax)"
    assert parse_mode("combmnz(bm25:core,exact:all)").param("norm") == "p95"
    for m in list_modes():
        assert parse_mode(str(parse_mode(m["name"]))) == parse_mode(m["name"])


@pytest.mark.parametrize("text, expected", [
    ("nope", "valid mechanisms: bm25, hnsw, exact"),
    ("bm25:raw", "valid layers: verbatim, core, core+files, core+rooms, core+keywords, all"),
    ("faiss:core", "valid mechanisms: bm25, hnsw, exact"),
    ("borda(bm25:core,hnsw:core)", "valid fusions: rrf, wrrf, wsum, combmnz"),
    ("rrf(bm25:core)", "two or more runs"),
    ("rrf(bm25:core,bm25:core)", "appears twice"),
    ("rrf(bm25:core,hnsw:core;norm=p95)", "valid parameters: k"),
    ("combmnz(bm25:core,hnsw:core;norm=max)", "valid normalisers: minmax, p95, zscore"),
    ("rrf(bm25:core=0.5,hnsw:core)", "takes no run weights"),
    ("wsum(bm25:core=x,hnsw:core)", "not a number"),
    ("rrf(rrf(bm25:core,hnsw:core),bm25:verbatim)", "no nesting"),
    ("", "valid mechanisms"),
])
def test_parse_errors_name_what_is_valid(text, expected):
    with pytest.raises(SearchError, match=expected.replace("(", r"\(").replace("+", r"\+")):
        parse_mode(text)


def test_list_modes_contents():
    modes = {m["name"]: m for m in list_modes()}
    pure = [m for m in modes.values() if m["kind"] == "pure"]
    assert len(pure) == len(LAYERS) * 3
    for m in modes.values():
        assert set(m) >= {"name", "kind", "layers", "mechanisms", "description"}
    cross = [m for m in modes.values() if m["kind"] == "cross"]
    assert len(cross) >= 5 and set(PRESETS) <= set(modes)
    best = modes["hybrid-rrf"]
    assert best["mode"] == "rrf(bm25:verbatim,hnsw:core;k=60)"
    assert best["layers"] == ["verbatim", "core"] and best["mechanisms"] == ["bm25", "hnsw"]
    assert modes["hybrid-combmnz"]["mode"] == "combmnz(bm25:verbatim,hnsw:core;norm=p95)"
    assert modes["verbatim-fusion"]["mode"] == "rrf(bm25:verbatim,hnsw:verbatim;k=60)"


# -- each layer is what its modes search --------------------------------------------------


def test_layer_texts_skip_exchanges_without_cards(tiny):
    palace, by_conv = tiny
    ids, texts = layer_texts(palace, "verbatim", "hand:v1")
    assert len(ids) == 4
    ids, texts = layer_texts(palace, "core+rooms", "hand:v1")
    assert by_conv["c-docs"].exchange_id not in ids and len(ids) == 3
    target = texts[ids.index(by_conv[TARGET].exchange_id)]
    assert target == "Tuned the quokka retry loop.\nmax_retries=5\nAxolotl tuning (axolotl_tuning)"


@pytest.mark.parametrize("mode", [m["name"] for m in list_modes() if m["kind"] == "pure"])
def test_each_pure_mode_searches_its_own_layer(engine, tiny, mode):
    target = tiny[1][TARGET].exchange_id
    layer = parse_mode(mode).layer
    for marker, layers in MARKERS.items():
        hits = engine.search(marker, mode, k=10)
        score = next((h.score for h in hits if h.exchange_id == target), None)
        if layer in layers:
            assert hits[0].exchange_id == target and hits[0].score > 0, (marker, mode)
        else:
            assert score is None or score <= 1e-6, (marker, mode, hits)


def test_fused_mode_combines_layers(engine, tiny):
    target = tiny[1][TARGET].exchange_id
    for mode in PRESETS:
        hits = engine.search("zebrafish quokka", mode, k=3)
        assert hits and hits[0].exchange_id == target, mode
        assert [h.rank for h in hits] == list(range(1, len(hits) + 1))


def test_hit_points_at_the_verbatim_exchange(engine, tiny):
    hit = engine.search("quokka", "bm25:core", k=1)[0]
    assert hit.conversation_id == TARGET and (hit.ply_start, hit.ply_end) == (0, 2)
    assert hit.preview.startswith("Please look at the retry loop")


def test_k_larger_than_the_corpus(engine):
    assert len(engine.search("retry", "exact:verbatim", k=50)) == 4
    assert len(engine.search("retry", "hnsw:core", k=50)) == 3
    assert 1 <= len(engine.search("retry", "bm25:verbatim", k=50)) <= 4
    # the union of its runs: BM25 matches only "retry" docs, c-docs has no card for hnsw:core
    assert len(engine.search("retry", "hybrid-rrf", k=1000)) == 3
    assert len(engine.search("retry", "verbatim-fusion", k=1000)) == 4


def test_bad_k_and_unknown_filter(engine):
    with pytest.raises(SearchError, match="positive integer"):
        engine.search("x", "bm25:verbatim", k=0)
    with pytest.raises(SearchError, match="valid filters: project, date_from, date_to, room"):
        engine.search("x", "bm25:verbatim", filters={"author": "me"})


def test_run_is_a_plain_run(engine, tiny):
    run = engine.run({"q1": "quokka", "q2": "leading zeros csv"}, "hybrid-rrf", k=2)
    assert set(run) == {"q1", "q2"} and all(len(r) <= 2 for r in run.values())
    assert max(run["q1"], key=run["q1"].get) == tiny[1][TARGET].exchange_id
    assert max(run["q2"], key=run["q2"].get) == tiny[1]["c-csv"].exchange_id


# -- filters ------------------------------------------------------------------------------


def test_filters_project_dates_and_room(engine, tiny):
    by_conv = tiny[1]
    ids = lambda hits: {h.conversation_id for h in hits}  # noqa: E731
    assert ids(engine.search("the", "exact:verbatim", k=10, filters={"project": "beta"})) == \
        {"c-ci", "c-docs"}
    window = {"from": "2024-05-02", "to": "2024-05-03"}
    assert ids(engine.search("the", "hnsw:verbatim", k=10, filters=window)) == {"c-csv", "c-ci"}
    assert ids(engine.search("the", "exact:verbatim", k=10,
                             filters={"date_to": "2024-05-01T23:00:00+02:00"})) == {TARGET}
    room = engine.search("csv", "hybrid-rrf", k=10, filters={"room": "axolotl_tuning"})
    assert [h.exchange_id for h in room] == [by_conv[TARGET].exchange_id]
    assert engine.search("csv", "bm25:verbatim", k=10, filters={"project": "gamma"}) == []
    with pytest.raises(SearchError, match="ISO date"):
        engine.search("csv", "bm25:verbatim", filters={"from": "last tuesday"})


# -- BM25 treats the query as words --------------------------------------------------------


def test_bm25_hyphens_and_quotes_are_words(engine):
    queries = ['continue-on-error', '"continue-on-error"', '-error continue', 'continue "on" error']
    for query in queries:
        hits = engine.search(query, "bm25:verbatim", k=10)
        assert hits[0].conversation_id == "c-ci", query
    # "error" alone is not excluded by a leading hyphen: the ci exchange still matches it
    assert engine.search("-failures", "bm25:verbatim", k=5)[0].conversation_id == "c-ci"
    assert Tokenizer()('"continue-on-error" pool_timeout') == \
        ["continu", "error", "pool_timeout", "pool", "timeout"]


# -- cache and staleness ------------------------------------------------------------------


def test_indexes_are_cached_and_reloaded(tiny):
    palace = tiny[0]
    first = SearchEngine(palace, embedder="fake")
    before = first.search("quokka", "hybrid-rrf", k=3)
    again = SearchEngine(palace, embedder="fake")
    assert again.search("quokka", "hybrid-rrf", k=3) == before
    steps = {(e["layer"], e["mechanism"], e["step"]) for e in again.indexes.build_log}
    assert steps == {("verbatim", "bm25", "load"), ("core", "hnsw", "load")}
    folders = sorted(p.name for p in (palace.path.parent / "palace.db.indexes").iterdir())
    assert [f.split("~")[:2] for f in folders] == [["core", "hnsw"], ["verbatim", "bm25"]]
    for folder in (palace.path.parent / "palace.db.indexes").iterdir():
        assert (folder / "meta.json").is_file() and (folder / "ids.json").is_file()


def test_reingest_makes_the_index_stale(tiny, tmp_path):
    palace, _ = tiny
    engine = SearchEngine(palace, embedder="fake")
    assert engine.search("platypus", "bm25:verbatim", k=3) == []
    old_key = engine.indexes.key("verbatim", "bm25")
    changed = _records(target_answer="The platypus retry loop works now.")
    ingest_paths(palace, [write_jsonl(tmp_path / "history.jsonl", changed)])
    assert engine.indexes.key("verbatim", "bm25") != old_key  # same engine notices
    # The edited copy is kept beside the stored one (the palace is an archive): TARGET~<hash>.
    assert engine.search("platypus", "bm25:verbatim", k=3)[0].conversation_id.startswith(TARGET)
    fresh = SearchEngine(palace, embedder="fake")
    assert fresh.search("platypus", "bm25:verbatim", k=3)[0].conversation_id.startswith(TARGET)
    root = palace.path.parent / "palace.db.indexes"
    assert [p.name for p in root.iterdir()] == [engine.indexes.key("verbatim", "bm25")]


def test_new_distiller_version_makes_distilled_indexes_stale(tiny):
    palace, _ = tiny
    engine = SearchEngine(palace, embedder="fake")  # follows the newest distiller
    assert engine.search("quokka", "bm25:core", k=1)[0].conversation_id == TARGET
    verbatim_key = engine.indexes.key("verbatim", "bm25")
    core_key = engine.indexes.key("core", "bm25")
    # latest_distiller() orders by created_at (whole seconds): make v1 visibly older
    with palace.transaction() as tx:
        tx.execute("UPDATE cards SET created_at='2024-01-01T00:00:00Z' WHERE distiller='hand:v1'")
    _put_cards(palace, distiller="hand:v2", target_core="Tuned the wombat retry loop.")
    assert engine.distiller == "hand:v2"
    assert engine.indexes.key("core", "bm25") != core_key
    assert engine.indexes.key("verbatim", "bm25") == verbatim_key  # no cards in verbatim
    assert engine.search("wombat", "bm25:core", k=1)[0].conversation_id == TARGET
    assert engine.search("quokka", "bm25:core", k=1) == []
    pinned = SearchEngine(palace, embedder="fake", distiller="hand:v1")
    assert pinned.search("quokka", "bm25:core", k=1)[0].conversation_id == TARGET


def test_re_distilled_card_of_the_same_version_makes_it_stale(tiny):
    palace, _ = tiny
    engine = SearchEngine(palace, embedder="fake", distiller="hand:v1")
    assert engine.search("quokka", "bm25:core", k=1)
    _put_cards(palace, distiller="hand:v1", target_core="Tuned the dingo retry loop.")
    assert engine.search("dingo", "bm25:core", k=1)[0].conversation_id == TARGET


def test_distilled_modes_need_cards(palace, tmp_path):
    ingest_paths(palace, [write_jsonl(tmp_path / "h.jsonl", _records())])
    engine = SearchEngine(palace, embedder="fake")
    assert engine.search("zebrafish", "bm25:verbatim", k=1)[0].conversation_id == TARGET
    with pytest.raises(SearchError, match="distill"):
        engine.search("quokka", "hybrid-rrf", k=1)


def test_uncached_engine_writes_no_files(tiny):
    palace = tiny[0]
    engine = SearchEngine(palace, embedder="fake", cache=False)
    assert engine.search("quokka", "exact:core", k=1)[0].conversation_id == TARGET
    assert not (palace.path.parent / "palace.db.indexes").exists()


def test_unknown_embedder(tiny):
    with pytest.raises(SearchError, match="valid embedders: minilm, minilm-int8, minilm-int8-128, minilm-static, fake"):
        SearchEngine(tiny[0], embedder="bert")


# -- the index mechanisms on their own ----------------------------------------------------


def test_stopword_only_query_finds_nothing_lexically(engine):
    assert engine.search("the of and", "bm25:verbatim", k=5) == []
    assert engine.search("", "bm25:core", k=5) == []
    assert len(engine.search("", "exact:verbatim", k=5)) == 4  # vectors always rank


def test_hnsw_matches_exact_and_filters_like_it():
    import numpy as np

    from palace_lab.index.exact import ExactIndex
    from palace_lab.index.hnsw import HNSWIndex, recall_at_k

    rng = np.random.default_rng(0)
    centres = rng.normal(size=(20, 32))
    vectors = centres[rng.integers(0, 20, 2000)] + 0.3 * rng.normal(size=(2000, 32))
    vectors = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)
    hnsw, exact = HNSWIndex.build(vectors), ExactIndex.build(vectors)
    queries = vectors[:50] + 0.05 * rng.normal(size=(50, 32)).astype(np.float32)
    queries = (queries / np.linalg.norm(queries, axis=1, keepdims=True)).astype(np.float32)
    approx = [hnsw.search(q, 10).rows for q in queries]
    truth = [exact.search(q, 10).rows for q in queries]
    assert recall_at_k(approx, truth, 10) > 0.9
    found = hnsw.search(queries[0], 10)
    assert np.allclose(found.scores, vectors[found.rows] @ queries[0], atol=1e-4)  # 1 − d
    allowed = np.zeros(2000, dtype=bool)
    allowed[[3, 500, 1999]] = True  # far fewer than the graph returns: exact fall-back
    rows = hnsw.search(queries[0], 10, allowed).rows
    assert sorted(rows.tolist()) == [3, 500, 1999]
    assert hnsw.search(queries[0], 10, np.zeros(2000, dtype=bool)).rows.size == 0


def test_hnsw_build_parameters_are_keyword_only():
    import numpy as np

    from palace_lab.index.hnsw import HNSWIndex

    with pytest.raises(TypeError):
        HNSWIndex.build(np.eye(4, dtype=np.float32), 8)  # type: ignore[misc]
    index = HNSWIndex.build(np.eye(4, dtype=np.float32), connectivity=8, expansion_search=16)
    assert index.params.connectivity == 8 and index.params.expansion_add == 128


def test_a_mode_list_splits_only_between_modes():
    from palace_lab.search.modes import mode_names, parse_mode_list

    assert parse_mode_list("bm25:core, rrf(bm25:verbatim,hnsw:core;k=60),,hnsw:core") == [
        "bm25:core", "rrf(bm25:verbatim,hnsw:core;k=60)", "hnsw:core"]
    assert parse_mode_list("all") == parse_mode_list("") == mode_names()
    presets = parse_mode_list("presets")
    assert "hybrid-wrrf" in presets and "bm25:core" not in presets


def test_one_search_and_a_batch_give_the_same_hits():
    from palace_lab.model import Exchange, hits_of

    def ex(eid, request, verbatim):
        return Exchange(exchange_id=eid, conversation_id="c", ply_start=0, ply_end=1,
                        request=request, verbatim=verbatim, dialogue="")

    found = {"a": ex("a", "fix the pool", "user: fix the pool"), "b": ex("b", "", "tool: ls")}
    hits = hits_of([("b", 2.0), ("gone", 1.5), ("a", 1.0)], found)
    assert [(h.exchange_id, h.rank, h.preview) for h in hits] == [("b", 1, "tool: ls"),
                                                                  ("a", 2, "fix the pool")]


def test_card_layers_read_from_cards_alone_as_with_their_exchanges(tiny):
    """A layer whose text needs only the card is read without the exchanges' text, in the same
    order and with the same texts as the exchange-by-exchange reading."""
    palace = tiny[0]
    cards = palace.card_map("hand:v1")
    for name, spec in LAYERS.items():
        if not spec.needs_cards:
            continue
        assert not spec.needs_exchange
        kept = [(e, cards[e.exchange_id]) for e in palace.exchanges() if e.exchange_id in cards]
        assert layer_texts(palace, name, "hand:v1") == (
            [e.exchange_id for e, _ in kept], [spec.text_fn(e, c) for e, c in kept])
