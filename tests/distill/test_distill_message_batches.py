"""palace_lab.distill.message_batches: submit a run's cards once, keep the ids, resume, split under
the API's limits (against :mod:`anthropic_stub` on 127.0.0.1)."""

from __future__ import annotations

import pytest
from anthropic_stub import AnthropicStub

from palace_lab.distill import message_batches
from palace_lab.distill.message_batches import BatchSubmission, batch_groups
from palace_lab.distill.llm_distiller import Job
from palace_lab.errors import BatchPendingError
from palace_lab.llm.batches import MessageBatches
from palace_lab.llm.client import LLMClient
from palace_lab.model import Exchange


def exchange(i: int) -> Exchange:
    request = f"fix the pool_size {i}"
    return Exchange(f"e{i}", "c1", 2 * i, 2 * i + 1, request, f"{request}\n\nset it to {i}",
                    request)


def job(x: Exchange, text: str = "") -> Job:
    return Job(x, text or f"<exchange>{x.verbatim}</exchange>", x.verbatim, (), {})


def test_groups_split_at_the_request_and_byte_limits(monkeypatch):
    jobs = [job(exchange(i), "x" * 10) for i in range(5)]
    monkeypatch.setattr(message_batches, "BATCH_MAX_REQUESTS", 2)
    assert [len(g) for g in batch_groups(jobs)] == [2, 2, 1]
    monkeypatch.setattr(message_batches, "BATCH_MAX_REQUESTS", 100)
    monkeypatch.setattr(message_batches, "BATCH_MAX_BYTES",
                        3 * (10 + message_batches.PER_REQUEST_OVERHEAD_BYTES))
    assert [len(g) for g in batch_groups(jobs)] == [3, 2]


def test_a_run_is_submitted_once_with_what_is_ahead_and_resumed_from_its_state():
    xs = [exchange(i) for i in range(3)]
    state: dict[str, str] = {}
    with AnthropicStub(polls_until_ended=3) as stub:
        batches = MessageBatches(LLMClient(api_key="k", base_url=stub.base_url, max_retries=0))
        first = BatchSubmission(version="anthropic:m:p", state=state, batch_wait_s=0.0)
        first.expect(xs)
        with pytest.raises(BatchPendingError, match="run distill again"):
            first.answers(batches, [job(xs[0])], job)
        assert state == {first.key(x): "msgbatch_0001" for x in xs}  # the whole run, one batch
        again = BatchSubmission(version="anthropic:m:p", state=state, poll_interval_s=0.0)
        answers = again.answers(batches, [job(x) for x in xs], job)
        assert len(stub.calls("POST", "/v1/messages/batches")) == 1
    assert set(answers) == {"e0", "e1", "e2"} and all(a.ok for a in answers.values())
    for x in xs:
        again.collected(job(x))
    assert state == {}
