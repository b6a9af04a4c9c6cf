"""What every LLM distiller shares: one structured call per exchange, answered as a card.

Concept: each exchange is rendered through the prompt template of
:mod:`palace_lab.distill.prompt`, redacted, and sent with the fixed instructions as the
system prefix through a :class:`~palace_lab.llm.base.StructuredClient`; the answer is checked
against :data:`~palace_lab.distill.prompt.CARD_SCHEMA` and
:func:`~palace_lab.distill.prompt.card_answer_errors` (one repair turn on an invalid answer).
A subclass says only which client it talks through (:meth:`LLMDistiller.make_client`); the
Anthropic one adds the Message Batches API.

Invariants:

- No text leaves the machine unredacted (:func:`palace_lab.redact.redact`), and the card keeps
  no secret either: its fields are redacted again. ``files_touched`` comes from the regular
  expression, never from the model, and ``keywords`` (the fifth field) from the rules'
  surviving-vocabulary chooser under the rules' budget B(e).
- One bad exchange never fails the run: if the call fails after its retries, or the answer is
  still invalid after the repair, the exchange gets the rules distiller's card, stored under
  this distiller's version with ``fallback=True`` and the error in its outcome.
- Money is capped: :class:`~palace_lab.errors.CostCapExceededError` propagates (as
  :class:`BudgetStoppedError`, carrying the outcomes already made) and nothing over the cap is
  spent. The client lives as long as the distiller, so the cap spans every chunk of a run.
- The version is ``backend:model:prompt-hash`` (``:cutN`` when exchanges are cut elsewhere
  than the default), so cards of every backend and model sit side by side for A/B.
"""

from __future__ import annotations

import json
import threading
from abc import abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial

from palace_lab.distill.base import CorpusStats, Distiller, DistillOutcome
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
from palace_lab.errors import CostCapExceededError
from palace_lab.llm.base import LLMResult, StructuredClient, Tool, run_bounded
from palace_lab.llm.cost import estimate_at
from palace_lab.model import DistilledCard, Exchange, Room, preview_of
from palace_lab.redact import merge_counts, redact, redact_text

DEFAULT_MAX_EXCHANGE_CHARS = 24_000  # longer exchanges lose their middle (it is said so)
CARD_TOOL = Tool(CARD_SCHEMA, TOOL_NAME, TOOL_DESCRIPTION, MAX_CARD_TOKENS)


class BudgetStoppedError(CostCapExceededError):
    """The cost cap stopped a run; ``outcomes`` holds what was made (None where not run)."""

    def __init__(self, message: str, outcomes: list[DistillOutcome | None]) -> None:
        super().__init__(message)
        self.outcomes = outcomes


@dataclass(frozen=True)
class Job:
    exchange: Exchange
    user_text: str  # the rendered, redacted user turn that is sent
    source_text: str  # request + exchange text as sent; specific_context must occur in it
    files: tuple[str, ...]
    redactions: dict[str, int]  # {kind: count} removed from this exchange's text


class LLMDistiller(Distiller):
    """Cards written by a model; see the module docstring for the guarantees."""

    def __init__(
        self,
        *,
        model: str,
        price: Mapping[str, float],
        template: str = DEFAULT_TEMPLATE,
        max_concurrency: int = 4,
        max_cost_usd: float | None = None,
        max_retries: int = 4,
        timeout: float = 60.0,
        backoff_base_s: float = 1.0,
        max_exchange_chars: int = DEFAULT_MAX_EXCHANGE_CHARS,
        fallback: Distiller | None = None,
    ) -> None:
        check_template(template)
        self.model, self.template, self.price = model, template, price
        self._version = f"{self.backend}:{model}:{prompt_hash(template)}" + (
            "" if max_exchange_chars == DEFAULT_MAX_EXCHANGE_CHARS else f":cut{max_exchange_chars}"
        )
        self.max_concurrency, self.max_cost_usd = max_concurrency, max_cost_usd
        self.max_retries, self.timeout, self.backoff_base_s = max_retries, timeout, backoff_base_s
        self.max_exchange_chars = max_exchange_chars
        self.redactions: dict[str, dict[str, int]] = {}
        self._fallback = fallback
        self._llm: StructuredClient | None = None
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
        return estimate_at(texts, EXPECTED_CARD_TOKENS, self.price,
                           batch=self._batch_mode(exchanges))

    def _batch_mode(self, exchanges: Sequence[Exchange]) -> bool:
        return False

    def client_options(self) -> dict:
        """The client arguments every backend shares, from this distiller's settings."""
        return dict(model=self.model, max_retries=self.max_retries, timeout=self.timeout,
                    max_concurrency=self.max_concurrency, max_cost_usd=self.max_cost_usd,
                    backoff_base_s=self.backoff_base_s)

    @abstractmethod
    def make_client(self) -> StructuredClient:
        """A new client for this distiller's model, retries, timeout and cap."""

    def client(self) -> StructuredClient:
        """The shared client, built on first use."""
        with self._lock:
            if self._llm is None:
                self._llm = self.make_client()
            return self._llm

    # -- the run ----------------------------------------------------------------------------

    def prepare(self, exchanges: Sequence[Exchange]) -> None:
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
        return self._run(llm, jobs, stats)

    def _run(self, llm: StructuredClient, jobs: list[Job], stats: CorpusStats) -> list:
        """Every job live, at most ``max_concurrency`` at once."""
        run = run_bounded(
            partial(self._live_one, llm, stats=stats), jobs, max_concurrency=self.max_concurrency
        )
        if run.error is not None:
            raise BudgetStoppedError(str(run.error), run.results) from run.error
        return run.results

    def _job(self, exchange: Exchange) -> Job:
        # Redact before shortening, so a cut can never leave half a secret unrecognisable.
        verbatim = redact(exchange.verbatim)
        request = shorten_middle(redact_text(exchange.request), self.max_exchange_chars // 4)
        text = shorten_middle(verbatim.text, self.max_exchange_chars)
        files = tuple(redact_text(f) for f in files_touched_for(exchange))
        values = PromptValues.of(exchange, files=files, exchange_text=text, request=request)
        sent = redact(render(self.template, values))  # also covers ids, project, timestamp
        counts = merge_counts(verbatim.counts, sent.counts)
        return Job(exchange, sent.text, f"{request}\n{text}", files, counts)

    def prompt_for(self, exchange: Exchange) -> str:
        """The user turn this distiller would send for ``exchange``, exactly (redacted,
        shortened): a preview that needs no key, no server and no money."""
        return self._job(exchange).user_text

    def _draft(self, exchange: Exchange) -> str:
        """The user turn without redaction: as long as the real one to within a few
        characters per secret, and cheap enough to estimate a whole palace."""
        request = shorten_middle(exchange.request, self.max_exchange_chars // 4)
        text = shorten_middle(exchange.verbatim, self.max_exchange_chars)
        files = files_touched_for(exchange)
        values = PromptValues.of(exchange, files=files, exchange_text=text, request=request)
        return render(self.template, values)

    def _check(self, job: Job, answer: dict) -> list[str]:
        return card_answer_errors(answer, job.source_text)

    def _ask_live(self, llm: StructuredClient, job: Job) -> LLMResult:
        return llm.call_json(
            INSTRUCTIONS,
            job.user_text,
            CARD_SCHEMA,
            tool_name=TOOL_NAME,
            tool_description=TOOL_DESCRIPTION,
            max_tokens=MAX_CARD_TOKENS,
            check=partial(self._check, job),
        )

    def _live_one(self, llm: StructuredClient, job: Job, *, stats: CorpusStats) -> DistillOutcome:
        return self._outcome(job, self._ask_live(llm, job), stats)

    # -- cards ------------------------------------------------------------------------------

    def _outcome(self, job: Job, result: LLMResult, stats: CorpusStats) -> DistillOutcome:
        if result.ok:
            card, error = self._with_keywords(self._card(job, result.data), job, stats), None
        else:
            card, problem = self._fallback_card(job, stats)
            error = "; ".join(e for e in (result.error, problem) if e)
        return DistillOutcome(
            card=card,
            error=error,
            input_tokens=result.usage.all_input_tokens,
            output_tokens=result.usage.output_tokens,
            cost_usd=result.cost_usd,
        )

    def _card(self, job: Job, data: dict) -> DistilledCard:
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

    def _with_keywords(self, card: DistilledCard, job: Job, stats: CorpusStats) -> DistilledCard:
        """The model writes the paper's four fields; the fifth, ``keywords``, is the rules'
        surviving vocabulary under the same budget (like ``files_touched``, never asked for)."""
        from palace_lab.distill.rules import RulesDistiller

        return RulesDistiller().with_keywords(card, job.exchange, stats)

    def _fallback_distiller(self) -> Distiller:
        if self._fallback is None:
            from palace_lab.distill.rules import RulesDistiller

            self._fallback = RulesDistiller()
        return self._fallback

    def _fallback_card(self, job: Job, stats: CorpusStats) -> tuple[DistilledCard, str | None]:
        """The fallback distiller's card, marked; and what went wrong if even that failed (the
        card is then the request itself, shortened)."""
        problem = None
        try:
            card = self._fallback_distiller().distill_batch([job.exchange], stats=stats)[0].card
        except Exception as exc:  # noqa: BLE001 - a broken fallback must not fail the whole run
            problem = f"the fallback distiller failed too ({type(exc).__name__}: {exc})"
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
        ), problem
