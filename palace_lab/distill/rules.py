"""``rules``: the offline, deterministic distiller (the default).

It follows the paper's surviving-vocabulary principle without a model: every field is made of
words the exchange itself contains.

- ``exchange_core``: the person's request and the outcome the agent reported, each cut to the
  window of its best sentence that carries the most distinctive terms (tf·idf against the whole
  palace), joined as one sentence of at most ``core_chars`` characters.
- ``specific_context``: one detail copied exactly (a substring of the exchange), by priority:
  an error message, a file path, a ``parameter=value`` or a number with its unit, an identifier.
  Candidates the person or the agent said are preferred over ones only seen in tool output.
- ``room_assignments``: a file room (the most-mentioned file), a concept room (the most
  distinctive phrase shared with other exchanges) and a workflow room (kind of work), 1-3 rooms.
- ``files_touched``: from :mod:`palace_lab.files`, never invented.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from palace_lab.distill.base import CorpusStats, Distiller, DistillOutcome, register
from palace_lab.distill.rooms_rules import assign_rooms
from palace_lab.distill.terms import idf, salient_terms, terms
from palace_lab.model import DistilledCard, Exchange

VERSION = "rules:v1"
_MESSAGE_SPLIT = re.compile(r"\n\n(?=\[(?:user|assistant|tool call[^\]\n]*|tool result|system)\] )")
_CODE_BLOCK = re.compile(r"```.*?(```|$)", re.S)
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"'(\[])|\n+")
_MARKUP = re.compile(r"^[\s#>*\-\d.)]+|`|\*\*|(?<!\w)\*|\*(?!\w)")
OUTCOME_WORDS = frozenset(
    "fixed fix added implemented changed switched removed replaced decided root cause now "
    "resolved updated moved renamed created wrote passes passing works failing bumped raised "
    "lowered set because instead".split())
ERROR = re.compile(
    r"(?:\b[\w.]*\w(?:Error|Exception|Warning|Failure)\b:?|\b(?:Error|Exception):|\berror\[E\d+\]|\berror TS\d+|"
    r"\bTS\d{4}\b|\bERR_[A-Z_]+|\bpanicked at\b|\bFATAL\b|\bfatal:|\bFAILED\b|"
    r"\bTraceback\b)[^\n]{0,160}")
PARAM = re.compile(r"\b[A-Za-z_][\w.\-]*\s?=\s?[\"']?[\w.\-/:]+[\"']?")
QUANTITY = re.compile(
    r"\b\d+(?:\.\d+)?\s?(?:ms|s|sec|seconds|minutes|min|h|MB|MiB|GB|GiB|KB|KiB|%|x|tokens|"
    r"req/s|rps|qps|connections|workers|threads|rows|items)\b")
IDENT = re.compile(r"\b(?:[a-z]+[A-Z]\w*|[A-Z][a-z]+[A-Z]\w*|[a-z]+_[a-z_0-9]+|\w+\.\w+\(\)?)\b")


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
    ts = terms(word)
    return sum(weights.get(t, 0.0) for t in ts)


def best_window(sentence: str, weights: dict[str, float], max_chars: int) -> str:
    """The contiguous run of words, at most ``max_chars`` long, carrying the most weight.

    Earlier words weigh a little more: a sentence's point usually comes first, and a window
    that starts mid-clause reads worse than one that starts with the subject.
    """
    words = sentence.split()[:80]
    if len(sentence) <= max_chars:
        return sentence
    w = [(_word_weight(x, weights) + 0.05) * (1.0 + 1.0 / (1 + i)) for i, x in enumerate(words)]
    best, best_span = -1.0, (0, 1)
    for i in range(len(words)):
        length, total = -1, 0.0
        for j in range(i, len(words)):
            length += len(words[j]) + 1
            if length > max_chars:
                break
            total += w[j]
            if total > best:
                best, best_span = total, (i, j + 1)
    kept = words[best_span[0]:best_span[1]]
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


def make_core(exchange: Exchange, messages, weights, max_chars: int) -> str:
    request = exchange.request or next((t for lbl, t in messages if lbl == "user"), "")
    answer = _final_answer(messages)
    req = pick_sentence(request, weights, outcome=False)
    out = pick_sentence(answer, weights, outcome=True) if answer else ""
    if not out:
        core = best_window(req or request[:max_chars], weights, max_chars)
    else:
        # Both halves whole when they fit; otherwise the request gets at least 45%.
        req_budget = max(max_chars * 45 // 100, max_chars - 3 - len(out))
        req_part = best_window(req, weights, req_budget).rstrip(" ,;:") if req else ""
        room = max_chars - len(req_part) - 3
        out_part = best_window(out, weights, room)
        core = f"{req_part} — {out_part}" if req_part else out_part
    core = core.strip(" -—:;,")
    return (core + ".") if core and core[-1] not in ".!?" else core


def _trim(snippet: str, max_chars: int) -> str:
    snippet = snippet.strip()
    if len(snippet) <= max_chars:
        return snippet.rstrip(" ,;:")
    cut = snippet[:max_chars]
    if " " in cut[max_chars // 2:]:
        cut = cut[: cut.rfind(" ")]
    return cut.rstrip(" ,;:(")


def context_candidates(exchange: Exchange, said: str) -> list[tuple[int, int, str]]:
    """(priority, 0 if said by person/agent else 1, snippet), best first when sorted."""
    found: list[tuple[int, int, str]] = []
    verbatim = exchange.verbatim
    for pri, pattern in ((0, ERROR), (2, PARAM), (3, QUANTITY), (4, IDENT)):
        for m in pattern.finditer(verbatim):
            found.append((pri, 0 if m.group(0) in said else 1, m.group(0)))
            if len(found) > 400:
                break
    for path in exchange.files_touched:
        if path in verbatim:
            found.append((1, 0 if path in said else 1, path))
    return found


def make_context(exchange: Exchange, said: str, weights: dict[str, float], max_chars: int,
                 *, debugging: bool = False) -> str:
    """The best detail: by priority, preferring what was said over what a tool printed.

    In a debugging exchange the error a tool printed is the point, so errors keep their
    priority there even when nobody repeated them.
    """
    cands = context_candidates(exchange, said)
    if not cands:
        words = exchange.request.split() or exchange.verbatim.split()
        return _trim(" ".join(words[:8]), max_chars) if exchange.request else ""

    def key(c):
        pri, heard, snippet = c
        if debugging and pri == 0:
            heard = 0
        return (heard, pri, -_word_weight(snippet, weights))
    best = min(cands, key=key)
    return _trim(best[2], max_chars)


class RulesDistiller(Distiller):
    backend = "rules"

    def __init__(self, *, core_chars: int = 130, context_chars: int = 60):
        self.core_chars = core_chars
        self.context_chars = context_chars

    @property
    def version(self) -> str:
        if (self.core_chars, self.context_chars) == (130, 60):
            return VERSION
        return f"{VERSION}:core{self.core_chars}:ctx{self.context_chars}"

    def card(self, exchange: Exchange, stats: CorpusStats) -> DistilledCard:
        messages = split_messages(exchange.verbatim)
        said = "\n".join(t for lbl, t in messages if lbl in ("user", "assistant"))
        weights = dict(salient_terms(said + "\n" + exchange.request, stats, k=40))
        rooms = assign_rooms(exchange, said, stats)
        debugging = any(r.room_key == "debugging" for r in rooms)
        return DistilledCard(
            exchange_id=exchange.exchange_id,
            distiller=self.version,
            exchange_core=make_core(exchange, messages, weights, self.core_chars),
            specific_context=make_context(exchange, said, weights, self.context_chars,
                                          debugging=debugging),
            room_assignments=rooms,
            files_touched=exchange.files_touched,
        )

    def distill_batch(self, exchanges: Sequence[Exchange], *, stats: CorpusStats) -> list[DistillOutcome]:
        return [DistillOutcome(card=self.card(e, stats)) for e in exchanges]


register("rules")(RulesDistiller)

__all__ = ["RulesDistiller", "idf"]
