"""Secret redaction: what leaves the machine never carries a credential.

Every text sent to an LLM backend (:class:`palace_lab.llm.LLMClient` redacts each request
itself), every field of every distilled card and every memory pack passes through
:func:`redact`. The verbatim layer keeps the original text. The rules are in
:mod:`palace_lab.redact.rules`, applying them in :mod:`palace_lab.redact.core`, and removing the
pieces of an exchange's secrets from what was made of it in :mod:`palace_lab.redact.known`.

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

from palace_lab.redact.core import (
    Finding, RedactionResult, merge_counts, placeholder, redact, redact_text,
)
from palace_lab.redact.known import redact_card, redact_with_known, secrets_in, stored_card
from palace_lab.redact.rules import RULES, Rule, shannon_bits

__all__ = [
    "RULES", "Finding", "RedactionResult", "Rule", "merge_counts", "placeholder", "redact",
    "redact_card", "redact_text", "redact_with_known", "secrets_in", "shannon_bits", "stored_card",
]
