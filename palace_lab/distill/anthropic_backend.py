"""The Anthropic distiller: one Claude call per exchange, answered as a structured card.

Concept: the shared LLM distiller (:mod:`palace_lab.distill.llm_distiller`: prompt, redaction,
schema check, one repair turn, fallback card, cost cap) over :class:`palace_lab.llm.LLMClient`,
whose answer is a forced ``record_card`` tool call and whose system prefix is cached. Small
runs go live through a thread pool; large ones (or ``use_batches=True``) through the Message
Batches API at half price (:mod:`palace_lab.distill.message_batches` submits, waits and resumes;
this module finishes each answer: check, repair, or ask live).

Invariants (beyond the shared ones):

- An unknown model fails at construction, with the models of the price table listed; no key
  is needed until something is sent.
- A run with an exchange already submitted (its batch id in ``state``) goes through batches
  whatever its size, so an interrupted run resumes instead of paying twice.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path

from palace_lab.distill.base import CorpusStats, Distiller, DistillOutcome, register
from palace_lab.distill.message_batches import BatchSubmission
from palace_lab.distill.llm_distiller import (  # noqa: F401 - re-exported
    CARD_TOOL,
    DEFAULT_MAX_EXCHANGE_CHARS,
    BudgetStoppedError,
    Job,
    LLMDistiller,
)
from palace_lab.distill.prompt import DEFAULT_TEMPLATE, INSTRUCTIONS
from palace_lab.llm.batches import MessageBatches
from palace_lab.llm.client import LLMClient, LLMResult, price_for, resolve_prices, run_bounded
from palace_lab.model import Exchange
from palace_lab.settings import Settings

DEFAULT_MODEL = "claude-haiku-4-5"


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
        self.submission = BatchSubmission(version=self.version, state=state if state is not None else {},
                                  poll_interval_s=poll_interval_s, batch_wait_s=batch_wait_s)
        self._api_key = api_key if api_key is not None else Settings.from_env().anthropic_api_key
        self._base_url = base_url
        self._run_size = 0
        self._batches: MessageBatches | None = None

    @property
    def state(self) -> MutableMapping[str, str]:
        """The run state the batch ids are kept in (the runner sets the palace's own)."""
        return self.submission.state

    @state.setter
    def state(self, state: MutableMapping[str, str]) -> None:
        self.submission.state = state

    def make_client(self) -> LLMClient:
        """Raises :class:`DistillError` when there is no API key."""
        return LLMClient(api_key=self._api_key, base_url=self._base_url, prices=self.prices,
                         **self.client_options())

    # -- the run ----------------------------------------------------------------------------

    def prepare(self, exchanges: Sequence[Exchange]) -> None:
        """Remember the run (its size decides ``use_batches=None``; in batch mode the first
        chunk submits all of it) and prepare the fallback."""
        self._run_size = len(exchanges)
        self.submission.expect(exchanges)
        super().prepare(exchanges)

    def _run(self, llm: LLMClient, jobs: list[Job], stats: CorpusStats) -> list:
        if self._batch_mode([j.exchange for j in jobs]):
            return self._via_batches(llm, jobs, stats)
        return super()._run(llm, jobs, stats)

    def _batch_mode(self, exchanges: Sequence[Exchange]) -> bool:
        if any(self.submission.submitted(x) for x in exchanges):
            return True  # resume a submitted batch whatever the size
        if self.use_batches is not None:
            return self.use_batches
        return max(len(exchanges), self._run_size) > self.batch_threshold

    # -- message batches --------------------------------------------------------------------

    def _via_batches(self, llm: LLMClient, jobs: list[Job], stats: CorpusStats) -> list:
        if self._batches is None or self._batches.client is not llm:
            self._batches = MessageBatches(llm)
        answers = self.submission.answers(self._batches, jobs, self._job)
        finish = partial(self._finish_batch_item, llm, answers=answers, stats=stats)
        run = run_bounded(finish, jobs, max_concurrency=self.max_concurrency)
        for job, outcome in zip(jobs, run.results):
            if outcome is not None:
                self.submission.collected(job)
        if run.error is not None:
            raise BudgetStoppedError(str(run.error), run.results) from run.error
        return run.results

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

