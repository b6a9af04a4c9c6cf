"""One distiller run through the Message Batches API: submit, wait, collect, resume.

Concept: the card requests of a run go to :class:`~palace_lab.llm.batches.MessageBatches` as
few batches as the API limits allow; each exchange's batch id is kept in ``state`` (a mapping
the runner persists) under a key of the distiller version and the exchange's hash. A run the
runner feeds in chunks submits, with its first chunk, every exchange prepared for it, so it
waits for one batch, not for one batch per chunk.

Invariants:

- A batch id is written to ``state`` before any wait, so an interrupted run resumes by polling
  that batch instead of paying for it twice; a collected exchange leaves no key behind.
- A batch's answers are waited for and read (and so charged) once per run.
- A batch that has not ended within ``batch_wait_s`` raises
  :class:`~palace_lab.errors.BatchPendingError`, its ids kept.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, MutableMapping, Sequence

from palace_lab.distill.llm_distiller import CARD_TOOL, Job
from palace_lab.distill.prompt import INSTRUCTIONS
from palace_lab.errors import BatchPendingError, CostCapExceededError
from palace_lab.llm.base import LLMResult
from palace_lab.llm.batches import MessageBatches
from palace_lab.model import Exchange

STATE_PREFIX = "anthropic.batch"
# The API allows 100,000 requests or 256 MB per batch; stay well inside both.
BATCH_MAX_REQUESTS = 10_000
BATCH_MAX_BYTES = 128 * 1024 * 1024
PER_REQUEST_OVERHEAD_BYTES = len(INSTRUCTIONS) + len(json.dumps(CARD_TOOL.definition())) + 200


class BatchSubmission:
    """The batch half of one distiller's runs: what was submitted, what was read."""

    def __init__(self, *, version: str, state: MutableMapping[str, str],
                 poll_interval_s: float = 30.0, batch_wait_s: float | None = None) -> None:
        self.version, self.state = version, state
        self.poll_interval_s, self.batch_wait_s = poll_interval_s, batch_wait_s
        self.ahead: dict[str, Exchange] = {}  # prepared for this run, not yet distilled
        self._fetched: dict[str, dict[str, LLMResult]] = {}

    def key(self, exchange: Exchange) -> str:
        return f"{STATE_PREFIX}:{self.version}:{exchange.exchange_id}:{exchange.hash[:12]}"

    def submitted(self, exchange: Exchange) -> bool:
        return self.key(exchange) in self.state

    def expect(self, exchanges: Sequence[Exchange]) -> None:
        """The exchanges of the run about to start (the first chunk submits all of them)."""
        self.ahead = {x.exchange_id: x for x in exchanges}

    def answers(self, batches: MessageBatches, jobs: list[Job],
                job_of: Callable[[Exchange], Job]) -> dict[str, LLMResult]:
        """``{exchange_id: answer}`` for ``jobs``, submitting what is not yet submitted."""
        self._submit_pending(batches, jobs, job_of)
        answers: dict[str, LLMResult] = {}
        for batch_id in dict.fromkeys(self.state[self.key(j.exchange)] for j in jobs):
            answers.update(self._batch_answers(batches, batch_id))
        return answers

    def collected(self, job: Job) -> None:
        """``job`` has its card: forget its batch id."""
        self.state.pop(self.key(job.exchange), None)
        self.ahead.pop(job.exchange.exchange_id, None)

    def _submit_pending(self, batches: MessageBatches, jobs: list[Job],
                        job_of: Callable[[Exchange], Job]) -> None:
        unsent = {j.exchange.exchange_id: j for j in jobs if not self.submitted(j.exchange)}
        if not unsent:
            return
        ahead = [job_of(x) for x in self.ahead.values()
                 if x.exchange_id not in unsent and not self.submitted(x)]
        try:
            self._submit(batches, list(unsent.values()) + ahead)
        except CostCapExceededError:
            rest = [j for j in unsent.values() if not self.submitted(j.exchange)]
            if not ahead or not rest:
                raise
            self._submit(batches, rest)  # the whole run does not fit under the cap: this chunk

    def _submit(self, batches: MessageBatches, jobs: list[Job]) -> None:
        for group in batch_groups(jobs):
            requests = [{"custom_id": j.exchange.exchange_id, "params": card_params(batches, j)}
                        for j in group]
            batch_id = batches.submit(requests)
            for j in group:  # written before any wait: an interruption cannot lose the batch
                self.state[self.key(j.exchange)] = batch_id

    def _batch_answers(self, batches: MessageBatches, batch_id: str) -> dict[str, LLMResult]:
        if batch_id not in self._fetched:
            self._wait_for(batches, batch_id)
            self._fetched[batch_id] = batches.results(batch_id, CARD_TOOL)
        return self._fetched[batch_id]

    def _wait_for(self, batches: MessageBatches, batch_id: str) -> None:
        deadline = None if self.batch_wait_s is None else time.monotonic() + self.batch_wait_s
        while True:
            status = batches.poll(batch_id)
            if status.ended:
                return
            if deadline is not None and time.monotonic() >= deadline:
                raise BatchPendingError(
                    f"batch {batch_id} is still {status.processing_status}; run distill again "
                    "later to collect it (its id is kept in the run state, nothing is resubmitted)"
                )
            left = self.poll_interval_s if deadline is None else deadline - time.monotonic()
            time.sleep(max(0.0, min(self.poll_interval_s, left)))


def card_params(batches: MessageBatches, job: Job) -> dict:
    """The Messages API body asking for ``job``'s card (a batch item's ``params``)."""
    messages = [{"role": "user", "content": job.user_text}]
    return batches.client.message_params(INSTRUCTIONS, messages, CARD_TOOL)


def batch_groups(jobs: list[Job]) -> list[list[Job]]:
    """Split a submission under the Message Batches limits (requests and bytes per batch)."""
    groups: list[list[Job]] = [[]]
    size = 0
    for job in jobs:
        n = len(job.user_text.encode("utf-8")) + PER_REQUEST_OVERHEAD_BYTES
        if groups[-1] and (len(groups[-1]) >= BATCH_MAX_REQUESTS or size + n > BATCH_MAX_BYTES):
            groups.append([])
            size = 0
        groups[-1].append(job)
        size += n
    return groups
