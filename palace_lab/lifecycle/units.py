"""A session's words as tagged units: the material both session compressions work from.

A *session* is one conversation. Its source text is the dialogue of its exchanges (the
person's and the agent's words, no tool traffic: that is what tool-call compression is for).
Each sentence becomes a :class:`Unit` carrying its exchange, speaker, token count, importance
tag and, when it is filler, the reason it may be dropped. Fenced code blocks become units
marked ``code``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from palace_lab.ingest.segment import split_messages
from palace_lab.text.words import WORD_TERM
from palace_lab.lifecycle.facts import Fact, find_facts
from palace_lab.lifecycle.importance import WEIGHTS, Tag, tag
from palace_lab.lifecycle.sentences import filler_reason, pieces
from palace_lab.model import Exchange
from palace_lab.tokens import DEFAULT_ENCODING, count_tokens

SPEAKERS = {"user": "user", "assistant": "agent"}
_TERM = WORD_TERM
_COMMON = frozenset("the and for with that this from have will are was you can not but all "
                    "its into now then also just what when which there here they them about "
                    "would should could been were more some very like over".split())


@dataclass(frozen=True)
class Unit:
    """One sentence (or code block) of a session, with what the compressions need to know."""

    position: int
    exchange: int
    speaker: str  # user | agent
    text: str
    tokens: int
    tag: Tag
    filler: str | None = None
    code: bool = False

    @cached_property
    def facts(self) -> list[Fact]:
        return [] if self.code else find_facts(self.text, importance=self.tag.importance)


def session_messages(exchanges: Sequence[Exchange]) -> list[tuple[int, str, str]]:
    """``(exchange index, speaker, text)`` of every user and agent message, in order."""
    out = []
    for i, e in enumerate(exchanges):
        for label, text in split_messages(e.dialogue):
            if label in SPEAKERS and text.strip():
                out.append((i, SPEAKERS[label], text))
    return out


def units_of(messages: Sequence[tuple[int, str, str]], *, encoding: str = DEFAULT_ENCODING,
             count: bool = True) -> list[Unit]:
    """Tagged units of a session's messages (token counts 0 when ``count`` is False)."""
    raw = []
    for exchange, speaker, text in messages:
        for piece in pieces(text):
            raw.append((exchange, speaker, piece))
    counts = count_tokens([p.text for _, _, p in raw], encoding) if raw and count else [0] * len(raw)
    units = []
    for i, ((exchange, speaker, piece), n) in enumerate(zip(raw, counts)):
        t = Tag("low", "context", 8) if piece.code else tag(piece.text, speaker)
        filler = None if piece.code else filler_reason(piece.text)
        units.append(Unit(i, exchange, speaker, piece.text, n, t, filler, piece.code))
    return units


def terms(text: str) -> list[str]:
    return [t.lower() for t in _TERM.findall(text) if len(t) > 2 and t.lower() not in _COMMON]


def term_weights(units: Sequence[Unit]) -> dict[str, float]:
    """``1 + log(count)`` of each term over the session's prose: recurring words are central."""
    counts = Counter(t for u in units if not u.code for t in terms(u.text))
    return {t: 1.0 + math.log(c) for t, c in counts.items()}


def score(unit: Unit, weights: dict[str, float]) -> float:
    """Importance weight + 0.5 per fact + centrality (mean term weight, capped at 2)."""
    ts = terms(unit.text)
    centrality = min(2.0, sum(weights.get(t, 0.0) for t in ts) / len(ts)) if ts else 0.0
    return WEIGHTS[unit.tag.importance] + 0.5 * len(unit.facts) + centrality


def cut(text: str, max_chars: int) -> str:
    """``text`` cut at a word boundary to at most ``max_chars`` characters (… when cut)."""
    if len(text) <= max_chars:
        return text
    head = text[: max_chars - 1]
    if " " in head[max_chars // 2:]:
        head = head[: head.rfind(" ")]
    return head.rstrip(" ,;:") + "…"
