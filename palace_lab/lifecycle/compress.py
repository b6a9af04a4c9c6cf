"""Session-level compression, two ways, measured against the source chapter's figures.

*Extractive*: keep the key sentences in their original words. Filler goes first (greetings,
acknowledgements, "let me…" narration; see :mod:`palace_lab.lifecycle.sentences`) and fenced
code blocks with it; every critical or high sentence stays, and so do the first two sentences
of each request; the rest are taken by score (:func:`palace_lab.lifecycle.units.score`) while
the kept text stays within ``tokens_before / target_ratio``. What was dropped is listed, each
with its reason. Kept sentences are rendered in their original order, one line per speaker
turn (``user: …`` / ``agent: …``).

*Abstractive*: the structure ``[goal] [decisions] [facts] [open questions] [next actions]``,
one line each, made of the session's own words: the goal is the first request's point; the
decisions are the most important decision and preference sentences, cut to a window; the facts are the fact
spans of the critical and high sentences and the most mentioned paths; open questions are
the questions of the last two exchanges; next actions are the forward-looking sentences of
the last exchange.

Both run offline by default (``backend="rules"``); ``backend="anthropic"`` asks Claude and
``backend="openai-compat"`` a local model, both through :mod:`palace_lab.lifecycle.remote` (a
client is required: :class:`~palace_lab.llm.LLMClient` or
:class:`~palace_lab.llm.openai.OpenAICompatClient`; the cost cap and estimate are the caller's
to show first). Ratios are ``tokens_before /
tokens_after`` with the real tokenizer, where ``tokens_before`` is the session's dialogue.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from palace_lab.distill.rules import best_window
from palace_lab.errors import InputError
from palace_lab.lifecycle.importance import WEIGHTS, at_least
from palace_lab.lifecycle.units import Unit, cut, score, session_messages, term_weights, units_of
from palace_lab.lifecycle.validate import Validation, extract_facts, validate
from palace_lab.tokens import DEFAULT_ENCODING, count_tokens

if TYPE_CHECKING:
    from palace_lab.store import Palace

METHODS = ("extractive", "abstractive")
LLM_BACKENDS = ("anthropic", "openai-compat")  # each needs its client: LLMClient, OpenAICompatClient
TARGET_RATIOS = {"extractive": 3.0, "abstractive": 6.0}  # the source chapter's ratios
SECTIONS = ("goal", "decisions", "facts", "open questions", "next actions")
SOURCE_FIGURES = {
    "extractive": {"before": 8500, "after": 2800, "ratio": 3.0, "preservation": "~95%"},
    "abstractive": {"before": 8500, "after": 1400, "ratio": 6.0, "preservation": "~85-90%"},
}
_OPEN = re.compile(r"\?\s*$|\b(?:not sure|unclear|open question|todo|still need|"
                   r"haven't|not yet|unknown|undecided)\b", re.I)
_NEXT = re.compile(r"\b(?:next|then|todo|follow[- ]up|should|could|will|i'd suggest|remaining|"
                   r"later|tomorrow|afterwards|want to|plan to|going to)\b", re.I)


@dataclass(frozen=True)
class Dropped:
    reason: str
    text: str


@dataclass(frozen=True)
class SessionCompression:
    """One session compressed one way; ``validation`` holds its fact-by-fact check."""

    conversation_id: str
    method: str
    backend: str
    text: str
    tokens_before: int
    tokens_after: int
    dropped: tuple[Dropped, ...] = ()
    validation: Validation | None = None
    cost_usd: float = 0.0

    @property
    def ratio(self) -> float | None:
        return self.tokens_before / self.tokens_after if self.tokens_after else None

    @property
    def preservation(self) -> float | None:
        return self.validation.score if self.validation else None

    def to_dict(self) -> dict:
        return {"conversation_id": self.conversation_id, "method": self.method,
                "backend": self.backend, "text": self.text, "tokens_before": self.tokens_before,
                "tokens_after": self.tokens_after, "ratio": self.ratio,
                "preservation": self.preservation, "cost_usd": self.cost_usd,
                "dropped": [vars(d) for d in self.dropped],
                "validation": self.validation.to_dict() if self.validation else None}


# -- extractive ---------------------------------------------------------------------------


def _must_keep(units: Sequence[Unit], *, request_sentences: int = 2) -> set[int]:
    """Critical and high units, and the first sentences of each request (the person's point)."""
    keep = {u.position for u in units if not u.code and not u.filler and at_least(u.tag.importance, "high")}
    opened: Counter = Counter()
    for u in units:
        if u.speaker == "user" and not u.code and not u.filler \
                and opened[u.exchange] < request_sentences:
            opened[u.exchange] += 1
            keep.add(u.position)
    return keep


def render_units(units: Sequence[Unit]) -> str:
    """Kept units in order, one line per speaker turn: ``user: …`` / ``agent: …``."""
    lines: list[str] = []
    turn = None
    for u in units:
        if (u.exchange, u.speaker) != turn:
            lines.append(f"{u.speaker}: {u.text}")
            turn = (u.exchange, u.speaker)
        else:
            lines[-1] += " " + u.text
    return "\n".join(lines)


def _dropped(u: Unit) -> Dropped:
    if u.code:
        lines = u.text.splitlines()
        return Dropped("code block", f"{cut(lines[0], 60)} ({len(lines)} lines)")
    return Dropped(u.filler or "not selected (budget)", u.text)


def _gain(u: Unit, covered: set, weights: dict[str, float]) -> float:
    """What keeping ``u`` adds: its new facts (by importance weight) plus half its score."""
    new = sum(WEIGHTS[f.importance] for f in u.facts if (f.kind, f.text) not in covered)
    return new + 0.5 * score(u, weights)


def extract(units: Sequence[Unit], tokens_before: int, *,
            target_ratio: float = 3.0) -> tuple[list[Unit], list[Dropped]]:
    """The units an extractive compression keeps, and what it drops with the reasons.

    After the must-keep units, the unit with the highest gain per token that still fits is
    taken, again and again (the greedy rule for a budgeted cover of the session's facts). The
    budget counts each kept unit's tokens plus one for the space or line that joins it.
    """
    if target_ratio <= 0:
        raise InputError(f"target_ratio must be positive, got {target_ratio}")
    budget = tokens_before / target_ratio
    kept = _must_keep(units)
    used = sum(u.tokens + 1 for u in units if u.position in kept)
    covered = {(f.kind, f.text) for u in units if u.position in kept for f in u.facts}
    weights = term_weights(units)
    rest = [u for u in units if u.position not in kept and not u.code and not u.filler]
    while rest:
        fitting = [u for u in rest if used + u.tokens + 1 <= budget]
        if not fitting:
            break
        best = max(fitting, key=lambda u: (_gain(u, covered, weights) / (u.tokens + 1), -u.position))
        kept.add(best.position)
        used += best.tokens + 1
        covered.update((f.kind, f.text) for f in best.facts)
        rest.remove(best)
    return ([u for u in units if u.position in kept],
            [_dropped(u) for u in units if u.position not in kept])


# -- abstractive --------------------------------------------------------------------------


def _window(u: Unit, weights: dict[str, float], chars: int) -> str:
    return best_window(u.text, weights, chars) if len(u.text) > chars else u.text


def _fact_span(f) -> str:
    if f.kind == "quantity" and f.key:
        return f"{f.key} {f.text}"
    return cut(f.text, 80) if f.kind == "error" else f.text


def _facts_line(prose: Sequence[Unit], budget_chars: int) -> str:
    """Fact spans, the most important and most repeated first, within ``budget_chars``."""
    seen: dict[str, tuple[int, int, int]] = {}
    for u in prose:
        for f in u.facts:
            span = _fact_span(f)
            w, n, first = seen.get(span, (0, 0, u.position))
            seen[span] = (max(w, WEIGHTS[f.importance]), n + 1, first)
    spans, used = [], 0
    for span in sorted(seen, key=lambda s: (-seen[s][0], -seen[s][1], seen[s][2])):
        if used + len(span) + 2 > budget_chars:
            continue
        spans.append(span)
        used += len(span) + 2
    return "; ".join(sorted(spans, key=lambda s: seen[s][2]))


def _sentences_line(chosen: Sequence[Unit], weights, chars: int, budget_chars: int) -> str:
    """Windows of the chosen units (already in priority order) within ``budget_chars``, shown
    in their original order."""
    picked, used = [], 0
    for u in chosen:
        text = _window(u, weights, chars)
        if used + len(text) + 2 <= budget_chars:
            picked.append((u.position, text))
            used += len(text) + 2
    return "; ".join(text for _, text in sorted(picked))


def sections(units: Sequence[Unit], tokens_before: int, *, target_ratio: float = 6.0
             ) -> dict[str, str]:
    """The five abstractive sections of a session (see the module docstring).

    The line lengths share a budget of ``tokens_before / target_ratio`` tokens, counted as
    four characters a token: goal up to 160 characters, then 35% for decisions (with the
    person's preferences), 45% for facts, 10% each for open questions and next actions; each
    line gets at least one window (160 or 120 characters) so a short session is not empty.
    """
    prose = [u for u in units if not u.code and not u.filler]
    weights = term_weights(units)
    chars = int(4 * tokens_before / target_ratio) - 160
    goal = next((u for u in prose if u.speaker == "user"), prose[0] if prose else None)
    decisions = sorted((u for u in prose if u.tag.kind in ("decision", "preference")),
                       key=lambda u: (-u.tag.weight, u.position))
    last = max((u.exchange for u in prose), default=0)
    open_q = [u for u in prose if u.exchange >= last - 1 and _OPEN.search(u.text)]
    final = [u for u in prose if u.exchange == last and u not in open_q and _NEXT.search(u.text)]
    return {
        "goal": _window(goal, weights, 160) if goal else "",
        "decisions": _sentences_line(decisions, weights, 160, max(160, chars * 35 // 100)),
        "facts": _facts_line(prose, max(160, chars * 45 // 100)),
        "open questions": _sentences_line(open_q[::-1], weights, 120, max(120, chars // 10)),
        "next actions": _sentences_line(final[::-1], weights, 120, max(120, chars // 10)),
    }


def render_sections(parts: dict[str, str]) -> str:
    return "\n".join(f"[{name}] {parts.get(name) or 'none'}" for name in SECTIONS)


# -- sessions -----------------------------------------------------------------------------


def session_facts(messages) -> list:
    facts: dict = {}
    for _, speaker, text in messages:
        for f in extract_facts(text, speaker=speaker):
            facts.setdefault((f.kind, f.text), f)
    return list(facts.values())


def compress_exchanges(exchanges, method: str = "extractive", *, backend: str = "rules",
                       client=None, cache=None, target_ratio: float | None = None,
                       encoding: str = DEFAULT_ENCODING) -> SessionCompression:
    """Compress the exchanges of one session (see the module docstring)."""
    if method not in METHODS:
        raise InputError(f"unknown method {method!r}; valid methods: {', '.join(METHODS)}")
    messages = session_messages(exchanges)
    before = sum(count_tokens([e.dialogue for e in exchanges], encoding)) if exchanges else 0
    units = units_of(messages, encoding=encoding)
    cid = exchanges[0].conversation_id if exchanges else ""
    cost, dropped = 0.0, []
    target_ratio = target_ratio or TARGET_RATIOS[method]
    if backend == "rules":
        if method == "extractive":
            kept, dropped = extract(units, before, target_ratio=target_ratio)
            text = render_units(kept)
        else:
            text = render_sections(sections(units, before, target_ratio=target_ratio))
    elif backend in LLM_BACKENDS:
        from palace_lab.lifecycle.remote import compress_with_llm

        text, dropped, cost = compress_with_llm(client, units, method, cache=cache)
        backend = f"{backend}:{client.model}"
    else:
        raise InputError(f"unknown backend {backend!r}; valid backends: rules, "
                         + ", ".join(LLM_BACKENDS))
    after = count_tokens([text], encoding)[0] if text else 0
    result = SessionCompression(cid, method, backend, text, before, after, tuple(dropped),
                                cost_usd=cost)
    source = "\n".join(t for _, _, t in messages)
    return replace(result, validation=validate(session_facts(messages), text, original_text=source))


def compress_session(palace: Palace, conversation_id: str, method: str = "extractive", **options
                     ) -> SessionCompression:
    """Compress one conversation of the palace; options as :func:`compress_exchanges`."""
    exchanges = palace.exchanges(conversation_id=conversation_id)
    if not exchanges:
        from palace_lab.errors import PalaceError

        raise PalaceError(f"no exchanges in conversation {conversation_id!r}")
    if options.get("backend") in LLM_BACKENDS and options.get("cache") is None:
        from palace_lab.lifecycle.remote import PalaceCache

        options["cache"] = PalaceCache(palace)
    return compress_exchanges(exchanges, method, **options)
