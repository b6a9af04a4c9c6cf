"""Does a rules knob change any card? Said before re-distilling, with the reason when it does not.

Some knobs of :class:`palace_lab.distill.rules.RulesDistiller` are bounds that act only past a
point: ``budget_tokens`` caps core + context, but a card's core + context gets
``B(e)·core_share`` tokens first (``B(e)`` a share of its dialogue, set by ``mean_tokens``), so
on a palace of short exchanges raising the cap from 38 to 60 changes nothing; ``min_share`` /
``max_share`` clamp the palace's share ``s = mean_tokens / mean dialogue``, idle while ``s``
lies between them; ``core_chars`` caps cores already shorter. :func:`knob_effect` distils the
sample in memory with the default knobs and with the chosen ones (the rules distiller is
offline, deterministic and fast), counts the cards that differ, and for a change that moves no
card says which bound stays idle and what to turn instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from palace_lab.distill.base import CorpusStats
from palace_lab.distill.rules import RulesDistiller
from palace_lab.model import Exchange

TUNED = ("request_share", "repeat_weight")  # knobs outside RulesDistiller.DEFAULTS


@dataclass(frozen=True)
class KnobEffect:
    """How many sample cards the chosen knobs change, and why a changed knob moved none."""

    changed: int
    total: int
    knobs: dict  # {name: (default, chosen)} of the knobs set away from their default
    reasons: tuple[str, ...]


def changed_knobs(trial: RulesDistiller) -> dict:
    base = RulesDistiller()
    names = [*RulesDistiller.DEFAULTS, *TUNED]
    return {n: (getattr(base, n), getattr(trial, n)) for n in names if getattr(base, n) != getattr(trial, n)}


def _fields(card) -> tuple:
    return card.exchange_core, card.specific_context, card.keywords


def knob_effect(trial: RulesDistiller, exchanges: Sequence[Exchange], stats: CorpusStats) -> KnobEffect:
    """Cards of ``exchanges`` under the default knobs and under ``trial``'s, compared."""
    base = RulesDistiller()
    changed = sum(_fields(base.card(e, stats)) != _fields(trial.card(e, stats)) for e in exchanges)
    knobs = changed_knobs(trial)
    reasons = () if changed else tuple(r for n in knobs if (r := _why_idle(n, trial, exchanges, stats)))
    return KnobEffect(changed, len(exchanges), knobs, reasons)


def _why_idle(name: str, trial: RulesDistiller, exchanges: Sequence[Exchange], stats: CorpusStats) -> str:
    default, chosen = getattr(RulesDistiller(), name), getattr(trial, name)
    if name == "budget_tokens":
        largest = max((int(trial.card_budget(e, stats) * trial.core_share) for e in exchanges), default=0)
        return (f"Max core + context tokens ({default} → {chosen}) is a ceiling: a card's core + "
                f"context first gets B(e)·core_share tokens (B(e) = the palace's share of the "
                f"exchange's dialogue), at most {largest} in this sample, so the ceiling binds on no "
                "card. Raise “Mean card budget” or “Core + context share” to give cards more tokens.")
    if name in ("min_share", "max_share"):
        s = trial.mean_tokens / stats.dialogue_mean if stats.dialogue_mean else 0.1
        return (f"{name} ({default} → {chosen}) bounds the share of dialogue a card keeps; this "
                f"palace's share is {s:.3f} (mean card budget {trial.mean_tokens} / mean dialogue "
                f"{stats.dialogue_mean:.0f} tokens), inside [{trial.min_share}, {trial.max_share}], "
                "so the bound does not act. Change “Mean card budget” to move the share.")
    if name == "core_chars":
        return (f"Core length cap ({default} → {chosen}) cuts only cores longer than the cap; no "
                "core of this sample is, under the token budget. A smaller cap would act.")
    return (f"{name} ({default} → {chosen}) changes no card of these {len(exchanges)} exchanges: "
            "another limit decides their cards first. Try a larger change or a larger sample.")
