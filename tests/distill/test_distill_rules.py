"""The rules distiller on hand-written exchanges: exact cards, and the invariants on real data."""

from __future__ import annotations

import time

import pytest

from palace_lab.distill.base import CorpusStats, get_distiller
from palace_lab.distill.rules import (
    VERSION,
    RulesDistiller,
    best_window,
    context_candidates,
    excise,
    split_messages,
)
from palace_lab.distill.run import distill_palace
from palace_lab.distill.spans import best_span, drop_filler, lead_span, request_span, word_cost
from palace_lab.distill.terms import corpus_stats
from palace_lab.ingest import ingest_paths
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
    # 0.45, and this one's 57 dialogue tokens give B = round(0.45 · 57) = 26. Core and context
    # get 0.4 · 26 = 10 tokens, raised to the context's 5 + 1 + 10 = 16 for a readable clause;
    # the context is cut to 30 characters (3 × 10), the core keeps the request's opening, and
    # the keywords take the 26 − 16 tokens left, best tf·idf first, none repeating a stem of
    # the core or the context.
    assert distiller.share(stats) == 0.45 and distiller.card_budget(POOL, stats) == 26
    assert card.exchange_core == "The API times out under load."
    assert card.specific_context == "sqlalchemy.exc.TimeoutError"
    assert card.keywords == ("pool", "connection", "sized", "20", "cause", "fail", "fast",
                             "pool_size", "pool_timeout", "raised")
    assert count_tokens([card.search_text]) == [26]
    assert [(r.room_type, r.room_key) for r in card.room_assignments] == [
        ("file", "tests/load/test_transfers.py"), ("concept", "connection_pool"),
        ("workflow", "debugging")]
    assert card.files_touched == ("tests/load/test_transfers.py", "src/ledger/db/pool.py")


def test_rounding_exchange_card(stats):
    card = RulesDistiller().card(ROUNDING, stats)
    # 51 dialogue tokens: B = 23; the context names src/ledger/fx.py, the core the request's
    # opening, the keywords the rest of the request and the outcome's distinctive words.
    assert card.exchange_core == "currency conversion gives 10.005."
    assert card.specific_context == "src/ledger/fx.py"
    assert card.keywords == ("rounding", "eur", "fix", "instead", "banker", "convert", "switched")
    assert card.room_assignments[0].room_key == "src/ledger/fx.py"


def test_exchange_without_details_falls_back_to_request_words(stats):
    card = RulesDistiller().card(CHAT, stats)
    # No detail: the context is the request's opening words as written (a substring), cut to
    # the card's small budget, and the core does not repeat them.
    assert card.specific_context == "what do you think about"
    assert card.exchange_core == "naming? — Names should say what things are."
    assert [r.room_key for r in card.room_assignments] == ["design"] or \
        card.room_assignments[-1].room_type == "workflow"


def test_every_card_fits_the_token_budget(stats):
    for e in CORPUS:
        for budget in (20, 38):
            card = RulesDistiller(budget_tokens=budget).card(e, stats)
            assert count_tokens([card.core_text])[0] <= budget
    short = RulesDistiller(core_chars=40, context_chars=20).card(POOL, stats)
    assert short.exchange_core == "The API times out under load."  # "look at" carry no term
    assert short.specific_context == "sqlalchemy.exc.Timeo"


def test_filler_goes_content_stays():
    words = "ok so can you please just look at the pool? I think it leaks".split()
    assert drop_filler(words) == ["look", "at", "the", "pool?", "it", "leaks"]
    # A name that contains a filler word is a name.
    assert drop_filler("Let me check `just_one` and i'll fix it".split()) == [
        "check", "`just_one`", "and", "fix", "it"]


def test_spans_are_costed_in_tokens():
    assert [word_cost(w) for w in ("timeout", "splitMarkdownPluginFast")] == [1, 4]
    assert lead_span("fix the retry loop in worker.py".split(), 4) == ["fix", "the", "retry", "loop"]
    # The span never ends on a function word, unless the whole sentence fits.
    assert lead_span("fix the retry in the loop".split(), 5) == ["fix", "the", "retry"]
    assert best_span("names say what things are".split(), {}, 10) == "names say what things are".split()
    w = {"queuepool": 5.0, "limit": 2.0}
    assert best_span("so we then saw the QueuePool limit reached again today".split(), w, 3) == [
        "QueuePool", "limit"]


def test_a_request_opening_that_says_nothing_gives_way_to_its_weightiest_run():
    words = drop_filler("I actually don't like much this idea, list the weak points of this "
                        "proposal".split())
    weights = {"weak": 3.0, "points": 2.0, "proposal": 2.5, "idea": 1.0}
    # The opening that fits 6 tokens, "I don't like much this", holds no term: it was cut to "I".
    assert lead_span(words, 6) == ["I"]
    assert request_span(words, weights, 6) == "weak points of this proposal".split()
    # An opening with a term stays the opening, however weighty a later run.
    assert request_span("fix the retry loop for the weak proposal".split(), weights, 4) == [
        "fix", "the", "retry", "loop"]


@pytest.mark.parametrize("request_text, head", [
    ("I actually don't like much this idea, and I struggled with it before. Can you list the "
     "weak points and risks of the proposal?", "list the weak points and risks"),
    ("Ok, so there's isn't much to see here, mostly one idea about how to organize the work "
     "Markdown documents generated during a session.", "organize the work documents generated"),
])
def test_a_small_card_of_a_hedged_request_names_what_was_asked(stats, request_text, head):
    # Real requests open like this; at a tenth of the dialogue the opening that fits was "I"
    # or "there's", and the core said "I — Fragmented documents are the first weak."
    dialogue = (f"[user] {request_text}\n\n[assistant] Fragmented documents are the first weak "
                "point: nobody finds them later.")
    exchange = Exchange("e", "c", 0, 2, request_text, dialogue, dialogue)
    card = RulesDistiller(min_share=0.1, max_share=0.1).card(exchange, stats)
    assert card.exchange_core.split(" — ")[0] == head


def test_excise_cuts_what_the_context_says():
    words = "tests fail with `KeyError: 'user_id'` when I run make".split()
    assert excise(words, "KeyError: 'user_id'") == "tests fail with when I run make".split()
    assert excise(words, "ValueError") == words
    assert excise(["KeyError"], "KeyError") == ["KeyError"]  # never to nothing


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
    assert isinstance(d, RulesDistiller) and d.version == VERSION == "rules:v4"
    assert RulesDistiller(core_chars=90).version == "rules:v4:core90"
    assert RulesDistiller(budget_tokens=30, context_chars=40).version == "rules:v4:tok30:ctx40"
    assert RulesDistiller(mean_tokens=45, max_share=0.5).version == "rules:v4:mean45:smax0.5"
    assert RulesDistiller(min_core=6).version == "rules:v4:mc6"


def test_the_readable_clause_floor_bounds_a_small_card(stats):
    # B(e) at its floor of 8 tokens: core + context take max(8, context + 1 + min_core).
    for floor in (3, 10):
        card = RulesDistiller(min_core=floor, min_share=0.01, max_share=0.01).card(POOL, stats)
        context = count_tokens([card.specific_context])[0]
        assert count_tokens([card.core_text])[0] <= max(8, context + 1 + floor)
        if floor == 10:
            assert count_tokens([card.core_text])[0] > max(8, context + 1 + 3)


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
        assert tokens <= 38
        assert card.specific_context in exchanges[card.exchange_id].verbatim
        assert 1 <= len(card.room_assignments) <= 3
        assert all(r.room_type in ROOM_TYPES and 0 <= r.relevance <= 1 for r in card.room_assignments)
        assert card.files_touched == exchanges[card.exchange_id].files_touched


def test_speed_is_well_above_200_per_second(stats):
    exchanges = [exchange(f"s{i}", f"fix bug {i} in src/mod{i}.py please", POOL.verbatim) for i in range(300)]
    start = time.perf_counter()
    RulesDistiller().distill_batch(exchanges, stats=stats)
    # A generous floor: the benchmark measures the real figure; this only catches a collapse.
    assert 300 / (time.perf_counter() - start) > 100
