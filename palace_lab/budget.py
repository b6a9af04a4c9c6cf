"""Token budgets: what the verbatim layer costs, what the distilled layer costs, and the ratio.

Counts use a real tiktoken encoding (``cl100k_base`` by default, ``o200k_base`` on request).
Layers measured per exchange:

- ``verbatim``: the full exchange text, tool calls and tool output included (what drill-down
  shows and the verbatim search layer indexes);
- ``dialogue``: the person's and the agent's words only (no tool traffic);
- ``core``: ``exchange_core`` + ``specific_context``, the paper's searchable distilled text;
- ``card``: the whole card rendered as text (core, context, rooms, files).

Compression is reported under both definitions, always named next to the number:
*ratio of totals* = Σ verbatim / Σ core; *mean of per-exchange ratios* = mean(verbatim_i /
core_i). The paper's "11x" is 371/38 = 9.8 as a ratio of means (equal to the ratio of totals).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from palace_lab import paper
from palace_lab.llm.cost import PRICES_USD_PER_MTOK
from palace_lab.model import DistilledCard, Exchange
from palace_lab.tokens import DEFAULT_ENCODING, count_tokens

if TYPE_CHECKING:
    from palace_lab.store import Palace

BUDGET_LAYERS = ("verbatim", "dialogue", "core", "searched", "card")
LAYER_DEFINITIONS = {
    "verbatim": "full exchange text: requests, agent text, tool calls and tool output",
    "dialogue": "the person's and the agent's words, without tool traffic",
    "core": "exchange_core + specific_context (the paper's searchable distilled text)",
    "searched": "core + keywords: the text the core+keywords layer indexes (rules:v3's card search)",
    "card": "the whole card as the `all` layer indexes it: core, context, keywords, rooms, files",
}
RATIO_DEFINITIONS = {
    "ratio_of_totals": "sum of verbatim (or dialogue) tokens / sum of core (or searched) tokens "
                       "over all exchanges with a card",
    "mean_of_ratios": "mean over exchanges of (verbatim tokens / core tokens), likewise",
}
# USD per million input tokens, for "what would loading this cost": the input column of the one
# price table (:data:`palace_lab.llm.cost.PRICES_USD_PER_MTOK`); editable by the caller.
DEFAULT_PRICES = {model: price["input"] for model, price in PRICES_USD_PER_MTOK.items()}


def card_text(card: DistilledCard) -> str:
    """The whole card as text: exactly what the ``all`` layer indexes."""
    return card.full_text


@dataclass(frozen=True)
class ExchangeBudget:
    exchange_id: str
    project: str | None
    timestamp: str | None
    verbatim: int
    dialogue: int
    core: int | None
    card: int | None
    searched: int | None = None


def exchange_budgets(exchanges: list[Exchange], cards: dict[str, DistilledCard],
                     encoding: str = DEFAULT_ENCODING) -> list[ExchangeBudget]:
    """Per-exchange token counts; ``core``/``card`` are None where no card exists."""
    verbatim = count_tokens([e.verbatim for e in exchanges], encoding)
    dialogue = count_tokens([e.dialogue for e in exchanges], encoding)
    with_card = [e for e in exchanges if e.exchange_id in cards]
    core = dict(zip((e.exchange_id for e in with_card), count_tokens(
        [cards[e.exchange_id].core_text for e in with_card], encoding)))
    full = dict(zip((e.exchange_id for e in with_card), count_tokens(
        [card_text(cards[e.exchange_id]) for e in with_card], encoding)))
    searched = dict(zip((e.exchange_id for e in with_card), count_tokens(
        [cards[e.exchange_id].search_text for e in with_card], encoding)))
    return [ExchangeBudget(e.exchange_id, e.project, e.timestamp, v, d,
                           core.get(e.exchange_id), full.get(e.exchange_id),
                           searched.get(e.exchange_id))
            for e, v, d in zip(exchanges, verbatim, dialogue)]


def _layer_stats(values: list[int]) -> dict:
    if not values:
        return {"total": 0, "mean": None, "median": None, "exchanges": 0}
    return {"total": sum(values), "mean": round(statistics.fmean(values), 1),
            "median": statistics.median(values), "exchanges": len(values)}


@dataclass
class BudgetSummary:
    encoding: str
    distiller: str | None
    exchanges: int
    layers: dict = field(default_factory=dict)
    compression: dict = field(default_factory=dict)
    per_1000: dict = field(default_factory=dict)
    contexts: dict = field(default_factory=dict)  # specific_context checks (distill.context)

    @property
    def distilled_layer(self) -> str:
        """The layer to set beside the paper's 38-token core: what distilled search indexes,
        ``searched`` (core + keywords) when the cards have keywords, else ``core``."""
        searched, core = self.layers.get("searched", {}), self.layers.get("core", {})
        return "searched" if (searched.get("total") or 0) > (core.get("total") or 0) else "core"

    def to_dict(self) -> dict:
        return {"exchanges": self.exchanges, "tokenizer": self.encoding,
                "distiller": self.distiller, "distilled_layer": self.distilled_layer,
                "layers": self.layers,
                "layer_definitions": LAYER_DEFINITIONS, "compression": self.compression,
                "per_1000_exchanges": self.per_1000, "specific_context": self.contexts,
                "paper": paper.BUDGET}


def _ratios(rows: list[ExchangeBudget], numerator: str, denominator: str = "core") -> dict:
    paired = [(getattr(r, numerator), getattr(r, denominator)) for r in rows
              if getattr(r, denominator)]
    if not paired:
        return {"ratio_of_totals": None, "mean_of_ratios": None, "pairs": 0}
    return {"ratio_of_totals": round(sum(v for v, _ in paired) / sum(c for _, c in paired), 2),
            "mean_of_ratios": round(statistics.fmean(v / c for v, c in paired), 2),
            "pairs": len(paired)}


def summarize(rows: list[ExchangeBudget], encoding: str = DEFAULT_ENCODING,
              distiller: str | None = None) -> BudgetSummary:
    s = BudgetSummary(encoding, distiller, len(rows))
    for layer in BUDGET_LAYERS:
        s.layers[layer] = _layer_stats([getattr(r, layer) for r in rows if getattr(r, layer) is not None])
    s.compression = {"verbatim_over_core": _ratios(rows, "verbatim"),
                     "dialogue_over_core": _ratios(rows, "dialogue"),
                     "verbatim_over_searched": _ratios(rows, "verbatim", "searched"),
                     "dialogue_over_searched": _ratios(rows, "dialogue", "searched"),
                     "dialogue_over_card": _ratios(rows, "dialogue", "card"),
                     "definitions": RATIO_DEFINITIONS}
    s.per_1000 = {layer: round(1000 * s.layers[layer]["mean"]) if s.layers[layer]["mean"] else None
                  for layer in BUDGET_LAYERS}
    return s


def palace_budget(palace: Palace, distiller: str | None = None,
                  encoding: str = DEFAULT_ENCODING) -> tuple[BudgetSummary, list[ExchangeBudget]]:
    """The budget of a palace for one distiller version (default: the latest one)."""
    from palace_lab.distill.context import context_checks

    distiller = distiller or palace.latest_distiller()
    cards = palace.card_map(distiller) if distiller else {}
    exchanges = palace.exchanges()
    rows = exchange_budgets(exchanges, cards, encoding)
    summary = summarize(rows, encoding, distiller)
    summary.contexts = context_checks(exchanges, cards)
    return summary, rows


def fits_in_window(summary: BudgetSummary, window_tokens: int) -> dict:
    """How many exchanges fit in a context window, verbatim vs distilled (by mean size)."""
    out = {}
    for layer in BUDGET_LAYERS:
        mean = summary.layers[layer]["mean"]
        out[layer] = int(window_tokens // mean) if mean else None
    return out


def load_cost(summary: BudgetSummary, prices: dict[str, float] | None = None) -> dict:
    """USD to send each layer of the whole palace once as input, per model price."""
    prices = prices or DEFAULT_PRICES
    return {model: {layer: round(summary.layers[layer]["total"] * price / 1e6, 4)
                    for layer in BUDGET_LAYERS} for model, price in prices.items()}
