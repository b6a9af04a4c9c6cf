"""The Anthropic distiller: one Claude call per exchange, answered as a structured card.

Concept: each exchange is rendered through the prompt template of
:mod:`palace_lab.distill.prompt`, redacted, and sent with the fixed instructions as the cached
system prefix; the model answers by calling the ``record_card`` tool, whose input is checked
against :data:`~palace_lab.distill.prompt.CARD_SCHEMA` (one repair turn on an invalid answer).
Small runs go live through a thread pool; large ones (or ``use_batches=True``) through the
Message Batches API at half price.

Invariants:

- No text leaves the machine unredacted (:func:`palace_lab.redact.redact`), and the card keeps
  no secret either: its fields are redacted again. ``files_touched`` comes from the regular
  expression, never from the model.
- One bad exchange never fails the run: if the call fails after its retries, or the answer is
  still invalid after the repair, the exchange gets the rules distiller's card, stored under
  this distiller's version with ``fallback=True`` and the error in its outcome.
- Money is capped: :class:`~palace_lab.errors.BudgetExceededError` propagates (as
  :class:`BudgetStoppedError`, carrying the outcomes already made) and nothing over the cap is
  spent. The client lives as long as the distiller, so the cap spans every chunk of a run.
- A submitted batch id is written to ``state`` (a mapping the runner persists) before waiting,
  so an interrupted run resumes by polling that batch instead of paying for it twice.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

from palace_lab.distill.base import CorpusStats, Distiller, DistillOutcome, register
from palace_lab.distill.prompt import (
    CARD_SCHEMA,
    DEFAULT_TEMPLATE,
    EXPECTED_CARD_TOKENS,
    INSTRUCTIONS,
    MAX_CARD_TOKENS,
    TOOL_DESCRIPTION,
    TOOL_NAME,
    PromptValues,
    card_answer_errors,
    check_template,
    files_touched_for,
    prompt_hash,
    render,
    shorten_middle,
)
from palace_lab.errors import BatchPendingError, BudgetExceededError
from palace_lab.llm import (
    LLMClient,
    LLMResult,
    Tool,
    estimate_cost,
    price_for,
    resolve_prices,
    run_bounded,
)
from palace_lab.model import DistilledCard, Exchange, Room, preview_of
from palace_lab.redact import merge_counts, redact, redact_text

DEFAULT_MODEL = "claude-haiku-4-5"
DEFAULT_MAX_EXCHANGE_CHARS = 24_000  # longer exchanges lose their middle (it is said so)
STATE_PREFIX = "anthropic.batch"
CARD_TOOL = Tool(CARD_SCHEMA, TOOL_NAME, TOOL_DESCRIPTION, MAX_CARD_TOKENS)
# The API allows 100,000 requests or 256 MB per batch; stay well inside both.
BATCH_MAX_REQUESTS = 10_000
BATCH_MAX_BYTES = 128 * 1024 * 1024
PER_REQUEST_OVERHEAD_BYTES = len(INSTRUCTIONS) + len(json.dumps(CARD_TOOL.definition())) + 200


class BudgetStoppedError(BudgetExceededError):
    """The cost cap stopped a run; ``outcomes`` holds what was made (None where not run)."""

    def __init__(self, message: str, outcomes: list[DistillOutcome | None]) -> None:
        super().__init__(message)
        self.outcomes = outcomes


@dataclass(frozen=True)
class _Job:
    exchange: Exchange
    user_text: str  # the rendered, redacted user turn that is sent
    source_text: str  # request + exchange text as sent; specific_context must occur in it
    files: tuple[str, ...]
    redactions: dict[str, int]  # {kind: count} removed from this exchange's text


@register("anthropic")
class AnthropicDistiller(Distiller):
    """Cards written by Claude; see the module docstring for the guarantees."""

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
        check_template(template)
        self.model, self.template = model, template
        self._version = f"anthropic:{model}:{prompt_hash(template)}" + (
            "" if max_exchange_chars == DEFAULT_MAX_EXCHANGE_CHARS else f":cut{max_exchange_chars}"
        )
        self.max_concurrency, self.max_cost_usd = max_concurrency, max_cost_usd
        self.use_batches, self.batch_threshold = use_batches, batch_threshold
        self.state: MutableMapping[str, str] = state if state is not None else {}
        self.prices = resolve_prices(prices)
        price_for(model, self.prices)  # an unknown model fails now, with the known ones listed
        self.max_retries, self.timeout, self.backoff_base_s = max_retries, timeout, backoff_base_s
        self.poll_interval_s, self.batch_wait_s = poll_interval_s, batch_wait_s
        self.max_exchange_chars = max_exchange_chars
        self.redactions: dict[str, dict[str, int]] = {}
        self._api_key = api_key if api_key is not None else os.environ.get("ANTHROPIC_API_KEY")
        self._base_url = base_url
        self._fallback = fallback
        self._llm: LLMClient | None = None
        self._run_size = 0
        self._ahead: dict[str, Exchange] = {}  # prepared for this run, not yet distilled
        self._fetched: dict[str, dict[str, LLMResult]] = {}
        self._lock = threading.Lock()

    # -- identity and money -----------------------------------------------------------------

    @property
    def version(self) -> str:
        return self._version

    @property
    def config(self) -> dict:
        """What makes this version (stored with it in the palace); never the key."""
        return {
            "model": self.model,
            "prompt_hash": prompt_hash(self.template),
            "template": self.template,
            "max_exchange_chars": self.max_exchange_chars,
        }

    @property
    def spent_usd(self) -> float:
        return self._llm.spent_usd if self._llm is not None else 0.0

    def redaction_report(self) -> dict[str, int]:
        """``{kind: count}`` of every secret removed from what this distiller sent."""
        return merge_counts(*self.redactions.values())

    def estimate_cost(self, exchanges: Sequence[Exchange]) -> float:
        """Dollars for ``exchanges``: prefix + rendered exchange in, a typical card out."""
        prefix = INSTRUCTIONS + json.dumps(CARD_TOOL.definition())
        texts = [prefix + self._draft(x) for x in exchanges]
        batch = self._batch_mode(exchanges)
        return estimate_cost(
            texts, EXPECTED_CARD_TOKENS, model=self.model, prices=self.prices, batch=batch
        )

    def client(self) -> LLMClient:
        """The shared client (raises :class:`DistillError` when there is no API key)."""
        with self._lock:
            if self._llm is None:
                self._llm = LLMClient(
                    api_key=self._api_key,
                    model=self.model,
                    base_url=self._base_url,
                    max_retries=self.max_retries,
                    timeout=self.timeout,
                    max_concurrency=self.max_concurrency,
                    max_cost_usd=self.max_cost_usd,
                    prices=self.prices,
                    backoff_base_s=self.backoff_base_s,
                )
            return self._llm

    # -- the run ----------------------------------------------------------------------------

    def prepare(self, exchanges: Sequence[Exchange]) -> None:
        """Remember the run (its size decides ``use_batches=None``; in batch mode the first
        chunk submits all of it) and prepare the fallback."""
        self._run_size = len(exchanges)
        self._ahead = {x.exchange_id: x for x in exchanges}
        fallback = self._fallback_distiller()
        if fallback is not None:
            fallback.prepare(exchanges)

    def distill_batch(
        self, exchanges: Sequence[Exchange], *, stats: CorpusStats
    ) -> list[DistillOutcome]:
        if not exchanges:
            return []
        llm = self.client()
        self._fallback_distiller()  # built once here, not racily inside the worker threads
        jobs = [self._job(x) for x in exchanges]
        self.redactions.update((j.exchange.exchange_id, j.redactions) for j in jobs)
        if self._batch_mode(exchanges):
            return self._via_batches(llm, jobs, stats)
        run = run_bounded(
            partial(self._live_one, llm, stats=stats), jobs, max_concurrency=self.max_concurrency
        )
        if run.error is not None:
            raise BudgetStoppedError(str(run.error), run.results) from run.error
        return run.results

    def _batch_mode(self, exchanges: Sequence[Exchange]) -> bool:
        if any(self._state_key(x) in self.state for x in exchanges):
            return True  # resume a submitted batch whatever the size
        if self.use_batches is not None:
            return self.use_batches
        return max(len(exchanges), self._run_size) > self.batch_threshold

    def _job(self, exchange: Exchange) -> _Job:
        # Redact before shortening, so a cut can never leave half a secret unrecognisable.
        verbatim = redact(exchange.verbatim)
        request = shorten_middle(redact_text(exchange.request), self.max_exchange_chars // 4)
        text = shorten_middle(verbatim.text, self.max_exchange_chars)
        files = tuple(redact_text(f) for f in files_touched_for(exchange))
        values = PromptValues.of(exchange, files=files, exchange_text=text, request=request)
        sent = redact(render(self.template, values))  # also covers ids, project, timestamp
        counts = merge_counts(verbatim.counts, sent.counts)
        return _Job(exchange, sent.text, f"{request}\n{text}", files, counts)

    def _draft(self, exchange: Exchange) -> str:
        """The user turn without redaction: as long as the real one to within a few
        characters per secret, and cheap enough to estimate a whole palace."""
        request = shorten_middle(exchange.request, self.max_exchange_chars // 4)
        text = shorten_middle(exchange.verbatim, self.max_exchange_chars)
        files = files_touched_for(exchange)
        values = PromptValues.of(exchange, files=files, exchange_text=text, request=request)
        return render(self.template, values)

    def _check(self, job: _Job, answer: dict) -> list[str]:
        return card_answer_errors(answer, job.source_text)

    def _ask_live(self, llm: LLMClient, job: _Job) -> LLMResult:
        return llm.call_json(
            INSTRUCTIONS,
            job.user_text,
            CARD_SCHEMA,
            tool_name=TOOL_NAME,
            tool_description=TOOL_DESCRIPTION,
            max_tokens=MAX_CARD_TOKENS,
            check=partial(self._check, job),
        )

    def _live_one(self, llm: LLMClient, job: _Job, *, stats: CorpusStats) -> DistillOutcome:
        return self._outcome(job, self._ask_live(llm, job), stats)

    # -- message batches --------------------------------------------------------------------

    def _state_key(self, exchange: Exchange) -> str:
        return f"{STATE_PREFIX}:{self.version}:{exchange.exchange_id}:{exchange.hash[:12]}"

    def _via_batches(self, llm: LLMClient, jobs: list[_Job], stats: CorpusStats) -> list:
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

    def _submit_pending(self, llm: LLMClient, jobs: list[_Job]) -> None:
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

    def _submit(self, llm: LLMClient, jobs: list[_Job]) -> None:
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
        self, llm: LLMClient, job: _Job, *, answers: dict[str, LLMResult], stats: CorpusStats
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

    # -- cards ------------------------------------------------------------------------------

    def _outcome(self, job: _Job, result: LLMResult, stats: CorpusStats) -> DistillOutcome:
        if result.ok:
            card, error = self._card(job, result.data), None
        else:
            card, error = self._fallback_card(job, stats), result.error
        return DistillOutcome(
            card=card,
            error=error,
            input_tokens=result.usage.all_input_tokens,
            output_tokens=result.usage.output_tokens,
            cost_usd=result.cost_usd,
        )

    def _card(self, job: _Job, data: dict) -> DistilledCard:
        rooms = tuple(
            Room(
                r["room_type"],
                redact_text(r["room_key"]),
                redact_text(r["room_label"]),
                float(r["relevance"]),
            )
            for r in data["room_assignments"]
        )
        return DistilledCard(
            exchange_id=job.exchange.exchange_id,
            distiller=self.version,
            exchange_core=redact_text(data["exchange_core"]),
            specific_context=redact_text(data["specific_context"]),
            room_assignments=rooms,
            files_touched=job.files,
        )

    def _fallback_distiller(self) -> Distiller | None:
        if self._fallback is None:
            try:
                from palace_lab.distill.rules import RulesDistiller
            except ImportError:
                return None
            self._fallback = RulesDistiller()
        return self._fallback

    def _fallback_card(self, job: _Job, stats: CorpusStats) -> DistilledCard:
        card = None
        fallback = self._fallback_distiller()
        if fallback is not None:
            try:
                card = fallback.distill_batch([job.exchange], stats=stats)[0].card
            except Exception:  # noqa: BLE001 - a broken fallback must not fail the whole run
                card = None
        if card is None:  # no rules distiller at all: the request itself, shortened
            card = DistilledCard(
                job.exchange.exchange_id, self.version, preview_of(job.exchange.request), "", (), ()
            )
        rooms = tuple(
            replace(r, room_key=redact_text(r.room_key), room_label=redact_text(r.room_label))
            for r in card.room_assignments
        )
        return replace(
            card,
            distiller=self.version,
            fallback=True,
            exchange_core=redact_text(card.exchange_core),
            specific_context=redact_text(card.specific_context),
            room_assignments=rooms,
            files_touched=job.files,
        )


def _batch_groups(jobs: list[_Job]) -> list[list[_Job]]:
    """Split a submission under the Message Batches limits (requests and bytes per batch)."""
    groups: list[list[_Job]] = [[]]
    size = 0
    for job in jobs:
        n = len(job.user_text.encode("utf-8")) + PER_REQUEST_OVERHEAD_BYTES
        if groups[-1] and (len(groups[-1]) >= BATCH_MAX_REQUESTS or size + n > BATCH_MAX_BYTES):
            groups.append([])
            size = 0
        groups[-1].append(job)
        size += n
    return groups
