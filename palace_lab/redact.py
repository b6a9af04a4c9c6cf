"""Secret redaction: what leaves the machine never carries a credential.

Every text the Anthropic backend sends out (and every field of the card it keeps) passes
through :func:`redact` first. A *rule* names one kind of secret and a regular expression whose
``secret`` group is the part to hide; the surrounding words (``Bearer``, ``--password=``,
``DB_PASSWORD=``, the user name of a URL) stay, so the text still reads as what it was.

Invariants:

- A secret is replaced by ``[REDACTED:<kind>]``; nothing else in the text changes. Ordinary
  text (git SHAs, sha256 digests, UUIDs, file paths, base64 in code, words like ``task-skip``)
  is returned byte for byte.
- Findings report the kind, the count, the 1-based line numbers and the character offsets of
  each secret in the *original* text, never the secret itself.
- Rules are tried in the order of :data:`RULES`; a span already claimed by an earlier rule is
  not matched again, so an ``sk-ant-`` key after ``Bearer`` is reported once, as an
  Anthropic key. Redacting twice changes nothing the second time.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

_QUOTED_OR_BARE = r"""(?P<secret>"[^"\n]+"|'[^'\n]+'|[^\s'"]+)"""


@dataclass(frozen=True)
class Rule:
    """One kind of secret: a pattern with a ``secret`` group, an optional plausibility test,
    and the substrings (any of them) without which the pattern cannot match. The substring
    test is what keeps redaction fast: most texts hold none of them, and ``in`` is far cheaper
    than a regular expression scan that cannot start from a literal prefix."""

    kind: str
    pattern: re.Pattern[str]
    plausible: Callable[[str], bool] | None = None
    triggers: tuple[str, ...] = ()

    def may_match(self, text: str) -> bool:
        return not self.triggers or any(t in text for t in self.triggers)


def _looks_random(token: str) -> bool:
    # Real keys mix letters and digits; a run of one letter or a plain word is not a key.
    return any(c.isdigit() for c in token) and any(c.isalpha() for c in token)


_NOT_SECRETS = {"true", "false", "none", "null", "yes", "no", "changeme", "xxx", "..."}


def _is_literal_value(value: str) -> bool:
    # `API_KEY=$OTHER`, `${OTHER}`, `os.environ[...]`, `<your-key>` are references or
    # placeholders, and `MAX_TOKEN = 512` is a setting: none of them is a secret.
    bare = value.strip("'\"")
    if not bare or bare.startswith("$") or any(c in bare for c in "()[]{}<>"):
        return False
    return bare.lower() not in _NOT_SECRETS and not (bare.isdigit() and len(bare) <= 6)


def _rule(kind: str, regex: str, *triggers: str, plausible=None, flags: int = 0) -> Rule:
    return Rule(kind, re.compile(regex, flags), plausible, triggers)


_SECRET_NAME = (
    r"[A-Z][A-Z0-9_]*(?:_KEY|_SECRET|_TOKEN|_PASSWORD|_PASSWD|_PWD|_PASS|_CREDENTIALS)"
    r"|PASSWORD|PASSWD|SECRET|TOKEN|SECRET_KEY|PRIVATE_KEY"
)

_PEM_BEGIN = r"(?P<secret>-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----"
_SECRET_FLAGS = (
    "password", "passwd", "pass", "token", "secret", "api-key", "api_key", "apikey",
    "access-token", "auth-token", "client-secret",
)

RULES: tuple[Rule, ...] = (
    _rule(
        "private_key",
        _PEM_BEGIN + r"[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----)",
        "PRIVATE KEY-----",
    ),
    # A block cut off before its END line (a truncated paste): the header lines and base64.
    _rule(
        "private_key",
        _PEM_BEGIN + r"(?:\r?\n[A-Za-z-]+: [^\n]*)*(?:\r?\n[A-Za-z0-9+/=]+(?=\r?\n|\Z))+)",
        "PRIVATE KEY-----",
    ),
    _rule("anthropic_api_key", r"\b(?P<secret>sk-ant-[A-Za-z0-9_-]{20,})", "sk-ant-"),
    _rule("openai_project_key", r"\b(?P<secret>sk-proj-[A-Za-z0-9_-]{20,})", "sk-proj-"),
    _rule(
        "openai_api_key",
        r"(?<![\w-])(?P<secret>sk-[A-Za-z0-9_-]{20,})",
        "sk-",
        plausible=_looks_random,
    ),
    _rule("aws_access_key", r"\b(?P<secret>(?:AKIA|ASIA)[0-9A-Z]{16})\b", "AKIA", "ASIA"),
    _rule(
        "github_token",
        r"\b(?P<secret>(?:ghp|gho|ghs|ghu|ghr)_[A-Za-z0-9]{30,})\b",
        "ghp_", "gho_", "ghs_", "ghu_", "ghr_",
    ),
    _rule("github_token", r"\b(?P<secret>github_pat_[A-Za-z0-9_]{30,})\b", "github_pat_"),
    _rule(
        "slack_token",
        r"\b(?P<secret>xox[abpors]-[A-Za-z0-9-]{10,})",
        "xox",
        plausible=_looks_random,
    ),
    _rule(
        "gitlab_token", r"\b(?P<secret>glpat-[A-Za-z0-9_-]{20,})", "glpat-", plausible=_looks_random
    ),
    _rule("npm_token", r"\b(?P<secret>npm_[A-Za-z0-9]{36})\b", "npm_"),
    _rule(
        "bearer_token",
        r"\bBearer\s+(?P<secret>[A-Za-z0-9._~+/-]{16,}=*)",
        "Bearer", "bearer", "BEARER",
        plausible=_looks_random,
        flags=re.IGNORECASE,
    ),
    _rule(
        "url_password",
        r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@]*:(?P<secret>[^\s@/]+)@",
        "://",
    ),
    _rule(
        "cli_secret_flag",
        r"(?<![\w-])--(?:" + "|".join(_SECRET_FLAGS) + r")(?:=|[ \t]+)(?!-)" + _QUOTED_OR_BARE,
        *("--" + f for f in _SECRET_FLAGS),
    ),
    _rule(
        "cli_secret_flag",
        r"\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump|sshpass)\b[^\n]*?"
        r"[ \t]-p[ \t]*(?!-)(?P<secret>[^\s-][^\s]*)",
        "mysql", "mariadb", "sshpass",
    ),
    _rule(
        "env_secret",
        r"^[ \t]*(?:export[ \t]+)?(?:" + _SECRET_NAME + r")[ \t]*=[ \t]*"
        r"(?P<secret>\"[^\"\n]*\"|'[^'\n]*'|[^\s#]+)[ \t]*(?:#.*)?$",
        "KEY", "SECRET", "TOKEN", "PASS", "PWD", "CREDENTIALS",
        plausible=_is_literal_value,
        flags=re.MULTILINE,
    ),
)


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
