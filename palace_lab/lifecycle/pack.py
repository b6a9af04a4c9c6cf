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
   Every card field shown and the focus pass the redactor first (the fields of
   :func:`palace_lab.redact.stored_card`).

The ranking reads the candidates' cards, projects and times, and each card's importance, a
figure of the palace's content kept in the figures cache (:func:`importances`, made ahead by
``palace-lab index``). Only the items a pack may show are redacted, counted and given their
request, :data:`CHUNK` at a time: at 50,000 cards a pack of 39,000 tokens reads a few hundred
requests, not every exchange.
4. Rendering: items grouped by room (the room asked for, else the card's room that most
   candidates share, then the most relevant one), rooms in the order of their best item,
   items in rank order; every item names its exchange id for drill-down and, on its next line,
   what the person asked (the opening of the request, :func:`palace_lab.request.request_opening`,
   redacted, :data:`REQUEST_CHARS` characters: a pack spends its budget on cards first).
   Markdown (a CLAUDE.md-style file) or compact JSON.
"""

from __future__ import annotations

import inspect
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from palace_lab.text.words import LOOSE_TERM
from palace_lab.errors import InputError, PalaceError
from palace_lab.index.cache import cards_fingerprint
from palace_lab.lifecycle.consolidate import parse_time
from palace_lab.lifecycle.importance import IMPORTANCE_ORDER, tag
from palace_lab.lifecycle.sentences import split_sentences
from palace_lab.model import content_hash
from palace_lab.redact import redact_text, stored_card
from palace_lab.redact.known import redact_with_known
from palace_lab.request import request_opening
from palace_lab.store import figures
from palace_lab.store.memo import code_version
from palace_lab.tokens import DEFAULT_ENCODING, count_tokens

if TYPE_CHECKING:
    from palace_lab.store import Palace

FORMATS = ("markdown", "json")
IMPORTANCE = {"critical": 1.0, "high": 0.75, "medium": 0.5, "low": 0.25}
HALF_LIFE_DAYS = 30.0
REQUEST_CHARS = 120
IMPORTANCE_CODE = ("palace_lab.lifecycle.importance", "palace_lab.lifecycle.sentences",
                   "palace_lab.redact.core", "palace_lab.redact.rules", "palace_lab.redact.known")
CHUNK = 256  # items redacted and counted at a time (a 39,000-token pack shows a few hundred)
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


def relevance(palace: Palace, query: str, cards: dict, *, distiller: str,
              search_mode: str) -> dict[str, float]:
    """Relevance 0-1 of each candidate to the focus query (see the module docstring). A mode
    that does not parse is the caller's mistake and raises
    :class:`~palace_lab.errors.SearchError`; only an engine that cannot run on this palace falls
    back to term overlap."""
    from palace_lab.search import SearchEngine, parse_mode

    parse_mode(search_mode)
    try:
        engine = SearchEngine(palace, distiller=distiller)
        hits = engine.search(query, mode=search_mode, k=max(1, palace.count("exchanges")))
    except PalaceError:  # SearchError included: no index or model for this mode here
        shown = {eid: stored_card(c) for eid, c in palace.cards_by_id(distiller, list(cards)).items()}
        return _overlap(query, palace.exchanges_by_id(list(cards)), shown)
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


def importances(palace: Palace, distiller: str) -> dict[str, str]:
    """Every card's :func:`importance_of` (on the card as stored cards are shown, redacted),
    by exchange id: kept in the figures cache, keyed by the exchanges', the cards' content and
    this code, so the ranking tags no text at the pack's first build after an index."""
    def compute() -> dict[str, str]:
        exchanges = {e.exchange_id: e for e in palace.exchanges()}
        return {eid: importance_of(stored_card(c), exchanges[eid])
                for eid, c in palace.card_map(distiller).items() if eid in exchanges}

    code = content_hash(inspect.getsource(importance_of), code_version(*IMPORTANCE_CODE))[:8]
    key = f"{content_hash(palace.fingerprint(), cards_fingerprint(palace, distiller))[:16]}-{code}"
    return figures.cached(palace, "importance", key, compute)


def _room(card, room: str | None, sizes: Counter) -> tuple[str, str]:
    """The room asked for, else the card's room shared by most candidates (then relevance)."""
    if room:
        chosen = next((r for r in card.room_assignments if room in (r.room_key, r.room_label)), None)
        return (chosen.room_key, chosen.room_label) if chosen else (room, room)
    if not card.room_assignments:
        return "unfiled", "Unfiled"
    best = max(card.room_assignments, key=lambda r: (sizes[r.room_key], r.relevance, r.room_key))
    return best.room_key, best.room_label


def rank(cards: dict, facets: dict, importance: dict[str, str], scores: dict[str, float] | None,
         *, room: str | None = None) -> list[PackItem]:
    """Candidates as pack items, best first (see the module docstring for the priority), without
    their text yet; ``cards``: each candidate's rooms (a card or a
    :class:`~palace_lab.store.cards.CardRooms`) by exchange id, ``facets``: ``{exchange_id:
    (project, timestamp)}``, ``importance``: by exchange id."""
    times = {eid: parse_time(facets[eid][1]) for eid in cards if facets[eid][1]}
    sizes = Counter(r.room_key for c in cards.values() for r in c.room_assignments)
    newest = max(times.values(), default=None)
    items = []
    for eid, card in cards.items():
        t = times.get(eid)
        age = (newest - t).total_seconds() / 86400 if t and newest else None
        recency = 0.5 ** (age / HALF_LIFE_DAYS) if age is not None else 0.0
        priority = IMPORTANCE[importance[eid]] + recency + 2 * (scores or {}).get(eid, 0.0)
        key, label = _room(card, room, sizes)
        items.append(PackItem(eid, key, label, t.strftime("%Y-%m-%d") if t else "", facets[eid][0],
                              importance[eid], priority, "", ""))  # text: see :func:`_shown`
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


def _clean(text: str) -> str:
    return redact_with_known(text, {}).text  # what :func:`stored_card` does to each field


def redacted(item: PackItem, card) -> PackItem:
    """The item with its card's text, every card field as :func:`stored_card` shows it."""
    return replace(item, room_key=_clean(item.room_key), room_label=_clean(item.room_label),
                   core=_clean(card.exchange_core), context=_clean(card.specific_context),
                   files=tuple(_clean(f) for f in card.files_touched))


def _shown(palace: Palace, distiller: str, chunk: Sequence[PackItem]) -> list[PackItem]:
    """A chunk of the ranking as a pack may show it: its cards read, redacted."""
    cards = palace.cards_by_id(distiller, [i.exchange_id for i in chunk])
    return [redacted(i, cards[i.exchange_id]) for i in chunk]


def _part(item: PackItem, fmt: str) -> str:
    return markdown_item(item) if fmt == "markdown" else json.dumps(item.to_dict())


def _prefix(ranking: Sequence[PackItem], meta: dict, fmt: str, budget: int, encoding: str,
            finish=lambda chunk: chunk) -> list[PackItem]:
    """The longest ranking prefix whose parts (each item through ``finish``) fit the budget,
    read :data:`CHUNK` items at a time. The sum of parts overestimates little; the exact count
    of the whole text decides in :func:`_fit`."""
    used = count_tokens([RENDERERS[fmt]([], meta)], encoding)[0]
    kept: list[PackItem] = []
    rooms: set[str] = set()
    for start in range(0, len(ranking), CHUNK):
        chunk = finish(ranking[start:start + CHUNK])
        for item, cost in zip(chunk, count_tokens([_part(i, fmt) for i in chunk], encoding)):
            extra = cost + (0 if item.room_key in rooms else 12 + len(item.room_label) // 3)
            if used + extra > budget:
                return kept
            used = used + extra
            kept.append(item)
            rooms.add(item.room_key)
    return kept


def _fit(shown: Sequence[PackItem], meta: dict, fmt: str, budget: int, encoding: str
         ) -> tuple[str, int, int]:
    """(text, tokens, number of items) of the longest prefix of ``shown`` within the budget."""
    render, n = RENDERERS[fmt], len(shown)
    while True:
        text = render(shown[:n], meta)
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
    facets = palace.exchange_facets()
    cards = {c.exchange_id: c for c in palace.card_rooms(distiller) if c.exchange_id in facets
             and (not project or facets[c.exchange_id][0] == project)
             and (not room or any(room in (r.room_key, r.room_label) for r in c.room_assignments))}
    scores = None
    if focus_query:
        scores = relevance(palace, focus_query, cards, distiller=distiller, search_mode=search_mode)
        cards = {eid: c for eid, c in cards.items() if scores.get(eid)}
    ranking = rank(cards, facets, importances(palace, distiller), scores, room=room)
    focus = {k: redact_text(v) for k, v in (("query", focus_query), ("project", project),
                                             ("room", room)) if v}
    meta = {"distiller": distiller, "budget": budget, "encoding": encoding, "focus": focus}
    shown = _prefix(ranking, meta, fmt, budget, encoding,
                    lambda chunk: _shown(palace, distiller, chunk))  # a pack carries no secret
    asked = palace.exchanges_by_id([i.exchange_id for i in shown])  # a request only adds tokens
    shown = [replace(i, request=request_opening(asked[i.exchange_id], REQUEST_CHARS)) for i in shown]
    text, tokens, n = _fit(_prefix(shown, meta, fmt, budget, encoding), meta, fmt, budget, encoding)
    return Pack(text, fmt, budget, tokens, tuple(shown[:n]),
                tuple(i.exchange_id for i in ranking), distiller, encoding, focus)
