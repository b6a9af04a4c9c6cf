"""The Anthropic transport of the structured LLM client, shared by every paid feature.

The distiller, the LLM grader and the compression judge all need the same thing: send a fixed
instruction prefix plus one item, get back a JSON object that matches a schema, pay as little
as possible and never more than the person allowed. :class:`LLMClient` does that over the
Anthropic Messages API, live; its Message Batches half is :mod:`palace_lab.llm.batches`. The
policy it shares with the OpenAI-compatible client (validation, one repair turn, retries with
backoff, the cost cap) lives in :mod:`palace_lab.llm.base`.

Invariants:

- The ``anthropic`` SDK is imported inside functions only, so ``import palace_lab`` stays fast
  and works without it.
- Structured output is a forced tool call (``tool_choice`` names the one tool whose
  ``input_schema`` is the answer's schema); the repair turn sends the errors back as an error
  ``tool_result``.
- Transient failures are 429, 529, other 5xx, timeouts and dropped connections; the SDK's own
  retries are off so one policy applies. A refused key, a forbidden or unknown model raises
  :class:`~palace_lab.errors.DistillError`.
- The fixed system prefix carries ``cache_control: {"type": "ephemeral"}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from palace_lab.errors import DistillError
from palace_lab.llm.base import (  # noqa: F401 - re-exported: the one import for callers
    FAILED,
    FATAL,
    TRANSIENT,
    BoundedResults,
    CallFailed,
    Check,
    LLMResult,
    StructuredClient,
    System,
    Tool,
    repair_note,
    run_bounded,
    validated,
)
from palace_lab.llm.cost import (  # noqa: F401 - re-exported
    BATCH_DISCOUNT,
    PRICES_USD_PER_MTOK,
    CostCap,
    Prices,
    Usage,
    dollar_cost,
    estimate_cost,
    estimate_tokens,
    load_prices,
    price_for,
    resolve_prices,
    worst_case_cost,
)
from palace_lab.llm.schema import schema_errors  # noqa: F401 - re-exported

__all__ = [
    "BATCH_DISCOUNT", "PRICES_USD_PER_MTOK", "BoundedResults", "CostCap", "LLMClient",
    "LLMResult", "StructuredClient", "Tool", "Usage", "dollar_cost", "estimate_cost",
    "estimate_tokens", "interpret_reply", "load_prices", "price_for", "resolve_prices",
    "run_bounded", "schema_errors", "system_with_cache", "worst_case_cost",
]


# ---------------------------------------------------------------------------- the client


class LLMClient(StructuredClient):
    """One model, one key, one cost cap over the Anthropic Messages API. Thread-safe."""

    backend = "anthropic"

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
        self.prices = resolve_prices(prices)
        super().__init__(
            model=model, price=price_for(model, self.prices), max_retries=max_retries,
            timeout=timeout, max_concurrency=max_concurrency, max_cost_usd=max_cost_usd,
            backoff_base_s=backoff_base_s, backoff_max_s=backoff_max_s,
        )
        self._api_key, self._base_url = api_key, base_url
        self._sdk_client: Any = None

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

    def classify(self, exc: BaseException) -> str | None:
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
        if isinstance(exc, fatal):
            return FATAL
        if isinstance(exc, transient):
            return TRANSIENT
        return FAILED if isinstance(exc, anthropic.APIStatusError) else None

    def describe(self, exc: BaseException | None) -> str:
        return _describe(exc)

    def refused(self, exc: BaseException) -> str:
        return f"the Anthropic API refused the request: {_describe(exc)}"

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

    def request(self, system_blocks: System, messages: list[dict], tool: Tool) -> dict:
        return self.message_params(system_blocks, messages, tool)

    def send(self, body: dict) -> tuple[tuple[dict, ...], Usage]:
        message = self.sdk().messages.create(**body)
        blocks = tuple(block_dict(b) for b in (message.content or ()))
        return blocks, Usage.from_api(getattr(message, "usage", None))

    def interpret(self, reply: tuple[dict, ...], tool: Tool, check: Check | None, *,
                  usage: Usage, cost: float, attempts: int) -> LLMResult:
        return interpret_reply(reply, tool, check, usage=usage, cost=cost, attempts=attempts)

    def repair_messages(self, user_text: str, failed: LLMResult, tool: Tool) -> list[dict]:
        return [
            {"role": "user", "content": user_text},
            {"role": "assistant", "content": list(failed.reply)},
            {"role": "user", "content": _repair_turn(failed, tool.name)},
        ]


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


def redacted_request(request: Mapping[str, Any]) -> dict:
    """A batch item (``{"custom_id", "params"}``) with its system and messages redacted."""
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
    calls = [b for b in blocks if b.get("type") == "tool_use" and b.get("name") == tool.name]
    if not calls:
        return LLMResult(None, f"the answer did not call the tool {tool.name!r}", usage=usage,
                         cost_usd=cost, attempts=attempts, reply=blocks)
    answer = calls[0].get("input")
    return validated(answer, tool, check, usage=usage, cost=cost, attempts=attempts, reply=blocks)


def block_dict(block: Any) -> dict:
    if isinstance(block, dict):
        return block
    kind = getattr(block, "type", None)
    if kind == "tool_use":
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
    if kind == "text":
        return {"type": "text", "text": block.text}
    return block.model_dump(exclude_none=True)


def _repair_turn(failed: LLMResult, tool_name: str) -> list[dict] | str:
    note = repair_note(failed.error, f"Call {tool_name}")
    tool_use = next((b for b in failed.reply if b.get("type") == "tool_use"), None)
    if tool_use is None:
        return note
    return [{"type": "tool_result", "tool_use_id": tool_use["id"], "is_error": True,
             "content": note}]


def _describe(exc: BaseException | None) -> str:
    status = getattr(exc, "status_code", None)
    name = type(exc).__name__ if exc is not None else "unknown error"
    message = getattr(exc, "message", None) or str(exc)
    return f"{name} ({status}): {message}" if status else f"{name}: {message}"
