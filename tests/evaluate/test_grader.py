"""The LLM grader with a fake client, then through the real SDK against the local API stub."""

import json

import pytest
from anthropic_stub import AnthropicStub, answer

from palace_lab.errors import CostCapExceededError
from palace_lab.evaluate.grader import (
    GRADE_SCHEMA, MARKER, RUBRIC, TOOL_NAME, GradeItem, consensus, estimate_grading_cost, grade,
    grade_with, items_for, majority_grade, median_grade, save_grades, user_text,
)
from palace_lab.llm.client import LLMClient, LLMResult

ITEMS = [
    GradeItem("q1", "pool timeout", "x1", "[user] why does the pool time out\n[assistant] raise max_size"),
    GradeItem("q1", "pool timeout", "x2", "[user] rename a helper"),
    GradeItem("q2", "avatar KeyError", "x3", "KeyError: 'avatar_url'"),
]


class FakeClient:
    """Anything with ``model`` and ``call_json`` will do; this one answers from a table."""

    max_concurrency = 2

    def __init__(self, model, grades, *, fail=(), budget_after=None):
        self.model, self.grades, self.fail = model, grades, set(fail)
        self.budget_after, self.calls = budget_after, []

    def call_json(self, system, user, schema, **options):
        self.calls.append((system, user, schema, options))
        if self.budget_after is not None and len(self.calls) > self.budget_after:
            raise CostCapExceededError("the cost cap of $0.0100 would be exceeded")
        eid = user.split("Exchange ", 1)[1].split(":", 1)[0]
        if eid in self.fail:
            return LLMResult(None, "$.grade: 5 is not one of [0, 1, 2, 3]", cost_usd=0.001)
        return LLMResult({"grade": self.grades[eid], "reason": "because"}, cost_usd=0.001)


def test_prompts_open_with_the_marker_and_name_the_tool():
    assert RUBRIC.startswith(MARKER) and MARKER == "[palace_lab:grade]"
    text = user_text(ITEMS[0])
    assert text.startswith(MARKER) and "<query>pool timeout</query>" in text and "Exchange x1:" in text
    assert TOOL_NAME in RUBRIC


def test_user_text_is_redacted_and_cut():
    secret = "sk-ant-" + "a1B2c3D4" * 5
    item = GradeItem("q", "find key", "x", f"key is {secret} " + "word " * 4000)
    text = user_text(item, max_chars=500)
    assert secret not in text and "REDACTED" in text
    assert "characters omitted" in text and len(text) < 800


def test_grade_with_a_fake_client():
    client = FakeClient("fake-1", {"x1": 3, "x2": 0, "x3": 2}, fail={"x2"})
    result = grade(client, ITEMS)
    assert result.judge == "llm:fake-1"
    assert result.qrels == {"q1": {"x1": 3}, "q2": {"x3": 2}}
    assert result.failures == {"q1/x2": "$.grade: 5 is not one of [0, 1, 2, 3]"}
    assert result.cost_usd == pytest.approx(0.003) and result.stopped is None
    system, _, schema, options = client.calls[0]
    assert system == RUBRIC and schema == GRADE_SCHEMA and options["tool_name"] == TOOL_NAME


def test_the_cost_cap_stops_grading_and_says_so():
    client = FakeClient("fake-1", {"x1": 3, "x2": 0, "x3": 2}, budget_after=1)
    result = grade(client, ITEMS, max_concurrency=1)
    assert result.qrels == {"q1": {"x1": 3}}
    assert "cost cap" in result.stopped
    assert set(result.failures) == {"q1/x2", "q2/x3"}


def test_several_graders_consensus_and_storage(tmp_path):
    from palace_lab.store import Palace

    clients = [FakeClient("m-a", {"x1": 3, "x2": 0, "x3": 2}), FakeClient("m-b", {"x1": 2, "x2": 1, "x3": 2}),
               FakeClient("m-c", {"x1": 2, "x2": 0, "x3": 3})]
    gradings = grade_with(clients, ITEMS)
    by_judge = {j: g.qrels for j, g in gradings.items()}
    assert consensus(by_judge, "median") == {"q1": {"x1": 2, "x2": 0}, "q2": {"x3": 2}}
    assert consensus(by_judge, "majority") == {"q1": {"x1": 2, "x2": 0}, "q2": {"x3": 2}}
    assert consensus({"a": {"q": {"x": 1}}}, min_graders=2) == {}
    with Palace.open(tmp_path / "p.db") as palace:
        assert save_grades(palace, gradings) == 9
        assert palace.qrels(judge="llm:m-b") == {"q1": {"x1": 2, "x2": 1}, "q2": {"x3": 2}}


def test_median_and_majority_by_hand():
    assert median_grade([3, 1]) == 1  # lower median of an even count
    assert median_grade([0, 3, 2]) == 2
    assert majority_grade([3, 3, 1, 1, 2]) == 1  # tie between 3 and 1: the lower grade
    assert majority_grade([2, 2, 0]) == 2
    with pytest.raises(ValueError, match="valid: median, majority"):
        consensus({}, "mean")


def test_items_for_reads_the_verbatim_exchanges(tmp_path):
    class FakePalace:
        def exchange(self, eid):
            return None if eid == "gone" else type("E", (), {"verbatim": f"text of {eid}"})()

    items = items_for(FakePalace(), {"q1": "pool"}, {"q1": ["x1"]})
    assert items == [GradeItem("q1", "pool", "x1", "text of x1")]
    with pytest.raises(ValueError, match="not in the palace: gone"):
        items_for(FakePalace(), {"q1": "pool"}, {"q1": ["gone"]})


def test_estimate_with_a_real_client_needs_no_network():
    client = LLMClient(api_key="sk-test", model="claude-haiku-4-5")
    assert 0 < estimate_grading_cost(client, ITEMS) < 0.01


# ----------------------------------------------------------------------- the real SDK, locally

def test_grading_through_the_sdk_against_the_stub():
    with AnthropicStub() as stub:
        stub.push(answer({"grade": 3, "reason": "names the pool"}),
                  answer({"grade": 9, "reason": "out of range"}), answer({"grade": 0, "reason": "fixed"}),
                  answer({"grade": 2, "reason": "the KeyError"}))
        client = LLMClient(api_key="sk-test", base_url=stub.base_url, max_retries=0,
                           max_concurrency=1, max_cost_usd=1.0)
        result = grade(client, ITEMS)
        sent = [r.body for r in stub.calls()]
    assert result.qrels == {"q1": {"x1": 3, "x2": 0}, "q2": {"x3": 2}}
    assert result.failures == {} and result.cost_usd > 0
    first = sent[0]
    assert first["system"][0]["text"].startswith(MARKER)
    assert first["system"][-1]["cache_control"] == {"type": "ephemeral"}
    assert first["messages"][0]["content"].startswith(MARKER)
    assert first["tool_choice"] == {"type": "tool", "name": TOOL_NAME}
    repair = sent[2]["messages"][-1]["content"][0]
    assert repair["type"] == "tool_result" and repair["is_error"] and "$.grade" in repair["content"]
    assert json.dumps(first["tools"][0]["input_schema"]) == json.dumps(GRADE_SCHEMA)
