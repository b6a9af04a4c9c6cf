"""Layer texts: the text each search layer indexes for one exchange.

- ``verbatim``: the whole exchange as the person and the agent wrote it, tool input and output
  included (:attr:`Exchange.verbatim`).
- ``core``: the paper's searchable distilled text, ``exchange_core + "\\n" + specific_context``
  (:attr:`DistilledCard.core_text`).
- ``core+files``: core, then the card's ``files_touched``.
- ``core+rooms``: core, then each room's label and key.
- ``core+keywords``: core, then the card's ``keywords`` (the searchable card of ``rules:v3``).
- ``all``: every card field (:attr:`DistilledCard.full_text`, the text the budget counts as
  the card, so what is indexed and what is counted are the same text).

Invariants: a layer's texts come in conversation order (the palace's exchange order), one per
exchange. Layers that need a distilled card (``needs_cards``) include only exchanges that have
a card of the chosen distiller version; an exchange without one is absent from those layers
(never indexed as empty text). A card made from an older text of its exchange (a session that
grew since) is still used until it is re-distilled. ``version`` is part of every index cache
key: bump it when a layer's text function changes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from palace_lab.errors import SearchError
from palace_lab.model import DistilledCard, Exchange

if TYPE_CHECKING:
    from palace_lab.store import Palace

TextFn = Callable[[Exchange, DistilledCard | None], str]


@dataclass(frozen=True)
class LayerSpec:
    """How one layer's text is made from an exchange and (maybe) its card."""

    needs_cards: bool
    text_fn: TextFn
    description: str = ""
    version: int = 1
    # False: text_fn reads only the card (gets None for the exchange), so the layer's texts
    # are read from the cards alone, without loading every exchange's verbatim text.
    needs_exchange: bool = True
    # What a row's text is a function of, by its stored hash, so a change to a large layer
    # re-reads only the rows whose hash changed (:func:`layer_sources`): "exchange" (the
    # exchange's hash covers its verbatim text), "card" (the card's hash covers every card
    # field), or None (the layer's texts are always read whole).
    source: str | None = None


def _verbatim(exchange: Exchange, card: DistilledCard | None) -> str:
    return exchange.verbatim


def _core(exchange: Exchange, card: DistilledCard | None) -> str:
    return card.core_text


def _core_files(exchange: Exchange, card: DistilledCard | None) -> str:
    return f"{card.core_text}\n{' '.join(card.files_touched)}".rstrip()


def _core_rooms(exchange: Exchange, card: DistilledCard | None) -> str:
    return f"{card.core_text}\n{card.rooms_text}".rstrip()


def _core_keywords(exchange: Exchange, card: DistilledCard | None) -> str:
    return card.search_text


def _all(exchange: Exchange, card: DistilledCard | None) -> str:
    return card.full_text


def _toolcalls(exchange: Exchange, card: DistilledCard | None) -> str:
    from palace_lab.ingest.traffic.toolcalls import toolcalls_layer_text  # loads on use

    return toolcalls_layer_text(exchange, card)


LAYERS: dict[str, LayerSpec] = {
    "verbatim": LayerSpec(False, _verbatim, "the whole exchange, tool input and output included",
                          source="exchange"),
    "core": LayerSpec(True, _core, "distilled: exchange_core + specific_context (the paper's)",
                      version=2, needs_exchange=False, source="card"),
    "core+files": LayerSpec(True, _core_files, "distilled core + files_touched", version=2,
                            needs_exchange=False, source="card"),
    "core+rooms": LayerSpec(True, _core_rooms, "distilled core + room labels and keys",
                            version=2, needs_exchange=False, source="card"),
    "core+keywords": LayerSpec(True, _core_keywords,
                               "distilled core + keywords (the card's surviving vocabulary)",
                               needs_exchange=False, source="card"),
    "all": LayerSpec(True, _all, "every card field (what the budget counts as the card)",
                     version=2, needs_exchange=False, source="card"),
    "toolcalls": LayerSpec(False, _toolcalls, "the request + its tool-call compression (files "
                           "modified/read, commands, check outcomes)"),
}


def register_layer(name: str, spec: LayerSpec) -> None:
    """Add a layer (e.g. a tool-call compression); its name becomes valid in every mode."""
    if not name or any(c in name for c in ":,;()=~/ "):
        raise ValueError(f"layer name {name!r} must not contain any of : , ; ( ) = ~ / or spaces")
    LAYERS[name] = spec


def get_layer(name: str) -> LayerSpec:
    if name not in LAYERS:
        raise SearchError(f"unknown layer {name!r}; valid layers: {', '.join(LAYERS)}")
    return LAYERS[name]


def _needs_distiller(spec: LayerSpec, layer: str, distiller: str | None) -> None:
    if spec.needs_cards and not distiller:
        raise SearchError(f"layer {layer!r} needs distilled cards and this palace has none; "
                          "run `palace-lab distill --db DB` first")


def layer_sources(palace: Palace, layer: str,
                  distiller: str | None) -> tuple[list[str], list[str]] | None:
    """``(exchange_ids, hashes)`` of one layer's rows in the order of :func:`layer_texts`,
    each the stored hash its text is made from (``LayerSpec.source``), reading no text; None
    for a layer without a source."""
    spec = get_layer(layer)
    _needs_distiller(spec, layer, distiller)
    if spec.source == "exchange":
        rows = palace.exchange_hashes()
        return list(rows), list(rows.values())
    if spec.source == "card":
        cards = palace.card_hashes(distiller)
        return [c[0] for c in cards], [c[1] for c in cards]
    return None


def texts_of(palace: Palace, layer: str, distiller: str | None, ids: list[str]) -> list[str]:
    """The texts of the rows ``ids`` (all in the layer now) of a layer with a source."""
    spec = get_layer(layer)
    if spec.source == "exchange":
        exchanges = palace.exchanges_by_id(ids)
        return [spec.text_fn(exchanges[e], None) for e in ids]
    cards = palace.cards_by_id(distiller, ids)
    return [spec.text_fn(None, cards[e]) for e in ids]


def layer_texts(palace: Palace, layer: str, distiller: str | None) -> tuple[list[str], list[str]]:
    """``(exchange_ids, texts)`` of one layer, in conversation order.

    Distilled layers skip exchanges without a card of ``distiller`` and need a distiller
    version (raises :class:`SearchError` when there is none).
    """
    spec = get_layer(layer)
    _needs_distiller(spec, layer, distiller)
    if spec.needs_cards and not spec.needs_exchange:  # cards() is in conversation order too
        cards = palace.cards(distiller)
        return [c.exchange_id for c in cards], [spec.text_fn(None, c) for c in cards]
    exchanges = palace.exchanges()
    if not spec.needs_cards:
        return [e.exchange_id for e in exchanges], [spec.text_fn(e, None) for e in exchanges]
    cards = palace.card_map(distiller)
    kept = [(e, cards[e.exchange_id]) for e in exchanges if e.exchange_id in cards]
    return [e.exchange_id for e, _ in kept], [spec.text_fn(e, c) for e, c in kept]
