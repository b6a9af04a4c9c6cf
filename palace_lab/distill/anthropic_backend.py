"""The Anthropic distiller: one Claude call per exchange, answered as a structured card.

Concept: the shared LLM distiller (:mod:`palace_lab.distill.llm_distiller`: prompt, redaction,
schema check, one repair turn, fallback card, cost cap) over :class:`palace_lab.llm.LLMClient`,
whose answer is a forced ``record_card`` tool call and whose system prefix is cached. Small
runs go live through a thread pool; large ones (or ``use_batches=True``) through the Message
Batches API at half price.

Invariants (beyond the shared ones):

- An unknown model fails at construction, with the models of the price table listed; no key
  is needed until something is sent.
- A submitted batch id is written to ``state`` (a mapping the runner persists) before waiting,
  so an interrupted run resumes by polling that batch instead of paying for it twice.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path

from palace_lab.distill.base import CorpusStats, Distiller, register
from palace_lab.distill.llm_distiller import (  # noqa: F401 - re-exported
    CARD_TOOL,
    DEFAULT_MAX_EXCHANGE_CHARS,
    BudgetStoppedError,
    Job,
    LLMDistiller,
)
from palace_lab.distill.prompt import DEFAULT_TEMPLATE, INSTRUCTIONS
from palace_lab.errors import BatchPendingError, BudgetExceededError
from palace_lab.llm.client import LLMClient, LLMResult, price_for, resolve_prices, run_bounded
from palace_lab.model import Exchange
from palace_lab.settings import Settings

DEFAULT_MODEL = "claude-haiku-4-5"
STATE_PREFIX = "anthropic.batch"
# The API allows 100,000 requests or 256 MB per batch; stay well inside both.
BATCH_MAX_REQUESTS = 10_000
BATCH_MAX_BYTES = 128 * 1024 * 1024
PER_REQUEST_OVERHEAD_BYTES = len(INSTRUCTIONS) + len(json.dumps(CARD_TOOL.definition())) + 200


@register("anthropic")
class AnthropicDistiller(LLMDistiller):
    """Cards written by Claude; see the module docstrings for the guarantees."""

    backend = "anthropic"

    def __init__(
        self,
        *,
        model: str = DEFAULT_MODEL,
        api_key: str | None = None,
        base_url: str | None = None,
        template: str = DEFAULT_TEMPLATE,
        max_concurrency: int = 4,
        max_cost_usd: float | None = None,
        use_batches: bool | None = None,
        batch_threshold: int = 100,
        state: MutableMapping[str, str] | None = None,
        prices: Mapping[str, Mapping[str, float]] | str | Path | None = None,
        max_retries: int = 4,
        timeout: float = 60.0,
        backoff_base_s: float = 1.0,
        poll_interval_s: float = 30.0,
        batch_wait_s: float | None = None,
        max_exchange_chars: int = DEFAULT_MAX_EXCHANGE_CHARS,
        fallback: Distiller | None = None,
    ) -> None:
        self.prices = resolve_prices(prices)
        super().__init__(
            model=model, price=price_for(model, self.prices), template=template,
            max_concurrency=max_concurrency, max_cost_usd=max_cost_usd, max_retries=max_retries,
            timeout=timeout, backoff_base_s=backoff_base_s,
            max_exchange_chars=max_exchange_chars, fallback=fallback,
        )
        self.use_batches, self.batch_threshold = use_batches, batch_threshold
        self.state: MutableMapping[str, str] = state if state is not None else {}
        self.poll_interval_s, self.batch_wait_s = poll_interval_s, batch_wait_s
        self._api_key = api_key if api_key is not None else Settings.from_env().anthropic_api_key
        self._base_url = base_url
        self._run_size = 0
        self._ahead: dict[str, Exchange] = {}  # prepared for this run, not yet distilled
        self._fetched: dict[str, dict[str, LLMResult]] = {}

    def make_client(self) -> LLMClient:
        """Raises :class:`DistillError` when there is no API key."""
        return LLMClient(api_key=self._api_key, base_url=self._base_url, prices=self.prices,
                         **self.client_options())

    # -- the run ----------------------------------------------------------------------------

    def prepare(self, exchanges: Sequence[Exchange]) -> None:
        """Remember the run (its size decides ``use_batches=None``; in batch mode the first
        chunk submits all of it) and prepare the fallback."""
        self._run_size = len(exchanges)
        self._ahead = {x.exchange_id: x for x in exchanges}
        super().prepare(exchanges)

    def _run(self, llm: LLMClient, jobs: list[Job], stats: CorpusStats) -> list:
        if self._batch_mode([j.exchange for j in jobs]):
            return self._via_batches(llm, jobs, stats)
        return super()._run(llm, jobs, stats)

    def _batch_mode(self, exchanges: Sequence[Exchange]) -> bool:
        if any(self._state_key(x) in self.state for x in exchanges):
            return True  # resume a submitted batch whatever the size
        if self.use_batches is not None:
            return self.use_batches
        return max(len(exchanges), self._run_size) > self.batch_threshold

    # -- message batches --------------------------------------------------------------------

    def _state_key(self, exchange: Exchange) -> str:
        return f"{STATE_PREFIX}:{self.version}:{exchange.exchange_id}:{exchange.hash[:12]}"

    def _via_batches(self, llm: LLMClient, jobs: list[Job], stats: CorpusStats) -> list:
        self._submit_pending(llm, jobs)
        answers: dict[str, LLMResult] = {}
        for batch_id in dict.fromkeys(self.state[self._state_key(j.exchange)] for j in jobs):
            answers.update(self._batch_answers(llm, batch_id))
        finish = partial(self._finish_batch_item, llm, answers=answers, stats=stats)
        run = run_bounded(finish, jobs, max_concurrency=self.max_concurrency)
        for job, outcome in zip(jobs, run.results):
            if outcome is not None:
                self.state.pop(self._state_key(job.exchange), None)
                self._ahead.pop(job.exchange.exchange_id, None)
        if run.error is not None:
            raise BudgetStoppedError(str(run.error), run.results) from run.error
        return run.results

    def _submit_pending(self, llm: LLMClient, jobs: list[Job]) -> None:
        """Submit this chunk, and with it every prepared exchange not yet submitted, so a run
        the runner feeds in chunks waits for one batch, not for one batch per chunk."""
        unsent = {j.exchange.exchange_id: j for j in jobs if not self._submitted(j.exchange)}
        if not unsent:
            return
        ahead = [
            self._job(x)
            for x in self._ahead.values()
            if x.exchange_id not in unsent and not self._submitted(x)
        ]
        try:
            self._submit(llm, list(unsent.values()) + ahead)
        except BudgetExceededError:
            rest = [j for j in unsent.values() if not self._submitted(j.exchange)]
            if not ahead or not rest:
                raise
            self._submit(llm, rest)  # the whole run does not fit under the cap: this chunk only

    def _submitted(self, exchange: Exchange) -> bool:
        return self._state_key(exchange) in self.state

    def _submit(self, llm: LLMClient, jobs: list[Job]) -> None:
        for group in _batch_groups(jobs):
            requests = [
                {
                    "custom_id": j.exchange.exchange_id,
                    "params": llm.message_params(
                        INSTRUCTIONS, [{"role": "user", "content": j.user_text}], CARD_TOOL
                    ),
                }
                for j in group
            ]
            batch_id = llm.submit_batch(requests)
            for j in group:  # written before any wait: an interruption cannot lose the batch
                self.state[self._state_key(j.exchange)] = batch_id

    def _batch_answers(self, llm: LLMClient, batch_id: str) -> dict[str, LLMResult]:
        """A batch's answers, waited for and read (and charged) once per distiller."""
        if batch_id not in self._fetched:
            self._wait_for(llm, batch_id)
            self._fetched[batch_id] = llm.batch_results(batch_id, CARD_TOOL)
        return self._fetched[batch_id]

    def _wait_for(self, llm: LLMClient, batch_id: str) -> None:
        deadline = None if self.batch_wait_s is None else time.monotonic() + self.batch_wait_s
        while True:
            status = llm.poll_batch(batch_id)
            if status.ended:
                return
            if deadline is not None and time.monotonic() >= deadline:
                raise BatchPendingError(
                    f"batch {batch_id} is still {status.processing_status}; run distill again "
                    "later to collect it (its id is kept in the run state, nothing is resubmitted)"
                )
            left = self.poll_interval_s if deadline is None else deadline - time.monotonic()
            time.sleep(max(0.0, min(self.poll_interval_s, left)))

    def _finish_batch_item(
        self, llm: LLMClient, job: Job, *, answers: dict[str, LLMResult], stats: CorpusStats
    ) -> DistillOutcome:
        answer = answers.get(job.exchange.exchange_id)
        if answer is None or not answer.reply:  # errored, expired or missing: ask live instead
            return self._outcome(job, self._ask_live(llm, job), stats)
        errors = self._check(job, answer.data) if answer.ok else []
        if errors:  # schema-valid, but the detail was not copied from this exchange
            answer = replace(answer, data=None, error="; ".join(errors))
        if not answer.ok:
            check = partial(self._check, job)
            answer = llm.repair(INSTRUCTIONS, job.user_text, CARD_TOOL, answer, check=check)
        return self._outcome(job, answer, stats)


def _batch_groups(jobs: list[Job]) -> list[list[Job]]:
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
