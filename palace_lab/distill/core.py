"""``exchange_core``: one or two whole sentences or clauses, copied from the exchange.

The paper's core says what was asked and what was done, in the exchange's own words. Offline,
the rules distiller copies; it never cuts inside a clause or drops a word from one
(:mod:`.clauses` says what a whole unit is, and the card-quality benchmark checks it):

1. **What was asked**: the best unit of the request's first :data:`REQUEST_SENTENCES`
   sentences that fits the core's budget and has content (two content words or more, see
   :func:`palace_lab.text.content.is_content_free`). A unit's score is the tf·idf weight of its distinct terms,
   earlier sentences preferred (the request's main sentence usually comes first) and a whole
   sentence preferred over part of one.
2. **What was done or found**: when the agent's last message is prose (it wrote after its last
   tool call), the best unit of that final report that fits what is left, decision words
   ("fixed", "because", "switched") preferred.
3. When the request has no content ("hi", "continue", "what else?"), the outcome carries the
   core, or else the first unit with content of anything the person or the agent said.

A unit that fits nowhere is not cut: a shorter unit is chosen, up to :data:`STRETCH` times the
budget, or else the shortest unit that fits the whole card's budget (the keywords give way);
only when every unit is longer than that is the best one cut at a word boundary (and the
benchmark counts it as not whole).
"""

from __future__ import annotations

from collections.abc import Sequence

from palace_lab.distill.clauses import Unit, as_part, balanced, ends_short, sentences, units
from palace_lab.distill.noise import without_blobs
from palace_lab.distill.spans import text_cost, words_cost
from palace_lab.distill.terms import terms
from palace_lab.text.content import content_words

REQUEST_SENTENCES = 6
REPORT_SENTENCES = 12
STRETCH = 1.5  # a whole unit may take up to this times the core's budget before one is cut
WORTH_STRETCH = 2.0  # ...and is preferred to a shorter one that weighs less than 1/this
OUTCOME_WORDS = frozenset(
    "fixed fix added implemented changed switched removed replaced decided root cause now "
    "resolved updated moved renamed created wrote passes passing pass works failing bumped "
    "raised lowered set because instead found turned done merged".split())


def written_sentences(text: str, limit: int) -> list[str]:
    """The first ``limit`` sentences someone wrote in ``text`` (pasted blob lines left out)."""
    return sentences(without_blobs(text)[0])[:limit]


def _score(unit: Unit, weights: dict[str, float], *, outcome: bool) -> float:
    ts = set(terms(unit.text))
    score = sum(weights.get(t, 0.0) for t in ts) + 0.05 * content_words(unit.text)
    if outcome and OUTCOME_WORDS.intersection(ts):
        score *= 1.5
    score /= 1.0 + 0.35 * unit.sentence
    return score * (1.15 if unit.whole_sentence else 1.0)


def _candidates(sents: Sequence[str], weights: dict[str, float], *, outcome: bool,
                content: bool = True):
    """``(score, cost, text)`` of every unit (with content, unless ``content`` is False), best
    first. A table row or a unit ending on an abbreviation ("e.g.") is no sentence."""
    out = []
    for unit in units(list(sents)):
        if ((content and content_words(unit.text) < 2) or "|" in unit.text
                or ends_short(unit.text) or not balanced(unit.text)):
            continue
        text = as_part(unit.text)
        out.append((_score(unit, weights, outcome=outcome), text_cost(text), text))
    out.sort(key=lambda c: (-c[0], c[1], c[2]))
    return out


def _best(cands, budget: int) -> tuple[int, str] | None:
    """The best candidate within ``budget`` tokens, unless one within the stretch weighs more
    than :data:`WORTH_STRETCH` times as much; with none within budget, the cheapest within the
    stretch."""
    stretch = max(budget, 1) * STRETCH
    inside = next((c for c in cands if c[1] <= budget), None)
    beyond = next((c for c in cands if c[1] <= stretch), None)
    if inside and beyond and beyond[0] > WORTH_STRETCH * inside[0]:
        return beyond[1], beyond[2]
    if inside:
        return inside[1], inside[2]
    return _shortest(cands, stretch)


def _shortest(cands, limit: float) -> tuple[int, str] | None:
    """The cheapest candidate, when it costs at most ``limit`` tokens."""
    cheapest = min(((c[1], c[2]) for c in cands), default=None)
    return cheapest if cheapest and cheapest[0] <= limit else None


def _cut(cands, budget: int) -> str:
    """The best candidate cut at a word boundary to ``budget`` tokens (the last resort)."""
    if not cands:
        return ""
    words, kept = cands[0][2].split(), []
    for word in words:
        if words_cost(kept + [word]) > budget:
            break
        kept.append(word)
    return as_part(" ".join(kept)) if kept else ""


def make_core(request: str, report: str, said: str, weights: dict[str, float],
              budget: int, *, max_chars: int | None = None, request_share: float = 1.0,
              limit: int = 0) -> str:
    """The core of an exchange (module docstring) within about ``budget`` tokens (and, when
    given, parts of at most ``max_chars`` characters each). With an outcome to tell, what was
    asked takes at most ``request_share`` of the budget, leaving the rest to the outcome. When
    no unit with content fits the stretch, the shortest one within ``limit`` tokens (the whole
    card's budget: the keywords give way) is taken whole rather than cut."""
    def short(cands):
        return [c for c in cands if len(c[2]) <= max_chars] if max_chars else cands

    asked = short(_candidates(written_sentences(request, REQUEST_SENTENCES), weights,
                              outcome=False))
    done = short(_candidates(written_sentences(report, REPORT_SENTENCES), weights, outcome=True))
    reported = done
    first = _best(asked, max(1, round(budget * request_share)) if done else budget)
    if first is None:
        first = _best(done, budget)
        done = []
    rest = []
    if first is None:
        rest = short(_candidates(written_sentences(said, 40), weights, outcome=False))
        first = _best(rest, budget)
    if first is None:  # a short request whose one sentence is longer than the core's share
        first = _shortest(next((c for c in (asked, reported, rest) if c), []), limit)
    if first is None:  # nothing said has content: the request as it is, never an empty core
        anything = [_candidates(written_sentences(t, 40), weights, outcome=False, content=False)
                    for t in (request, report, said)]
        first = next((b for b in (_best(c, budget) for c in anything) if b), None)
        if first is None:
            lines = [line for t in (request, said) for line in t.splitlines() if line.strip()]
            return _cut(next((c for c in anything if c), [(0, 0, lines[0])] if lines else []),
                        budget)
    cost, text = first
    room = budget - cost - 1
    # A second part says something whole: "Root cause." (a label before a colon) does not.
    second = next(((c, t) for _, c, t in done
                   if c <= room and t != text and content_words(t) >= 3), None)
    return f"{text} {second[1]}" if second else text
