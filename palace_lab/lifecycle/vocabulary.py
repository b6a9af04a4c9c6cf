"""Surviving vocabulary of the distilled layer, per distiller version.

The paper's principle is that a card keeps the exchange's own words. Two rates per card,
averaged per distiller version:

- ``term_rate``: the share of the card's terms (exchange_core + specific_context, terms as in
  :func:`palace_lab.distill.terms.terms`) that occur in the exchange's verbatim text. 1.0
  means the card invents no word.
- ``fact_rate``: the share of the exchange's ``top`` most salient facts that the card's core
  text preserves (:func:`palace_lab.lifecycle.validate.validate`). The facts come from the
  exchange's dialogue (the person's and the agent's words); salience ranks them by the
  importance of their sentence, then by the mean idf of their terms over the palace.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import TYPE_CHECKING

from palace_lab.lifecycle.facts import Fact
from palace_lab.lifecycle.importance import WEIGHTS
from palace_lab.lifecycle.units import session_messages
from palace_lab.lifecycle.validate import extract_facts, validate

if TYPE_CHECKING:
    from palace_lab.store import Palace

TOP_FACTS = 5


def salient_facts(exchange, stats, *, top: int = TOP_FACTS) -> list[Fact]:
    from palace_lab.distill.terms import idf, terms

    found: dict[tuple[str, str], Fact] = {}
    for _, speaker, text in session_messages([exchange]):
        for f in extract_facts(text, speaker=speaker):
            found.setdefault((f.kind, f.text), f)

    def specificity(f: Fact) -> float:
        ts = terms(f.text)
        return sum(idf(t, stats) for t in ts) / len(ts) if ts else 0.0

    ranked = sorted(found.values(), key=lambda f: (-WEIGHTS[f.importance], -specificity(f), f.text))
    return ranked[:top]


def card_rates(card, exchange, stats, *, top: int = TOP_FACTS) -> dict:
    from palace_lab.distill.terms import terms

    card_terms = set(terms(card.core_text))
    present = set(terms(exchange.verbatim))
    facts = salient_facts(exchange, stats, top=top)
    check = validate(facts, card.core_text) if facts else None
    return {"exchange_id": card.exchange_id,
            "term_rate": len(card_terms & present) / len(card_terms) if card_terms else None,
            "fact_rate": check.score if check else None,
            "facts": len(facts)}


def _mean(values: Sequence) -> float | None:
    kept = [v for v in values if v is not None]
    return round(statistics.mean(kept), 4) if kept else None


def vocabulary_report(palace: Palace, versions: Sequence[str] | None = None, *,
                      top: int = TOP_FACTS) -> list[dict]:
    """One row per distiller version: cards, mean term_rate, mean fact_rate."""
    from palace_lab.distill.terms import corpus_stats

    exchanges = {e.exchange_id: e for e in palace.exchanges()}
    stats = corpus_stats(e.verbatim for e in exchanges.values())
    versions = versions or [v["version"] for v in palace.distiller_versions() if v["cards"]]
    rows = []
    for version in versions:
        rates = [card_rates(c, exchanges[c.exchange_id], stats, top=top)
                 for c in palace.cards(version) if c.exchange_id in exchanges]
        rows.append({"distiller": version, "cards": len(rates),
                     "term_rate": _mean([r["term_rate"] for r in rates]),
                     "fact_rate": _mean([r["fact_rate"] for r in rates]),
                     "definitions": {"term_rate": "card terms found in the exchange / card terms",
                                     "fact_rate": f"top {top} salient facts of the exchange's "
                                                  "dialogue preserved in the card's core text"}})
    return rows
