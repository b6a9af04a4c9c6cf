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
from collections.abc import Collection
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from palace_lab import paper
from palace_lab.llm.cost import PRICES_USD_PER_MTOK
from palace_lab.model import DistilledCard, content_hash
from palace_lab.store.memo import Memo, code_version
from palace_lab.tokens import DEFAULT_ENCODING, count_tokens

if TYPE_CHECKING:
    from palace_lab.store import Palace

BUDGET_LAYERS = ("verbatim", "dialogue", "core", "searched", "card")
LAYER_DEFINITIONS = {
    "verbatim": "full exchange text: requests, agent text, tool calls and tool output",
    "dialogue": "the person's and the agent's words, without tool traffic",
    "core": "exchange_core + specific_context (the paper's searchable distilled text)",
    "searched": "core + keywords: the text the core+keywords layer indexes (the rules "
                "distiller's card search)",
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

    @property
    def headline(self) -> dict:
        """The one "how much smaller" figure every page, the CLI and the report lead with.

        Like for like with the paper's 371 → 38 tokens: the person's and the agent's words
        (``dialogue``) over the text distilled search indexes (:attr:`distilled_layer`), as a
        ratio of totals in :attr:`encoding`. ``other`` is the same over the whole verbatim
        exchange (tool calls and output included), which is shown one step away, never first.
        """
        layer = self.distilled_layer
        main = self.compression.get(f"dialogue_over_{layer}", {})
        other = self.compression.get(f"verbatim_over_{layer}", {})
        return {"ratio": main.get("ratio_of_totals"), "numerator": "dialogue",
                "denominator": layer, "tokenizer": self.encoding, "kind": "ratio_of_totals",
                "definition": f"sum of dialogue tokens / sum of {layer} tokens ({self.encoding})",
                "paper": paper.BUDGET,
                "other": {"ratio": other.get("ratio_of_totals"), "numerator": "verbatim",
                          "denominator": layer,
                          "definition": f"sum of verbatim tokens (tool traffic included) / "
                                        f"sum of {layer} tokens ({self.encoding})"}}

    def to_dict(self) -> dict:
        return {"exchanges": self.exchanges, "tokenizer": self.encoding,
                "distiller": self.distiller, "distilled_layer": self.distilled_layer,
                "headline": self.headline, "layers": self.layers,
                "layer_definitions": LAYER_DEFINITIONS, "compression": self.compression,
                "per_1000_exchanges": self.per_1000, "specific_context": self.contexts,
                "paper": paper.BUDGET}


HEADLINE_NAME = "How much smaller"


def _x(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}x"


def headline_text(h: dict) -> str:
    """:attr:`BudgetSummary.headline` in the words every page and the CLI use for it."""
    return (f"{HEADLINE_NAME}: {_x(h['ratio'])} ({h['numerator']} → {h['denominator']} tokens, "
            f"ratio of totals, {h['tokenizer']}; paper {paper.RATIO_NAME}, "
            f"{h['paper']['verbatim_mean']} → {h['paper']['core_mean']} tokens an exchange)")


def other_text(h: dict) -> str:
    """The headline's other ratio, one step away: the whole verbatim text over the same layer."""
    o = h["other"]
    return (f"with tool calls and their output: {_x(o['ratio'])} ({o['numerator']} → "
            f"{o['denominator']} tokens, ratio of totals)")


def _ratios(rows: list[ExchangeBudget], numerator: str, denominator: str = "core") -> dict:
    # Every exchange with a card is a pair, an empty card too (it costs nothing and keeps
    # the count equal to the cards'); a per-exchange ratio needs a card of at least a token.
    paired = [(getattr(r, numerator), getattr(r, denominator)) for r in rows
              if getattr(r, denominator) is not None]
    total = sum(c for _, c in paired)
    if not total:
        return {"ratio_of_totals": None, "mean_of_ratios": None, "pairs": len(paired)}
    return {"ratio_of_totals": round(sum(v for v, _ in paired) / total, 2),
            "mean_of_ratios": round(statistics.fmean(v / c for v, c in paired if c), 2),
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
    """The budget of a palace for one distiller version (default: the latest one): its
    summary, with the ``specific_context`` checks, and its rows (:func:`budget_rows`)."""
    distiller = distiller or palace.latest_distiller()
    hashes = palace.exchange_hashes()
    card_hashes = dict(palace.card_hashes(distiller)) if distiller else {}
    rows = _rows(palace, distiller, encoding, hashes, card_hashes)
    summary = summarize(rows, encoding, distiller)
    summary.contexts = _context_checks(palace, distiller, hashes, card_hashes)
    return summary, rows


def budget_rows(palace: Palace, distiller: str | None = None,
                encoding: str = DEFAULT_ENCODING) -> list[ExchangeBudget]:
    """Per exchange in palace order, its token counts by layer for one distiller version.

    Every count is kept by the content hash of its exchange or card
    (:class:`palace_lab.store.memo.Memo`): only exchanges and cards new since the last call are
    read and counted; the others' figures are read back (at 50,300 exchanges, 1.8 s against
    33.4 s to count them all). Distilling keeps the figures of what it made.
    """
    distiller = distiller or palace.latest_distiller()
    card_hashes = dict(palace.card_hashes(distiller)) if distiller else {}
    return _rows(palace, distiller, encoding, palace.exchange_hashes(), card_hashes)


def _rows(palace: Palace, distiller: str | None, encoding: str, hashes: dict[str, str],
          card_hashes: dict[str, str]) -> list[ExchangeBudget]:
    said = _exchange_counts(palace, hashes, encoding)
    carded = _card_counts(palace, distiller, card_hashes, encoding)
    facets = palace.exchange_facets()
    return [ExchangeBudget(eid, *facets.get(eid, (None, None)), *said[h],
                           *carded.get(card_hashes.get(eid), (None, None, None)))
            for eid, h in hashes.items() if h in said]  # not one removed meanwhile


def keep_budget(palace: Palace, distiller: str, exchange_ids: Collection[str],
                encoding: str = DEFAULT_ENCODING) -> None:
    """Count the figures of these exchanges and of their cards now (what a distill just made),
    so that the next :func:`palace_budget` reads them back instead of counting them."""
    wanted = set(exchange_ids)
    hashes = {eid: h for eid, h in palace.exchange_hashes().items() if eid in wanted}
    card_hashes = {eid: h for eid, h in palace.card_hashes(distiller) if eid in hashes}
    _exchange_counts(palace, hashes, encoding)
    _card_counts(palace, distiller, card_hashes, encoding)
    _context_checks(palace, distiller, hashes, card_hashes)


@lru_cache(maxsize=1)
def _version() -> str:
    """The code a kept figure comes from: the layers' texts, the counting, the checks."""
    return code_version("palace_lab.budget", "palace_lab.model", "palace_lab.tokens",
                        "palace_lab.distill.context")


def _exchange_counts(palace: Palace, hashes: dict[str, str], encoding: str) -> dict[str, tuple]:
    """``{exchange hash: (verbatim, dialogue)}`` token counts."""
    ids = {h: eid for eid, h in hashes.items()}

    def count(missing: list[str]) -> dict[str, tuple]:
        found = list(palace.exchanges_by_id([ids[h] for h in missing]).values())
        verbatim = count_tokens([e.verbatim for e in found], encoding)
        dialogue = count_tokens([e.dialogue for e in found], encoding)
        return {hashes[e.exchange_id]: pair for e, pair in zip(found, zip(verbatim, dialogue))}

    memo = Memo(palace, f"exchange_tokens_{encoding}", _version(), ("verbatim", "dialogue"))
    return memo.fill(hashes.values(), count)


def _card_counts(palace: Palace, distiller: str | None, card_hashes: dict[str, str],
                 encoding: str) -> dict[str, tuple]:
    """``{card hash: (core, card, searched)}`` token counts."""
    ids = {h: eid for eid, h in card_hashes.items()}

    def count(missing: list[str]) -> dict[str, tuple]:
        cards = list(palace.cards_by_id(distiller, [ids[h] for h in missing]).values())
        layers = [count_tokens([text(c) for c in cards], encoding) for text in
                  (lambda c: c.core_text, card_text, lambda c: c.search_text)]
        return {card_hashes[c.exchange_id]: figures for c, figures in zip(cards, zip(*layers))}

    memo = Memo(palace, f"card_tokens_{encoding}", _version(), ("core", "card", "searched"))
    return memo.fill(card_hashes.values(), count) if card_hashes else {}


def _context_checks(palace: Palace, distiller: str | None, hashes: dict[str, str],
                    card_hashes: dict[str, str]) -> dict:
    """The cards' ``specific_context`` checks (:func:`palace_lab.distill.context.check_context`)
    summed; each is kept by its card's and its exchange's hashes."""
    from palace_lab.distill.context import CHECKS, check_context, summarize_checks

    pairs = {content_hash(h, hashes[eid]): eid for eid, h in card_hashes.items()}

    def check(missing: list[str]) -> dict[str, tuple]:
        ids = [pairs[k] for k in missing]
        exchanges, cards = palace.exchanges_by_id(ids), palace.cards_by_id(distiller, ids)
        return {content_hash(card_hashes[eid], hashes[eid]):
                check_context(exchanges[eid], cards[eid].specific_context)
                for eid in ids if eid in exchanges and eid in cards}

    memo = Memo(palace, "context_checks", _version(), CHECKS)
    return summarize_checks(memo.fill(pairs, check).values())


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
