"""``rules``: the offline, deterministic distiller (the default).

It follows the paper's surviving-vocabulary principle without a model: every field is made of
the exchange's own words. Nothing is added but a period after a clause.

- ``exchange_core``: one or two whole sentences or clauses copied from the exchange, what the
  person asked and, when the agent reported in prose, what was done or found (:mod:`.core`;
  what "whole" means is :mod:`.clauses`'s rule). A request with no content ("continue") gives
  way to the outcome. When the agent never spoke, the outcome is the error a tool printed
  (:func:`failure`: a model provider refusing the request) or else its last action
  (:func:`last_action`: the command it ran, the question it asked). The core is never cut
  inside a clause.
- ``specific_context``: one detail copied exactly (a substring of the exchange, at most
  ``context_chars``, 40, characters: a longer one spent the keywords' tokens), see
  :mod:`.context`. It is chosen first, and the core's choice discounts the terms it says.
- ``room_assignments``: a file room (the most-mentioned file), a concept room (the most
  distinctive phrase shared with other exchanges) and a workflow room (kind of work), 1-3 rooms.
- ``files_touched``: from :mod:`palace_lab.files`, never invented.
- ``keywords``: the distinctive terms the core had no room for, noise never (:mod:`.keywords`,
  :mod:`.noise`): the core is readable, the keywords carry the search terms.

Budget rule (since ``rules:v5``): the paper's 38 tokens a card, on average over the palace,
shared out in proportion to what was written. The searchable card (core + context + keywords,
the ``core+keywords`` layer) of an exchange whose written dialogue (the person's and the
agent's words without pasted blobs, :func:`.noise.without_blobs`; cl100k_base) has d tokens
gets B(e) = min(3 · 38, max(8, round(s·d))) tokens, where the share
s = clamp(38 / mean d over the palace, 0.05, 0.55): a palace of long coding exchanges keeps
about a tenth of every dialogue, one of short chat turns at most 55% (LoCoMo's 73-token turns
get s = 0.52, their 38 tokens a card; the cap was 0.45 in v5), and no card's budget
passes 3x the mean card however much was pasted. Core and context together get
``core_share`` (0.45) of B(e), at most ``budget_tokens`` (38); the core keeps at least
``min_core`` (10) tokens beside the context, and a whole clause may stretch that by half
(:data:`.core.STRETCH`) rather than be cut; the keywords fill what is left of B(e), if anything
is. Rooms and files are outside the budget: they are labels and facts shown beside the card
(the ``all`` layer counts them). With no palace statistics the share is 0.1.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from palace_lab.distill.base import CorpusStats, Distiller, DistillOutcome, register
from palace_lab.distill.context import ERROR, context_candidates, make_context
from palace_lab.distill.keywords import choose_keywords, zones
from palace_lab.distill.noise import without_blobs
from palace_lab.distill.rooms_rules import assign_rooms
from palace_lab.distill.core import make_core
from palace_lab.distill.spans import text_cost
from palace_lab.distill.terms import idf, salient_terms, terms
from palace_lab.ingest.claude_code import person_words
from palace_lab.ingest.segment import split_messages
from palace_lab.ingest.traffic.subject import subject
from palace_lab.ingest.traffic.uses import parse_call
from palace_lab.model import DistilledCard, Exchange

VERSION = "rules:v6"  # v5: the core is whole sentences or clauses (distill.core); v6: an
# exchange where the agent never spoke says what happened; short chat turns keep up to 55%
CEILING = 3  # no card's budget over 3x the palace's mean card (mean_tokens)
REQUEST_CHARS = 2000  # the core keeps the request's opening; a pasted log beyond is not read


def _word_weight(word: str, weights: dict[str, float]) -> float:
    return sum(weights.get(t, 0.0) for t in terms(word))


def best_window(sentence: str, weights: dict[str, float], max_chars: int) -> str:
    """The contiguous run of words, at most ``max_chars`` long, carrying the most weight.

    Earlier words weigh a little more: a sentence's point usually comes first, and a window
    that starts mid-clause reads worse than one that starts with the subject. (Character-budget
    form, used by the lifecycle compressor; cards are made of whole clauses, :mod:`.core`.)
    """
    words = sentence.split()[:80]
    if len(sentence) <= max_chars:
        return sentence
    w = [(_word_weight(x, weights) + 0.05) * (1.0 + 1.0 / (1 + i)) for i, x in enumerate(words)]
    best, best_span_ = -1.0, (0, 1)
    for i in range(len(words)):
        length, total = -1, 0.0
        for j in range(i, len(words)):
            length += len(words[j]) + 1
            if length > max_chars:
                break
            total += w[j]
            if total > best:
                best, best_span_ = total, (i, j + 1)
    kept = words[best_span_[0]:best_span_[1]]
    # A window neither starts nor ends on a filler word ("the", "with"): they carry nothing.
    while len(kept) > 1 and not _word_weight(kept[-1], weights) and not terms(kept[-1]):
        kept.pop()
    while len(kept) > 1 and not terms(kept[0]):
        kept.pop(0)
    return " ".join(kept)


class RulesDistiller(Distiller):
    backend = "rules"
    DEFAULTS = {"budget_tokens": 38, "context_chars": 40, "core_chars": None, "mean_tokens": 38,
                "min_share": 0.05, "max_share": 0.55, "core_share": 0.45, "min_core": 10}
    _NAMES = {"budget_tokens": "tok", "context_chars": "ctx", "core_chars": "core",
              "mean_tokens": "mean", "min_share": "smin", "max_share": "smax", "core_share": "cs",
              "min_core": "mc"}

    def __init__(self, *, budget_tokens: int = 38, context_chars: int = 40,
                 core_chars: int | None = None, request_share: float = 1.0,
                 repeat_weight: float = 0.2, mean_tokens: int = 38, min_share: float = 0.05,
                 max_share: float = 0.55, core_share: float = 0.45, min_core: int = 10):
        self.budget_tokens = budget_tokens
        self.context_chars = context_chars
        self.core_chars = core_chars
        self.request_share = request_share
        self.repeat_weight = repeat_weight
        self.mean_tokens, self.min_share, self.max_share = mean_tokens, min_share, max_share
        self.core_share = core_share
        self.min_core = min_core  # tokens the core keeps beside the context, however small B(e)

    @property
    def version(self) -> str:
        parts = [f"{self._NAMES[k]}{getattr(self, k):g}" if isinstance(getattr(self, k), float)
                 else f"{self._NAMES[k]}{getattr(self, k)}"
                 for k in self.DEFAULTS if getattr(self, k) != self.DEFAULTS[k]]
        if (self.request_share, self.repeat_weight) != (1.0, 0.2):
            parts.append(f"req{self.request_share:g}:rep{self.repeat_weight:g}")
        return ":".join([VERSION, *parts])

    def share(self, stats: CorpusStats) -> float:
        """s, the share of its dialogue a card keeps in this palace (module docstring)."""
        if stats.dialogue_mean <= 0:
            return 0.1
        return min(self.max_share, max(self.min_share, self.mean_tokens / stats.dialogue_mean))

    def card_budget(self, exchange: Exchange, stats: CorpusStats) -> int:
        """B(e), the searchable card's token budget (the rule in the module docstring)."""
        said = text_cost(without_blobs(exchange.dialogue)[0]) if exchange.dialogue else 0
        return min(CEILING * self.mean_tokens, max(8, round(self.share(stats) * said)))

    def card(self, exchange: Exchange, stats: CorpusStats) -> DistilledCard:
        messages = split_messages(exchange.verbatim)
        said = "\n".join(t for lbl, t in messages if lbl in ("user", "assistant"))
        weights = dict(salient_terms(said + "\n" + exchange.request, stats, k=40))
        rooms = assign_rooms(exchange, said, stats)
        budget = self.card_budget(exchange, stats)
        debugging = any(r.room_key == "debugging" for r in rooms)
        core, context = self._core_and_context(exchange, messages, said, weights, budget,
                                               debugging=debugging)
        card = DistilledCard(
            exchange_id=exchange.exchange_id,
            distiller=self.version,
            exchange_core=core,
            specific_context=context,
            room_assignments=rooms,
            files_touched=exchange.files_touched,
        )
        return self.with_keywords(card, exchange, stats, messages)

    def with_keywords(self, card: DistilledCard, exchange: Exchange, stats: CorpusStats,
                      messages=None) -> DistilledCard:
        """``card`` with the keywords that fit what its core and context leave of B(e); any
        distiller's card (an LLM's too) gets them by the same rule."""
        messages = messages if messages is not None else split_messages(exchange.verbatim)
        left = self.card_budget(exchange, stats) - text_cost(card.core_text) - 1
        keywords = choose_keywords(zones(messages, exchange.request), stats, left, card.core_text,
                                   files=exchange.files_touched)
        return replace(card, keywords=keywords)

    def _core_and_context(self, exchange: Exchange, messages, said: str, weights: dict,
                          budget: int, *, debugging: bool) -> tuple[str, str]:
        """``(exchange_core, specific_context)`` within their part of B(e)."""
        share = min(self.budget_tokens, max(self.min_core, round(budget * self.core_share)))
        context = make_context(exchange, said, weights, min(self.context_chars, 3 * share),
                               debugging=debugging)
        # Whatever the context costs, the core keeps room for a readable clause.
        core_budget = max(self.min_core, share - text_cost(context) - 1)
        # The core spends its budget on what the context does not already say.
        seen = set(terms(context))
        core_weights = {t: w * self.repeat_weight if t in seen else w for t, w in weights.items()}
        # The person's words first: an IDE selection or a system reminder is not the request.
        request = person_words(exchange.request
                               or next((t for lbl, t in messages if lbl == "user"), ""))
        core = make_core(request[:REQUEST_CHARS], outcome(messages), said, core_weights,
                         core_budget, max_chars=self.core_chars,
                         request_share=self.request_share, limit=budget)
        return core, context

    def distill_batch(self, exchanges: Sequence[Exchange], *, stats: CorpusStats) -> list[DistillOutcome]:
        return [DistillOutcome(card=self.card(e, stats)) for e in exchanges]


def final_report(messages: list[tuple[str, str]]) -> str:
    """The agent's prose after its last tool call: its last message, when that is prose (the
    person's unanswered "continue" after it is passed over, see ``ingest.segment.unanswered``)."""
    end = len(messages)
    while end and messages[end - 1][0] == "user":
        end -= 1
    return messages[end - 1][1] if end and messages[end - 1][0] == "assistant" else ""


def outcome(messages: list[tuple[str, str]]) -> str:
    """What was done or found: the agent's final report; when the agent never spoke, the error
    a tool reported (:func:`failure`), else its last action (:func:`last_action`)."""
    report = final_report(messages)
    if report or any(label == "assistant" for label, _ in messages):
        return report
    return failure(messages) or last_action(messages)


def failure(messages: list[tuple[str, str]]) -> str:
    """The error a tool reported (a model provider refusing the request, a run interrupted):
    the last error line and the explanation printed after it (an interrupt only when nothing
    else failed); else nothing."""
    lines = [line.strip() for label, text in messages if label == "tool result"
             for line in text.splitlines() if line.strip()]
    errors = [i for i, line in enumerate(lines) if _ERROR_LINE.search(line)]
    named = [i for i in errors if not _INTERRUPT.search(lines[i])] or errors
    return "\n".join(lines[named[-1]:named[-1] + ERROR_LINES]) if named else ""


def last_action(messages: list[tuple[str, str]]) -> str:
    """What the agent did last: the subject of its last tool call that names one (the command
    it ran, the file it read or wrote, the question it asked), as the reader names tool rows
    (``ingest.traffic.subject``); else nothing."""
    calls = [(label.removeprefix("tool call").strip(), text) for label, text in messages
             if label.startswith("tool call")]
    return next((s for s in (subject(parse_call(name, text)) for name, text in reversed(calls))
                 if s), "")


ERROR_LINES = 4  # the error line and the explanation a tool prints after it
_INTERRUPT = re.compile(r"\bKeyboardInterrupt\b")
_ERROR_LINE = re.compile(r"\b[A-Za-z_]\w*(?:Error|Exception)\b:|" + _INTERRUPT.pattern)


register("rules")(RulesDistiller)

__all__ = ["ERROR", "RulesDistiller", "best_window", "context_candidates", "idf"]
