"""The OpenAI-compatible client and distiller, the grader and the compressor on a local model.

Every test talks to :mod:`openai_stub` on 127.0.0.1 through the real client (httpx, our own
retries with millisecond backoff); HOME points at a temporary folder, so nothing touches the
network or the person's files.
"""

from __future__ import annotations

import json
import socket
from functools import partial

import pytest
from anthropic_stub import AnthropicStub
from openai_stub import OpenAIStub, answer, error, raw, slow
from test_llm_and_anthropic_distiller import SECRET_BODY, SECRETS, exchange, good_answer
from test_llm_and_anthropic_distiller import distiller as anthropic_distiller

from palace_lab.distill import get_distiller
from palace_lab.distill.base import CorpusStats
from palace_lab.distill.llm_distiller import BudgetStoppedError
from palace_lab.distill.openai_compat import OpenAICompatDistiller
from palace_lab.distill.prompt import CARD_SCHEMA, DEFAULT_TEMPLATE, INSTRUCTIONS, prompt_hash
from palace_lab.errors import CostCapExceededError, DistillError
from palace_lab.llm.base import StructuredClient
from palace_lab.llm.openai import OpenAICompatClient, api_base, list_models, parse_answer

MODEL = "qwen2.5:0.5b-instruct"
STATS = CorpusStats()


@pytest.fixture
def stub():
    with OpenAIStub() as server:
        yield server


@pytest.fixture(params=["anthropic", "openai-compat"])
def either(request):
    """(stub, distiller factory) of each transport."""
    stubs = {"anthropic": (AnthropicStub, anthropic_distiller), "openai-compat": (OpenAIStub, distiller)}
    server_type, factory = stubs[request.param]
    with server_type() as server:
        yield server, partial(factory, server)


def distiller(stub: OpenAIStub, **options) -> OpenAICompatDistiller:
    defaults = dict(model=MODEL, base_url=stub.base_url, max_retries=2, timeout=2.0,
                    backoff_base_s=0.001)
    return OpenAICompatDistiller(**{**defaults, **options})


def client(stub: OpenAIStub, **options) -> OpenAICompatClient:
    defaults = dict(model=MODEL, base_url=stub.base_url, max_retries=1, backoff_base_s=0.001)
    return OpenAICompatClient(**{**defaults, **options})


def leaked(stub: OpenAIStub) -> list[str]:
    sent = b"".join(r.raw for r in stub.requests)
    return [kind for kind, secret in SECRETS.items() if secret.encode() in sent]


# ------------------------------------------------------------------------------ cards


def test_a_valid_card_is_versioned_by_backend_and_model(either):
    stub, make = either
    stub.push(answer(good_answer()))
    d = make()
    made = d.distill_batch([exchange(1)], stats=STATS)[0]
    assert made.error is None and not made.card.fallback
    assert made.card.distiller == d.version == f"{d.backend}:{d.model}:{prompt_hash(DEFAULT_TEMPLATE)}"
    assert made.card.to_dict() | {"distiller": "-"} == {
        "exchange_id": exchange(1).exchange_id, "distiller": "-",
        "exchange_core": "Raised pool_size to 40.", "specific_context": "pool_size",
        "room_assignments": good_answer()["room_assignments"], "files_touched": ["config/db_1.yaml"],
        "fallback": False, "keywords": []}  # no room left in this tiny exchange's budget


def test_an_llm_card_gets_the_rules_keywords_where_its_budget_leaves_room(either):
    from palace_lab.distill.rules import RulesDistiller

    stub, make = either
    stub.push(answer(good_answer()))
    roomy = CorpusStats(dialogue_mean=38.0)  # share 45%: B(e) leaves room beside the core
    card = make().distill_batch([exchange(1)], stats=roomy)[0].card
    assert card.keywords, "the fifth field is filled as files_touched is"
    assert card.keywords == RulesDistiller().with_keywords(card, exchange(1), roomy).keywords
    assert all(k in exchange(1).verbatim.lower() for k in card.keywords)  # never invented


def test_the_request_carries_the_project_prompt_no_key_and_costs_nothing(stub):
    d = distiller(stub)
    outcome = d.distill_batch([exchange(1)], stats=STATS)[0]
    call = stub.calls()[-1]
    body = call.body
    assert "authorization" not in call.headers  # no key unless one is named
    system, user = body["messages"]
    assert system["role"] == "system" and system["content"].startswith(INSTRUCTIONS)
    assert "Instead of calling record_card" in system["content"]
    assert json.dumps(CARD_SCHEMA) in system["content"]
    assert user["content"].startswith("[palace_lab:distill]\n")
    assert "ConnectionPoolTimeout number 1" in user["content"]
    assert body["response_format"]["json_schema"]["schema"] == CARD_SCHEMA
    assert body["model"] == MODEL and body["temperature"] == 0
    assert outcome.cost_usd == 0 and d.spent_usd == 0 and d.estimate_cost([exchange(1)]) == 0
    assert outcome.input_tokens > 0 and outcome.output_tokens > 0
    assert d.config["base_url"] == stub.base_url + "/v1" and "api_key" not in d.config


def test_invalid_json_is_repaired_once(stub):
    broken = '{"exchange_core": "Raised pool_size to 40.", "specific_context": "pool_'
    stub.push(raw(broken), answer(good_answer()))
    [outcome] = distiller(stub).distill_batch([exchange(1)], stats=STATS)
    assert outcome.error is None and not outcome.card.fallback
    first, repair = stub.calls()
    turn = repair.body["messages"]
    assert [m["role"] for m in turn] == ["system", "user", "assistant", "user"]
    assert turn[2]["content"] == broken
    assert "not a JSON object" in turn[3]["content"] and "Send the JSON object again" in turn[3]["content"]


def test_a_chatty_fenced_or_thinking_answer_needs_no_repair(stub):
    card_text = json.dumps(good_answer())
    stub.push(raw(f"<think>the pool…</think>Sure! Here is the card:\n```json\n{card_text}\n```"))
    [outcome] = distiller(stub).distill_batch([exchange(1)], stats=STATS)
    assert outcome.error is None and len(stub.calls()) == 1
    assert parse_answer(f"Card: {card_text} hope it helps") == (good_answer(), None)
    assert parse_answer("")[1].startswith("the answer was empty")


def test_an_answer_still_invalid_after_the_repair_is_a_marked_fallback(stub):
    invented = good_answer(detail="a detail the exchange never mentions")
    stub.push(answer(invented), raw("no idea"))
    d = distiller(stub)
    [outcome] = d.distill_batch([exchange(1)], stats=STATS)
    assert len(stub.calls()) == 2
    assert outcome.card.fallback and outcome.card.distiller == d.version
    assert outcome.card.exchange_core  # the rules distiller's card
    assert "not a JSON object" in outcome.error and "after one repair" in outcome.error
    assert "does not occur in the exchange" in outcome.error


def test_5xx_until_give_up_falls_back_with_the_error(stub):
    stub.push(error(503), error(502), error(500))
    [outcome] = distiller(stub, max_retries=2).distill_batch([exchange(1)], stats=STATS)
    assert outcome.card.fallback and "gave up after 3 attempts: HTTP 500" in outcome.error
    assert len(stub.calls()) == 3


# Both transports share one policy (palace_lab.llm.base): these hold for each of them.


def test_500_is_retried(either):
    stub, make = either
    stub.push(error(500), answer(good_answer()))
    [outcome] = make().distill_batch([exchange(1)], stats=STATS)
    assert len(stub.calls()) == 2 and not outcome.card.fallback


def test_a_timeout_is_retried(either):
    stub, make = either
    stub.push(slow(3.0), answer(good_answer()))
    [outcome] = make(timeout=0.3).distill_batch([exchange(1)], stats=STATS)
    # The slow answer is a valid card: a second call means the first was given up at 0.3 s.
    assert len(stub.calls()) == 2 and outcome.error is None


def test_429_is_retried_after_retry_after(either, monkeypatch):
    stub, make = either
    stub.push(error(429, retry_after=0.2), answer(good_answer()))
    waits = []  # the delays the retry policy chose, instead of timing its sleep
    policy = StructuredClient.backoff_delay
    monkeypatch.setattr(StructuredClient, "backoff_delay",
                        lambda self, *a: waits.append(policy(self, *a)) or waits[-1])
    [outcome] = make().distill_batch([exchange(1)], stats=STATS)
    assert waits == [0.2]  # the server's retry-after, not the 0.001 s backoff of these tests
    assert len(stub.calls()) == 2 and outcome.error is None


def test_concurrency_is_bounded(either):
    stub, make = either
    stub.push(*[slow(0.15) for _ in range(6)])
    outcomes = make(max_concurrency=2).distill_batch([exchange(i) for i in range(6)], stats=STATS)
    assert all(o.error is None for o in outcomes)
    assert stub.max_in_flight == 2
    assert [o.card.exchange_id for o in outcomes] == [exchange(i).exchange_id for i in range(6)]


@pytest.mark.parametrize("formats, used", [((), "none"), (("json_object",), "json_object")])
def test_a_server_without_response_format_is_asked_without_it(formats, used):
    with OpenAIStub(formats=formats) as stub:
        d = distiller(stub)
        outcomes = d.distill_batch([exchange(1), exchange(2)], stats=STATS)
        calls = stub.calls()
    assert all(o.error is None and not o.card.fallback for o in outcomes)
    llm = d.client()
    assert llm.response_format == used
    assert "json_schema" in llm.declined and "not supported" in llm.declined["json_schema"]
    declined = len(llm.declined)
    assert len(calls) == 2 + declined  # each format declined once, then kept for the run
    last = calls[-1].body.get("response_format")
    assert last == ({"type": "json_object"} if used == "json_object" else None)


def test_a_bad_request_that_is_not_about_the_format_fails_that_exchange_only(stub):
    stub.push(error(400), answer(good_answer()))
    d = distiller(stub, max_concurrency=1)
    bad, good = d.distill_batch([exchange(1), exchange(2)], stats=STATS)
    assert bad.card.fallback and "HTTP 400" in bad.error and not good.card.fallback
    assert d.client().response_format == "json_schema"


def test_an_unknown_model_or_a_stopped_server_stops_the_run_with_one_line(stub):
    stub.push(*[error(404) for _ in range(4)])
    with pytest.raises(DistillError, match=f"refused the request for model '{MODEL}': HTTP 404"):
        distiller(stub).distill_batch([exchange(i) for i in range(4)], stats=STATS)
    assert len(stub.calls()) == 1
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    d = OpenAICompatDistiller(model=MODEL, base_url=f"http://127.0.0.1:{port}")
    with pytest.raises(DistillError, match="is the server running"):
        d.distill_batch([exchange(1)], stats=STATS)


# ------------------------------------------------------------------------------ money, keys


@pytest.mark.parametrize("concurrency", [1, 3])
def test_the_cost_cap_holds_when_prices_are_given(stub, concurrency):
    prices = {MODEL: {"input": 100.0, "output": 100.0}}  # USD per Mtok: make the cap bite
    d = distiller(stub, prices=prices, max_cost_usd=1.0, max_concurrency=concurrency)
    assert d.estimate_cost([exchange(i) for i in range(10)]) > 1.0
    with pytest.raises(CostCapExceededError) as caught:
        d.distill_batch([exchange(i) for i in range(10)], stats=STATS)
    assert isinstance(caught.value, BudgetStoppedError)
    done = [o for o in caught.value.outcomes if o is not None]
    assert 0 < len(done) < 10 and len(done) == len(stub.calls())
    assert 0 < d.spent_usd <= 1.0
    assert d.spent_usd == pytest.approx(sum(o.cost_usd for o in done))


def test_without_reported_usage_tokens_are_estimated():
    with OpenAIStub(report_usage=False) as stub:
        llm = client(stub, prices={MODEL: {"input": 1.0, "output": 1.0}})
        result = llm.call_json("Grade it.", "query and hit", {"type": "object"})
    assert result.ok and result.usage.input_tokens > 0 and result.cost_usd > 0


def test_the_key_is_read_from_the_named_variable_only(stub, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "a-cloud-key-never-sent")
    monkeypatch.setenv("LOCAL_LLM_KEY", "local-key")
    distiller(stub, api_key_env="LOCAL_LLM_KEY").distill_batch([exchange(1)], stats=STATS)
    distiller(stub).distill_batch([exchange(2)], stats=STATS)
    first, second = stub.calls()
    assert first.headers["authorization"] == "Bearer local-key"
    assert "authorization" not in second.headers
    with pytest.raises(DistillError, match="NOT_SET_ANYWHERE .*is not set"):
        distiller(stub, api_key_env="NOT_SET_ANYWHERE")


def test_no_planted_secret_reaches_the_server(stub):
    from palace_lab.evaluate.grader import GradeItem, grade
    from palace_lab.lifecycle.remote import judge_preservation

    leak = good_answer() | {"exchange_core": f"Used {SECRETS['aws_access_key']} for pool_size."}
    stub.push(answer(leak))
    d = distiller(stub)
    [outcome] = d.distill_batch([exchange(1, SECRET_BODY)], stats=STATS)
    stub.push(answer({"grade": 2, "reason": "r"}),
              answer({"facts": [], "score": 1.0}))
    llm = client(stub)
    grade(llm, [GradeItem("q1", f"where is {SECRETS['aws_access_key']}", "x1", SECRET_BODY)])
    judge_preservation(llm, SECRET_BODY, "short")
    assert len(stub.calls()) == 3
    assert leaked(stub) == []
    assert b"[REDACTED:" in b"".join(r.raw for r in stub.requests)
    assert "[REDACTED:aws_access_key]" in outcome.card.exchange_core
    assert d.redaction_report() == {kind: 1 for kind in SECRETS}


# ------------------------------------------------------------------------------ the server


def test_models_are_listed_and_urls_normalised(stub):
    assert list_models(stub.base_url) == ["llama3.2:1b", MODEL]
    assert list_models(stub.base_url + "/v1/") == ["llama3.2:1b", MODEL]
    assert api_base("http://127.0.0.1:11434") == "http://127.0.0.1:11434/v1"
    assert api_base("http://h:8080/v1/chat/completions") == "http://h:8080/v1"
    with pytest.raises(DistillError, match="needs the server's base URL"):
        api_base("localhost:11434")
    with pytest.raises(DistillError, match="cannot list the models"):
        list_models(stub.base_url + "/nothing/here")


def test_the_registry_builds_it_and_names_bad_options(stub):
    d = get_distiller("openai-compat", model=MODEL, base_url=stub.base_url)
    assert d.version.startswith(f"openai-compat:{MODEL}:")
    with pytest.raises(DistillError, match="needs a model name"):
        get_distiller("openai-compat", base_url=stub.base_url)
    with pytest.raises(DistillError, match="rules distiller does not take base_url"):
        get_distiller("rules", base_url=stub.base_url)


# ------------------------------------------------------------------------------ grader, compressor


def test_several_local_graders_agree_or_not_with_fleiss_kappa(stub):
    from palace_lab.evaluate.grader import GradeItem, agreement, grade_with

    items = [GradeItem("q1", "pool timeout", f"x{i}", f"text {i}") for i in range(3)]
    grades = [3, 0, 2, 3, 0, 1]  # model a, then model b
    stub.push(*[answer({"grade": g, "reason": "because"}) for g in grades])
    clients = [client(stub, model="a"), client(stub, model="b")]
    gradings = grade_with(clients, items, max_concurrency=1)
    assert {j: g.qrels for j, g in gradings.items()} == {
        "llm:a": {"q1": {"x0": 3, "x1": 0, "x2": 2}}, "llm:b": {"q1": {"x0": 3, "x1": 0, "x2": 1}}}
    report = agreement({j: g.qrels for j, g in gradings.items()})
    # counts per pair over grades 0-3: [0,0,0,2], [2,0,0,0], [0,1,1,0]; P̄ = 2/3,
    # p = (2, 1, 1, 2)/6, Pe = 10/36, kappa = (2/3 - 10/36) / (1 - 10/36) = 14/26
    assert report["pairs"] == 3 and report["fleiss_kappa"] == pytest.approx(14 / 26)
    assert [c.body["model"] for c in stub.calls()] == ["a"] * 3 + ["b"] * 3


def test_the_abstractive_compressor_runs_on_the_local_model(stub):
    from lifecycle_data import session_exchanges

    from palace_lab.lifecycle.compress import compress_exchanges

    parts = {"goal": "Fix API timeouts", "decisions": "pool_size=20", "facts": "30 s",
             "open_questions": "retry?", "next_actions": "none"}
    stub.push(raw("```json\n" + json.dumps(parts) + "\n```"))
    r = compress_exchanges(session_exchanges(), "abstractive", backend="openai-compat",
                           client=client(stub))
    assert r.backend == f"openai-compat:{MODEL}" and r.cost_usd == 0
    assert r.text.splitlines()[0] == "[goal] Fix API timeouts"
    assert "record_summary" in stub.calls()[0].body["messages"][0]["content"]


def test_no_secret_of_the_redaction_table_reaches_either_server(either):
    from redaction_table import SECRET_ROWS

    stub, make = either
    stub.push(answer(good_answer()))
    body = "\n".join(line.format(s=secret) for _, secret, line in SECRET_ROWS)
    [outcome] = make().distill_batch([exchange(1, body)], stats=STATS)
    sent = b"".join(r.raw for r in stub.requests).decode("utf-8")
    assert outcome.error is None
    assert [k for k, s, _ in SECRET_ROWS if s.strip("'\"") in sent] == []
    assert "[REDACTED:twilio_auth_token]" in sent and "[REDACTED:password_stdin]" in sent
