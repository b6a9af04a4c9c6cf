"""Secret redaction: every kind removed and reported; ordinary text left byte for byte.

The fake secrets are generated at test time (a seeded generator with the real shapes), so this
file holds no string a secret scanner would flag, yet each value looks like the real thing.
"""

from __future__ import annotations

import json
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from palace_lab.redact import RULES, merge_counts, redact, redact_text
from redaction_table import ALNUM, UPPER, fake  # one generator of fake keys for both tables

DIGITS = string.digits
PEM_BODY = "\n".join(fake(64, ALNUM + "+/") for _ in range(4))
JWT = "eyJhbGciOiJIUzI1NiJ9." + fake(40) + "." + fake(43, ALNUM + "-_")


def pem(label: str) -> str:
    return f"-----BEGIN {label}-----\n{PEM_BODY}\n-----END {label}-----"


# (kind, secret, line the secret appears in, marked {s})
SECRETS = [
    ("anthropic_api_key", "sk-ant-api03-" + fake(93, ALNUM + "-_") + "AA", "export ANTHROPIC_API_KEY={s}"),
    ("openai_project_key", "sk-proj-" + fake(74, ALNUM + "-_"), 'client = OpenAI(api_key="{s}")'),
    ("openai_api_key", "sk-" + fake(48), "the key sk for the bot: {s}"),
    ("aws_access_key", "AKIAIOSFODNN7EXAMPLE", "aws_access_key_id = {s}"),
    ("aws_access_key", "ASIA" + fake(16, UPPER), "AccessKeyId: {s}"),
    ("github_token", "ghp_" + fake(36), "git remote set-url origin https://x-access-token@github.com # {s}"),
    ("github_token", "gho_" + fake(36), "oauth token {s} expires tomorrow"),
    ("github_token", "ghs_" + fake(36), "GH_INSTALLATION={s}"),
    ("github_token", "github_pat_11" + fake(20) + "_" + fake(59), "gh auth login --with-token < {s}"),
    ("slack_token", f"xoxb-{fake(12, DIGITS)}-{fake(13, DIGITS)}-{fake(24)}", "slack bot {s}"),
    ("slack_token", f"xoxp-{fake(11, DIGITS)}-{fake(12, DIGITS)}-{fake(32)}", "user token: {s}"),
    ("slack_token", f"xoxa-2-{fake(12, DIGITS)}-{fake(30)}", "app token={s};"),
    ("gitlab_token", "glpat-" + fake(20, ALNUM + "-_"), "PRIVATE-TOKEN: {s}"),
    ("npm_token", "npm_" + fake(36), "//registry.npmjs.org/:_authToken={s}"),
    ("bearer_token", JWT, 'curl -H "Authorization: Bearer {s}" https://api.example.com/v1/me'),
    ("bearer_token", fake(40, ALNUM), "Authorization: Bearer {s}"),
    ("url_password", fake(18), "DATABASE_URL=postgres://app:{s}@db.internal:5432/app"),
    ("url_password", "p4ss-" + fake(10), "git clone https://deploy:{s}@git.example.com/team/repo.git"),
    ("url_password", fake(12), "redis://:{s}@cache:6379/0 and amqp://guest:{s}@mq:5672/"),
    ("cli_secret_flag", fake(16), "docker login -u ci --password {s} registry.example.com"),
    ("cli_secret_flag", fake(40), "vault login --token={s}"),
    ("cli_secret_flag", "'" + fake(20) + "'", "mytool --api-key {s} --verbose"),
    ("cli_secret_flag", "Sh0p" + fake(10), "mysql -u root -p{s} shop < dump.sql"),
    ("cli_secret_flag", "R00t" + fake(10), "mysqldump -u admin -p {s} --all-databases > all.sql"),
    ("cli_secret_flag", fake(14), "sshpass -p {s} ssh deploy@10.0.0.4"),
    ("env_secret", fake(24), "DB_PASSWORD={s}"),
    ("env_secret", fake(32), "SESSION_SECRET={s}"),
    ("env_secret", '"' + fake(40) + '"', "export JWT_SIGNING_TOKEN={s}"),
    ("env_secret", "hunter2", "PASSWORD=hunter2"),
    ("env_secret", fake(40, ALNUM + "/+"), "AWS_SECRET_ACCESS_KEY={s}"),
    ("private_key", pem("RSA PRIVATE KEY"), "{s}"),
    ("private_key", pem("OPENSSH PRIVATE KEY"), "key file:\n{s}"),
    ("private_key", f"-----BEGIN PRIVATE KEY-----\n{PEM_BODY}", "truncated paste: {s}"),
]


def _case_id(case) -> str:
    return f"{case[0]}:{case[2][:18]}"


@pytest.mark.parametrize("kind, secret, line", SECRETS, ids=[_case_id(c) for c in SECRETS])
def test_every_secret_is_removed_and_reported(kind, secret, line):
    text = "before the secret\n" + line.format(s=secret) + "\nafter the secret"
    result = redact(text)
    assert secret not in result.text
    assert result.text == text.replace(secret, f"[REDACTED:{kind}]")
    assert set(result.counts) == {kind}
    assert result.counts[kind] == text.count(secret)
    finding = result.findings[0]
    first_line = 2 + line.format(s=secret)[: line.format(s=secret).index(secret)].count("\n")
    assert finding.lines[0] == first_line
    assert all(text[a:b] == secret for a, b in finding.offsets)
    assert secret not in repr(result.findings) and secret not in json.dumps(result.to_dict())


def test_the_table_covers_every_rule_kind():
    assert len(SECRETS) >= 20
    from redaction_table import SECRET_ROWS  # the kinds added later have their own table

    assert {r.kind for r in RULES} <= {kind for kind, _, _ in SECRETS + SECRET_ROWS}


ORDINARY = [
    "commit 3f786850e387550fdab836ed7e6dc881de23001b fixed it (short: 3f78685)",
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "request id 550e8400-e29b-41d4-a716-446655440000 failed",
    "/home/alice/projects/palace_lab/palace_lab/store.py:120: in migrate",
    r"C:\Users\bob\app\settings.py and src/components/TaskSkipButton.tsx",
    "run the task-skip flow, then risk-assessment, desk-lamp and ask-questions-first",
    'ICON = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="',
    'api_key = os.environ["ANTHROPIC_API_KEY"]',
    'TOKEN = os.getenv("GITHUB_TOKEN")',
    "API_KEY=${API_KEY}\nGITHUB_TOKEN=$GH_TOKEN\nSECRET_KEY=<your-secret-here>",
    "MAX_TOKENS=4096\nMAX_TOKEN = 512\nDEBUG=true\nSECRET_KEY=changeme",
    "password = getpass.getpass()\nif token is None:\n    raise AuthError('no token')",
    "https://github.com/org/repo/commit/3f786850e387550fdab836ed7e6dc881de23001b",
    "http://localhost:8080/path@v2 and git@github.com:org/repo.git and alice@example.com",
    "postgres://localhost:5432/app?sslmode=require",
    "mkdir -p build/out && docker run -p 8080:80 nginx && ssh -p 2222 host",
    "pytest -p no:cacheprovider; psql -p 5432 -U app; docker login --password-stdin",
    "Bearer tokens go in the Authorization header; see sk-learn, scikit-learn and xoxo",
    "npm_config_cache=/tmp/npm and the ghp_ prefix marks a classic token",
    "import numpy as np\nx = np.frombuffer(b'\\x00\\x01', dtype='<f4')  # little-endian float32",
    "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----",
    "The run cost $0.42 for 1,000 exchanges (371 -> 38 tokens, 9.8x).",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_is_left_byte_for_byte(text):
    result = redact(text)
    assert result.text == text
    assert result.findings == () and not result.redacted


def test_several_secrets_are_counted_by_kind_with_line_numbers():
    key, pw = "AKIA" + fake(16, UPPER), fake(20)
    text = f"a\nkey {key}\nb\nDB_PASSWORD={pw}\nkey again {key}\n"
    result = redact(text)
    assert result.counts == {"aws_access_key": 2, "env_secret": 1}
    by_kind = {f.kind: f for f in result.findings}
    assert by_kind["aws_access_key"].lines == (2, 5)
    assert by_kind["env_secret"].lines == (4,)


def test_a_key_after_bearer_is_reported_once_as_its_own_kind():
    key = "sk-ant-api03-" + fake(60)
    result = redact(f"Authorization: Bearer {key}")
    assert result.text == "Authorization: Bearer [REDACTED:anthropic_api_key]"
    assert result.counts == {"anthropic_api_key": 1}


def test_merge_counts_adds_reports():
    assert merge_counts({"a": 1}, {"a": 2, "b": 1}) == {"a": 3, "b": 1}
    assert redact_text("x") == "x"


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=ALNUM + " -_=:/@.\n'\"", max_size=200))
def test_redaction_is_idempotent(text):
    once = redact(text).text
    assert redact(once).text == once


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=string.hexdigits + " -/.\n", max_size=300))
def test_hex_digests_and_paths_never_change(text):
    assert redact(text).text == text
