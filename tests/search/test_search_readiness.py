"""A search leaves out a vector layer that is not embedded yet, says so, and ranks as before
once it is built (the tiny palace of test_search_modes, fake embedder)."""

from __future__ import annotations

import json

import pytest
from marker_palace import tiny  # noqa: F401  (fixture)

from palace_lab.cli import main
from palace_lab.search import DEFAULT_MODE, SearchEngine, parse_mode
from palace_lab.search.modes import PureMode
from palace_lab.search.readiness import substitute

LIGHTER = "wrrf(bm25:verbatim=0.5,bm25:core+keywords=0.3;k=10)"  # the default without hnsw:verbatim


def test_substitute_keeps_the_other_runs_and_their_weights():
    mode = parse_mode(DEFAULT_MODE)
    assert str(substitute(mode, (PureMode("hnsw", "verbatim"),))) == LIGHTER
    assert substitute(mode, ()) == mode


def test_substitute_replaces_pure_and_all_vector_modes_by_bm25():
    assert substitute(parse_mode("hnsw:core"), (PureMode("hnsw", "core"),)) == \
        PureMode("bm25", "core")
    both = parse_mode("rrf(hnsw:core,exact:verbatim)")
    assert str(substitute(both, both.runs)) == "rrf(bm25:core,bm25:verbatim;k=60)"
    left = substitute(parse_mode("hybrid-rrf"), (PureMode("hnsw", "core"),))
    assert left == PureMode("bm25", "verbatim")  # a single run left runs as that pure mode


def test_missing_layer_is_left_out_and_named(tiny):  # noqa: F811
    palace = tiny[0]
    engine = SearchEngine(palace, embedder="fake", inline_embed=0)
    answer = engine.answer("zebrafish quokka", DEFAULT_MODE, k=3)
    assert [str(r) for r in answer.readiness.missing] == ["hnsw:verbatim"]
    assert answer.readiness.pending == (4,)  # four exchanges to embed
    assert str(answer.readiness.used) == LIGHTER
    assert "hnsw:verbatim" in answer.readiness.note() and LIGHTER in answer.readiness.note()
    assert answer.hits == engine.search("zebrafish quokka", LIGHTER, k=3)
    assert answer.to_dict()["missing"] == ["hnsw:verbatim"]
    assert not engine.indexes.is_cached("verbatim", "hnsw")  # nothing was embedded


def test_once_built_the_full_mode_ranks_exactly_as_before(tiny):  # noqa: F811
    palace = tiny[0]
    full = SearchEngine(palace, embedder="fake", cache=False).search("retry zebrafish",
                                                                     DEFAULT_MODE, k=4)
    engine = SearchEngine(palace, embedder="fake", inline_embed=0)
    engine.prepare([DEFAULT_MODE])
    answer = engine.answer("retry zebrafish", DEFAULT_MODE, k=4)
    assert not answer.readiness.degraded and answer.readiness.used == parse_mode(DEFAULT_MODE)
    assert answer.hits == full
    reopened = SearchEngine(palace, embedder="fake", inline_embed=0)  # from the cache
    assert reopened.answer("retry zebrafish", DEFAULT_MODE, k=4).hits == full


def test_a_small_layer_is_embedded_inside_the_search(tiny):  # noqa: F811
    engine = SearchEngine(tiny[0], embedder="fake", inline_embed=4)
    assert not engine.answer("quokka", DEFAULT_MODE, k=2).readiness.degraded
    assert engine.indexes.is_cached("verbatim", "hnsw")


def test_run_for_evaluation_never_substitutes(tiny):  # noqa: F811
    palace = tiny[0]
    full = SearchEngine(palace, embedder="fake", cache=False).run({"q": "zebrafish"},
                                                                  DEFAULT_MODE, k=4)
    assert SearchEngine(palace, embedder="fake", inline_embed=0).run(
        {"q": "zebrafish"}, DEFAULT_MODE, k=4) == full


def _cli(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def test_cli_says_what_was_left_out_then_index_builds_it(tiny, capsys):  # noqa: F811
    db = str(tiny[0].path)
    search = ["search", "--db", db, "zebrafish", "--embedder", "fake", "--json"]
    code, out, err = _cli(search + ["--inline-embed", "0"], capsys)
    assert code == 0 and json.loads(out)  # stdout stays a list of hits
    assert "not built yet: hnsw:verbatim (4 texts to embed)" in err
    assert "palace-lab index" in err
    code, out, _ = _cli(["index", "--db", db, "--embedder", "fake", "--json"], capsys)
    steps = {(s["layer"], s["mechanism"], s["step"]) for s in json.loads(out)["steps"]}
    assert code == 0 and ("verbatim", "hnsw", "index") in steps
    code, out, err = _cli(search + ["--inline-embed", "0"], capsys)
    assert code == 0 and "not built" not in err


def test_cli_build_flag_builds_before_searching(tiny, capsys):  # noqa: F811
    db = str(tiny[0].path)
    code, out, err = _cli(["search", "--db", db, "zebrafish", "--embedder", "fake",
                           "--inline-embed", "0", "--build"], capsys)
    assert code == 0 and "not built" not in err


@pytest.mark.parametrize("mode", ["hnsw:verbatim", "exact:core"])
def test_pure_vector_mode_falls_back_to_bm25_of_its_layer(tiny, mode):  # noqa: F811
    engine = SearchEngine(tiny[0], embedder="fake", inline_embed=0)
    answer = engine.answer("quokka zebrafish", mode, k=3)
    layer = mode.split(":")[1]
    assert answer.readiness.used == PureMode("bm25", layer)
    assert answer.hits == engine.search("quokka zebrafish", f"bm25:{layer}", k=3)


def test_pending_count_is_remembered_across_processes_until_a_vector_is_added(tiny,  # noqa: F811
                                                                             monkeypatch):
    from palace_lab.index import indexset

    palace = tiny[0]
    assert SearchEngine(palace, embedder="fake", inline_embed=0).readiness(DEFAULT_MODE).pending == (4,)
    real = indexset.layer_texts
    monkeypatch.setattr(indexset, "layer_texts", lambda *a: pytest.fail("texts re-read"))
    again = SearchEngine(palace, embedder="fake", inline_embed=0)
    assert again.readiness(DEFAULT_MODE).pending == (4,)  # from pending.json
    monkeypatch.setattr(indexset, "layer_texts", real)
    from palace_lab.index.embed import FakeEmbedder, embed_texts

    _, texts = real(palace, "verbatim", None)
    embed_texts(palace, FakeEmbedder(), texts[:1])  # one vector more: the note is stale
    assert SearchEngine(palace, embedder="fake", inline_embed=0).readiness(
        DEFAULT_MODE).pending == (3,)


def test_an_unbuilt_graph_of_a_large_layer_is_searched_exactly(tiny, monkeypatch):  # noqa: F811
    """Vectors stored, graph never built (a palace copied without its index folder), layer
    above INLINE_GRAPH_ROWS: the search reads the stored vectors exactly instead of building
    the graph (13-41 s at 50,000), in the same place of the mode, and says so."""
    from palace_lab.search import readiness as planning

    palace = tiny[0]
    SearchEngine(palace, embedder="fake", cache=False).prepare(["exact:verbatim"])  # stores vectors
    monkeypatch.setattr(planning, "INLINE_GRAPH_ROWS", 0)
    engine = SearchEngine(palace, embedder="fake", inline_embed=4)
    answer = engine.answer("zebrafish quokka", DEFAULT_MODE, k=3)
    exact = str(parse_mode(DEFAULT_MODE)).replace("hnsw:verbatim", "exact:verbatim")
    assert [str(r) for r in answer.readiness.exact] == ["hnsw:verbatim"] and not answer.readiness.missing
    assert str(answer.readiness.used) == str(parse_mode(exact))
    assert "graph not built yet: hnsw:verbatim" in answer.readiness.note() and answer.readiness.degraded
    assert answer.hits == engine.search("zebrafish quokka", exact, k=3)
    assert not engine.indexes.is_cached("verbatim", "hnsw")  # no graph was built
    assert engine.indexes.is_cached("verbatim", "exact")
    engine.prepare([DEFAULT_MODE])  # what `palace-lab index` does: then the graph is used
    assert not engine.answer("zebrafish quokka", DEFAULT_MODE, k=3).readiness.degraded
