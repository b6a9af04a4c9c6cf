"""Five typical cards beside the opening of their exchanges, for the report.

*Typical*, not best: the cards whose size on the distilled layer (the layer the headline
divides by) is closest to the median card size, ties broken by exchange id, preferring one
card per conversation so the five are not five turns of one session. Only those few exchanges
and cards are read, whatever the palace's size.

Every text leaves here redacted: the opening is redacted with the secrets of its whole exchange
(:func:`palace_lab.redact.secrets_in`, so a piece of a secret quoted without its prefix goes too)
*before* it is cut, so a cut never leaves the tail of a secret that a rule would have
recognised whole; the card is redacted again the same way (cards made before a rule existed).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from palace_lab.redact import redact_card, redact_text, redact_with_known, secrets_in

if TYPE_CHECKING:
    from palace_lab.budget import ExchangeBudget
    from palace_lab.store import Palace

OPENING_CHARS = 480
POOL = 40  # candidates read around the median, to find five conversations


@dataclass(frozen=True)
class Example:
    """One card beside its exchange's opening, every text redacted, sizes in tokens."""

    exchange_id: str
    project: str | None
    timestamp: str | None
    opening: str
    dialogue_tokens: int
    verbatim_tokens: int
    card_tokens: int
    exchange_core: str
    specific_context: str
    keywords: tuple[str, ...]
    rooms: tuple[str, ...]
    files: tuple[str, ...]


def typical_examples(palace: Palace, rows: Sequence[ExchangeBudget], distiller: str,
                     layer: str, *, n: int = 5) -> list[Example]:
    """``n`` cards of ``distiller`` closest to the median ``layer`` size (see the module)."""
    sized = [r for r in rows if getattr(r, layer)]
    if not sized:
        return []
    median = statistics.median(getattr(r, layer) for r in sized)
    near = sorted(sized, key=lambda r: (abs(getattr(r, layer) - median), r.exchange_id))[:POOL]
    ids = [r.exchange_id for r in near]
    exchanges, cards = palace.exchanges_by_id(ids), palace.cards_by_id(distiller, ids)
    usable = [r for r in near if r.exchange_id in exchanges and r.exchange_id in cards]
    chosen = _spread(usable, {e: x.conversation_id for e, x in exchanges.items()}, n)
    return [_example(r, exchanges[r.exchange_id], cards[r.exchange_id], layer) for r in chosen]


def _spread(rows: list, conversation: dict[str, str], n: int) -> list:
    """The first ``n`` rows, one per conversation while there are enough conversations."""
    seen: set[str] = set()
    first = []
    for r in rows:
        if conversation[r.exchange_id] not in seen:
            seen.add(conversation[r.exchange_id])
            first.append(r)
    rest = [r for r in rows if r not in first]
    return (first + rest)[:n]


def _example(row: ExchangeBudget, exchange, card, layer: str) -> Example:
    known = secrets_in(exchange.verbatim)
    card, _ = redact_card(card, known)
    said = redact_with_known(exchange.request or exchange.dialogue or exchange.verbatim, known)
    return Example(
        exchange_id=exchange.exchange_id,
        project=redact_text(exchange.project) if exchange.project else None,
        timestamp=exchange.timestamp, opening=cut(said.text, OPENING_CHARS),
        dialogue_tokens=row.dialogue, verbatim_tokens=row.verbatim,
        card_tokens=getattr(row, layer), exchange_core=card.exchange_core,
        specific_context=card.specific_context, keywords=tuple(card.keywords),
        rooms=tuple(r.room_label for r in card.room_assignments),
        files=tuple(card.files_touched))


def cut(text: str, limit: int) -> str:
    """``text`` without trailing blanks, cut at ``limit`` characters (at a space when one is
    near) with an ellipsis."""
    text = text.strip()
    if len(text) <= limit:
        return text
    head = text[:limit]
    space = head.rfind(" ")
    return (head[:space] if space > limit * 0.8 else head).rstrip() + " …"
