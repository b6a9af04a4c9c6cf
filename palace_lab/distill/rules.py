"""``rules``: the offline, deterministic distiller (the default).

It follows the paper's surviving-vocabulary principle without a model: every field is made of
words the exchange itself contains, in their order; nothing is added but one dash and a period.

- ``exchange_core``: what the person asked, then what came of it. The request's opening words
  (filler such as "can you", "please", "ok so" dropped) get at least ``request_share`` of the
  budget: people recall an exchange by what they asked, and the opening states the topic (an
  opening that fits but holds no term, "I" or "there's", gives way to the request's weightiest
  run). The outcome is the window of the agent's final report that carries the most
  distinctive terms (tf·idf against the whole palace, see :mod:`.spans`), preferring sentences
  with decision words ("fixed", "switched", "because").
- ``specific_context``: one detail copied exactly (a substring of the exchange), see
  :mod:`.context`. It is chosen first, and the core does not spell it again (an error the person
  pasted into the request is cut out of the core's copy of the request): the layer searches
  core and context together, so a repeat would only spend budget.
- ``room_assignments``: a file room (the most-mentioned file), a concept room (the most
  distinctive phrase shared with other exchanges) and a workflow room (kind of work), 1-3 rooms.
- ``files_touched``: from :mod:`palace_lab.files`, never invented.
- ``keywords``: the distinctive terms the core had no room for (:mod:`.keywords`).

Budget rule (since ``rules:v3``): the paper's 38 tokens a card, on average over the palace,
shared out in proportion to what was said. The searchable card (core + context + keywords, the
``core+keywords`` layer) of an exchange whose dialogue (the person's and the agent's words,
cl100k_base) has d tokens gets B(e) = max(8, round(s·d)) tokens, counted exactly, where the
share s = clamp(38 / mean d over the palace, 0.05, 0.45): a palace of long coding exchanges
(mean d ≈ 400) keeps about a tenth of every dialogue, one of short chat turns (mean d ≈ 70) at
most 45%. Core and context together take at most ``core_share`` (0.4) of B(e), but at least
the context plus ``min_core`` (10) tokens (a readable clause) and never more than
``budget_tokens`` (38); the keywords fill what is left, if anything is. Rooms and files are
outside the budget: they are labels and facts shown beside the card (the ``all`` layer counts
them). With no palace statistics the share is 0.1.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from palace_lab.distill.base import CorpusStats, Distiller, DistillOutcome, register
from palace_lab.distill.context import ERROR, context_candidates, make_context
from palace_lab.distill.keywords import choose_keywords, zones
from palace_lab.distill.rooms_rules import assign_rooms
from palace_lab.distill.spans import best_span, drop_filler, request_span, text_cost, words_cost
from palace_lab.distill.terms import idf, salient_terms, terms
from palace_lab.model import DistilledCard, Exchange

VERSION = "rules:v4"  # v4: a request opening without a term gives way (spans.request_span)
REQUEST_CHARS = 2000  # the core keeps the request's opening; a pasted log beyond is not read
_MESSAGE_SPLIT = re.compile(r"\n\n(?=\[(?:user|assistant|tool call[^\]\n]*|tool result|system)\] )")
_CODE_BLOCK = re.compile(r"```.*?(```|$)", re.S)
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"'(\[])|\n+")
_MARKUP = re.compile(r"^[\s#>*\-\d.)]+|`|\*\*|(?<!\w)\*|\*(?!\w)")
OUTCOME_WORDS = frozenset(
    "fixed fix added implemented changed switched removed replaced decided root cause now "
    "resolved updated moved renamed created wrote passes passing works failing bumped raised "
    "lowered set because instead".split())


def split_messages(verbatim: str) -> list[tuple[str, str]]:
    """(label, text) of each rendered message of an exchange's verbatim text."""
    out = []
    for chunk in _MESSAGE_SPLIT.split(verbatim):
        if chunk.startswith("[") and "] " in chunk:
            label, text = chunk[1:].split("] ", 1)
            out.append((label, text))
        elif chunk.strip():
            out.append(("", chunk))
    return out


def sentences(text: str) -> list[str]:
    text = _CODE_BLOCK.sub(" ", text)
    out = []
    for s in _SENTENCE_SPLIT.split(text):
        s = " ".join(_MARKUP.sub("", s).split())
        if len(s) >= 8 and sum(c.isalpha() for c in s) > len(s) / 3:
            out.append(s)
    return out


def _word_weight(word: str, weights: dict[str, float]) -> float:
    return sum(weights.get(t, 0.0) for t in terms(word))


def best_window(sentence: str, weights: dict[str, float], max_chars: int) -> str:
    """The contiguous run of words, at most ``max_chars`` long, carrying the most weight.

    Earlier words weigh a little more: a sentence's point usually comes first, and a window
    that starts mid-clause reads worse than one that starts with the subject. (Character-budget
    form, used by the lifecycle compressor; cards use the token-budget :func:`.spans.best_span`.)
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


def _score(sentence: str, weights: dict[str, float], outcome: bool) -> float:
    ts = terms(sentence)
    if not ts:
        return 0.0
    score = sum(weights.get(t, 0.0) for t in set(ts)) / (len(ts) ** 0.5)
    if outcome and OUTCOME_WORDS.intersection(ts):
        score *= 1.5
    return score


def pick_sentence(text: str, weights: dict[str, float], *, outcome: bool) -> str:
    cands = sentences(text)
    if not cands:
        return ""
    if not outcome:
        cands = cands[:4]  # the request's point is almost always stated first
    return max(cands, key=lambda s: (_score(s, weights, outcome), -cands.index(s)))


def _final_answer(messages: list[tuple[str, str]]) -> str:
    for label, text in reversed(messages):
        if label == "assistant" and sentences(text):
            return text
    return ""


def request_words(exchange: Exchange, messages) -> list[str]:
    """The request's prose words in order, code blocks and filler dropped."""
    request = exchange.request or next((t for lbl, t in messages if lbl == "user"), "")
    words = drop_filler(" ".join(sentences(request[:REQUEST_CHARS])).split())
    return words or request.split()[:12]


def outcome_words(messages, weights: dict[str, float]) -> list[str]:
    answer = _final_answer(messages)
    return drop_filler(pick_sentence(answer, weights, outcome=True).split()) if answer else []


def make_core(req: list[str], out: list[str], weights: dict[str, float], budget: int, *,
              request_share: float = 0.7) -> str:
    """The request's opening, then the outcome's best span, within ``budget`` tokens.

    Both whole when they fit; otherwise the request gets at least ``request_share``.
    """
    if not out:
        req_part = request_span(req, weights, budget)
        out_part = []
    else:
        req_budget = max(int(budget * request_share), budget - 1 - words_cost(out)) if req else 0
        req_part = request_span(req, weights, req_budget)
        room = budget - (words_cost(req_part) + 1 if req_part else 0)
        out_part = best_span(out, weights, room) if room > 2 else []
    head = " ".join(req_part).rstrip(" ,;:—-")
    tail = " ".join(out_part).rstrip(" ,;:—-")
    core = f"{head} — {tail}" if head and tail else (head or tail)
    core = core.strip(" -—:;,")
    return (core + ".") if core and core[-1] not in ".!?" else core


def excise(words: list[str], snippet: str) -> list[str]:
    """``words`` without the run that spells ``snippet`` (the context says it already)."""
    target = snippet.replace("`", "").split()
    if len(target) < 1:
        return words
    bare = [w.replace("`", "") for w in words]
    n = len(target)
    for i in range(len(bare) - n + 1):
        if bare[i:i + n] == target or (n > 1 and bare[i:i + n - 1] == target[:-1]
                                       and bare[i + n - 1].startswith(target[-1])):
            return words[:i] + words[i + n:] if len(words) > n else words
    return words


class RulesDistiller(Distiller):
    backend = "rules"
    DEFAULTS = {"budget_tokens": 38, "context_chars": 60, "core_chars": None, "mean_tokens": 38,
                "min_share": 0.05, "max_share": 0.45, "core_share": 0.4, "min_core": 10}
    _NAMES = {"budget_tokens": "tok", "context_chars": "ctx", "core_chars": "core",
              "mean_tokens": "mean", "min_share": "smin", "max_share": "smax", "core_share": "cs",
              "min_core": "mc"}

    def __init__(self, *, budget_tokens: int = 38, context_chars: int = 60,
                 core_chars: int | None = None, request_share: float = 0.7,
                 repeat_weight: float = 0.2, mean_tokens: int = 38, min_share: float = 0.05,
                 max_share: float = 0.45, core_share: float = 0.4, min_core: int = 10):
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
        if (self.request_share, self.repeat_weight) != (0.7, 0.2):
            parts.append(f"req{self.request_share:g}:rep{self.repeat_weight:g}")
        return ":".join([VERSION, *parts])

    def share(self, stats: CorpusStats) -> float:
        """s, the share of its dialogue a card keeps in this palace (module docstring)."""
        if stats.dialogue_mean <= 0:
            return 0.1
        return min(self.max_share, max(self.min_share, self.mean_tokens / stats.dialogue_mean))

    def card_budget(self, exchange: Exchange, stats: CorpusStats) -> int:
        """B(e), the searchable card's token budget (the rule in the module docstring)."""
        said = text_cost(exchange.dialogue) if exchange.dialogue else 0
        return max(8, round(self.share(stats) * said))

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
        keywords = choose_keywords(zones(messages, exchange.request), stats, left, card.core_text)
        return replace(card, keywords=keywords)

    def _core_and_context(self, exchange: Exchange, messages, said: str, weights: dict,
                          budget: int, *, debugging: bool) -> tuple[str, str]:
        """``(exchange_core, specific_context)`` within their part of B(e)."""
        share = min(self.budget_tokens, max(8, int(budget * self.core_share)))
        # The detail first; the core need not spell it again (the layer searches both).
        context = make_context(exchange, said, weights, min(self.context_chars, 3 * share),
                               debugging=debugging)
        # Whatever the context costs, the core keeps room for a readable clause.
        core_budget = min(self.budget_tokens, max(share, text_cost(context) + 1 + self.min_core))
        req = excise(request_words(exchange, messages), context)
        # The core spends its budget on what the context does not already say.
        seen = set(terms(context))
        core_weights = {t: w * self.repeat_weight if t in seen else w for t, w in weights.items()}
        core = make_core(req, outcome_words(messages, weights), core_weights,
                         core_budget - text_cost(context) - 1, request_share=self.request_share)
        return _fit(core, context, core_budget, self.core_chars), context

    def distill_batch(self, exchanges: Sequence[Exchange], *, stats: CorpusStats) -> list[DistillOutcome]:
        return [DistillOutcome(card=self.card(e, stats)) for e in exchanges]


def _fit(core: str, context: str, budget: int, max_chars: int | None) -> str:
    """Drop the core's last words until core + context fit the token budget (and chars)."""
    words = core.split()
    cut = False
    while len(words) > 1 and (text_cost(" ".join(words) + "\n" + context) > budget
                              or (max_chars and len(" ".join(words)) > max_chars)):
        words.pop()
        cut = True
    while cut and len(words) > 1 and not terms(words[-1]):
        words.pop()
    out = " ".join(words).rstrip(" ,;:—-")
    return out if out == core or not out or out[-1] in ".!?" else out + "."


register("rules")(RulesDistiller)

__all__ = ["ERROR", "RulesDistiller", "best_window", "context_candidates", "idf",
           "split_messages"]
