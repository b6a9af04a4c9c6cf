"""The redaction table: secret kinds that must be removed, and look-alikes that must survive.

Fake secrets are generated with the real shapes by a seeded generator, so this file holds no
string a secret scanner would flag. Each secret row is (kind, secret, the line it sits in with
``{s}`` marking it); each look-alike is a line that must come back byte for byte.
"""

from __future__ import annotations

import base64
import random
import string

_RNG = random.Random(10_2026)
ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
UPPER = string.ascii_uppercase + string.digits
URLSAFE = ALNUM + "-_"


def fake(n: int, alphabet: str = ALNUM) -> str:
    """A random token that mixes letters and digits (as keys do) when its alphabet allows."""
    mixed = any(c.isdigit() for c in alphabet) and any(c.isalpha() for c in alphabet)
    while True:
        token = "".join(_RNG.choice(alphabet) for _ in range(n))
        if not mixed or (any(c.isdigit() for c in token) and any(c.isalpha() for c in token)):
            return token


def _b64(n: int) -> str:
    return fake(n, ALNUM + "+/")


def _hf() -> str:
    while True:
        token = fake(34, string.ascii_letters)
        if any(c.isupper() for c in token) and any(c.islower() for c in token):
            return "hf_" + token


def _basic() -> str:
    return base64.b64encode(f"deploy:{fake(14)}".encode()).decode()


def _jwt() -> str:
    head = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    body = base64.urlsafe_b64encode(b'{"sub":"1234567890","name":"Al"}').decode().rstrip("=")
    return f"{head}.{body}.{fake(43, URLSAFE)}"


PYPI = "pypi-AgEIcHlwaS5vcmc" + fake(70, URLSAFE)
TELEGRAM = f"{fake(10, string.digits)}:AA{fake(33, URLSAFE)}"

# (kind, secret, line)
SECRET_ROWS = [
    ("anthropic_api_key", "sk-ant-api03-" + fake(93, URLSAFE) + "AA", "key {s} in the notebook"),
    ("openai_project_key", "sk-proj-" + fake(74, URLSAFE), "OpenAI(api_key='{s}')"),
    ("openai_api_key", "sk-" + fake(48), "old style key {s}"),
    ("aws_access_key", "AKIA" + fake(16, UPPER), "aws_access_key_id = {s}"),
    ("github_token", "ghp_" + fake(36), "gh token {s}"),
    ("slack_token", f"xoxb-{fake(12, string.digits)}-{fake(24)}", "slack bot {s}"),
    ("gitlab_token", "glpat-" + fake(20, URLSAFE), "PRIVATE-TOKEN: {s}"),
    ("npm_token", "npm_" + fake(36), "//registry.npmjs.org/:_authToken={s}"),
    ("bearer_token", fake(40), "Authorization: Bearer {s}"),
    ("url_password", fake(18), "postgres://app:{s}@db.internal:5432/app"),
    ("cli_secret_flag", fake(16), "docker login -u ci --password {s} registry.example.com"),
    ("env_secret", fake(24), "DB_PASSWORD={s}"),
    ("private_key", "-----BEGIN EC PRIVATE KEY-----\n" + _b64(64) + "\n-----END EC PRIVATE KEY-----",
     "{s}"),
    ("aws_secret_key", _b64(40), "aws_secret_access_key = {s}"),
    ("aws_secret_key", _b64(40), '"SecretAccessKey": "{s}",'),
    ("slack_webhook", f"T{fake(10, UPPER)}/B{fake(10, UPPER)}/{fake(24)}",
     "curl -X POST https://hooks.slack.com/services/{s} -d @msg.json"),
    ("stripe_key", "sk_live_" + fake(24), "stripe.api_key = '{s}'"),
    ("stripe_key", "rk_test_" + fake(24), "restricted key {s} for the webhook job"),
    ("stripe_webhook_secret", "whsec_" + fake(32), "the endpoint signs with {s}"),
    ("google_api_key", "AIza" + fake(35, URLSAFE), "maps?key={s}&v=3"),
    ("google_oauth_secret", "GOCSPX-" + fake(28, URLSAFE), "client secret {s} from the console"),
    ("azure_key", _b64(86) + "==",
     "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={s};EndpointSuffix=core.windows.net"),
    ("azure_key", _b64(43) + "=",
     "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey={s}"),
    ("jwt", _jwt(), "the cookie held {s} until logout"),
    ("pypi_token", PYPI, "twine upload -u __token__ -p {s} dist/*"),
    ("pypi_token", PYPI[5:], "password = {s}  # the token after pypi-"),
    ("twilio_api_key", "SK" + fake(32, HEX), "twilio api key sid {s}"),
    ("sendgrid_api_key", f"SG.{fake(22, URLSAFE)}.{fake(43, URLSAFE)}", "sendgrid: {s}"),
    ("mailgun_api_key", "key-" + fake(32, HEX), "mailgun auth api:{s}"),
    ("huggingface_token", _hf(), "logged in to the hub with {s}"),
    ("discord_bot_token", f"M{fake(25, URLSAFE)}.{fake(6, URLSAFE)}.{fake(38, URLSAFE)}",
     "client.run({s})"),
    ("discord_webhook", fake(68, URLSAFE),
     "https://discord.com/api/webhooks/123456789012345678/{s}"),
    ("telegram_bot_token", TELEGRAM, "https://api.telegram.org/bot{s}/sendMessage"),
    ("digitalocean_token", "dop_v1_" + fake(64, HEX), "doctl auth init -t {s}"),
    ("shopify_token", "shpat_" + fake(32, HEX), "X-Shopify-Access-Token: {s}"),
    ("square_token", "sq0atp-" + fake(22, URLSAFE), "square access {s}"),
    ("databricks_token", "dapi" + fake(32, HEX), "databricks configure with {s}"),
    ("age_secret_key", "AGE-SECRET-KEY-1" + fake(58, UPPER), "# secret key: {s}"),
    ("linear_api_key", "lin_api_" + fake(40), "linear key {s}"),
    ("doppler_token", "dp.pt." + fake(43), "doppler personal token {s}"),
    ("newrelic_key", "NRAK-" + fake(27, UPPER), "new relic user key {s}"),
    ("postman_api_key", f"PMAK-{fake(24, HEX)}-{fake(34, HEX)}", "postman {s}"),
    ("grafana_token", f"glsa_{fake(32)}_{fake(8, HEX)}", "grafana service account {s}"),
    ("basic_auth", _basic(), "Authorization: Basic {s}"),
    ("password_assignment", "hunter2!x", "db_password: {s}"),
    ("password_assignment", "'Tr0ub4dor&3'", "password = {s}"),
    ("generic_secret", fake(32), "client_secret = {s}"),
    ("generic_secret", '"' + fake(40, URLSAFE) + '"', '"refresh_token": {s}'),
    ("generic_secret", fake(24), "webhook_signing_key: {s}"),
    # Found by a probe (issue 29): shapes that name no provider by their own prefix.
    ("twilio_auth_token", fake(32, HEX), 'client = Client("AC' + fake(32, HEX) + '", "{s}")'),
    ("twilio_auth_token", fake(32, HEX), "curl -u AC" + fake(32, HEX) + ":{s} https://api.twilio.com"),
    ("password_stdin", fake(24), "echo {s} | docker login ghcr.io -u alice --password-stdin"),
    ("password_stdin", "'" + fake(20) + "'",
     "echo -n {s} | podman login -u ci --password-stdin quay.io"),
    ("password_stdin", fake(40), "echo {s} | gh auth login --with-token"),
    ("azure_sas_signature", fake(43, ALNUM + "+/") + "%3D",
     "https://acct.blob.core.windows.net/c/b.csv?sv=2022-11-02&ss=b&srt=o&sp=r"
     "&se=2026-12-01T00:00:00Z&spr=https&sig={s}"),
    ("azure_sas_signature", fake(44, ALNUM) ,
     "AZURE_SAS_URL: https://acct.queue.core.windows.net/q?sig={s}&se=2026-12-01&sp=rau"),
]

LOOK_ALIKES = [
    "commit 3f786850e387550fdab836ed7e6dc881de23001b and its short form 3f78685",
    "digest sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "trace 550e8400-e29b-41d4-a716-446655440000 and span 6ba7b810-9dad-11d1-80b4-00c04fd430c8",
    "/home/alice/projects/palace_lab/palace_lab/redact.py:200 in _claim_spans",
    "src/components/SecretSantaForm.tsx and tests/test_token_budget.py",
    "token_count = 12345\nmax_tokens = 4096\ntoken_type = 'Bearer'",
    "cache_key = content_hash(exchange_id, verbatim)",
    "password = getpass.getpass()\nif password != confirm: raise ValueError('mismatch')",
    "password = form.password.data\npassword: str = ''",
    "secret_name = 'prod-db-password'  # the name in the vault, not the value",
    "api_key = os.environ['STRIPE_API_KEY']",
    "csrf_token = '{{ csrf_token }}'",
    "pk_live_ is the publishable prefix; sk_live_ keys start with it",
    "AIza is the prefix of Google API keys (AIzaSy...)",
    "hf_hub_download(repo_id='sentence-transformers/all-MiniLM-L6-v2')",
    "SG.example is not a key; neither is SGD or SG.py",
    "key-value store, key-frame, the key-up event",
    "a telegram id 123456789 and chat 12345:67890",
    "eyJhbGciOiJIUzI1NiJ9 is a JWT header alone, without body or signature",
    "doppler dp.pt. prefix and do_v1 tags",
    "docker pull python@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
    "MAC 00:1A:2B:3C:4D:5E and IPv6 2001:0db8:85a3:0000:0000:8a2e:0370:7334",
    "color: #ff00aa; background: #0a0b0c; font: 12px/1.5 monospace",
    "released v2.13.0 on 2026-09-01T10:00:00Z (build 20260901.3)",
    "Basic usage: run the tool. Authorization: Basic realm=\"api\"",
    "SKU SK-1234 and SKIP_LIST",
    "the model dapi-client and shpat are just words",
    "secret: the answer is in the runbook, page 3",
    "public_key = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb5 alice@laptop'",
    "git@github.com:org/repo.git, alice@example.com, http://localhost:8080/a@v2",
    "ICON = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='",
    "primary_key = 'id'; sort_key: created_at; partition_key = tenant_id",
    "NRAK- is New Relic's prefix; PMAK- is Postman's; glsa_ is Grafana's",
    # Near the issue 29 shapes: digests, UUIDs and references must survive.
    "md5 9e107d9d372bb6826bd81d3542a419d6, d41d8cd98f00b204e9800998ecf8427e",
    "account ACdeadbeef and ids 550e8400e29b41d4a716446655440000, 6ba7b8109dad11d180b400c04fd430c8",
    'client = Client(os.environ["TWILIO_ACCOUNT_SID"], os.environ["TWILIO_AUTH_TOKEN"])',
    'echo $CR_PAT | docker login ghcr.io -u alice --password-stdin',
    'echo "${{ secrets.GITHUB_TOKEN }}" | docker login ghcr.io -u $ --password-stdin',
    "cat ~/token.txt | docker login --username ci --password-stdin registry.example.com",
    "the sig= field of a SAS URL is the signature; sv=2022-11-02&sp=r is not secret",
    "gpg writes release.tar.gz.sig=detached signature, see docs#sig=1",
]
