"""A small client layer over the Anthropic SDK, shared by every paid feature.

The distiller, the LLM grader and the compression judge all need the same thing: send a fixed
instruction prefix plus one item, get back a JSON object that matches a schema, pay as little
as possible and never more than the person allowed. :class:`LLMClient` does that.

Invariants:

- The ``anthropic`` SDK is imported inside functions only, so ``import palace_lab`` stays fast
  and works without it.
- Structured output is a forced tool call (``tool_choice`` names the one tool whose
  ``input_schema`` is the answer's schema). The answer is validated here
  (:func:`palace_lab.llm_schema.validate`); an invalid answer gets exactly ONE repair turn (the
  errors go back as an error ``tool_result``), then the call returns a failed
  :class:`LLMResult` instead of raising.
- Transient failures (429, 529, other 5xx, timeouts, dropped connections) are retried with
  exponential backoff and jitter, honouring ``retry-after``; the SDK's own retries are off so
  one policy applies. A refused key, a forbidden or unknown model raises
  :class:`~palace_lab.errors.DistillError`: every later call would fail the same way.
- The fixed system prefix carries ``cache_control: {"type": "ephemeral"}``.
- Money goes through :class:`palace_lab.llm_cost.Budget`: a call that could pass the cap is
  refused with :class:`~palace_lab.errors.BudgetExceededError` before it is sent.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from palace_lab.errors import BudgetExceededError, DistillError
from palace_lab.llm_cost import (  # noqa: F401 - re-exported: the one import for callers
    BATCH_DISCOUNT,
    PRICES_USD_PER_MTOK,
    Budget,
    Prices,
    Usage,
    cost_of,
    estimate_cost,
    estimate_tokens,
    load_prices,
    price_for,
    resolve_prices,
    worst_case_cost,
)
from palace_lab.llm_schema import validate  # noqa: F401 - re-exported

__all__ = [
    "BATCH_DISCOUNT", "PRICES_USD_PER_MTOK", "BatchStatus", "BoundedRun", "Budget", "LLMClient",
    "LLMResult", "Tool", "Usage", "cost_of", "estimate_cost", "estimate_tokens",
    "interpret_reply", "load_prices", "price_for", "resolve_prices", "run_bounded",
    "system_with_cache", "validate", "worst_case_cost",
]

MAX_RETRY_AFTER_S = 120.0
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
    """The one tool a structured call forces: its input schema is the answer's schema."""

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


@dataclass(frozen=True)
class BatchStatus:
    batch_id: str
    processing_status: str
    request_counts: dict[str, int]

    @property
    def ended(self) -> bool:
        return self.processing_status == "ended"


class _CallFailed(Exception):
    """A call that failed for good (retries exhausted, or a non-retryable 4xx)."""

    def __init__(self, message: str, attempts: int) -> None:
        super().__init__(message)
        self.attempts = attempts


# ---------------------------------------------------------------------------- concurrency


@dataclass(frozen=True)
class BoundedRun:
    """Results of :func:`run_bounded` in input order (None where not run) and the stop error."""

    results: list
    error: BaseException | None = None


def run_bounded(
    fn: Callable[[Any], Any],
    items: Sequence[Any],
    *,
    max_concurrency: int,
    stop_on: tuple[type[BaseException], ...] = (BudgetExceededError,),
) -> BoundedRun:
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
    return BoundedRun(results, errors[0] if errors else None)


# ---------------------------------------------------------------------------- the client


class LLMClient:
    """One model, one key, one budget. Thread-safe: share it between worker threads."""

    def __init__(
        self,
        *,
        api_key: str | None,
        model: str = "claude-haiku-4-5",
        base_url: str | None = None,
        max_retries: int = 4,
        timeout: float = 60.0,
        max_concurrency: int = 4,
        max_cost_usd: float | None = None,
        prices: Prices | str | Path | None = None,
        backoff_base_s: float = 1.0,
        backoff_max_s: float = 30.0,
    ) -> None:
        if not api_key:
            raise DistillError(
                "no Anthropic API key: set ANTHROPIC_API_KEY or pass api_key "
                "(the rules distiller works offline without one)"
            )
        if max_retries < 0 or max_concurrency < 1:
            raise ValueError("max_retries must be >= 0 and max_concurrency >= 1")
        self.model, self.max_retries, self.timeout = model, max_retries, timeout
        self.max_concurrency = max_concurrency
        self.backoff_base_s, self.backoff_max_s = backoff_base_s, backoff_max_s
        self.prices = resolve_prices(prices)
        self.price = price_for(model, self.prices)
        self.budget = Budget(self.price, max_cost_usd)
        self._api_key, self._base_url = api_key, base_url
        self._sdk_client: Any = None
        self._lock = threading.Lock()
        self._batch_reserved: dict[str, float] = {}

    @property
    def spent_usd(self) -> float:
        return self.budget.spent_usd

    @property
    def usage(self) -> Usage:
        return self.budget.usage

    def estimate_cost(
        self, texts: Iterable[str], expected_output_tokens: int, *, batch: bool = False
    ) -> float:
        """See :func:`palace_lab.llm_cost.estimate_cost`, at this client's model and prices."""
        return estimate_cost(
            texts, expected_output_tokens, model=self.model, prices=self.prices, batch=batch
        )

    # -- transport ---------------------------------------------------------------------

    def sdk(self) -> Any:
        """The SDK client, built on first use (its own retries off: ours apply)."""
        with self._lock:
            if self._sdk_client is None:
                import anthropic

                self._sdk_client = anthropic.Anthropic(
                    api_key=self._api_key,
                    base_url=self._base_url,
                    max_retries=0,
                    timeout=self.timeout,
                )
            return self._sdk_client

    def backoff_delay(self, attempt: int, exc: BaseException | None = None) -> float:
        """``retry-after`` when the server gave one, else exponential backoff with jitter."""
        hinted = _retry_after_seconds(exc)
        if hinted is not None:
            return min(hinted, MAX_RETRY_AFTER_S)
        ceiling = min(self.backoff_max_s, self.backoff_base_s * (2**attempt))
        return ceiling / 2 + random.uniform(0, ceiling / 2)

    def with_retries(self, fn: Callable[[], Any]) -> tuple[Any, int]:
        """``fn()`` under the retry policy: (value, attempts), or raises ``_CallFailed``."""
        import anthropic

        transient = (
            anthropic.RateLimitError,
            anthropic.InternalServerError,  # 5xx, OverloadedError (529) included
            anthropic.APIConnectionError,  # APITimeoutError included
            anthropic.RequestTimeoutError,
            anthropic.ConflictError,
        )
        fatal = (
            anthropic.AuthenticationError,
            anthropic.PermissionDeniedError,
            anthropic.NotFoundError,  # an unknown model name
        )
        last: BaseException | None = None
        for attempt in range(self.max_retries + 1):
            try:
                return fn(), attempt + 1
            except fatal as exc:
                refused = f"the Anthropic API refused the request: {_describe(exc)}"
                raise DistillError(refused) from None
            except transient as exc:
                last = exc
                if attempt < self.max_retries:
                    time.sleep(self.backoff_delay(attempt, exc))
            except anthropic.APIStatusError as exc:
                raise _CallFailed(_describe(exc), attempt + 1) from None
        attempts = self.max_retries + 1
        raise _CallFailed(f"gave up after {attempts} attempts: {_describe(last)}", attempts)

    # -- structured calls --------------------------------------------------------------

    def message_params(self, system_blocks: System, messages: list[dict], tool: Tool) -> dict:
        """The Messages API body of one structured call (also a batch item's ``params``).

        Every text in it passes the redactor here, whatever the caller did before: this is
        the one door through which text leaves the machine.
        """
        return {
            "model": self.model,
            "max_tokens": tool.max_tokens,
            "system": [_redacted_block(b) for b in system_with_cache(system_blocks)],
            "tools": [tool.definition()],
            "tool_choice": {"type": "tool", "name": tool.name},
            "messages": [_redacted_message(m) for m in messages],
        }

    def _ask(self, system_blocks: System, messages: list[dict], tool: Tool, check) -> LLMResult:
        params = self.message_params(system_blocks, messages, tool)
        sent = json.dumps([params["system"], params["tools"], messages], ensure_ascii=False)
        held = self.budget.reserve(worst_case_cost(sent, tool.max_tokens, self.price))
        try:
            message, attempts = self.with_retries(lambda: self.sdk().messages.create(**params))
        except _CallFailed as exc:
            self.budget.settle(held, Usage())
            return LLMResult(None, str(exc), attempts=exc.attempts)
        except BaseException:
            self.budget.settle(held, Usage())
            raise
        usage = Usage.from_api(getattr(message, "usage", None))
        cost = self.budget.settle(held, usage)
        blocks = tuple(_block_dict(b) for b in (message.content or ()))
        return interpret_reply(blocks, tool, check, usage=usage, cost=cost, attempts=attempts)

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
        raises only :class:`BudgetExceededError` and :class:`DistillError` (bad key/model).
        """
        tool = Tool(schema, tool_name, tool_description, max_tokens)
        first = self._ask(system_blocks, [{"role": "user", "content": user_text}], tool, check)
        if first.ok or not first.reply:
            return first
        return self.repair(system_blocks, user_text, tool, first, check=check)

    def repair(
        self, system_blocks: System, user_text: str, tool: Tool, failed: LLMResult, *,
        check: Check | None = None,
    ) -> LLMResult:
        """The one repair turn: send ``failed.error`` back and validate the new answer."""
        messages = [
            {"role": "user", "content": user_text},
            {"role": "assistant", "content": list(failed.reply)},
            {"role": "user", "content": _repair_turn(failed, tool.name)},
        ]
        second = self._ask(system_blocks, messages, tool, check)
        error = None if second.ok else f"{second.error} (after one repair; first: {failed.error})"
        return replace(
            second,
            error=error,
            usage=failed.usage + second.usage,
            cost_usd=failed.cost_usd + second.cost_usd,
            attempts=failed.attempts + second.attempts,
            repaired=True,
        )

    # -- message batches ---------------------------------------------------------------

    def submit_batch(self, requests: Sequence[Mapping[str, Any]]) -> str:
        """Create a Message Batch of ``{"custom_id", "params"}`` items; returns its id.

        The worst case of the whole batch (at the batch price) must fit under the cap; it
        stays reserved until :meth:`batch_results` charges what the batch really cost.
        """
        if not requests:
            raise ValueError("a batch needs at least one request")
        requests = [_redacted_request(r) for r in requests]  # built elsewhere: redact again
        held = self.budget.reserve(sum(
            worst_case_cost(json.dumps(r["params"]), r["params"]["max_tokens"], self.price,
                            batch=True)
            for r in requests
        ))
        try:
            batch, _ = self.with_retries(
                lambda: self.sdk().messages.batches.create(requests=list(requests))
            )
        except BaseException as exc:
            self.budget.settle(held, Usage())
            if isinstance(exc, _CallFailed):
                raise DistillError(f"could not submit the batch: {exc}") from None
            raise
        with self._lock:
            self._batch_reserved[batch.id] = held
        return batch.id

    def poll_batch(self, batch_id: str) -> BatchStatus:
        """The batch's processing status and request counts."""
        try:
            batch, _ = self.with_retries(lambda: self.sdk().messages.batches.retrieve(batch_id))
        except _CallFailed as exc:
            raise DistillError(f"could not poll batch {batch_id}: {exc}") from None
        counts = batch.request_counts
        counts = counts.model_dump() if hasattr(counts, "model_dump") else dict(counts or {})
        return BatchStatus(batch.id, batch.processing_status, counts)

    def batch_results(
        self, batch_id: str, tool: Tool, *, check: Callable[[str, dict], list[str]] | None = None
    ) -> dict[str, LLMResult]:
        """``{custom_id: LLMResult}`` of an ended batch, validated, charged at batch price.

        ``check(custom_id, answer)`` adds per-item errors. An item the API did not answer has
        no ``reply``; an invalid answer keeps its ``reply`` for :meth:`repair`.
        """
        try:
            lines, _ = self.with_retries(
                lambda: list(self.sdk().messages.batches.results(batch_id))
            )
        except _CallFailed as exc:
            raise DistillError(f"could not read the results of batch {batch_id}: {exc}") from None
        results = {line.custom_id: self._batch_item(line, tool, check) for line in lines}
        with self._lock:
            held = self._batch_reserved.pop(batch_id, 0.0)
        self.budget.settle(held, Usage())
        return results

    def _batch_item(self, line: Any, tool: Tool, check) -> LLMResult:
        result = line.result
        if result.type != "succeeded":
            detail = getattr(getattr(getattr(result, "error", None), "error", None), "message", "")
            return LLMResult(None, f"batch item {result.type}" + (f": {detail}" if detail else ""))
        usage = Usage.from_api(result.message.usage)
        cost = self.budget.settle(0.0, usage, batch=True)
        blocks = tuple(_block_dict(b) for b in result.message.content or ())
        item_check = (lambda data: check(line.custom_id, data)) if check else None
        return interpret_reply(blocks, tool, item_check, usage=usage, cost=cost, attempts=1)


# ---------------------------------------------------------------------------- helpers


def _redacted_block(block: Any) -> Any:
    from palace_lab.redact import redact_text

    if isinstance(block, str):
        return redact_text(block)
    if not isinstance(block, Mapping):
        return block
    out = dict(block)
    for key in ("text", "content"):
        if isinstance(out.get(key), str):
            out[key] = redact_text(out[key])
        elif isinstance(out.get(key), list):
            out[key] = [_redacted_block(b) for b in out[key]]
    return out


def _redacted_message(message: Mapping[str, Any]) -> dict:
    """A message with its text redacted (string content, text and tool_result blocks)."""
    out = dict(message)
    content = out.get("content")
    out["content"] = _redacted_block(content) if isinstance(content, str) else (
        [_redacted_block(b) for b in content] if isinstance(content, list) else content)
    return out


def _redacted_request(request: Mapping[str, Any]) -> dict:
    params = dict(request["params"])
    if "system" in params:
        system = params["system"]
        params["system"] = _redacted_block(system) if isinstance(system, str) else [
            _redacted_block(b) for b in system]
    params["messages"] = [_redacted_message(m) for m in params.get("messages", [])]
    return {**request, "params": params}


def system_with_cache(system_blocks: System) -> list[dict]:
    """Text blocks with a cache breakpoint on the last (the tool and system are the prefix)."""
    items = [system_blocks] if isinstance(system_blocks, str) else list(system_blocks)
    blocks = [{"type": "text", "text": b} if isinstance(b, str) else dict(b) for b in items]
    if blocks and not any("cache_control" in b for b in blocks):
        blocks[-1]["cache_control"] = {"type": "ephemeral"}
    return blocks


def interpret_reply(
    blocks: tuple[dict, ...], tool: Tool, check: Check | None, *,
    usage: Usage, cost: float, attempts: int,
) -> LLMResult:
    """Find the tool call among the assistant's blocks and validate its input."""
    common = dict(usage=usage, cost_usd=cost, attempts=attempts, reply=blocks)
    calls = [b for b in blocks if b.get("type") == "tool_use" and b.get("name") == tool.name]
    if not calls:
        return LLMResult(None, f"the answer did not call the tool {tool.name!r}", **common)
    answer = calls[0].get("input")
    errors = validate(answer, tool.schema)
    if not errors and check is not None:
        errors = list(check(answer))
    if errors:
        return LLMResult(None, "; ".join(errors), **common)
    return LLMResult(dict(answer), None, **common)


def _block_dict(block: Any) -> dict:
    if isinstance(block, dict):
        return block
    kind = getattr(block, "type", None)
    if kind == "tool_use":
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
    if kind == "text":
        return {"type": "text", "text": block.text}
    return block.model_dump(exclude_none=True)


def _repair_turn(failed: LLMResult, tool_name: str) -> list[dict] | str:
    note = (
        f"That answer is not valid: {failed.error}. "
        f"Call {tool_name} again with a corrected answer that follows the schema."
    )
    tool_use = next((b for b in failed.reply if b.get("type") == "tool_use"), None)
    if tool_use is None:
        return note
    return [{"type": "tool_result", "tool_use_id": tool_use["id"], "is_error": True,
             "content": note}]


def _retry_after_seconds(exc: BaseException | None) -> float | None:
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


def _describe(exc: BaseException | None) -> str:
    status = getattr(exc, "status_code", None)
    name = type(exc).__name__ if exc is not None else "unknown error"
    message = getattr(exc, "message", None) or str(exc)
    return f"{name} ({status}): {message}" if status else f"{name}: {message}"
