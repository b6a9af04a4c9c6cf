"""The rules distiller on hand-written exchanges: exact cards, and the invariants on real data."""

from __future__ import annotations

import pytest

from palace_lab.distill.base import CorpusStats, get_distiller
from palace_lab.distill.core import STRETCH
from palace_lab.distill.rules import (
    VERSION,
    RulesDistiller,
    best_window,
    context_candidates,
)
from palace_lab.distill.pipeline import distill_palace
from palace_lab.distill.spans import word_cost
from palace_lab.distill.terms import corpus_stats
from palace_lab.ingest import ingest_paths
from palace_lab.ingest.segment import split_messages
from palace_lab.model import ROOM_TYPES, Exchange
from palace_lab.tokens import count_tokens


def exchange(eid, request, *rest):
    parts = [f"[user] {request}", *rest]
    verbatim = "\n\n".join(parts)
    from palace_lab.files import files_touched

    return Exchange(eid, "conv", 0, len(parts) - 1, request, verbatim,
                    "\n\n".join(p for p in parts if p.startswith(("[user]", "[assistant]"))),
                    files_touched(verbatim))


POOL = exchange(
    "x1", "The API times out under load, can you look at the connection pool?",
    "[tool call Bash] {\"command\": \"pytest tests/load/test_transfers.py\"}",
    "[tool result] E   sqlalchemy.exc.TimeoutError: QueuePool limit of size 5 overflow 10 reached, connection timed out, timeout 30.00",
    "[assistant] Root cause: the pool was sized for a single worker. I raised pool_size=20 in src/ledger/db/pool.py and set pool_timeout=10 so requests fail fast.",
)
ROUNDING = exchange(
    "x2", "currency conversion gives 10.005 instead of 10.00 for EUR, fix the rounding",
    "[assistant] Switched convert() in src/ledger/fx.py to Decimal.quantize with ROUND_HALF_EVEN (banker's rounding).",
)
CHAT = exchange("x3", "what do you think about naming?", "[assistant] Names should say what things are.")
CORPUS = [POOL, ROUNDING, CHAT, exchange("x4", "the connection pool again", "[assistant] ok"),
          exchange("x5", "rounding in invoices", "[assistant] fine")]


@pytest.fixture
def stats() -> CorpusStats:
    return corpus_stats((e.verbatim for e in CORPUS), (e.dialogue for e in CORPUS))


def test_pool_exchange_card(stats):
    distiller = RulesDistiller()
    card = distiller.card(POOL, stats)
    # The five exchanges' dialogues average 29.6 tokens, so the share is 38 / 29.6 capped at
    # 0.55, and this one's 57 dialogue tokens give B = round(0.55 · 57) = 31. Core and context
    # get 0.45 · 31 = 14 tokens; the context (the error, at most 40 characters) leaves the core
    # its floor of 10: the request's first clause (7 tokens) is whole within it. The keywords
    # take the 31 − 14 tokens left: the files' names first (a person types "pool.py"), then
    # the best terms, a number only with its name ("pool_size=20").
    assert distiller.share(stats) == 0.55 and distiller.card_budget(POOL, stats) == 31
    assert card.exchange_core == "The API times out under load."
    assert card.specific_context == "sqlalchemy.exc.TimeoutError: QueuePool"
    assert card.keywords == ("test_transfers.py", "pool.py", "connection", "sized", "pool_size=20",
                             "cause", "fail", "fast")
    assert count_tokens([card.search_text]) == [31]
    assert [(r.room_type, r.room_key) for r in card.room_assignments] == [
        ("file", "tests/load/test_transfers.py"), ("concept", "connection_pool"),
        ("workflow", "debugging")]
    assert card.files_touched == ("tests/load/test_transfers.py", "src/ledger/db/pool.py")


def test_rounding_exchange_card(stats):
    card = RulesDistiller().card(ROUNDING, stats)
    # The request's first clause (16 tokens) does not fit the core's 10, stretched to 15, and no
    # shorter unit has two content words; rather than cut it or fall back on the content-free
    # "fix the rounding." (v5), the clause is taken whole within the card's 28 tokens and the
    # keywords carry the rest (v4: "currency conversion gives 10.005.").
    assert card.exchange_core == "currency conversion gives 10.005 instead of 10.00 for EUR."
    assert card.keywords[:2] == ("rounding", "fix")
    assert card.specific_context == "src/ledger/fx.py"
    assert card.room_assignments[0].room_key == "src/ledger/fx.py"


def test_a_short_chat_keeps_its_question_whole(stats):
    card = RulesDistiller().card(CHAT, stats)
    assert card.exchange_core == "what do you think about naming?"
    assert card.specific_context == "what do you think about"  # no detail: the opening


def test_every_card_fits_the_token_budget(stats):
    # core + context within budget_tokens, or within half as much again for a whole clause
    for e in CORPUS:
        for budget in (20, 38):
            card = RulesDistiller(budget_tokens=budget).card(e, stats)
            assert count_tokens([card.core_text])[0] <= STRETCH * budget
    short = RulesDistiller(core_chars=40, context_chars=20).card(POOL, stats)
    assert short.exchange_core == "The API times out under load."
    assert short.specific_context == "sqlalchemy.exc.Timeo"


def test_words_are_costed_in_tokens():
    assert [word_cost(w) for w in ("timeout", "splitMarkdownPluginFast")] == [1, 4]


def test_context_priority_error_before_path_before_param(stats):
    said = "\n".join(t for lbl, t in split_messages(POOL.verbatim) if lbl in ("user", "assistant"))
    prios = sorted({p for p, _, _ in context_candidates(POOL, said)})
    assert prios == [0, 1, 2, 4, 5]  # 5: the names (API, Root)


def test_best_window_keeps_the_weighty_words():
    w = {"queuepool": 5.0, "limit": 2.0}
    assert best_window("so we then saw the QueuePool limit reached again today", w, 20) == \
        "QueuePool limit"


def test_registry_and_version():
    d = get_distiller("rules")
    assert isinstance(d, RulesDistiller) and d.version == VERSION == "rules:v6"
    assert RulesDistiller(core_chars=90).version == "rules:v6:core90"
    assert RulesDistiller(budget_tokens=30, context_chars=60).version == "rules:v6:tok30:ctx60"
    assert RulesDistiller(mean_tokens=45, max_share=0.5).version == "rules:v6:mean45:smax0.5"
    assert RulesDistiller(min_core=6).version == "rules:v6:mc6"


def test_distill_is_incremental_and_resumable(palace, real_exports):
    ingest_paths(palace, [real_exports / "claude_code"])
    stops = iter([False, True])
    first = distill_palace(palace, RulesDistiller(), batch_size=3, should_stop=lambda: next(stops, True))
    assert first.made == 3 and first.stopped == "stopped by request"
    second = distill_palace(palace, RulesDistiller())
    assert second.made == len(palace.exchanges()) - 3 and second.cached == 3
    third = distill_palace(palace, RulesDistiller())
    assert third.made == 0 and third.cached == len(palace.exchanges())
    assert palace.count("cards") == len(palace.exchanges())


def test_invariants_on_real_exports(palace, real_exports):
    ingest_paths(palace, [real_exports])
    distill_palace(palace, RulesDistiller())
    exchanges = {e.exchange_id: e for e in palace.exchanges()}
    cards = palace.cards(VERSION)
    assert len(cards) == len(exchanges)
    for card, tokens in zip(cards, count_tokens([c.core_text for c in cards])):
        assert tokens <= STRETCH * 38  # a whole clause may stretch the 38 by half
        assert card.specific_context in exchanges[card.exchange_id].verbatim
        assert 1 <= len(card.room_assignments) <= 3
        assert all(r.room_type in ROOM_TYPES and 0 <= r.relevance <= 1 for r in card.room_assignments)
        assert card.files_touched == exchanges[card.exchange_id].files_touched