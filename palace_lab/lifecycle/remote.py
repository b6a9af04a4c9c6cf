"""The optional LLM paths: session compression by a model and an LLM preservation judge.

Everything goes through a structured client (:class:`palace_lab.llm.LLMClient` for Claude, a
forced tool call; :class:`palace_lab.llm.openai.OpenAICompatClient` for a local model, a JSON
answer; both with one repair turn, retries and a hard cost cap). Both the instructions and the user turn open
with a marker (``[palace_lab:compress]``, ``[palace_lab:validate]``) so a transcript of our own
calls is never ingested as the person's history. Text is redacted before it leaves the
machine and cut in the middle to ``max_chars``.

- Extractive: the session's sentences are numbered and the model answers with the numbers to
  keep, so the summary is still the session's own sentences, verbatim.
- Abstractive: the model fills the five one-line sections.
- Judge: the model lists the original's specific facts, each preserved/dropped/distorted, and
  a score 0-1.

Answers are cached by content (model, method, prompt version, sent text) in a mapping; with a
palace, :class:`PalaceCache` keeps them in its key/value table, so asking twice costs once.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from palace_lab.errors import DistillError
from palace_lab.lifecycle.units import Unit

if TYPE_CHECKING:
    from palace_lab.store import Palace

MARKER = "[palace_lab:compress]"
JUDGE_MARKER = "[palace_lab:validate]"
PROMPT_VERSION = "1"
MAX_CHARS = 60_000
EXPECTED_TOKENS = {"extractive": 300, "abstractive": 400, "judge": 600}

INSTRUCTIONS = {
    "extractive": f"""{MARKER} You compress one working session between a person and a coding \
agent by choosing its key sentences. The sentences are numbered [n]. Keep the sentences that \
carry the requests, decisions and their reasons, concrete facts (identifiers, file paths, \
numbers with units, error messages) and outcomes; drop greetings, acknowledgements and \
narration such as "let me look at…". Keep about one third of the text. Call record_selection \
once with the numbers of the sentences to keep.""",
    "abstractive": f"""{MARKER} You compress one working session between a person and a coding \
agent into five one-line fields: goal, decisions, facts, open_questions, next_actions. Use the \
session's own words; copy identifiers, file paths, numbers with units and error messages \
exactly; invent nothing; write "none" for an empty field. Call record_summary once.""",
    "judge": f"""{JUDGE_MARKER} You check a compressed text against its original. List the \
original's specific facts (identifiers, file paths, numbers with units, error messages, \
decisions) and, for each, whether the compressed text preserved it, dropped it, or distorted \
it (kept it with a changed number or name). Then give an information-preservation score from \
0 to 1. Call record_validation once.""",
}
SCHEMAS = {
    "extractive": {"type": "object", "additionalProperties": False, "required": ["keep"],
                   "properties": {"keep": {"type": "array", "maxItems": 5000,
                                           "items": {"type": "integer", "minimum": 0}}}},
    "abstractive": {"type": "object", "additionalProperties": False,
                    "required": ["goal", "decisions", "facts", "open_questions", "next_actions"],
                    "properties": {k: {"type": "string", "maxLength": 1500} for k in
                                   ("goal", "decisions", "facts", "open_questions", "next_actions")}},
    "judge": {"type": "object", "additionalProperties": False, "required": ["facts", "score"],
              "properties": {
                  "facts": {"type": "array", "maxItems": 300, "items": {
                      "type": "object", "required": ["fact", "status"],
                      "properties": {"fact": {"type": "string", "maxLength": 400},
                                     "status": {"enum": ["preserved", "dropped", "distorted"]},
                                     "note": {"type": "string", "maxLength": 400}}}},
                  "score": {"type": "number", "minimum": 0, "maximum": 1}}},
}
TOOLS = {"extractive": "record_selection", "abstractive": "record_summary",
         "judge": "record_validation"}


class PalaceCache:
    """A mapping of answers kept in the palace's key/value table (JSON values)."""

    def __init__(self, palace: Palace, prefix: str = "lifecycle.llm:"):
        self.palace, self.prefix = palace, prefix

    def get(self, key: str):
        value = self.palace.kv_get(self.prefix + key)
        return json.loads(value) if value is not None else None

    def __setitem__(self, key: str, value) -> None:
        self.palace.kv_set(self.prefix + key, json.dumps(value))


def _shorten(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    head, tail = text[: limit * 2 // 3], text[len(text) - limit // 3:]
    return f"{head}\n[… {len(text) - len(head) - len(tail)} characters omitted …]\n{tail}"


def user_text(units: Sequence[Unit], method: str, *, max_chars: int = MAX_CHARS) -> str:
    """The redacted user turn for one session (numbered sentences when extractive)."""
    from palace_lab.redact import redact_text

    if method == "extractive":
        body = "\n".join(f"[{u.position}] {u.speaker}: {u.text}" for u in units if not u.code)
    else:
        body = "\n".join(f"{u.speaker}: {u.text}" for u in units)
    return f"{MARKER} Session:\n<session>\n{_shorten(redact_text(body), max_chars)}\n</session>"


def cache_key(model: str, method: str, text: str) -> str:
    return hashlib.sha1(f"{model}\x1f{method}\x1f{PROMPT_VERSION}\x1f{text}".encode()).hexdigest()


def ask(client, method: str, text: str, cache=None) -> tuple[dict, float]:
    """One structured call (or its cached answer); raises DistillError when it fails."""
    key = cache_key(client.model, method, text)
    cached = cache.get(key) if cache is not None else None
    if cached is not None:
        return cached, 0.0
    result = client.call_json(INSTRUCTIONS[method], text, SCHEMAS[method], tool_name=TOOLS[method],
                              max_tokens=4 * EXPECTED_TOKENS[method])
    if not result.ok:
        raise DistillError(f"the {method} call failed: {result.error}")
    if cache is not None:
        cache[key] = result.data
    return result.data, result.cost_usd


def estimate_cost(client, sessions: Sequence[Sequence[Unit]], method: str) -> float:
    """Dollars to compress ``sessions`` (each a list of units) with ``client``."""
    texts = [INSTRUCTIONS[method] + json.dumps(SCHEMAS[method]) + user_text(units, method)
             for units in sessions]
    return client.estimate_cost(texts, EXPECTED_TOKENS[method])


def compress_with_llm(client, units: Sequence[Unit], method: str, *, cache=None):
    """(text, dropped, cost) of one session compressed by the model."""
    from palace_lab.lifecycle.compress import Dropped, render_sections, render_units

    if client is None:
        raise DistillError("an LLM backend needs an LLMClient (and an API key) for anthropic, "
                           "or an OpenAICompatClient for openai-compat")
    data, cost = ask(client, method, user_text(units, method), cache)
    if method == "abstractive":
        parts = {k.replace("_", " "): v for k, v in data.items()}
        return render_sections(parts), [], cost
    keep = set(data["keep"])
    kept = [u for u in units if u.position in keep and not u.code]
    dropped = [Dropped(u.filler or ("code block" if u.code else "not selected (model)"), u.text)
               for u in units if u not in kept]
    return render_units(kept), dropped, cost


@dataclass(frozen=True)
class Judgement:
    """The LLM judge's answer: per-fact statuses and its score."""

    score: float
    facts: tuple[dict, ...]
    cost_usd: float = 0.0


def judge_preservation(client, original: str, compressed: str, *, cache=None,
                       max_chars: int = 20_000) -> Judgement:
    """Ask the model which facts ``compressed`` kept from ``original`` (optional judge)."""
    from palace_lab.redact import redact_text

    text = (f"{JUDGE_MARKER} Original:\n<original>\n{_shorten(redact_text(original), max_chars)}"
            f"\n</original>\nCompressed:\n<compressed>\n{redact_text(compressed)}\n</compressed>")
    data, cost = ask(client, "judge", text, cache)
    return Judgement(float(data["score"]), tuple(data["facts"]), cost)
