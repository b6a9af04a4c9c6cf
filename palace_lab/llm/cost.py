"""What paid LLM calls cost, and the hard cap that keeps a run under what the person allowed.

Prices are USD per million tokens of each kind (input, output, cache read, cache write) in
:data:`PRICES_USD_PER_MTOK`, a plain dict the person may mutate, override with a mapping, or
replace from a JSON file of the same shape. Tokens are *estimated* from characters before a
call (:func:`estimate_tokens`, deliberately pessimistic) and *charged* from the usage the API
reports after it.

Invariant of :class:`CostCap`: a call first reserves its worst case; it is refused with
:class:`~palace_lab.errors.CostCapExceededError` when ``spent + reserved + worst case`` would
pass the cap; afterwards the reservation is released and the real cost charged. So ``spent``
stays under the cap unless the API bills more than the pessimistic estimate.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from palace_lab.errors import CostCapExceededError, DistillError

# USD per million tokens. Cache writes (5-minute TTL) cost 1.25x input, cache reads 0.1x.
PRICES_USD_PER_MTOK: dict[str, dict[str, float]] = {
    "claude-haiku-4-5": {"input": 1.0, "output": 5.0, "cache_read": 0.10, "cache_write": 1.25},
    "claude-sonnet-4-5": {"input": 3.0, "output": 15.0, "cache_read": 0.30, "cache_write": 3.75},
    "claude-opus-4-1": {"input": 15.0, "output": 75.0, "cache_read": 1.50, "cache_write": 18.75},
}
BATCH_DISCOUNT = 0.5  # the Message Batches API bills half the interactive price

Prices = Mapping[str, Mapping[str, float]]


def _complete_price(model: str, entry: Mapping[str, Any]) -> dict[str, float]:
    try:
        base = {"input": float(entry["input"]), "output": float(entry["output"])}
    except (KeyError, TypeError, ValueError):
        raise DistillError(f"the price of {model!r} needs numeric 'input' and 'output'") from None
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


def resolve_prices(prices: Prices | str | Path | None = None) -> dict[str, dict[str, float]]:
    """The module table, overridden model by model by a mapping or a JSON file."""
    table = {m: _complete_price(m, e) for m, e in PRICES_USD_PER_MTOK.items()}
    if isinstance(prices, (str, Path)):
        table.update(load_prices(prices))
    elif prices:
        table.update({m: _complete_price(m, e) for m, e in prices.items()})
    return table


FREE: Mapping[str, float] = {"input": 0.0, "output": 0.0, "cache_read": 0.0, "cache_write": 0.0}


def price_or_free(model: str, prices: Prices | str | Path | None) -> Mapping[str, float]:
    """The price of a model on a server the person runs: free unless ``prices`` (a mapping or
    a JSON file of the :data:`PRICES_USD_PER_MTOK` shape) names it; Claude's prices never
    apply there, whatever the model is called."""
    if prices is None:
        return FREE
    if isinstance(prices, (str, Path)):
        return price_for(model, load_prices(prices))
    return price_for(model, {m: _complete_price(m, e) for m, e in prices.items()})


def price_for(model: str, prices: Prices) -> Mapping[str, float]:
    """The entry for ``model``, or for the longest key it starts with (dated snapshots)."""
    if model in prices:
        return prices[model]
    keys = sorted((k for k in prices if model.startswith(k)), key=len, reverse=True)
    if keys:
        return prices[keys[0]]
    raise DistillError(
        f"no price known for model {model!r}; known models: {', '.join(sorted(prices))}. "
        "Pass prices={model: {'input': ..., 'output': ...}} (USD per million tokens)."
    )


def estimate_tokens(text: str) -> int:
    """A pessimistic token count without a tokenizer: ``ceil(ascii_chars / 3) + other_chars``.

    Claude's tokenizer averages about 3.5-4 characters per token on English and code; counting
    3, and every non-ASCII character as a whole token, errs high so that a cap built on it holds.
    """
    non_ascii = 0 if text.isascii() else sum(1 for c in text if ord(c) > 127)
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

    @property
    def all_input_tokens(self) -> int:
        return self.input_tokens + self.cache_read_tokens + self.cache_write_tokens

    @classmethod
    def from_api(cls, usage: Any) -> "Usage":
        """From the SDK's ``Usage`` object (or its dict form); missing cache fields count 0."""
        if usage is None:
            return cls()
        get = usage.get if isinstance(usage, dict) else lambda k: getattr(usage, k, None)
        return cls(
            int(get("input_tokens") or 0),
            int(get("output_tokens") or 0),
            int(get("cache_read_input_tokens") or 0),
            int(get("cache_creation_input_tokens") or 0),
        )


def dollar_cost(usage: Usage, price: Mapping[str, float], *, batch: bool = False) -> float:
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
    prices: Prices | str | Path | None = None,
    batch: bool = False,
) -> float:
    """Dollars for one call per text at ``model``'s price (see :func:`estimate_at`)."""
    price = price_for(model, resolve_prices(prices))
    return estimate_at(texts, expected_output_tokens, price, batch=batch)


def estimate_at(
    texts: Iterable[str], expected_output_tokens: int, price: Mapping[str, float], *,
    batch: bool = False,
) -> float:
    """Dollars for one call per text: the text as uncached input (counted by
    :func:`estimate_tokens`) plus ``expected_output_tokens`` of output, at ``price``."""
    total = Usage()
    for text in texts:
        total = total + Usage(estimate_tokens(text), expected_output_tokens)
    return dollar_cost(total, price, batch=batch)


def worst_case_cost(
    input_text: str, max_tokens: int, price: Mapping[str, float], *, batch: bool = False
) -> float:
    """One call at most: its input at the dearer of input/cache-write, ``max_tokens`` out."""
    input_rate = max(price["input"], price["cache_write"])
    dollars = (estimate_tokens(input_text) * input_rate + max_tokens * price["output"]) / 1e6
    return dollars * (BATCH_DISCOUNT if batch else 1.0)


class CostCap:
    """Running spend against an optional hard cap; thread-safe."""

    def __init__(self, price: Mapping[str, float], max_cost_usd: float | None = None) -> None:
        self.price, self.max_cost_usd = price, max_cost_usd
        self.spent_usd = 0.0
        self.reserved_usd = 0.0
        self.usage = Usage()
        self._lock = threading.Lock()

    def reserve(self, amount: float) -> float:
        """Hold ``amount`` against the cap or raise :class:`CostCapExceededError`."""
        with self._lock:
            cap = self.max_cost_usd
            if cap is not None and self.spent_usd + self.reserved_usd + amount > cap + 1e-12:
                raise CostCapExceededError(
                    f"the cost cap of ${cap:.4f} would be exceeded: ${self.spent_usd:.4f} "
                    f"spent, ${self.reserved_usd:.4f} in flight, next call up to ${amount:.4f}"
                )
            self.reserved_usd += amount
            return amount

    def settle(self, reserved: float, usage: Usage, *, batch: bool = False) -> float:
        """Release ``reserved`` and charge what the API reported; returns that cost."""
        cost = dollar_cost(usage, self.price, batch=batch)
        with self._lock:
            self.reserved_usd = max(0.0, self.reserved_usd - reserved)
            self.spent_usd += cost
            self.usage = self.usage + usage
        return cost
