"""``specific_context``: the one concrete detail of an exchange, copied exactly.

Candidates, by kind (the lower the priority number, the more a person would search for it):

0. an error message (``KeyError: 'user_id'``, ``error[E0382]``, ``ERR_PNPM_…``);
1. a file path from ``files_touched`` that occurs in the text;
2. a ``parameter=value`` whose value is a value, not a word (``pool_size=20``, not ``index = the``);
3. a number with its unit (``30 s``, ``176 req/s``, ``1 MiB``);
4. an identifier (``busy_timeout``, ``HttpClient``, ``repo.graph_ahead_behind()``).

The best candidate is one the person or the agent said (not only a tool), then by priority, then
the rarest (most tf·idf weight). In a debugging exchange the error a tool printed is the point, so
errors count as said there. Every candidate is a substring of the exchange's verbatim text, cut
at a word boundary to ``max_chars``.
"""

from __future__ import annotations

import re

from palace_lab.distill.terms import terms
from palace_lab.text.words import STOPWORDS
from palace_lab.model import Exchange

ERROR = re.compile(
    r"(?:\b[\w.]*\w(?:Error|Exception|Warning|Failure)\b:?|\b(?:Error|Exception):|\berror\[E\d+\]|\berror TS\d+|"
    r"\bTS\d{4}\b|\bERR_[A-Z_]+|\bpanicked at\b|\bFATAL\b|\bfatal:|\bFAILED\b|"
    r"\bTraceback\b)[^\n]{0,160}")
PARAM = re.compile(r"\b[A-Za-z_][\w.\-]*\s?=\s?[\"']?([\w.\-/:]+)[\"']?")
QUANTITY = re.compile(
    r"\b\d+(?:\.\d+)?\s?(?:ms|s|sec|seconds|minutes|min|h|MB|MiB|GB|GiB|KB|KiB|%|x|tokens|"
    r"req/s|rps|qps|connections|workers|threads|rows|items)\b")
IDENT = re.compile(r"\b(?:[a-z]+[A-Z]\w*|[A-Z][a-z]+[A-Z]\w*|[a-z]+_[a-z_0-9]+|\w+\.\w+\(\)?)\b")
_MONTHS = ("January|February|March|April|May|June|July|August|September|October|November|"
           "December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec")
DATE = re.compile(rf"\b(?:\d{{1,2}} (?:{_MONTHS})(?: \d{{4}})?|(?:{_MONTHS}) \d{{1,2}}(?:, \d{{4}})?|"
                  r"(?:19|20)\d\d)\b")
# A name a person would search for in chat: a run of capitalised words that does not open a
# sentence ("Clayworks on Main Street", "LGBTQ support group" → "LGBTQ").
ENTITY = re.compile(r"(?<![.!?]\s)(?<!\] )(?<!^)(?<![.!?\n])\b[A-Z][A-Za-z]+(?:\s(?:of|on|the|de|and)?\s?"
                    r"[A-Z][A-Za-z]+)*")
PATTERNS = ((0, ERROR), (2, PARAM), (3, QUANTITY), (3, DATE), (4, IDENT), (5, ENTITY))
MAX_CANDIDATES = 400


def _value_ok(match: re.Match) -> bool:
    value = match.group(1).lower()
    return len(value) > 1 and value not in STOPWORDS or any(c.isdigit() for c in value)


def context_candidates(exchange: Exchange, said: str) -> list[tuple[int, int, str]]:
    """(priority, 0 if said by person/agent else 1, snippet), best first when sorted."""
    found: list[tuple[int, int, str]] = []
    verbatim = exchange.verbatim
    for pri, pattern in PATTERNS:
        for m in pattern.finditer(verbatim):
            if pattern is PARAM and not _value_ok(m):
                continue
            found.append((pri, 0 if m.group(0) in said else 1, m.group(0)))
            if len(found) > MAX_CANDIDATES:
                break
    for path in exchange.files_touched:
        if path in verbatim:
            found.append((1, 0 if path in said else 1, path))
    return found


# A JSON-escaped sequence (``\n``, ``\"``, ``\t``, ``\u00e9``) inside tool input: the text a
# person saw ends there, so a detail is cut before it.
_ESCAPE = re.compile(r'\\(?:[nrt"\\/]|u[0-9a-fA-F]{4})')


def trim(snippet: str, max_chars: int) -> str:
    """``snippet`` cut at a word boundary to at most ``max_chars`` (a prefix: still a substring),
    and before any JSON escape sequence."""
    escape = _ESCAPE.search(snippet)
    if escape:
        snippet = snippet[:escape.start()]
    snippet = snippet.strip()
    if len(snippet) <= max_chars:
        return snippet.rstrip(" ,;:")
    cut = snippet[:max_chars]
    if " " in cut[max_chars // 2:]:
        cut = cut[: cut.rfind(" ")]
    return cut.rstrip(" ,;:(")


def _opening(text: str, words: int = 8) -> str:
    """The first ``words`` words of ``text`` as they stand in it (spacing kept: a substring)."""
    found = list(re.finditer(r"\S+", text))[:words]
    return text[found[0].start():found[-1].end()] if found else ""


def make_context(exchange: Exchange, said: str, weights: dict[str, float], max_chars: int, *,
                 debugging: bool = False) -> str:
    """The best detail (see the module docstring); the request's first words if none."""
    cands = [c for c in context_candidates(exchange, said) if trim(c[2], max_chars)]
    if not cands:
        return trim(_opening(exchange.request), max_chars) if exchange.request.strip() else ""

    best: dict[str, tuple[int, int]] = {}
    for pri, heard, snippet in cands:
        if debugging and pri == 0:
            heard = 0
        best[snippet] = min(best.get(snippet, (heard, pri)), (heard, pri))

    def key(snippet: str):
        heard, pri = best[snippet]
        cut = trim(snippet, max_chars)
        return (heard, pri, -sum(weights.get(t, 0.0) for t in set(terms(cut))), cut)
    return trim(min(best, key=key), max_chars)


CHECKS = ("substring", "escaped", "empty", "empty_with_detail")


def check_context(exchange: Exchange, context: str) -> tuple[int, int, int, int]:
    """One card's :data:`CHECKS`: its ``specific_context`` an exact substring of the exchange,
    holding a JSON escape, empty, and empty although the exchange offers a detail (0 or 1)."""
    empty = not context
    return (int(context in exchange.verbatim), int(bool(_ESCAPE.search(context))), int(empty),
            int(empty and bool(context_candidates(exchange, exchange.dialogue))))


def summarize_checks(checks) -> dict:
    """The cards' :func:`check_context` rows summed, with the substring rate."""
    checks = list(checks)
    sums = dict(zip(CHECKS, map(sum, zip(*checks)))) if checks else dict.fromkeys(CHECKS, 0)
    return {"cards": len(checks), **sums,
            "substring_rate": round(sums["substring"] / len(checks), 4) if checks else None}

