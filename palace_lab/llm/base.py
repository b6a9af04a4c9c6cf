"""What every structured LLM client shares, whatever the wire protocol behind it.

A *structured call* sends a fixed instruction prefix plus one item and gets back a JSON object
that matches a schema. :class:`StructuredClient` owns the policy of such a call; a subclass
owns only the transport (how a request is written, sent, read and classified when it fails).
Two transports exist: the Anthropic Messages API (:class:`palace_lab.llm.LLMClient`) and any
OpenAI-compatible chat-completions server (:class:`palace_lab.llm.openai.OpenAICompatClient`).

Invariants, for every transport:

- The answer is validated here (:func:`palace_lab.llm.schema.schema_errors`, plus an optional
  ``check`` for rules a schema cannot say); an invalid answer gets exactly ONE repair turn
  (the errors go back to the model), then the call returns a failed :class:`LLMResult`
  instead of raising.
- Transient failures (what :meth:`StructuredClient.classify` calls ``transient``) are retried
  with exponential backoff and jitter, honouring ``retry-after``; a refused key or an unknown
  model (``fatal``) raises :class:`~palace_lab.errors.DistillError`, since every later call
  would fail the same way.
- Money goes through :class:`palace_lab.llm.cost.CostCap`: a call that could pass the cap is
  refused with :class:`~palace_lab.errors.CostCapExceededError` before it is sent.
"""

from __future__ import annotations

import json
import random
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

from palace_lab.errors import CostCapExceededError, DistillError, InputError
from palace_lab.llm.cost import CostCap, Usage, estimate_at, worst_case_cost
from palace_lab.llm.schema import schema_errors

MAX_RETRY_AFTER_S = 120.0
TRANSIENT, FATAL, FAILED = "transient", "fatal", "failed"  # what classify() may answer
System = str | Sequence[str | Mapping[str, Any]]
Check = Callable[[dict], list[str]]


@dataclass(frozen=True)
class LLMResult:
    """A validated JSON answer, or the reason there is none (``error``). Never both."""

    data: dict | None
    error: str | None = None
    usage: Usage = field(default_factory=Usage)
    cost_usd: float = 0.0
    attempts: int = 0  # HTTP attempts; 0 when nothing was answered
    repaired: bool = False
    reply: tuple[dict, ...] = ()  # the assistant's content blocks, kept for a repair turn

    @property
    def ok(self) -> bool:
        return self.error is None and self.data is not None


@dataclass(frozen=True)
class Tool:
    """The answer's schema, named as the one tool a structured call forces (Anthropic) or as
    the object the model is told to answer with (chat completions)."""

    schema: Mapping[str, Any]
    name: str = "record_answer"
    description: str = "Record the answer."
    max_tokens: int = 1024

    def definition(self) -> dict:
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": dict(self.schema),
        }


class CallFailed(Exception):
    """A call that failed for good (retries exhausted, or a non-retryable 4xx)."""

    def __init__(self, message: str, attempts: int) -> None:
        super().__init__(message)
        self.attempts = attempts


# ---------------------------------------------------------------------------- concurrency


@dataclass(frozen=True)
class BoundedResults:
    """Results of :func:`run_bounded` in input order (None where not run) and the stop error."""

    results: list
    error: BaseException | None = None


def run_bounded(
    fn: Callable[[Any], Any],
    items: Sequence[Any],
    *,
    max_concurrency: int,
    stop_on: tuple[type[BaseException], ...] = (CostCapExceededError,),
) -> BoundedResults:
    """Run ``fn`` over ``items`` on at most ``max_concurrency`` threads.

    The first ``stop_on`` error stops new items from starting; items already running finish
    and keep their results. Any other exception also stops new items (a refused key must not
    be tried a thousand more times) and is raised once the running items are done.
    """
    stop = threading.Event()
    errors: list[BaseException] = []

    def guarded(item: Any) -> Any:
        if stop.is_set():
            return None
        try:
            return fn(item)
        except Exception as exc:  # noqa: BLE001 - recorded, then re-raised below or returned
            stop.set()
            errors.append(exc)
            return None

    with ThreadPoolExecutor(max_workers=max(1, max_concurrency)) as pool:
        results = list(pool.map(guarded, items))
    fatal = [e for e in errors if not isinstance(e, stop_on)]
    if fatal:
        raise fatal[0]
    return BoundedResults(results, errors[0] if errors else None)


# ---------------------------------------------------------------------------- the client


class StructuredClient(ABC):
    """One model, one cost cap, one retry policy. Thread-safe: share it between worker threads.

    Subclasses set ``backend`` and implement the transport: :meth:`request`, :meth:`send`,
    :meth:`interpret`, :meth:`repair_messages`, :meth:`classify` and :meth:`describe`.
    """

    backend = ""

    def __init__(
        self,
        *,
        model: str,
        price: Mapping[str, float],
        max_retries: int = 4,
        timeout: float = 60.0,
        max_concurrency: int = 4,
        max_cost_usd: float | None = None,
        backoff_base_s: float = 1.0,
        backoff_max_s: float = 30.0,
    ) -> None:
        if max_retries < 0 or max_concurrency < 1:
            raise InputError("max_retries must be >= 0 and max_concurrency >= 1")
        self.model, self.max_retries, self.timeout = model, max_retries, timeout
        self.max_concurrency = max_concurrency
        self.backoff_base_s, self.backoff_max_s = backoff_base_s, backoff_max_s
        self.price = price
        self.cost_cap = CostCap(price, max_cost_usd)
        self._lock = threading.Lock()

    @property
    def spent_usd(self) -> float:
        return self.cost_cap.spent_usd

    @property
    def usage(self) -> Usage:
        return self.cost_cap.usage

    def estimate_cost(
        self, texts: Iterable[str], expected_output_tokens: int, *, batch: bool = False
    ) -> float:
        """See :func:`palace_lab.llm.cost.estimate_at`, at this client's price."""
        return estimate_at(texts, expected_output_tokens, self.price, batch=batch)

    # -- the transport (subclasses) --------------------------------------------------------

    @abstractmethod
    def request(self, system_blocks: System, messages: list[dict], tool: Tool) -> dict:
        """The request body of one structured call."""

    @abstractmethod
    def send(self, body: dict) -> tuple[tuple[dict, ...], Usage]:
        """One HTTP attempt: the assistant's content blocks and the usage reported."""

    @abstractmethod
    def interpret(self, reply: tuple[dict, ...], tool: Tool, check: Check | None, *,
                  usage: Usage, cost: float, attempts: int) -> LLMResult:
        """Find the answer in ``reply`` and validate it (see :func:`validated`)."""

    @abstractmethod
    def repair_messages(self, user_text: str, failed: LLMResult, tool: Tool) -> list[dict]:
        """The conversation of the repair turn: the request, the bad answer, the errors."""

    @abstractmethod
    def classify(self, exc: BaseException) -> str | None:
        """``TRANSIENT``, ``FATAL``, ``FAILED`` for errors of this transport; None otherwise."""

    @abstractmethod
    def describe(self, exc: BaseException | None) -> str:
        """One line naming the error (kind, status, message)."""

    def refused(self, exc: BaseException) -> str:
        """The message of the :class:`DistillError` a ``fatal`` error becomes."""
        return f"the server refused the request: {self.describe(exc)}"

    # -- the policy ------------------------------------------------------------------------

    def backoff_delay(self, attempt: int, exc: BaseException | None = None) -> float:
        """``retry-after`` when the server gave one, else exponential backoff with jitter."""
        hinted = retry_after_seconds(exc)
        if hinted is not None:
            return min(hinted, MAX_RETRY_AFTER_S)
        ceiling = min(self.backoff_max_s, self.backoff_base_s * (2**attempt))
        return ceiling / 2 + random.uniform(0, ceiling / 2)

    def with_retries(self, fn: Callable[[], Any]) -> tuple[Any, int]:
        """``fn()`` under the retry policy: (value, attempts), or raises ``CallFailed``."""
        last: BaseException | None = None
        for attempt in range(self.max_retries + 1):
            try:
                return fn(), attempt + 1
            except Exception as exc:
                kind = self.classify(exc)
                if kind == FATAL:
                    raise DistillError(self.refused(exc)) from None
                if kind == FAILED:
                    raise CallFailed(self.describe(exc), attempt + 1) from None
                if kind != TRANSIENT:
                    raise
                last = exc
                if attempt < self.max_retries:
                    time.sleep(self.backoff_delay(attempt, exc))
        attempts = self.max_retries + 1
        raise CallFailed(f"gave up after {attempts} attempts: {self.describe(last)}", attempts)

    def ask(self, system_blocks: System, messages: list[dict], tool: Tool,
            check: Check | None) -> LLMResult:
        """One call (with its retries), paid for under the cap, its answer validated."""
        body = self.request(system_blocks, messages, tool)
        sent = json.dumps(body, ensure_ascii=False)
        held = self.cost_cap.reserve(worst_case_cost(sent, tool.max_tokens, self.price))
        try:
            (reply, usage), attempts = self.with_retries(lambda: self.send(body))
        except CallFailed as exc:
            self.cost_cap.settle(held, Usage())
            return LLMResult(None, str(exc), attempts=exc.attempts)
        except BaseException:
            self.cost_cap.settle(held, Usage())
            raise
        cost = self.cost_cap.settle(held, usage)
        return self.interpret(reply, tool, check, usage=usage, cost=cost, attempts=attempts)

    def call_json(
        self,
        system_blocks: System,
        user_text: str,
        schema: Mapping[str, Any],
        *,
        tool_name: str = "record_answer",
        tool_description: str = "Record the answer.",
        max_tokens: int = 1024,
        check: Check | None = None,
    ) -> LLMResult:
        """Ask for one JSON object matching ``schema``; one repair turn if it does not.

        ``check`` adds errors the schema cannot express (e.g. "copied exactly"). Returns a
        failed :class:`LLMResult` when the call fails or the repaired answer is still invalid;
        raises only :class:`CostCapExceededError` and :class:`DistillError` (bad key/model).
        """
        tool = Tool(schema, tool_name, tool_description, max_tokens)
        first = self.ask(system_blocks, [{"role": "user", "content": user_text}], tool, check)
        if first.ok or not first.reply:
            return first
        return self.repair(system_blocks, user_text, tool, first, check=check)

    def repair(
        self, system_blocks: System, user_text: str, tool: Tool, failed: LLMResult, *,
        check: Check | None = None,
    ) -> LLMResult:
        """The one repair turn: send ``failed.error`` back and validate the new answer."""
        messages = self.repair_messages(user_text, failed, tool)
        second = self.ask(system_blocks, messages, tool, check)
        error = None if second.ok else f"{second.error} (after one repair; first: {failed.error})"
        return replace(
            second,
            error=error,
            usage=failed.usage + second.usage,
            cost_usd=failed.cost_usd + second.cost_usd,
            attempts=failed.attempts + second.attempts,
            repaired=True,
        )


# ---------------------------------------------------------------------------- helpers


def validated(answer: Any, tool: Tool, check: Check | None, *, usage: Usage, cost: float,
              attempts: int, reply: tuple[dict, ...]) -> LLMResult:
    """``answer`` checked against the tool's schema, then by ``check``; one result either way."""
    fields = dict(usage=usage, cost_usd=cost, attempts=attempts, reply=reply)
    errors = schema_errors(answer, tool.schema)
    if not errors and check is not None:
        errors = list(check(answer))
    if errors:
        return LLMResult(None, "; ".join(errors), **fields)
    return LLMResult(dict(answer), None, **fields)


def repair_note(error: str | None, what: str) -> str:
    """The words of a repair turn: what was wrong, and what to send again."""
    return f"That answer is not valid: {error}. {what} again with a corrected answer that follows the schema."


def retry_after_seconds(exc: BaseException | None) -> float | None:
    """The server's ``retry-after-ms`` / ``retry-after`` (seconds) hint on ``exc.response``."""
    headers = getattr(getattr(exc, "response", None), "headers", None)
    if not headers:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        try:
            if value is not None and float(value) >= 0:
                return float(value) * scale
        except ValueError:
            continue  # an HTTP date: fall back to our own backoff
    return None
