"""Memory packs: the distilled memory an agent should load, under a hard token budget.

A pack is built from the distilled cards of one distiller version:

1. Candidates: every card, narrowed by ``project`` (the exchange's project) and ``room`` (a
   room key or label of the card). With a ``focus_query`` only the cards that match it stay:
   relevance comes from :class:`palace_lab.search.SearchEngine` (``search_mode``, BM25 on the
   verbatim layer by default, which needs no embedding model), scores divided by the best
   one; if the engine cannot run, from term overlap (the share of the query's terms found in
   the card and request).
2. Ranking: ``priority = importance + recency + 2 × relevance``, where importance is 1.0,
   0.75, 0.5 or 0.25 for a critical, high, medium or low card (the more important of the
   tags of the card's core and of the request's opening, see
   :mod:`palace_lab.lifecycle.importance`) and recency is ``0.5 ** (age_days / 30)``,
   age counted back from the newest candidate. Ties: newer first, then exchange id.
3. Selection: the longest *prefix* of the ranking whose rendering fits the budget, counted
   with the real tokenizer on the whole rendered text, headers included. A pack never
   exceeds its budget; a budget below the bare header is refused.
   Every card field and the focus pass the redactor first (:func:`palace_lab.redact.stored_card`).
4. Rendering: items grouped by room (the room asked for, else the card's room that most
   candidates share, then the most relevant one), rooms in the order of their best item,
   items in rank order; every item names its exchange id for drill-down and, on its next line,
   what the person asked (the opening of the request, :func:`palace_lab.request.request_opening`,
   redacted, :data:`REQUEST_CHARS` characters: a pack spends its budget on cards first).
   Markdown (a CLAUDE.md-style file) or compact JSON.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from palace_lab.text.words import LOOSE_TERM
from palace_lab.errors import InputError, PalaceError
from palace_lab.lifecycle.consolidate import parse_time
from palace_lab.lifecycle.importance import IMPORTANCE_ORDER, tag
from palace_lab.lifecycle.sentences import split_sentences
from palace_lab.redact import redact_text, stored_card
from palace_lab.request import request_opening
from palace_lab.tokens import DEFAULT_ENCODING, count_tokens

if TYPE_CHECKING:
    from palace_lab.store import Palace

FORMATS = ("markdown", "json")
IMPORTANCE = {"critical": 1.0, "high": 0.75, "medium": 0.5, "low": 0.25}
HALF_LIFE_DAYS = 30.0
REQUEST_CHARS = 120
_TERM = LOOSE_TERM


@dataclass(frozen=True)
class PackItem:
    """One card in a pack, with why it ranks where it does."""

    exchange_id: str
    room_key: str
    room_label: str
    date: str
    project: str | None
    importance: str
    priority: float
    core: str
    context: str
    files: tuple[str, ...] = ()
    request: str = ""  # the opening of the person's request, redacted

    def to_dict(self) -> dict:
        return {**vars(self), "files": list(self.files), "priority": round(self.priority, 4)}


@dataclass(frozen=True)
class Pack:
    """A rendered pack; ``ranking`` is every candidate's exchange id in rank order."""

    text: str
    fmt: str
    budget: int
    tokens: int
    items: tuple[PackItem, ...]
    ranking: tuple[str, ...]
    distiller: str
    encoding: str
    focus: dict = field(default_factory=dict)

    def summary(self) -> dict:
        """What the CLI prints with ``--json``: everything but the text."""
        rooms = list(dict.fromkeys(i.room_key for i in self.items))
        return {"format": self.fmt, "budget": self.budget, "tokens": self.tokens,
                "encoding": self.encoding, "distiller": self.distiller, "focus": self.focus,
                "items": len(self.items), "candidates": len(self.ranking), "rooms": rooms,
                "exchange_ids": [i.exchange_id for i in self.items]}

    def to_dict(self) -> dict:
        return {**self.summary(), "text": self.text, "items": [i.to_dict() for i in self.items]}


# -- ranking ----------------------------------------------------------------------------------


def _terms(text: str) -> set[str]:
    return {t.lower() for t in _TERM.findall(text) if len(t) > 1}


def relevance(palace: Palace, query: str, exchanges: dict, cards: dict, *, distiller: str,
              search_mode: str) -> dict[str, float]:
    """Relevance 0-1 of each candidate to the focus query (see the module docstring). A mode
    that does not parse is the caller's mistake and raises
    :class:`~palace_lab.errors.SearchError`; only an engine that cannot run on this palace falls
    back to term overlap."""
    from palace_lab.search import SearchEngine, parse_mode

    parse_mode(search_mode)
    try:
        engine = SearchEngine(palace, distiller=distiller)
        hits = engine.search(query, mode=search_mode, k=max(1, len(palace.exchanges())))
    except PalaceError:  # SearchError included: no index or model for this mode here
        return _overlap(query, exchanges, cards)
    scores = {h.exchange_id: h.score for h in hits if h.exchange_id in cards and h.score > 0}
    top = max(scores.values(), default=0.0)
    return {eid: s / top for eid, s in scores.items()} if top else {}


def _overlap(query: str, exchanges: dict, cards: dict) -> dict[str, float]:
    """The share of the query's terms found in each card and its request (no engine needed)."""
    wanted = _terms(query)
    out = {}
    for eid, card in cards.items():
        have = _terms(f"{card.core_text} {exchanges[eid].request}")
        share = len(wanted & have) / len(wanted) if wanted else 0.0
        if share:
            out[eid] = share
    return out


def importance_of(card, exchange) -> str:
    """The more important tag of the card's core and of the request's first two sentences."""
    found = [tag(card.core_text, "agent").importance]
    opening = " ".join(split_sentences(exchange.request)[:2])
    if opening:
        found.append(tag(opening, "user").importance)
    return min(found, key=IMPORTANCE_ORDER.index)


def _room(card, room: str | None, sizes: Counter) -> tuple[str, str]:
    """The room asked for, else the card's room shared by most candidates (then relevance)."""
    if room:
        chosen = next((r for r in card.room_assignments if room in (r.room_key, r.room_label)), None)
        return (chosen.room_key, chosen.room_label) if chosen else (room, room)
    if not card.room_assignments:
        return "unfiled", "Unfiled"
    best = max(card.room_assignments, key=lambda r: (sizes[r.room_key], r.relevance, r.room_key))
    return best.room_key, best.room_label


def rank(cards: dict, exchanges: dict, scores: dict[str, float] | None, *,
         room: str | None = None) -> list[PackItem]:
    """Candidates as pack items, best first (see the module docstring for the priority)."""
    times = {eid: parse_time(exchanges[eid].timestamp) for eid in cards if exchanges[eid].timestamp}
    sizes = Counter(r.room_key for c in cards.values() for r in c.room_assignments)
    newest = max(times.values(), default=None)
    items = []
    for eid, card in cards.items():
        e = exchanges[eid]
        t = times.get(eid)
        age = (newest - t).total_seconds() / 86400 if t and newest else None
        recency = 0.5 ** (age / HALF_LIFE_DAYS) if age is not None else 0.0
        importance = importance_of(card, e)
        priority = IMPORTANCE[importance] + recency + 2 * (scores or {}).get(eid, 0.0)
        key, label = _room(card, room, sizes)
        items.append(PackItem(eid, key, label, t.strftime("%Y-%m-%d") if t else "", e.project,
                              importance, priority, card.exchange_core, card.specific_context,
                              tuple(card.files_touched)))
    stamp = {eid: t.timestamp() for eid, t in times.items()}
    return sorted(items, key=lambda i: (-i.priority, -stamp.get(i.exchange_id, 0.0), i.exchange_id))


# -- rendering --------------------------------------------------------------------------------


def _grouped(items: Sequence[PackItem]) -> list[tuple[str, str, list[PackItem]]]:
    groups: dict[str, tuple[str, str, list[PackItem]]] = {}
    for item in items:
        groups.setdefault(item.room_key, (item.room_key, item.room_label, []))[2].append(item)
    return list(groups.values())


def _one_line(text: str) -> str:
    return " ".join(text.replace("`", "'").split())


def markdown_header(meta: dict) -> str:
    focus = ", ".join(f"{k} {v!r}" for k, v in meta["focus"].items()) or "none"
    return (f"# Memory pack\n\nDistilled memory of past work with coding agents "
            f"(distiller {meta['distiller']}, budget {meta['budget']:,} tokens, "
            f"{meta['encoding']}). Grouped by room; most important and most recent first. "
            f"Each item names its exchange (`x…`): drill down with `palace-lab exchanges` or "
            f"the app.\nFocus: {focus}.\n")


def markdown_item(i: PackItem) -> str:
    line = f"- [{i.importance}] {i.date} {i.project or ''} `{i.exchange_id}` — {_one_line(i.core)}"
    if i.context:
        line += f" — `{_one_line(i.context)}`"
    if i.files:
        line += f" (files: {', '.join(i.files[:5])})"
    asked = f"\n  asked: {_one_line(i.request)}" if i.request else ""
    return " ".join(line.split()) + asked + "\n"


def render_markdown(items: Sequence[PackItem], meta: dict) -> str:
    parts = [markdown_header(meta)]
    for key, label, members in _grouped(items):
        parts.append(f"\n## {_one_line(label)} (`{key}`)\n")
        parts.extend(markdown_item(i) for i in members)
    return "".join(parts)


def render_json(items: Sequence[PackItem], meta: dict) -> str:
    rooms = [{"room_key": key, "room_label": label,
              "items": [{k: v for k, v in i.to_dict().items() if k not in ("room_key", "room_label")}
                        for i in members]}
             for key, label, members in _grouped(items)]
    return json.dumps({"memory_pack": meta, "rooms": rooms}, ensure_ascii=False,
                      separators=(",", ":"))


RENDERERS = {"markdown": render_markdown, "json": render_json}


def _fit(ranking: Sequence[PackItem], meta: dict, fmt: str, budget: int, encoding: str
         ) -> tuple[str, int, int]:
    """(text, tokens, number of items) of the longest ranking prefix within the budget."""
    render = RENDERERS[fmt]
    # Sum of parts overestimates little; the exact count of the whole text decides below.
    parts = count_tokens([markdown_item(i) if fmt == "markdown" else json.dumps(i.to_dict())
                          for i in ranking] + [render([], meta)], encoding)
    used, n, rooms = parts[-1], 0, set()
    for item, cost in zip(ranking, parts):
        extra = cost + (0 if item.room_key in rooms else 12 + len(item.room_label) // 3)
        if used + extra > budget:
            break
        used, n = used + extra, n + 1
        rooms.add(item.room_key)
    while True:
        text = render(ranking[:n], meta)
        tokens = count_tokens([text], encoding)[0]
        if tokens <= budget:
            return text, tokens, n
        if n == 0:
            raise InputError(f"a budget of {budget} tokens is smaller than the pack header "
                             f"({tokens} tokens)")
        n -= 1


def build_pack(palace: Palace, budget: int, *, focus_query: str | None = None, project: str | None = None,
               room: str | None = None, distiller: str | None = None, fmt: str = "markdown",
               search_mode: str = "bm25:verbatim", encoding: str = DEFAULT_ENCODING) -> Pack:
    """A memory pack of at most ``budget`` tokens (see the module docstring)."""
    if fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r}; valid formats: {', '.join(FORMATS)}")
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise InputError(f"budget must be a positive number of tokens, got {budget!r}")
    distiller = distiller or palace.latest_distiller()
    if not distiller:
        raise PalaceError("this palace has no distilled cards; run `palace-lab distill --db DB` first")
    exchanges = {e.exchange_id: e for e in palace.exchanges()}
    cards = {eid: c for eid, c in palace.card_map(distiller).items() if eid in exchanges
             and (not project or exchanges[eid].project == project)
             and (not room or any(room in (r.room_key, r.room_label) for r in c.room_assignments))}
    cards = {eid: stored_card(c) for eid, c in cards.items()}  # a pack carries no secret
    scores = None
    if focus_query:
        scores = relevance(palace, focus_query, exchanges, cards, distiller=distiller,
                           search_mode=search_mode)
        cards = {eid: c for eid, c in cards.items() if scores.get(eid)}
    ranking = rank(cards, exchanges, scores, room=room)
    focus = {k: redact_text(v) for k, v in (("query", focus_query), ("project", project),
                                             ("room", room)) if v}
    meta = {"distiller": distiller, "budget": budget, "encoding": encoding, "focus": focus}
    _, _, most = _fit(ranking, meta, fmt, budget, encoding)  # a request only adds tokens
    ranking = [replace(i, request=request_opening(exchanges[i.exchange_id], REQUEST_CHARS))
               for i in ranking[:most]] + ranking[most:]
    text, tokens, n = _fit(ranking, meta, fmt, budget, encoding)
    return Pack(text, fmt, budget, tokens, tuple(ranking[:n]),
                tuple(i.exchange_id for i in ranking), distiller, encoding, focus)

