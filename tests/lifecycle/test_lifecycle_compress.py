"""Session compression: exact extractive and abstractive outputs on a small session, what is
dropped and why, and the Anthropic path against the local stub (marker, cache, cost)."""

from __future__ import annotations

import json

import pytest
from anthropic_stub import AnthropicStub, answer
from lifecycle_data import session_exchanges

from palace_lab.lifecycle.compress import compress_exchanges
from palace_lab.lifecycle.remote import MARKER, judge_preservation

EXTRACTIVE = ("user: The API times out under load. I prefer small commits.\n"
              "agent: We decided to raise pool_size=20 because the load test exhausted 10 "
              "connections.\n"
              "user: Should we also retry?")
ABSTRACTIVE = ("[goal] The API times out under load.\n"
               "[decisions] I prefer small commits.; We decided to raise pool_size=20 because "
               "the load test exhausted 10 connections.\n"
               "[facts] pool_size=20; exhausted 10 connections; timeout 30 s; src/db/pool.py; "
               "tests/test_pool.py\n"
               "[open questions] Should we also retry?\n"
               "[next actions] Next we should add a retry test in tests/test_pool.py.")


def test_extractive_keeps_key_sentences_in_their_words_and_lists_what_it_dropped():
    r = compress_exchanges(session_exchanges(), "extractive")
    assert r.text == EXTRACTIVE
    assert [(d.reason, d.text) for d in r.dropped] == [
        ("greeting/acknowledgement", "Hi!"),
        ("greeting/acknowledgement", "Thanks for the report."),
        ("narration", "Let me look at the pool."),
        ("not selected (budget)", "The timeout is 30 s now."),
        ("not selected (budget)", "Files: src/db/pool.py."),
        ("greeting/acknowledgement", "ok thanks."),
        ("greeting/acknowledgement", "Sounds good."),
        ("not selected (budget)", "Next we should add a retry test in tests/test_pool.py."),
    ]
    assert r.tokens_before == 93 and r.tokens_after == 40
    assert r.preservation == 0.5  # 3 of 6 facts: the decision, pool_size=20, 10 connections


def test_a_lower_target_ratio_keeps_more_facts():
    r = compress_exchanges(session_exchanges(), "extractive", target_ratio=1.5)
    assert "The timeout is 30 s now. Files: src/db/pool.py." in r.text
    assert r.preservation == pytest.approx(5 / 6)


def test_abstractive_fills_the_five_lines():
    r = compress_exchanges(session_exchanges(), "abstractive")
    assert r.text == ABSTRACTIVE
    assert r.preservation == 1.0 and r.dropped == ()


def test_unknown_method_and_backend_are_refused():
    with pytest.raises(ValueError, match="valid methods: extractive, abstractive"):
        compress_exchanges(session_exchanges(), "poetic")
    with pytest.raises(ValueError, match="valid backends"):
        compress_exchanges(session_exchanges(), "extractive", backend="magic")


def _client(stub):
    from palace_lab.llm.client import LLMClient

    return LLMClient(api_key="sk-test", base_url=stub.base_url, max_retries=0, max_cost_usd=1.0)


def test_claude_extractive_keeps_the_chosen_sentences_verbatim_and_is_cached(palace):
    from palace_lab.lifecycle.remote import PalaceCache

    with AnthropicStub() as stub:
        stub.push(answer({"keep": [1, 5, 6]}))
        client = _client(stub)
        cache = PalaceCache(palace)
        r = compress_exchanges(session_exchanges(), "extractive", backend="anthropic",
                               client=client, cache=cache)
        again = compress_exchanges(session_exchanges(), "extractive", backend="anthropic",
                                   client=client, cache=cache)
        calls = stub.calls()
    assert r.text == ("user: The API times out under load.\nagent: We decided to raise "
                      "pool_size=20 because the load test exhausted 10 connections. "
                      "The timeout is 30 s now.")
    assert r.backend == "anthropic:claude-haiku-4-5" and r.cost_usd > 0
    assert ("narration", "Let me look at the pool.") in [(d.reason, d.text) for d in r.dropped]
    assert len(calls) == 1 and again.text == r.text and again.cost_usd == 0.0
    body = calls[0].body
    assert body["system"][0]["text"].startswith(MARKER)
    user = body["messages"][0]["content"]
    assert user.startswith(MARKER) and "[5] agent: We decided" in user


def test_claude_abstractive_renders_the_sections():
    parts = {"goal": "Fix API timeouts", "decisions": "pool_size=20", "facts": "30 s",
             "open_questions": "retry?", "next_actions": "none"}
    with AnthropicStub() as stub:
        stub.push(answer(parts))
        r = compress_exchanges(session_exchanges(), "abstractive", backend="anthropic",
                               client=_client(stub))
    assert r.text.splitlines() == ["[goal] Fix API timeouts", "[decisions] pool_size=20",
                                   "[facts] 30 s", "[open questions] retry?", "[next actions] none"]


def test_the_judge_and_the_cost_estimate():
    from palace_lab.lifecycle.remote import estimate_cost
    from palace_lab.lifecycle.units import session_messages, units_of

    with AnthropicStub() as stub:
        stub.push(answer({"facts": [{"fact": "pool_size=20", "status": "preserved"}], "score": 0.9}))
        client = _client(stub)
        verdict = judge_preservation(client, "pool_size=20", "pool size 20")
        sent = json.dumps(stub.calls()[0].body)
    assert verdict.score == 0.9 and verdict.facts[0]["status"] == "preserved"
    assert "[palace_lab:validate]" in sent
    units = units_of(session_messages(session_exchanges()))
    assert 0 < estimate_cost(client, [units], "abstractive") < 0.01


def test_the_anthropic_backend_without_a_client_is_one_clear_error():
    from palace_lab.errors import DistillError

    with pytest.raises(DistillError, match="needs an LLMClient"):
        compress_exchanges(session_exchanges(), "abstractive", backend="anthropic")
