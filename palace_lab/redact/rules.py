"""The redaction rules: one per kind of secret, tried in the order of :data:`RULES`.

A *rule* names one kind of secret and a regular expression whose ``secret`` group is the part
to hide; the surrounding words (``Bearer``, ``--password=``, ``DB_PASSWORD=``, the user name of
a URL) stay. ``triggers`` are substrings without which a rule cannot match (a cheap ``in`` test
before any regular expression runs); ``plausible`` tests the secret itself (keys mix letters and
digits; a generic ``key = value`` value must be long and of high entropy). The first rules name
the provider by its key's own shape; the last two are the generic password assignment and
high-entropy ``key = value`` rules, which only see what no earlier rule claimed.
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
    accept: Callable[[re.Match], bool] | None = None  # a test that needs the whole match

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


def _rule(kind: str, regex: str, *triggers: str, plausible=None, flags: int = 0,
          accept=None) -> Rule:
    return Rule(kind, re.compile(regex, flags), plausible, triggers, accept)


def _cased(*words: str) -> tuple[str, ...]:
    """Each word as written, Capitalised and UPPER: the triggers of a case-blind rule."""
    return tuple(dict.fromkeys(v for w in words for v in (w, w.capitalize(), w.upper())))


def shannon_bits(token: str) -> float:
    """Shannon entropy of a token's characters, in bits per character."""
    from collections import Counter
    from math import log2

    n = len(token)
    return -sum(c / n * log2(c / n) for c in Counter(token).values()) if n else 0.0


def _high_entropy(value: str) -> bool:
    # Generated secrets: long, letters mixed with digits, and no run of plain words.
    bare = value.strip("'\"")
    return (len(bare) >= 16 and _is_literal_value(value) and _looks_random(bare)
            and shannon_bits(bare) >= 3.0 and not _REFERENCE.fullmatch(bare)
            and " " not in bare)


def _password_value(value: str) -> bool:
    # A quoted literal is the password itself; a bare one must not read as a variable name
    # or a dotted reference (`password = form.password.data`, `password: str`).
    bare = value.strip("'\"")
    if not _is_literal_value(value) or len(bare) < 4 or " " in bare:
        return False
    if value[:1] in "'\"":
        return True
    return not _REFERENCE.fullmatch(bare)


def _basic_credentials(value: str) -> bool:
    import base64
    import binascii

    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    return b":" in decoded


_REFERENCE = re.compile(r"[A-Za-z_][A-Za-z_]*(?:\.[A-Za-z_]\w*)*|\w+\(.*\)")


_SECRET_NAME = (
    r"[A-Z][A-Z0-9_]*(?:_KEY|_SECRET|_TOKEN|_PASSWORD|_PASSWD|_PWD|_PASS|_CREDENTIALS)"
    r"|PASSWORD|PASSWD|SECRET|TOKEN|SECRET_KEY|PRIVATE_KEY"
)

_PEM_BEGIN = r"(?P<secret>-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----"
_SECRET_FLAGS = (
    "password", "passwd", "pass", "token", "secret", "api-key", "api_key", "apikey",
    "access-token", "auth-token", "client-secret",
)

_FIRST_RULES: tuple[Rule, ...] = (
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
    # `echo <token> | docker login … --password-stdin` (or `gh auth login --with-token`): the
    # echoed literal is the password; `echo $TOKEN` and `echo "${{ secrets.X }}"` are not.
    _rule(
        "password_stdin",
        r"""\b(?:echo(?:[ \t]+-[neE]+)?|printf(?:[ \t]+(?:'%s'|"%s"|%s))?)[ \t]+"""
        r"""(?P<secret>"[^"\n]+"|'[^'\n]+'|[^\s'"|;&]+)[ \t]*\|[^\n|]*?\blogin\b[^\n|]*?"""
        r"--(?:password-stdin|with-token)\b",
        "--password-stdin", "--with-token",
        plausible=_is_literal_value,
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



_ASSIGN = r"""[\w.-]*["']?[ \t]*(?:=(?!=)|:(?!:))[ \t]*"""
_VALUE = r"""(?P<secret>"[^"\n]+"|'[^'\n]+'|[^\s'",;]+)"""
_KEY_WORDS = (r"secret|token|credential|signature|"
              r"(?:api|access|private|auth|client|signing|master|encryption|account)[_-]?key")

_PROVIDER_AND_GENERIC_RULES: tuple[Rule, ...] = (
    _rule("aws_secret_key",
          r"(?i)(?:aws_?secret_?access_?key|secret_?access_?key)[\"']?[ \t]*[:=][ \t]*[\"']?"
          r"(?P<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])", *_cased("secret")),
    _rule("slack_webhook",
          r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<secret>[A-Za-z0-9/_-]{20,})",
          "hooks.slack.com"),
    _rule("stripe_key", r"\b(?P<secret>(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,})", "_live_",
          "_test_"),
    _rule("stripe_webhook_secret", r"\b(?P<secret>whsec_[A-Za-z0-9]{24,})", "whsec_"),
    _rule("google_api_key", r"\b(?P<secret>AIza[0-9A-Za-z_-]{35})(?![0-9A-Za-z_-])", "AIza"),
    _rule("google_oauth_secret", r"\b(?P<secret>GOCSPX-[A-Za-z0-9_-]{28})", "GOCSPX-"),
    _rule("azure_key",
          r"(?:AccountKey|SharedAccessKey|SharedAccessSignature)=(?P<secret>[A-Za-z0-9+/%]{20,}"
          r"={0,2})", "AccountKey=", "SharedAccessKey=", "SharedAccessSignature="),
    _rule("pypi_token", r"(?P<secret>(?:\bpypi-)?AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,})",
          "AgEIcHlwaS5vcmc"),
    _rule("twilio_api_key", r"\b(?P<secret>SK[0-9a-fA-F]{32})\b", "SK"),
    # Twilio's auth token is bare hex; only the account SID written just before it (a
    # positional `Client("AC…", "…")`, a `-u AC…:…`) tells it from a digest.
    _rule("twilio_auth_token",
          r"\bAC[0-9a-fA-F]{32}\b[\"']?\s*[,:]\s*[\"']?(?P<secret>[0-9a-fA-F]{32})(?![0-9a-zA-Z])",
          "AC", plausible=_looks_random),
    # A SAS URL's signature is the credential; the other query fields (sv, se, sp) are not.
    _rule("azure_sas_signature",
          r"(?<![\w.-])sig=(?P<secret>[A-Za-z0-9%+/=_-]{20,})", "sig=", plausible=_looks_random),
    _rule("sendgrid_api_key", r"\b(?P<secret>SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})", "SG."),
    _rule("mailgun_api_key", r"\b(?P<secret>key-[0-9a-f]{32})\b", "key-"),
    _rule("huggingface_token", r"\b(?P<secret>hf_[A-Za-z0-9]{34,})\b", "hf_",
          plausible=lambda t: any(c.isupper() for c in t) and any(c.islower() for c in t[3:])),
    _rule("discord_webhook",
          r"discord(?:app)?\.com/api/webhooks/\d+/(?P<secret>[A-Za-z0-9_-]{30,})",
          "/api/webhooks/"),
    _rule("discord_bot_token",
          r"(?<![\w.-])(?P<secret>[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40})"
          r"(?![\w.-])", plausible=_looks_random),
    _rule("telegram_bot_token", r"(?<![\d:])(?P<secret>\d{8,10}:AA[A-Za-z0-9_-]{33})(?![\w-])",
          ":AA"),
    _rule("digitalocean_token", r"\b(?P<secret>do[opr]_v1_[a-f0-9]{64})\b", "_v1_"),
    _rule("shopify_token", r"\b(?P<secret>shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32})\b", "shp"),
    _rule("square_token", r"\b(?P<secret>sq0(?:atp|csp)-[A-Za-z0-9_-]{22,43})", "sq0"),
    _rule("databricks_token", r"\b(?P<secret>dapi[a-f0-9]{32}(?:-\d)?)\b", "dapi"),
    _rule("age_secret_key", r"\b(?P<secret>AGE-SECRET-KEY-1[0-9A-Z]{58})\b", "AGE-SECRET-KEY-"),
    _rule("linear_api_key", r"\b(?P<secret>lin_api_[A-Za-z0-9]{40})\b", "lin_api_"),
    _rule("doppler_token", r"\b(?P<secret>dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44})\b",
          "dp."),
    _rule("newrelic_key", r"\b(?P<secret>NRAK-[A-Z0-9]{27})\b", "NRAK-"),
    _rule("postman_api_key", r"\b(?P<secret>PMAK-[a-f0-9]{24}-[a-f0-9]{34})\b", "PMAK-"),
    _rule("grafana_token", r"\b(?P<secret>glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})\b", "glsa_"),
    _rule("basic_auth", r"\bBasic[ \t]+(?P<secret>[A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])",
          "Basic", plausible=_basic_credentials),
    _rule("jwt",
          r"(?<![\w.-])(?P<secret>eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{10,})",
          "eyJ"),
    _rule("password_assignment", r"(?i)(?:passw(?:or)?d|pwd)" + _ASSIGN + _VALUE,
          *_cased("pass", "pwd"), plausible=_password_value),
    _rule("generic_secret", r"(?i)(?:" + _KEY_WORDS + ")" + _ASSIGN + _VALUE,
          *_cased("secret", "token", "credential", "signature", "key"),
          plausible=_high_entropy),
)


RULES: tuple[Rule, ...] = _FIRST_RULES + _PROVIDER_AND_GENERIC_RULES
