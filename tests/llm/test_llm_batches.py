"""palace_lab.llm.batches: the Message Batches API over one client, driven through the real SDK
against :mod:`anthropic_stub` on 127.0.0.1."""

from __future__ import annotations

import pytest
from anthropic_stub import AnthropicStub, answer, error, expired

from palace_lab.errors import CostCapExceededError
from palace_lab.llm.batches import MessageBatches
from palace_lab.llm.client import LLMClient, Tool, dollar_cost, resolve_prices

KEY = "test-key-not-a-secret"
HAIKU = resolve_prices()["claude-haiku-4-5"]
TOOL = Tool({"type": "object"}, name="grade")


@pytest.fixture(autouse=True)
def _no_anthropic_env(monkeypatch):
    for var in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(var, raising=False)


def batches_of(server: AnthropicStub, **options) -> MessageBatches:
    return MessageBatches(LLMClient(api_key=KEY, base_url=server.base_url, max_retries=0,
                                    **options))


def item(batches: MessageBatches, custom_id: str, text: str = "q") -> dict:
    params = batches.client.message_params("Grade it.", [{"role": "user", "content": text}], TOOL)
    return {"custom_id": custom_id, "params": params}


def test_batch_items_are_charged_at_half_price():
    with AnthropicStub() as stub:
        batches = batches_of(stub)
        batch_id = batches.submit([item(batches, "q1")])
        assert batches.poll(batch_id).ended
        [result] = batches.results(batch_id, TOOL).values()
    assert result.ok and result.cost_usd == pytest.approx(dollar_cost(result.usage, HAIKU) / 2)
    assert batches.client.spent_usd == pytest.approx(result.cost_usd)


def test_a_batch_is_polled_until_it_ends_and_unanswered_items_have_no_reply():
    with AnthropicStub(polls_until_ended=2) as stub:
        stub.push_batch(answer({"grade": 2}), error(500), expired())
        batches = batches_of(stub)
        batch_id = batches.submit([item(batches, f"q{i}") for i in range(3)])
        first = batches.poll(batch_id)
        assert not first.ended and first.request_counts["processing"] == 3
        assert batches.poll(batch_id).ended
        results = batches.results(batch_id, TOOL)
    assert results["q0"].ok and results["q0"].data == {"grade": 2}
    assert not results["q1"].ok and not results["q1"].reply and "errored" in results["q1"].error
    assert results["q2"].error == "batch item expired"


def test_a_batch_over_the_cap_is_never_submitted_and_holds_nothing():
    with AnthropicStub() as stub:
        batches = batches_of(stub, max_cost_usd=1e-6)
        with pytest.raises(CostCapExceededError):
            batches.submit([item(batches, "q1", "a long question " * 50)])
        assert not stub.calls("POST", "/v1/messages/batches")
    assert batches.client.spent_usd == 0.0


def test_an_empty_batch_is_refused():
    with AnthropicStub() as stub, pytest.raises(ValueError, match="at least one request"):
        batches_of(stub).submit([])
