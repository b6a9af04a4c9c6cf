"""A small client layer over the Anthropic SDK, shared by every paid feature.

The distiller, the LLM grader and the compression judge all need the same thing: send a fixed
instruction prefix plus one item, get back a JSON object that matches a schema, pay as little
as possible and never more than the person allowed. :class:`LLMClient` does that.

Invariants:

- The ``anthropic`` SDK is imported inside functions only, so ``import palace_lab`` stays fast
  and works without it.
- Structured output is a forced tool call (``tool_choice`` names the one tool whose
  ``input_schema`` is the answer's schema). The answer is validated here (:func:`validate`);
  an invalid answer gets exactly ONE repair turn (the errors are sent back as an error
  ``tool_result``), then the call returns a failed :class:`LLMResult` instead of raising.
- Transient failures (429, 529, other 5xx, timeouts, dropped connections) are retried with
  exponential backoff and jitter, honouring ``retry-after``; the SDK's own retries are off so
  there is one retry policy. A refused key or an unknown model raises :class:`DistillError`:
  every later call would fail the same way.
- The fixed system prefix is sent with ``cache_control: {"type": "ephemeral"}``.
- Money: before a call its worst case (estimated input at the cache-write price, ``max_tokens``
  of output) is *reserved*; the call is refused with :class:`BudgetExceededError` when
  ``spent + reserved + worst case`` would exceed ``max_cost_usd``. After the call the real
  usage is charged. Hence ``spent_usd`` never passes the cap unless the token estimate itself
  was low (it is deliberately pessimistic, see :func:`estimate_tokens`).
"""

from __future__ import annotations

import json
import math
import random
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from palace_lab.errors import BudgetExceededError, DistillError
from palace_lab.llm_schema import validate

__all__ = [
    "PRICES_USD_PER_MTOK",
    "BATCH_DISCOUNT",
    "LLMClient",
    "LLMResult",
    "Usage",
    "BatchStatus",
    "estimate_tokens",
    "estimate_cost",
    "resolve_prices",
    "load_prices",
    "price_for",
    "cost_of",
    "run_bounded",
    "validate",
]

# USD per million tokens. Cache writes (5-minute TTL) cost 1.25x input, cache reads 0.1x.
# Mutate this dict, pass ``prices=`` or a JSON file of the same shape to override.
PRICES_USD_PER_MTOK: dict[str, dict[str, float]] = {
    "claude-haiku-4-5": {"input": 1.0, "output": 5.0, "cache_read": 0.10, "cache_write": 1.25},
    "claude-sonnet-4-5": {"input": 3.0, "output": 15.0, "cache_read": 0.30, "cache_write": 3.75},
    "claude-opus-4-1": {"input": 15.0, "output": 75.0, "cache_read": 1.50, "cache_write": 18.75},
}
BATCH_DISCOUNT = 0.5  # the Message Batches API bills half the interactive price
MAX_RETRY_AFTER_S = 120.0


# ---------------------------------------------------------------------------------- prices


def _complete_price(model: str, entry: Mapping[str, Any]) -> dict[str, float]:
    try:
        base = {"input": float(entry["input"]), "output": float(entry["output"])}
    except (KeyError, TypeError, ValueError):
        raise DistillError(f"price for {model!r} needs numeric 'input' and 'output'") from None
    base["cache_read"] = float(entry.get("cache_read", base["input"] * 0.1))
    base["cache_write"] = float(entry.get("cache_write", base["input"] * 1.25))
    return base


def load_prices(path: str | Path) -> dict[str, dict[str, float]]:
    """Read ``{model: {input, output, cache_read?, cache_write?}}`` (USD per Mtok) from JSON."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DistillError(f"cannot read the price table {path}: {exc}") from None
    if not isinstance(data, dict):
        raise DistillError(f"the price table {path} must be a JSON object keyed by model")
    return {m: _complete_price(m, e) for m, e in data.items()}


def resolve_prices(
    prices: Mapping[str, Mapping[str, float]] | str | Path | None = None,
) -> dict[str, dict[str, float]]:
    """The module table, overridden entry by entry by a mapping or a JSON file."""
    table = {m: _complete_price(m, e) for m, e in PRICES_USD_PER_MTOK.items()}
    if isinstance(prices, (str, Path)):
        table.update(load_prices(prices))
    elif prices:
        table.update({m: _complete_price(m, e) for m, e in prices.items()})
    return table


def price_for(model: str, prices: Mapping[str, Mapping[str, float]]) -> Mapping[str, float]:
    """The entry for ``model``, or for the longest key it starts with (dated snapshots)."""
    if model in prices:
        return prices[model]
    keys = sorted((k for k in prices if model.startswith(k)), key=len, reverse=True)
    if keys:
        return prices[keys[0]]
    known = ", ".join(sorted(prices))
    raise DistillError(
        f"no price known for model {model!r}; known models: {known}. "
        "Pass prices={model: {'input': ..., 'output': ...}} (USD per million tokens)."
    )


# ---------------------------------------------------------------------------------- tokens


def estimate_tokens(text: str) -> int:
    """A pessimistic token count without a tokenizer: ``ceil(ascii_chars / 3) + other_chars``.

    Claude's tokenizer averages about 3.5-4 characters per token on English and code; counting
    3 per token, and every non-ASCII character as a whole token, errs on the high side so that
    a cost cap built on it holds.
    """
    non_ascii = sum(1 for c in text if ord(c) > 127)
    return math.ceil((len(text) - non_ascii) / 3) + non_ascii


@dataclass(frozen=True)
class Usage:
    """Tokens one call (or a sum of calls) used, as the API reports them."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
        )

    @classmethod
    def from_api(cls, usage: Any) -> "Usage":
        if usage is None:
            return cls()
        get = usage.get if isinstance(usage, dict) else lambda k: getattr(usage, k, None)
        return cls(
            int(get("input_tokens") or 0),
            int(get("output_tokens") or 0),
            int(get("cache_read_input_tokens") or 0),
            int(get("cache_creation_input_tokens") or 0),
        )


def cost_of(usage: Usage, price: Mapping[str, float], *, batch: bool = False) -> float:
    """Dollars for ``usage`` at ``price`` (USD per million tokens of each kind)."""
    dollars = (
        usage.input_tokens * price["input"]
        + usage.output_tokens * price["output"]
        + usage.cache_read_tokens * price["cache_read"]
        + usage.cache_write_tokens * price["cache_write"]
    ) / 1_000_000
    return dollars * (BATCH_DISCOUNT if batch else 1.0)


def estimate_cost(
    texts: Iterable[str],
    expected_output_tokens: int,
    *,
    model: str,
    prices: Mapping[str, Mapping[str, float]] | str | Path | None = None,
    batch: bool = False,
) -> float:
    """Dollars for one call per text: its input (see :func:`estimate_tokens`, priced as
    uncached input) plus ``expected_output_tokens`` of output."""
    price = price_for(model, resolve_prices(prices))
    total = Usage()
    for text in texts:
        total = total + Usage(estimate_tokens(text), expected_output_tokens)
    return cost_of(total, price, batch=batch)


# ---------------------------------------------------------------------------------- results


@dataclass(frozen=True)
class LLMResult:
    """A validated JSON answer, or the reason there is none. Never both."""

    data: dict | None
    error: str | None = None
    usage: Usage = field(default_factory=Usage)
    cost_usd: float = 0.0
    attempts: int = 0
    repaired: bool = False
    reply: tuple[dict, ...] = ()  # the assistant's content blocks, kept for a repair turn

    @property
    def ok(self) -> bool:
        return self.error is None and self.data is not None


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
    and keep their results. Any other exception propagates.
    """
    stop = threading.Event()
    errors: list[BaseException] = []

    def guarded(item: Any) -> Any:
        if stop.is_set():
            return None
        try:
            return fn(item)
        except stop_on as exc:
            stop.set()
            errors.append(exc)
            return None

    with ThreadPoolExecutor(max_workers=max(1, max_concurrency)) as pool:
        results = list(pool.map(guarded, items))
    return BoundedRun(results, errors[0] if errors else None)


# ---------------------------------------------------------------------------------- client


def _text_block(block: str | Mapping[str, Any]) -> dict:
    return {"type": "text", "text": block} if isinstance(block, str) else dict(block)


def system_with_cache(system_blocks: str | Sequence[str | Mapping[str, Any]]) -> list[dict]:
    """System blocks with a cache breakpoint on the last one (tools + system are the prefix)."""
    items = [system_blocks] if isinstance(system_blocks, str) else list(system_blocks)
    blocks = [_text_block(b) for b in items]
    if blocks and not any("cache_control" in b for b in blocks):
        blocks[-1]["cache_control"] = {"type": "ephemeral"}
    return blocks


def _block_dict(block: Any) -> dict:
    if isinstance(block, dict):
        return block
    kind = getattr(block, "type", None)
    if kind == "tool_use":
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
    if kind == "text":
        return {"type": "text", "text": block.text}
    return block.model_dump(exclude_none=True)


class LLMClient:
    """One model, one key, one budget. Thread-safe; share it between worker threads."""

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
        prices: Mapping[str, Mapping[str, float]] | str | Path | None = None,
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
        self.max_concurrency, self.max_cost_usd = max_concurrency, max_cost_usd
        self.backoff_base_s, self.backoff_max_s = backoff_base_s, backoff_max_s
        self.prices = resolve_prices(prices)
        self.price = price_for(model, self.prices)
        self._api_key, self._base_url = api_key, base_url
        self._sdk_client: Any = None
        self._lock = threading.Lock()
        self._spent = 0.0
        self._reserved = 0.0
        self._batch_reserved: dict[str, float] = {}
        self.usage = Usage()

    # -- money -------------------------------------------------------------------------

    @property
    def spent_usd(self) -> float:
        with self._lock:
            return self._spent

    def estimate_cost(self, texts: Iterable[str], expected_output_tokens: int, *, batch=False) -> float:
        """See :func:`estimate_cost`; priced for this client's model and price table."""
        return estimate_cost(
            texts, expected_output_tokens, model=self.model, prices=self.prices, batch=batch
        )

    def worst_case_cost(self, input_text: str, max_tokens: int, *, batch: bool = False) -> float:
        """The reservation for one call: input at the cache-write price, full ``max_tokens`` out."""
        input_rate = max(self.price["input"], self.price["cache_write"])
        dollars = (estimate_tokens(input_text) * input_rate + max_tokens * self.price["output"]) / 1e6
        return dollars * (BATCH_DISCOUNT if batch else 1.0)

    def reserve(self, amount: float) -> None:
        """Hold ``amount`` against the cap or raise :class:`BudgetExceededError`."""
        with self._lock:
            cap = self.max_cost_usd
            if cap is not None and self._spent + self._reserved + amount > cap + 1e-12:
                raise BudgetExceededError(
                    f"the cost cap of ${cap:.4f} would be exceeded: ${self._spent:.4f} spent, "
                    f"${self._reserved:.4f} in flight, next call up to ${amount:.4f}"
                )
            self._reserved += amount

    def settle(self, reserved: float, usage: Usage, *, batch: bool = False) -> float:
        """Release a reservation and charge what the API actually reported; returns the cost."""
        cost = cost_of(usage, self.price, batch=batch)
        with self._lock:
            self._reserved = max(0.0, self._reserved - reserved)
            self._spent += cost
            self.usage = self.usage + usage
        return cost

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
        """``fn()`` with the retry policy; returns (value, attempts) or raises _CallFailed."""
        import anthropic

        transient = (
            anthropic.RateLimitError,
            anthropic.InternalServerError,
            anthropic.APIConnectionError,  # includes APITimeoutError
            anthropic.RequestTimeoutError,
            anthropic.ConflictError,
        )
        fatal = (anthropic.AuthenticationError, anthropic.PermissionDeniedError, anthropic.NotFoundError)
        last: BaseException | None = None
        for attempt in range(self.max_retries + 1):
            try:
                return fn(), attempt + 1
            except fatal as exc:
                raise DistillError(f"the Anthropic API refused the request: {_describe(exc)}") from None
            except transient as exc:
                last = exc
                if attempt < self.max_retries:
                    time.sleep(self.backoff_delay(attempt, exc))
            except anthropic.APIStatusError as exc:
                raise _CallFailed(_describe(exc), attempt + 1) from None
        raise _CallFailed(
            f"gave up after {self.max_retries + 1} attempts: {_describe(last)}", self.max_retries + 1
        )

    # -- structured calls --------------------------------------------------------------

    def message_params(
        self,
        system_blocks: str | Sequence[str | Mapping[str, Any]],
        messages: list[dict],
        schema: Mapping[str, Any],
        *,
        tool_name: str,
        tool_description: str = "Record the answer.",
        max_tokens: int = 1024,
    ) -> dict:
        """The Messages API body of one structured call (also the ``params`` of a batch item)."""
        return {
            "model": self.model,
            "max_tokens": max_tokens,
            "system": system_with_cache(system_blocks),
            "tools": [{"name": tool_name, "description": tool_description, "input_schema": dict(schema)}],
            "tool_choice": {"type": "tool", "name": tool_name},
            "messages": messages,
        }

    def _ask(self, params: dict, schema: Mapping[str, Any], check) -> LLMResult:
        budget_text = json.dumps(
            [params["system"], params["tools"], params["messages"]], ensure_ascii=False
        )
        reserved = self.worst_case_cost(budget_text, params["max_tokens"])
        self.reserve(reserved)
        try:
            message, attempts = self.with_retries(lambda: self.sdk().messages.create(**params))
        except _CallFailed as exc:
            self.settle(reserved, Usage())
            return LLMResult(None, str(exc), attempts=exc.attempts)
        except BaseException:
            self.settle(reserved, Usage())
            raise
        usage = Usage.from_api(getattr(message, "usage", None))
        cost = self.settle(reserved, usage)
        blocks = tuple(_block_dict(b) for b in (message.content or ()))
        return interpret_reply(blocks, schema, params["tool_choice"]["name"], check, usage, cost, attempts)

    def call_json(
        self,
        system_blocks: str | Sequence[str | Mapping[str, Any]],
        user_text: str,
        schema: Mapping[str, Any],
        *,
        tool_name: str = "record_answer",
        tool_description: str = "Record the answer.",
        max_tokens: int = 1024,
        check: Callable[[dict], list[str]] | None = None,
    ) -> LLMResult:
        """Ask for one JSON object matching ``schema``; one repair turn if it does not.

        ``check`` adds errors the schema cannot express (e.g. "copied exactly"). Returns a
        failed :class:`LLMResult` when the call fails or the repaired answer is still invalid;
        raises only :class:`BudgetExceededError` and :class:`DistillError` (bad key/model).
        """
        opts = dict(tool_name=tool_name, tool_description=tool_description, max_tokens=max_tokens)
        messages = [{"role": "user", "content": user_text}]
        first = self._ask(self.message_params(system_blocks, messages, schema, **opts), schema, check)
        if first.ok or not first.reply:
            return first
        return self.repair(system_blocks, user_text, schema, first, check=check, **opts)

    def repair(
        self,
        system_blocks: str | Sequence[str | Mapping[str, Any]],
        user_text: str,
        schema: Mapping[str, Any],
        failed: LLMResult,
        *,
        tool_name: str = "record_answer",
        tool_description: str = "Record the answer.",
        max_tokens: int = 1024,
        check: Callable[[dict], list[str]] | None = None,
    ) -> LLMResult:
        """The one repair turn: send ``failed.error`` back and validate the new answer."""
        messages = [{"role": "user", "content": user_text}, {"role": "assistant", "content": list(failed.reply)}]
        messages.append({"role": "user", "content": _repair_turn(failed, tool_name)})
        opts = dict(tool_name=tool_name, tool_description=tool_description, max_tokens=max_tokens)
        second = self._ask(self.message_params(system_blocks, messages, schema, **opts), schema, check)
        error = None if second.ok else f"{second.error} (after one repair; first answer: {failed.error})"
        return replace(
            second,
            error=error,
            data=second.data if second.ok else None,
            usage=failed.usage + second.usage,
            cost_usd=failed.cost_usd + second.cost_usd,
            attempts=failed.attempts + second.attempts,
            repaired=True,
        )

    # -- message batches -----------------------------------------------------------------

    def submit_batch(self, requests: Sequence[Mapping[str, Any]]) -> str:
        """Create a Message Batch of ``{"custom_id", "params"}`` items; returns its id.

        The worst case of the whole batch (at the batch price) must fit under the cap; it
        stays reserved until :meth:`batch_results` charges what the batch really cost.
        """
        if not requests:
            raise ValueError("a batch needs at least one request")
        reserved = sum(
            self.worst_case_cost(json.dumps(r["params"], ensure_ascii=False), r["params"]["max_tokens"], batch=True)
            for r in requests
        )
        self.reserve(reserved)
        try:
            batch, _ = self.with_retries(lambda: self.sdk().messages.batches.create(requests=list(requests)))
        except BaseException as exc:
            self.settle(reserved, Usage())
            if isinstance(exc, _CallFailed):
                raise DistillError(f"could not submit the batch: {exc}") from None
            raise
        with self._lock:
            self._batch_reserved[batch.id] = reserved
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
        self,
        batch_id: str,
        schema: Mapping[str, Any],
        *,
        tool_name: str = "record_answer",
        check: Callable[[str, dict], list[str]] | None = None,
    ) -> dict[str, LLMResult]:
        """``{custom_id: LLMResult}`` of an ended batch, validated and charged at batch price.

        ``check(custom_id, answer)`` adds per-item errors. An item the API did not answer has
        ``attempts == 0`` and no ``reply``; an invalid one keeps its ``reply`` for
        :meth:`repair`.
        """
        try:
            lines, _ = self.with_retries(lambda: list(self.sdk().messages.batches.results(batch_id)))
        except _CallFailed as exc:
            raise DistillError(f"could not read the results of batch {batch_id}: {exc}") from None
        results = {line.custom_id: self._batch_item(line, schema, tool_name, check) for line in lines}
        with self._lock:
            held = self._batch_reserved.pop(batch_id, 0.0)
        self.settle(held, Usage())
        return results

    def _batch_item(self, line: Any, schema, tool_name: str, check) -> LLMResult:
        result = line.result
        if result.type != "succeeded":
            detail = getattr(getattr(result, "error", None), "error", None)
            return LLMResult(None, f"batch item {result.type}: {getattr(detail, 'message', '')}".strip(": "))
        usage = Usage.from_api(result.message.usage)
        cost = self.settle(0.0, usage, batch=True)
        blocks = tuple(_block_dict(b) for b in result.message.content or ())
        item_check = (lambda data: check(line.custom_id, data)) if check else None
        return interpret_reply(blocks, schema, tool_name, item_check, usage, cost, 1)


def interpret_reply(
    blocks: tuple[dict, ...],
    schema: Mapping[str, Any],
    tool_name: str,
    check: Callable[[dict], list[str]] | None,
    usage: Usage,
    cost: float,
    attempts: int,
) -> LLMResult:
    """Find the tool call in the assistant's blocks and validate its input."""
    common = dict(usage=usage, cost_usd=cost, attempts=attempts, reply=blocks)
    answer = next((b.get("input") for b in blocks if b.get("type") == "tool_use" and b.get("name") == tool_name), None)
    if answer is None:
        return LLMResult(None, f"the answer did not call the tool {tool_name!r}", **common)
    errors = validate(answer, schema)
    if not errors and check is not None:
        errors = list(check(answer))
    if errors:
        return LLMResult(None, "; ".join(errors), **common)
    return LLMResult(dict(answer), None, **common)


def _repair_turn(failed: LLMResult, tool_name: str) -> list[dict] | str:
    note = (
        f"That answer is not valid: {failed.error}. "
        f"Call {tool_name} again with a corrected answer that follows the schema."
    )
    tool_use = next((b for b in failed.reply if b.get("type") == "tool_use"), None)
    if tool_use is None:
        return note
    return [{"type": "tool_result", "tool_use_id": tool_use["id"], "is_error": True, "content": note}]


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
            continue
    return None


def _describe(exc: BaseException | None) -> str:
    status = getattr(exc, "status_code", None)
    name = type(exc).__name__ if exc is not None else "unknown error"
    message = getattr(exc, "message", None) or str(exc)
    return f"{name} ({status}): {message}" if status else f"{name}: {message}"
