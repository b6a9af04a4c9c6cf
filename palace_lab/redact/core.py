"""Applying the rules: spans claimed in rule order, replaced by ``[REDACTED:<kind>]``, reported.

See :mod:`palace_lab.redact` for the invariants.
"""

from __future__ import annotations

from dataclasses import dataclass

from palace_lab.redact.rules import RULES, Rule


@dataclass(frozen=True)
class Finding:
    """Where secrets of one kind were (1-based lines, offsets in the original text)."""

    kind: str
    count: int
    lines: tuple[int, ...]
    offsets: tuple[tuple[int, int], ...]

    def to_dict(self) -> dict:
        return {
            "kind": self.kind,
            "count": self.count,
            "lines": list(self.lines),
            "offsets": [list(o) for o in self.offsets],
        }


@dataclass(frozen=True)
class RedactionResult:
    """The redacted text and what was removed from it (never the secrets themselves)."""

    text: str
    findings: tuple[Finding, ...] = ()

    @property
    def redacted(self) -> bool:
        return bool(self.findings)

    @property
    def counts(self) -> dict[str, int]:
        return {f.kind: f.count for f in self.findings}

    def to_dict(self) -> dict:
        return {"findings": [f.to_dict() for f in self.findings]}


def placeholder(kind: str) -> str:
    return f"[REDACTED:{kind}]"


def _claim_spans(text: str, rules: tuple[Rule, ...]) -> list[tuple[int, int, str]]:
    claimed: list[tuple[int, int, str]] = []
    for rule in rules:
        if not rule.may_match(text):
            continue
        for m in rule.pattern.finditer(text):
            start, end = m.span("secret")
            if start == end or any(s < end and start < e for s, e, _ in claimed):
                continue
            secret = m.group("secret")
            if secret.strip("'\"").startswith("[REDACTED:"):
                continue  # already redacted: a second pass changes nothing
            if rule.plausible is not None and not rule.plausible(secret):
                continue
            if rule.accept is not None and not rule.accept(m):
                continue
            claimed.append((start, end, rule.kind))
    return sorted(claimed)


def _findings(text: str, spans: list[tuple[int, int, str]]) -> tuple[Finding, ...]:
    by_kind: dict[str, list[tuple[int, int]]] = {}
    for start, end, kind in spans:
        by_kind.setdefault(kind, []).append((start, end))
    return tuple(
        Finding(
            kind=kind,
            count=len(offsets),
            lines=tuple(sorted({text.count("\n", 0, s) + 1 for s, _ in offsets})),
            offsets=tuple(offsets),
        )
        for kind, offsets in sorted(by_kind.items())
    )


def redact(text: str, *, rules: tuple[Rule, ...] = RULES) -> RedactionResult:
    """Replace every secret in ``text`` by ``[REDACTED:<kind>]`` and report where they were."""
    spans = _claim_spans(text, rules)
    if not spans:
        return RedactionResult(text)
    pieces, cursor = [], 0
    for start, end, kind in spans:
        pieces.append(text[cursor:start])
        pieces.append(placeholder(kind))
        cursor = end
    pieces.append(text[cursor:])
    return RedactionResult("".join(pieces), _findings(text, spans))


def redact_text(text: str) -> str:
    """Just the redacted text."""
    return redact(text).text


def merge_counts(*counts: dict[str, int]) -> dict[str, int]:
    """Sum several ``{kind: count}`` reports (e.g. the findings of every exchange of a run)."""
    total: dict[str, int] = {}
    for c in counts:
        for kind, n in c.items():
            total[kind] = total.get(kind, 0) + n
    return dict(sorted(total.items()))
