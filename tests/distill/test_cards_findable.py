"""rules:v3 cards: keywords stored and searched, budgets that grow with the exchange, a
specific_context that is always a substring and carries no escape; wrrf; the default mode."""

from __future__ import annotations

import json

from hypothesis import given, settings, strategies as st

from palace_lab.distill.context import make_context, trim
from palace_lab.distill.keywords import choose_keywords, stem
from palace_lab.distill.rules import RulesDistiller
from palace_lab.distill.terms import corpus_stats
from palace_lab.model import DistilledCard, Exchange
from palace_lab.search.fusion import rrf, wrrf
from palace_lab.search.modes import DEFAULT_MODE, list_modes, parse_mode


def _exchange(request: str, reply: str, eid: str = "e1") -> Exchange:
    verbatim = f"[user] {request}\n\n[assistant] {reply}"
    return Exchange(eid, "c", 0, 1, request, verbatim, verbatim)


def test_wrrf_by_hand_and_equal_weights_rank_as_rrf():
    a, b = {"x": 3.0, "y": 2.0}, {"y": 5.0, "z": 1.0}
    fused = wrrf([a, b], weights=[0.75, 0.25], k=5)
    assert fused["x"] == 0.75 / 6
    assert fused["y"] == 0.75 / 7 + 0.25 / 6
    assert fused["z"] == 0.25 / 7
    plain, equal = rrf([a, b], k=5), wrrf([a, b], k=5)
    assert sorted(plain, key=plain.get) == sorted(equal, key=equal.get)


def test_wrrf_in_the_mode_language():
    mode = parse_mode("wrrf(bm25:verbatim=0.75,hnsw:core;k=5)")
    assert mode.weights == (0.75, 0.25) and mode.param("k") == 5.0
    assert str(mode) == "wrrf(bm25:verbatim=0.75,hnsw:core=0.25;k=5)"


def test_exactly_one_mode_is_marked_default_and_it_is_cross_layer():
    marked = [m for m in list_modes() if m["default"]]
    assert [m["name"] for m in marked] == [DEFAULT_MODE]
    assert marked[0]["kind"] == "cross" and "verbatim" in marked[0]["layers"]


def test_cli_modes_json_marks_the_default(capsys):
    from palace_lab.cli import main

    assert main(["modes", "--json"]) == 0
    modes = json.loads(capsys.readouterr().out)
    assert [m["name"] for m in modes if m["default"] is True] == [DEFAULT_MODE]


def test_keywords_round_trip_through_the_card():
    from palace_lab.distill.base import DistillOutcome

    card = DistilledCard("e1", "rules:v3", "sync hangs", "IdentityAgent", (), (),
                         keywords=("ssh", "socket"))
    assert DistilledCard.from_dict(card.to_dict()) == card
    assert card.search_text == "sync hangs\nIdentityAgent\nssh socket"
    assert DistilledCard.from_dict({**card.to_dict(), "keywords": []}).keywords == ()
    assert isinstance(DistillOutcome(card=card).card.keywords, tuple)


def test_keywords_are_stored_verified_and_searched(tmp_path):
    from palace_lab.distill.pipeline import distill_palace
    from palace_lab.ingest import ingest_paths
    from palace_lab.search import SearchEngine
    from palace_lab.store import Palace
    from tests.conftest import write_jsonl

    rows = [{"conversation_id": "c1", "role": "user", "content": "the notes sync hangs forever"},
            {"conversation_id": "c1", "role": "assistant", "content": "The ssh agent socket "
             "blocked libgit2, so I set IdentityAgent none in the config and it works. " * 4
             + "The 1Password agent answered every signing request with a prompt, so the "
             "fetch waited on a dialog nobody saw; the timeout is now 30 s and the error names "
             "the socket path."},
            {"conversation_id": "c2", "role": "user", "content": "rename the tags table"},
            {"conversation_id": "c2", "role": "assistant", "content": "Renamed it to labels."}]
    with Palace.open(tmp_path / "p.db") as palace:
        ingest_paths(palace, [write_jsonl(tmp_path / "h.jsonl", rows)], "palace-jsonl")
        distill_palace(palace, RulesDistiller())
        cards = palace.cards(palace.latest_distiller())
        by_conv = {palace.exchange(c.exchange_id).conversation_id: c for c in cards}
        assert by_conv["c1"].keywords and palace.verify().ok
        hits = SearchEngine(palace, embedder="fake").search("libgit2 socket", "bm25:core+keywords", 2)
        assert hits[0].conversation_id == "c1"


def test_keywords_skip_what_the_core_says_and_fit_their_budget():
    texts = {"request": "the sync hangs at 100% cpu", "final": "Syncing hung because the agent "
             "socket blocked; set IdentityAgent none", "said": "", "calls": "", "results": ""}
    stats = corpus_stats(["the sync hangs", "an agent", "cpu cpu"])
    chosen = choose_keywords(texts, stats, 6, said_already="sync hangs")
    assert stem("syncing") == stem("sync") and not {"sync", "syncing", "hangs"} & set(chosen)
    from palace_lab.distill.spans import word_cost
    assert sum(word_cost(t) for t in chosen) <= 6 and chosen


def test_card_budget_grows_with_the_dialogue():
    d = RulesDistiller()
    short = _exchange("hi there", "hello")
    long_ = _exchange("please look at the retry loop " * 40, "fixed the retry loop backoff " * 60)
    coding = corpus_stats(["x"], ["word " * 380])      # long exchanges: 381 tokens on average
    chat = corpus_stats(["x"], ["word " * 60])         # chat turns: 61 tokens on average
    assert d.share(coding) == 38 / 381 and d.share(chat) == 0.55    # 38/61 is capped
    assert d.share(corpus_stats(["x"], ["word " * 72])) == 38 / 73  # LoCoMo-like: under the cap
    assert d.card_budget(short, coding) == 8            # the floor
    assert d.card_budget(long_, coding) == round(38 / 381 * 607)    # 607 dialogue tokens
    assert d.card_budget(long_, chat) > d.card_budget(long_, coding)


def test_a_detail_from_json_tool_input_stops_before_the_escape():
    verbatim = ('[user] run it\n\n[tool call Bash] {"command": "pytest -x tests/test_a.py\\n'
                'echo done"}\n\n[assistant] ran pytest_timeout=30')
    ex = Exchange("e", "c", 0, 2, "run it", verbatim, "[user] run it\n\n[assistant] ran")
    context = make_context(ex, "run it\nran pytest_timeout=30", {}, 60)
    assert context in verbatim and "\\n" not in context
    assert trim('say \\"hi\\"', 60) == "say"


_PIECES = st.sampled_from(["ab", " ", "cd_E", "=", "1", ".", "\\", "n", '"', "/", ":", "{", "}",
                           "\n", "Error: ", "\\n", '\\"', "x.py", "pool_size=20", "30 ms"])
_TEXT = st.lists(_PIECES, max_size=40).map("".join)


@settings(max_examples=120, deadline=None)
@given(request=_TEXT, reply=_TEXT, tool=_TEXT)
def test_specific_context_is_a_substring_without_escapes(request, reply, tool):
    verbatim = f"[user] {request}\n\n[tool call Bash] {tool}\n\n[assistant] {reply}"
    ex = Exchange("e", "c", 0, 2, request, verbatim, f"[user] {request}\n\n[assistant] {reply}")
    card = RulesDistiller().card(ex, corpus_stats([verbatim]))
    assert card.specific_context in verbatim
    for escape in ("\\n", '\\"', "\\t"):
        assert escape not in card.specific_context
    assert all(k.lower() in verbatim.lower() for k in card.keywords)


def test_hnsw_builds_of_one_layer_rank_alike():
    import numpy as np

    from palace_lab.index.hnsw import HNSWIndex

    rng = np.random.default_rng(7)
    vectors = rng.standard_normal((3000, 32)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    queries = vectors[:50] + 0.1 * rng.standard_normal((50, 32)).astype(np.float32)
    a, b = HNSWIndex.build(vectors), HNSWIndex.build(vectors)
    for q in queries:
        assert a.search(q, 10)[0].tolist() == b.search(q, 10)[0].tolist()
