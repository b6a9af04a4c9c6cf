"""Spans: the runs of an exchange's own words a distilled card is built from.

A card's searchable text has a budget in *tokens* (cl100k_base, as :mod:`palace_lab.budget`
counts it), so the words are costed in tokens, not characters: an identifier such as
``splitMarkdownPluginFast`` costs four tokens, a word such as ``timeout`` one. The cost of a
word is that of the word with its leading space, which is how the encoder's pre-tokeniser cuts
running text, so the sum over a span's words is its token count up to a token at its start.

Filler is dropped before a span is chosen, so the budget goes to content: conversational
phrases (``can you``, ``please``, ``let me``, ``I think``) and leading discourse words
(``ok``, ``so``, ``yeah``). What is left is still the exchange's own words, in their order;
nothing is added. A span is the contiguous run of the remaining words, within the budget,
that carries the most tf·idf weight (:func:`best_span`).
"""

from __future__ import annotations

import re
from functools import lru_cache

from palace_lab.distill.terms import terms

_COSTS: dict[str, int] = {}
_EDGE = re.compile(r"^[\W_]+|[\W_]+$")

# Phrases that carry no content in a request or a report, matched on lower-cased words with
# the punctuation around them stripped. Longest first, so "can you please" goes as one.
FILLER_PHRASES: tuple[tuple[str, ...], ...] = tuple(sorted((tuple(p.split()) for p in """
can you please|could you please|can you|could you|would you|will you|please|pls|plz
let me|let's|lets|i'll|i will|i'd like to|i'd like|i would like to|i want you to
i think|i guess|i bet|i mean|i believe|i suppose|i feel like|it seems|seems like
just|really|actually|basically|probably|maybe|kinda|sort of|kind of|a bit|a little
you know|for me|for now|right now|real quick|quickly|go ahead and|go ahead
thanks|thank you|thx|sounds good|looks good|great|perfect|awesome|cool|nice
""".replace("\n", "|").split("|") if p.strip()), key=lambda p: (-len(p), p)))
_BY_FIRST: dict[str, tuple[tuple[str, ...], ...]] = {}
for _p in FILLER_PHRASES:
    _BY_FIRST[_p[0]] = (*_BY_FIRST.get(_p[0], ()), _p)
# Discourse words that open a sentence and say nothing about its topic.
OPENERS = frozenset(
    "ok okay ok. so yes yeah yep yup no nope hm hmm hmmm ah oh alright right well btw also "
    "and but then q q: hey hi hello sure fine done good great now".split())


@lru_cache(maxsize=1)
def _encoding():
    from palace_lab.tokens import get_encoding

    return get_encoding("cl100k_base")


def word_cost(word: str) -> int:
    """Tokens of `` word`` (the word as it runs in text, after a space)."""
    cost = _COSTS.get(word)
    if cost is None:
        cost = _COSTS[word] = len(_encoding().encode_ordinary(" " + word))
    return cost


def text_cost(text: str) -> int:
    """Exact tokens of ``text``."""
    return len(_encoding().encode_ordinary(text)) if text else 0


def _bare(word: str) -> str:
    return _EDGE.sub("", word.lower())


def drop_filler(words: list[str]) -> list[str]:
    """``words`` without filler phrases and opening discourse words (order kept).

    Punctuation that ended a dropped phrase (``well,``) goes with it; a word is never cut in
    part. Articles stay: dropping them measured no better and reads worse.
    """
    bare = [_bare(w) for w in words]
    keep = [True] * len(words)
    i = 0
    while i < len(words):
        for phrase in _BY_FIRST.get(bare[i], ()):
            n = len(phrase)
            if tuple(bare[i:i + n]) == phrase and _plain_run(words[i:i + n]):
                for j in range(i, i + n):
                    keep[j] = False
                i += n - 1
                break
        i += 1
    out = [w for w, k in zip(words, keep) if k]
    while len(out) > 1 and _bare(out[0]) in OPENERS:
        out.pop(0)
    return out


def _plain_run(words: list[str]) -> bool:
    # "just" inside `just_one` or a quoted 'maybe' is a name, not filler.
    return all(re.fullmatch(r"[\w']+[,.!?;:]?", w) and "_" not in w for w in words)


def word_weights(words: list[str], weights: dict[str, float]) -> list[float]:
    return [sum(weights.get(t, 0.0) for t in terms(w)) for w in words]


def best_span(words: list[str], weights: dict[str, float], budget: int, *,
              lead: float = 1.0, base: float = 0.05) -> list[str]:
    """The contiguous run of ``words`` of at most ``budget`` tokens with the most weight.

    Each word weighs its terms' tf·idf plus ``base`` (so a longer span wins a tie), times
    ``1 + lead / (1 + position)``: a sentence's point usually comes first. The span never
    starts or ends on a word without terms ("the", "with") unless all the words fit. Ties go to
    the earliest span.
    """
    words = words[:80]
    if not words or budget <= 0:
        return []
    costs = [word_cost(w) for w in words]
    if sum(costs) <= budget:
        return words
    w = [(x + base) * (1.0 + lead / (1 + i)) for i, x in enumerate(word_weights(words, weights))]
    best, span = -1.0, (0, 0)
    for i in range(len(words)):
        spent, total = 0, 0.0
        for j in range(i, len(words)):
            spent += costs[j]
            if spent > budget:
                break
            total += w[j]
            if total > best + 1e-9:
                best, span = total, (i, j + 1)
    kept = words[span[0]:span[1]]
    while len(kept) > 1 and not terms(kept[-1]):
        kept.pop()
    while len(kept) > 1 and not terms(kept[0]):
        kept.pop(0)
    return kept


def words_cost(words: list[str]) -> int:
    return sum(word_cost(w) for w in words)


def lead_span(words: list[str], budget: int) -> list[str]:
    """The opening words of ``words`` that fit ``budget`` tokens, not ending on a function word."""
    kept, spent = [], 0
    for w in words:
        spent += word_cost(w)
        if spent > budget:
            break
        kept.append(w)
    if len(kept) < len(words):
        while len(kept) > 1 and not terms(kept[-1]):
            kept.pop()
    return kept


def request_span(req: list[str], weights: dict[str, float], budget: int) -> list[str]:
    """The request's opening within ``budget`` tokens; when the opening that fits says nothing
    (no word with a term: "I", "there's"), the request's weightiest run instead."""
    lead = lead_span(req, budget)
    if lead and not any(terms(w) for w in lead):
        return best_span(req, weights, budget) or lead
    return lead
