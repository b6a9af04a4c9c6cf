"""The LLM client layer and the Anthropic distiller, driven through the real SDK.

Every test talks to :mod:`anthropic_stub` on 127.0.0.1 (``api_key`` passed explicitly, our
own retries with millisecond backoff), and HOME points at a temporary folder, so nothing
touches the network or the person's files.
"""

from __future__ import annotations

import json

import pytest
from anthropic_stub import AnthropicStub, answer, error, expired, text

from palace_lab.distill.anthropic_backend import AnthropicDistiller, BudgetStoppedError
from palace_lab.distill.base import CorpusStats, Distiller, DistillOutcome
from palace_lab.distill.prompt import (
    CARD_SCHEMA,
    DEFAULT_TEMPLATE,
    INSTRUCTIONS,
    check_template,
    prompt_hash,
)
from palace_lab.errors import BatchPendingError, CostCapExceededError, DistillError
from palace_lab.llm.client import (
    LLMClient,
    Usage,
    dollar_cost,
    estimate_cost,
    estimate_tokens,
    price_for,
    resolve_prices,
    run_bounded,
    schema_errors,
)
from palace_lab.model import DistilledCard, Exchange

KEY = "test-key-not-a-secret"
STATS = CorpusStats()
HAIKU = resolve_prices()["claude-haiku-4-5"]


@pytest.fixture(autouse=True)
def _isolated(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    for var in (
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "ANTHROPIC_BASE_URL",
        "ANTHROPIC_PROFILE",
        "ANTHROPIC_CONFIG_DIR",
        "ANTHROPIC_CUSTOM_HEADERS",
    ):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def stub():
    with AnthropicStub() as server:
        yield server


class StandInRules(Distiller):
    """Until palace_lab.distill.rules exists: a card from the request's first words."""

    backend = "rules"

    @property
    def version(self) -> str:
        return "rules:stand-in"

    def distill_batch(self, exchanges, *, stats):
        return [
            DistillOutcome(
                DistilledCard(x.exchange_id, self.version, x.request[:80], "", (), x.files_touched)
            )
            for x in exchanges
        ]


def exchange(i: int, body: str = "") -> Exchange:
    request = f"Why does the worker hit ConnectionPoolTimeout number {i}?"
    verbatim = (
        f"user: {request}\nassistant: raised pool_size to 40 in config/db_{i}.yaml\n"
        f"tool_result: ok pgbouncer_reload_{i}\n{body}"
    )
    return Exchange(
        exchange_id=f"x{i:015d}",
        conversation_id="conv-1",
        ply_start=2 * i,
        ply_end=2 * i + 1,
        request=request,
        verbatim=verbatim,
        dialogue=verbatim,
        files_touched=(f"config/db_{i}.yaml",),
        project="palace",
    )


def distiller(stub: AnthropicStub, **options) -> AnthropicDistiller:
    defaults = dict(
        api_key=KEY,
        base_url=stub.base_url,
        max_retries=2,
        timeout=2.0,
        backoff_base_s=0.001,
        poll_interval_s=0.01,
        use_batches=False,
        fallback=StandInRules(),
    )
    return AnthropicDistiller(**{**defaults, **options})


def good_answer(detail: str = "pool_size", key: str = "connection_pool") -> dict:
    room = {"room_type": "concept", "room_key": key, "room_label": "Pool", "relevance": 0.9}
    return {
        "exchange_core": "Raised pool_size to 40.",
        "specific_context": detail,
        "room_assignments": [room],
    }


# ------------------------------------------------------------------------------ live calls


def test_a_valid_card_with_cache_control_auth_and_cost(stub):
    # The card itself and its version: test_openai_compat.py checks them for both transports.
    stub.push(answer(good_answer()))
    d = distiller(stub)
    [outcome] = d.distill_batch([exchange(1)], stats=STATS)
    assert d.version == f"anthropic:claude-haiku-4-5:{prompt_hash(DEFAULT_TEMPLATE)}"
    [call] = stub.calls()
    body = call.body
    assert call.headers["authorization"] == f"Bearer {KEY}"
    assert body["system"] == [{"type": "text", "text": INSTRUCTIONS, "cache_control": {"type": "ephemeral"}}]
    assert body["tool_choice"] == {"type": "tool", "name": "record_card"}
    assert body["tools"][0]["input_schema"] == CARD_SCHEMA
    assert "ConnectionPoolTimeout number 1" in body["messages"][0]["content"]
    assert outcome.cost_usd > 0 and d.spent_usd == pytest.approx(outcome.cost_usd)
    assert outcome.input_tokens > 0 and outcome.output_tokens > 0


def test_cache_reads_are_charged_at_the_cache_read_price(stub):
    d = distiller(stub, max_concurrency=1)
    first, second = d.distill_batch([exchange(1), exchange(2)], stats=STATS)
    usage = d.client().usage
    assert usage.cache_write_tokens > 0 and usage.cache_read_tokens == usage.cache_write_tokens
    assert second.cost_usd < first.cost_usd  # the prefix was read from the cache the second time
    assert d.spent_usd == pytest.approx(dollar_cost(usage, HAIKU))


def test_a_schema_violation_is_repaired_once(stub):
    bad = {"exchange_core": "x", "specific_context": 5, "room_assignments": []}
    stub.push(answer(bad), answer(good_answer()))
    [outcome] = distiller(stub).distill_batch([exchange(1)], stats=STATS)
    assert outcome.error is None and not outcome.card.fallback
    first, repair = stub.calls()
    turn = repair.body["messages"]
    assert [m["role"] for m in turn] == ["user", "assistant", "user"]
    assert turn[1]["content"][0]["input"] == bad
    result = turn[2]["content"][0]
    assert result["type"] == "tool_result" and result["is_error"] is True
    assert "$.specific_context: expected string" in result["content"]
    assert "needs at least 1 items" in result["content"]


def test_an_answer_still_invalid_after_the_repair_falls_back(stub):
    invented = good_answer(detail="a detail the exchange never mentions")
    stub.push(answer(invented), answer(invented))
    [outcome] = distiller(stub).distill_batch([exchange(1)], stats=STATS)
    assert len(stub.calls()) == 2
    assert outcome.card.fallback and outcome.card.distiller.startswith("anthropic:")
    assert "does not occur in the exchange" in outcome.error and "after one repair" in outcome.error
    assert outcome.cost_usd > 0  # both paid calls are accounted


def test_a_text_answer_gets_a_plain_repair_turn(stub):
    stub.push(text("Here is your card: ..."), answer(good_answer()))
    [outcome] = distiller(stub).distill_batch([exchange(1)], stats=STATS)
    assert not outcome.card.fallback
    assert "did not call the tool" in stub.calls()[1].body["messages"][2]["content"]


def test_529_until_give_up_falls_back_with_the_error(stub):
    stub.push(error(529), error(529), error(529))
    d = distiller(stub, max_retries=2)
    [outcome] = d.distill_batch([exchange(1)], stats=STATS)
    assert len(stub.calls()) == 3
    assert outcome.card.fallback and outcome.card.distiller == d.version
    assert outcome.card.exchange_core.startswith("Why does the worker")  # the stand-in's card
    assert "gave up after 3 attempts" in outcome.error and "OverloadedError (529)" in outcome.error
    assert outcome.cost_usd == 0 and d.spent_usd == 0


class BrokenRules(StandInRules):
    def distill_batch(self, exchanges, *, stats):
        raise RuntimeError("the rules broke")


def test_a_broken_fallback_is_recorded_beside_the_first_error(stub):
    stub.push(error(500), error(500), error(500))
    d = distiller(stub, fallback=BrokenRules())
    [outcome] = d.distill_batch([exchange(1)], stats=STATS)
    assert outcome.card.fallback and outcome.card.exchange_core  # the request, shortened
    assert "InternalServerError (500)" in outcome.error
    assert "the fallback distiller failed too (RuntimeError: the rules broke)" in outcome.error


def test_the_default_fallback_is_the_rules_distiller(stub):
    stub.push(error(500), error(500), error(500))
    d = distiller(stub, fallback=None)
    d.prepare([exchange(1)])
    [outcome] = d.distill_batch([exchange(1)], stats=STATS)
    assert outcome.card.fallback and outcome.card.distiller == d.version
    assert outcome.card.exchange_core and "InternalServerError (500)" in outcome.error


def test_a_refused_key_stops_the_run_without_trying_every_exchange(stub):
    stub.push(*[error(401) for _ in range(8)])
    with pytest.raises(DistillError, match="refused"):
        distiller(stub, max_concurrency=1).distill_batch([exchange(i) for i in range(8)], stats=STATS)
    assert len(stub.calls()) == 1


# ------------------------------------------------------------------------------ money


@pytest.mark.parametrize("concurrency", [1, 4])
def test_the_cost_cap_stops_the_run_and_keeps_what_was_done(stub, concurrency):
    cap = 0.01
    d = distiller(stub, max_cost_usd=cap, max_concurrency=concurrency)
    assert d.estimate_cost([exchange(i) for i in range(10)]) < 0.05
    with pytest.raises(CostCapExceededError) as caught:
        d.distill_batch([exchange(i) for i in range(10)], stats=STATS)
    assert isinstance(caught.value, BudgetStoppedError)
    done = [o for o in caught.value.outcomes if o is not None]
    assert 0 < len(done) < 10 and len(done) == len(stub.calls())
    assert d.spent_usd <= cap
    assert d.spent_usd == pytest.approx(sum(o.cost_usd for o in done))


def test_prices_costs_and_estimates_by_hand(tmp_path):
    assert estimate_tokens("a" * 300) == 100 and estimate_tokens("é" * 5) == 5
    # 100 input tokens at $1/M plus 100 output tokens at $5/M
    assert estimate_cost(["a" * 300], 100, model="claude-haiku-4-5") == pytest.approx(0.0006)
    usage = Usage(input_tokens=1_000_000, output_tokens=1_000_000, cache_read_tokens=1_000_000)
    assert dollar_cost(usage, HAIKU) == pytest.approx(1 + 5 + 0.1)
    assert dollar_cost(usage, HAIKU, batch=True) == pytest.approx(3.05)
    assert price_for("claude-sonnet-4-5-20250929", resolve_prices())["output"] == 15
    table = tmp_path / "prices.json"
    table.write_text(json.dumps({"claude-haiku-4-5": {"input": 2, "output": 10}}))
    assert resolve_prices(table)["claude-haiku-4-5"]["cache_read"] == pytest.approx(0.2)
    assert resolve_prices({"my-model": {"input": 1, "output": 1}})["my-model"]["output"] == 1
    with pytest.raises(DistillError, match="no price known"):
        AnthropicDistiller(model="gpt-unknown", api_key=KEY)


def test_run_bounded_stops_new_work_after_a_budget_error():
    def work(i):
        if i == 2:
            raise CostCapExceededError("cap")
        return i

    run = run_bounded(work, list(range(6)), max_concurrency=1)
    assert run.results == [0, 1, None, None, None, None]
    assert isinstance(run.error, CostCapExceededError)


# ------------------------------------------------------------------------------ batches


def test_a_batch_run_with_a_repair_and_an_expired_item(stub):
    bad = {"exchange_core": "x", "specific_context": "pool_size", "room_assignments": "none"}
    stub.push_batch(answer(good_answer()), answer(bad), expired())
    state: dict[str, str] = {}
    d = distiller(stub, use_batches=True, state=state)
    outcomes = d.distill_batch([exchange(i) for i in range(3)], stats=STATS)
    assert all(o.error is None and not o.card.fallback for o in outcomes)
    [create] = stub.calls("POST", "/v1/messages/batches")
    items = create.body["requests"]
    assert [i["custom_id"] for i in items] == [exchange(i).exchange_id for i in range(3)]
    assert items[0]["params"]["system"][0]["cache_control"] == {"type": "ephemeral"}
    live = stub.calls()
    assert len(live) == 2  # one repair turn, one live call for the expired item
    [repair] = [c for c in live if len(c.body["messages"]) == 3]  # the two run concurrently
    assert repair.body["messages"][1]["content"][0]["input"] == bad
    assert state == {}  # collected batches leave no trace
    assert d.spent_usd == pytest.approx(sum(o.cost_usd for o in outcomes))


def test_a_run_fed_in_chunks_submits_one_batch_and_reads_it_once(stub):
    invented = good_answer(detail="never said in the exchange")
    stub.push_batch(answer(invented))
    exchanges = [exchange(i) for i in range(6)]
    d = distiller(stub, use_batches=None, batch_threshold=4)
    d.prepare(exchanges)  # the runner announces the whole run, then feeds chunks of 3
    outcomes = d.distill_batch(exchanges[:3], stats=STATS) + d.distill_batch(exchanges[3:], stats=STATS)
    [create] = stub.calls("POST", "/v1/messages/batches")
    assert len(create.body["requests"]) == 6
    assert len(stub.calls("GET", "/v1/messages/batches/msgbatch_0001/results")) == 1
    assert all(not o.card.fallback for o in outcomes)
    [repair] = stub.calls()  # the invented detail was sent back once, live
    assert "does not occur in the exchange" in repair.body["messages"][2]["content"][0]["content"]
    assert d.spent_usd == pytest.approx(sum(o.cost_usd for o in outcomes))
    assert d.state == {}


def test_batches_are_used_automatically_above_the_threshold(stub):
    d = distiller(stub, use_batches=None, batch_threshold=2)
    d.distill_batch([exchange(i) for i in range(3)], stats=STATS)
    assert len(stub.calls("POST", "/v1/messages/batches")) == 1 and not stub.calls()


def test_an_interrupted_batch_is_resumed_from_state_without_resubmitting(stub):
    stub.polls_until_ended = 3
    state: dict[str, str] = {}
    exchanges = [exchange(i) for i in range(3)]
    first = distiller(stub, use_batches=True, state=state, batch_wait_s=0.0)
    with pytest.raises(BatchPendingError, match="run distill again"):
        first.distill_batch(exchanges, stats=STATS)
    assert len(state) == 3 and set(state.values()) == {"msgbatch_0001"}
    # A new process: same state, batches not forced; the pending batch is found and collected.
    second = distiller(stub, use_batches=False, state=state)
    outcomes = second.distill_batch(exchanges, stats=STATS)
    assert len(stub.calls("POST", "/v1/messages/batches")) == 1
    assert len(stub.calls("GET", "/v1/messages/batches/msgbatch_0001")) >= 3
    assert all(not o.card.fallback for o in outcomes) and state == {}
    assert second.spent_usd > 0


def test_a_batch_over_the_cap_is_never_submitted(stub):
    d = distiller(stub, use_batches=True, max_cost_usd=0.0001)
    with pytest.raises(CostCapExceededError):
        d.distill_batch([exchange(i) for i in range(5)], stats=STATS)
    assert stub.requests == [] and d.spent_usd == 0


# ------------------------------------------------------------------------------ keys, secrets


def test_a_missing_key_is_a_clear_error_when_distilling():
    d = AnthropicDistiller()  # constructing and estimating need no key
    assert d.estimate_cost([exchange(1)]) > 0
    with pytest.raises(DistillError, match="no Anthropic API key: set ANTHROPIC_API_KEY"):
        d.distill_batch([exchange(1)], stats=STATS)


def test_the_key_comes_from_the_environment(stub, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "env-key")
    d = AnthropicDistiller(base_url=stub.base_url, fallback=StandInRules(), max_retries=0)
    d.distill_batch([exchange(1)], stats=STATS)
    assert stub.calls()[0].headers["authorization"] == "Bearer env-key"


SECRETS = {  # planted in an exchange; none may ever reach a server
    "anthropic_api_key": "sk-ant-api03-" + "Zq8" * 20,
    "aws_access_key": "AKIA" + "Q7X2" * 4,
    "url_password": "Tr0ub4dor-3x",
    "env_secret": "s3cr3t-" + "9f" * 10,
}
SECRET_BODY = (
    f"ANTHROPIC={SECRETS['anthropic_api_key']}\naws {SECRETS['aws_access_key']}\n"
    f"git clone https://bob:{SECRETS['url_password']}@git.example.com/r.git\n"
    f"DB_PASSWORD={SECRETS['env_secret']}\n"
)


def test_secrets_in_the_exchange_never_reach_the_api(stub):
    secrets, body = SECRETS, SECRET_BODY
    leaked = good_answer() | {"exchange_core": f"Used key {secrets['aws_access_key']} to fix pool_size."}
    stub.push(answer(leaked))
    stub.push_batch(answer(good_answer()))
    d = distiller(stub)
    [outcome] = d.distill_batch([exchange(1, body)], stats=STATS)
    distiller(stub, use_batches=True).distill_batch([exchange(2, body)], stats=STATS)
    sent = b"".join(r.raw for r in stub.requests)
    assert b"[REDACTED:" in sent
    for secret in secrets.values():
        assert secret.encode() not in sent
    assert "[REDACTED:aws_access_key]" in outcome.card.exchange_core
    assert d.redaction_report() == {kind: 1 for kind in secrets}


# ------------------------------------------------------------------------------ prompt, schema


def test_unknown_placeholders_are_named_with_the_valid_ones():
    with pytest.raises(DistillError, match=r"unknown placeholder \{nope\}.*\{exchange_text\}"):
        check_template("Look at {exchange_text} and {nope}")
    with pytest.raises(DistillError):
        AnthropicDistiller(template="{request.upper}")
    check_template("literal {{braces}} and {request}")


def test_the_version_follows_template_and_model():
    a = AnthropicDistiller(api_key=KEY)
    b = AnthropicDistiller(api_key=KEY, template=DEFAULT_TEMPLATE + "\nBe brief.")
    c = AnthropicDistiller(api_key=KEY, model="claude-sonnet-4-5")
    d = AnthropicDistiller(api_key=KEY, max_exchange_chars=8000)
    assert len({a.version, b.version, c.version, d.version}) == 4
    assert d.version == a.version + ":cut8000"
    assert a.config["template"] == DEFAULT_TEMPLATE and "api_key" not in a.config
    assert a.version.startswith("anthropic:claude-haiku-4-5:") and len(a.version.rsplit(":", 1)[1]) == 8


def test_the_custom_template_is_what_is_sent(stub):
    template = "Card for {exchange_id} in {project}:\n<exchange>\n{exchange_text}\n</exchange>"
    d = distiller(stub, template=template)
    d.distill_batch([exchange(3)], stats=STATS)
    sent = stub.calls()[0].body["messages"][0]["content"]
    # Our marker opens every prompt (so ingest skips transcripts of our own calls).
    assert sent.startswith("[palace_lab:distill]\nCard for x000000000000003 in palace:")


def test_the_validator_reports_paths():
    ok = good_answer()
    assert schema_errors(ok, CARD_SCHEMA) == []
    room = {**ok["room_assignments"][0], "room_key": "Bad Key", "relevance": 2}
    bad = {**ok, "extra": 1, "room_assignments": [room]}
    errors = schema_errors(bad, CARD_SCHEMA)
    assert "$: unexpected field 'extra'" in errors
    assert any(e.startswith("$.room_assignments[0].room_key:") for e in errors)
    assert "$.room_assignments[0].relevance: 2 is above the maximum 1" in errors
    assert schema_errors(True, {"type": "integer"}) == ["$: expected integer, got bool"]


def test_llm_client_call_json_is_reusable_for_other_schemas(stub):
    grade = {"type": "integer", "minimum": 0, "maximum": 3}
    schema = {"type": "object", "required": ["grade"], "properties": {"grade": grade}}
    stub.push(answer({"grade": 7}), answer({"grade": 2}))
    client = LLMClient(api_key=KEY, base_url=stub.base_url, max_retries=0, backoff_base_s=0.001)
    result = client.call_json("Grade it.", "query and hit", schema, tool_name="grade")
    assert result.ok and result.data == {"grade": 2} and result.repaired
    assert "above the maximum 3" in stub.calls()[1].body["messages"][2]["content"][0]["content"]
