"""Redacting what was made from a text that held secrets (cards, packs).

A distiller may copy a piece of a secret without the prefix that lets a rule recognise it (the
tail of a PyPI token, the part of a Telegram token after the colon). :func:`secrets_in` lists
the secrets of the source text; :func:`redact_with_known` removes them, and any run of token
characters that is a piece of one, from what was made; :func:`redact_card` does it for every
text field of a distilled card.
"""

from __future__ import annotations

import re
from functools import lru_cache

from palace_lab.redact.core import (
    Finding, RedactionResult, _claim_spans, placeholder, redact,
)
from palace_lab.redact.rules import RULES


def secrets_in(text: str) -> dict[str, str]:
    """``{secret: kind}`` of every secret in ``text``: what a card made from it must not carry,
    even in part (a distiller may copy the tail of a token without its prefix)."""
    return {text[start:end].strip("'\""): kind for start, end, kind in _claim_spans(text, RULES)}


# Runs of token characters long enough to be a recognisable piece of a secret.
_TOKEN_RUN = re.compile(r"[A-Za-z0-9_\-+/=.:]{8,}")


def redact_with_known(text: str, known: dict[str, str]) -> RedactionResult:
    """:func:`redact`, then every occurrence of a ``known`` secret, and every run of token
    characters (8 or more) that is a piece of one or holds one, is replaced too."""
    first = _redact_short(text) if len(text) <= 256 else redact(text)
    if not known:
        return first
    extra: list[str] = []
    body = first.text
    for secret, kind in known.items():
        if len(secret) >= 6 and secret in body:
            extra += [kind] * body.count(secret)
            body = body.replace(secret, placeholder(kind))
    pieces, cursor = [], 0
    for m in _TOKEN_RUN.finditer(body):
        kind = _known_kind(m.group(0).strip(":.=/"), known)
        if kind is None:
            continue
        pieces += [body[cursor:m.start()], placeholder(kind)]
        cursor = m.end()
        extra.append(kind)
    if not extra:
        return first
    pieces.append(body[cursor:])
    counts: dict[str, int] = dict(first.counts)
    for kind in extra:
        counts[kind] = counts.get(kind, 0) + 1
    findings = tuple(Finding(k, n, (), ()) for k, n in sorted(counts.items()))
    return RedactionResult("".join(pieces), findings)


@lru_cache(maxsize=8192)
def _redact_short(text: str) -> RedactionResult:
    """Card fields repeat (room keys and labels, file paths): each is redacted once."""
    return redact(text)


def _known_kind(run: str, known: dict[str, str]) -> str | None:
    if len(run) < 8 or run.startswith("[REDACTED"):
        return None
    for secret, kind in known.items():
        if run in secret or secret in run:
            return kind
    return None


def redact_card(card, known: dict[str, str] | None = None):
    """``(card, {kind: count})``: every text field of a distilled card redacted (core,
    specific context, each room's key and label, each file touched); a keyword that holds a
    secret is dropped (a redaction marker is no search term); the same card object when
    nothing was found."""
    from dataclasses import replace

    tally: dict[str, int] = {}

    def clean(text: str) -> str:
        result = redact_with_known(text, known or {})
        for kind, n in result.counts.items():
            tally[kind] = tally.get(kind, 0) + n
        return result.text

    rooms = tuple(replace(r, room_key=clean(r.room_key), room_label=clean(r.room_label))
                  for r in card.room_assignments)
    keywords = tuple(k for k in card.keywords if clean(k) == k)
    cleaned = replace(card, exchange_core=clean(card.exchange_core),
                      specific_context=clean(card.specific_context), room_assignments=rooms,
                      files_touched=tuple(clean(f) for f in card.files_touched), keywords=keywords)
    return (cleaned, tally) if tally else (card, {})


def stored_card(card):
    """A stored card as every edge shows it (the CLI's ``cards``, the app's card, MCP hits, a
    memory pack): redacted again on read, because a card stored before a redaction rule existed
    still holds what that rule removes. ``None`` (no card) stays ``None``."""
    return None if card is None else redact_card(card)[0]
