"""Any OpenAI-compatible chat-completions server as a structured LLM client.

Ollama, llama.cpp's ``llama-server``, vLLM and LM Studio all serve ``POST /v1/chat/completions``
and ``GET /v1/models`` on localhost. :class:`OpenAICompatClient` speaks that protocol with the
policy every client shares (:mod:`palace_lab.llm.base`: validation against the schema, one
repair turn, retries with backoff, the cost cap), so the distiller, the LLM grader and the
lifecycle compressor run on a local model exactly as they run on Claude.

Invariants:

- The wire is plain ``httpx`` (already installed with the Anthropic SDK): two endpoints, and
  the raw status and error body of every answer are visible, which is what telling "this
  server does not do ``response_format``" from a real failure needs, across servers that word
  their errors differently. ``trust_env`` is off: the text goes to the server named, never
  through a proxy or with a ``.netrc`` login picked up from the environment.
- No key is sent unless one is given: a cloud key in ``OPENAI_API_KEY`` is never picked up.
- There are no tools: the system prefix gets :func:`answer_format` (the tool's name,
  description and JSON Schema, and "answer with this object only"), and the request asks for
  ``response_format`` ``json_schema``, else ``json_object``, else nothing. A 400/422 whose body
  names the response format (or schema, grammar) is the server declining that format, not a
  failure: the client drops to the next one and keeps it for the rest of its life.
- The reply is read leniently (a code fence, a ``<think>`` block or words around the object
  are tolerated); what remains must be one JSON object, else the repair turn says why.
- Transient: 408, 409, 429, 5xx, timeouts, dropped connections. Fatal (every later call would
  fail alike): 401, 403, 404 (an unknown model or a wrong URL), a refused connection (the
  server is not running). Any other 4xx fails the one call.
- Cost is 0 unless prices are given (:func:`palace_lab.llm.cost.price_or_free`); usage is
  charged as the server reports it, or estimated from characters when it reports none.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from palace_lab.errors import DistillError
from palace_lab.llm.base import (FAILED, FATAL, TRANSIENT, Check, LLMResult, StructuredClient,
                                  System, Tool, repair_note, validated)
from palace_lab.llm.cost import Prices, Usage, estimate_tokens, price_or_free

BACKEND = "openai-compat"
RESPONSE_FORMATS = ("json_schema", "json_object", "none")  # tried in this order
OLLAMA_URL = "http://127.0.0.1:11434/v1"
_FORMAT_WORDS = ("response_format", "json_schema", "json_object", "schema", "grammar")
_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
_FENCE = re.compile(r"```(?:json)?\s*\n?(.*?)```", re.S | re.I)


class ServerError(Exception):
    """An HTTP error status from the server, with its message."""

    def __init__(self, response: Any) -> None:
        self.response, self.status_code = response, response.status_code
        super().__init__(_error_message(response))


class ReplyError(Exception):
    """A 200 answer that is not a chat completion."""


def api_base(url: str | None) -> str:
    """``url`` as the API root the endpoints hang from: ``http://host:port`` gets ``/v1``, a
    pasted ``…/chat/completions`` loses it, trailing slashes go."""
    if not url or "://" not in url:
        raise DistillError(
            f"the {BACKEND} backend needs the server's base URL (http://host:port/v1), "
            f"e.g. {OLLAMA_URL} for Ollama; got {url!r}"
        )
    url = url.strip().rstrip("/")
    for tail in ("/chat/completions", "/models"):
        url = url.removesuffix(tail)
    return url if urlsplit(url).path else url + "/v1"


def require_model(model: str | None) -> str:
    if not model:
        raise DistillError(f"the {BACKEND} backend needs a model name; the server's "
                           "/v1/models lists them")
    return model


def answer_format(tool: Tool) -> str:
    """What replaces the forced tool call: the object to answer with, and only that."""
    return (
        f"Answer format: there are no tools here. Instead of calling {tool.name}, answer with "
        f"the one JSON object you would pass to it ({tool.description}) and nothing else: no "
        f"words before or after it, no code fence. The object must follow this JSON Schema:\n"
        f"{json.dumps(dict(tool.schema), ensure_ascii=False)}"
    )


def system_text(system_blocks: System, tool: Tool) -> str:
    """The instructions as one system message, the answer format after them."""
    items = [system_blocks] if isinstance(system_blocks, str) else list(system_blocks)
    texts = [b if isinstance(b, str) else str(b.get("text", "")) for b in items]
    return "\n\n".join([*texts, answer_format(tool)])


def parse_answer(text: str) -> tuple[Any, str | None]:
    """(the JSON value in a reply, None) or (None, why there is none)."""
    cleaned = _THINK.sub("", text or "").strip()
    fenced = _FENCE.search(cleaned)
    if fenced:
        cleaned = fenced.group(1).strip()
    if not cleaned:
        return None, "the answer was empty; it must be one JSON object"
    try:
        return json.loads(cleaned), None
    except ValueError as exc:
        first = exc
    decoder = json.JSONDecoder()
    for brace in re.finditer(r"\{", cleaned):
        try:
            value, _ = decoder.raw_decode(cleaned, brace.start())
        except ValueError:
            continue
        if isinstance(value, dict):
            return value, None
    return None, (f"the answer is not a JSON object ({first.msg} at line {first.lineno} "
                  f"column {first.colno})")


class OpenAICompatClient(StructuredClient):
    """One model on one OpenAI-compatible server; see the module docstring. Thread-safe.

    Defaults suit a CPU: one request at a time (a local server queues the rest anyway, and a
    queued request would spend its timeout waiting) and five minutes for an answer.
    """

    backend = BACKEND

    def __init__(
        self,
        *,
        base_url: str | None,
        model: str,
        api_key: str | None = None,
        max_retries: int = 4,
        timeout: float = 300.0,
        max_concurrency: int = 1,
        max_cost_usd: float | None = None,
        prices: Prices | str | Path | None = None,
        backoff_base_s: float = 1.0,
        backoff_max_s: float = 30.0,
        response_format: str = "auto",
        temperature: float = 0.0,
    ) -> None:
        require_model(model)
        if response_format != "auto" and response_format not in RESPONSE_FORMATS:
            raise ValueError(f"unknown response_format {response_format!r}; valid: auto, "
                             + ", ".join(RESPONSE_FORMATS))
        self.base_url = api_base(base_url)
        super().__init__(
            model=model, price=price_or_free(model, prices), max_retries=max_retries,
            timeout=timeout, max_concurrency=max_concurrency, max_cost_usd=max_cost_usd,
            backoff_base_s=backoff_base_s, backoff_max_s=backoff_max_s,
        )
        self.temperature = temperature
        self._api_key = api_key
        self._formats = list(RESPONSE_FORMATS if response_format == "auto" else (response_format,))
        self.declined: dict[str, str] = {}  # response format -> the server's reason
        self._http: Any = None

    @property
    def response_format(self) -> str:
        """The response format in use: the first one the server has not declined."""
        return self._formats[0]

    def http(self) -> Any:
        """The HTTP client, built on first use."""
        with self._lock:
            if self._http is None:
                self._http = _http_client(self.base_url, self._api_key, self.timeout,
                                          self.max_concurrency)
            return self._http

    # -- transport ---------------------------------------------------------------------

    def request(self, system_blocks: System, messages: list[dict], tool: Tool) -> dict:
        return {
            "model": self.model,
            "messages": [{"role": "system", "content": system_text(system_blocks, tool)},
                         *messages],
            "max_tokens": tool.max_tokens,
            "temperature": self.temperature,
            "stream": False,
            "response_format": {"type": "json_schema", "json_schema": {
                "name": tool.name, "schema": dict(tool.schema), "strict": False}},
        }

    def send(self, body: dict) -> tuple[tuple[dict, ...], Usage]:
        while True:
            mode = self.response_format
            response = self.http().post("/chat/completions", json=_with_format(body, mode))
            if response.status_code in (400, 422) and mode != "none" and _declines(response):
                self._decline(mode, _error_message(response))
                continue
            if response.status_code >= 400:
                raise ServerError(response)
            return _read_completion(response, body)

    def _decline(self, mode: str, reason: str) -> None:
        with self._lock:
            if self._formats[0] == mode and len(self._formats) > 1:
                self._formats.pop(0)
                self.declined[mode] = reason

    def interpret(self, reply: tuple[dict, ...], tool: Tool, check: Check | None, *,
                  usage: Usage, cost: float, attempts: int) -> LLMResult:
        answer, error = parse_answer(_text(reply))
        if error:
            return LLMResult(None, error, usage=usage, cost_usd=cost, attempts=attempts,
                             reply=reply)
        return validated(answer, tool, check, usage=usage, cost=cost, attempts=attempts,
                         reply=reply)

    def repair_messages(self, user_text: str, failed: LLMResult, tool: Tool) -> list[dict]:
        return [
            {"role": "user", "content": user_text},
            {"role": "assistant", "content": _text(failed.reply)},
            {"role": "user", "content": repair_note(failed.error, "Send the JSON object")},
        ]

    def classify(self, exc: BaseException) -> str | None:
        import httpx

        if isinstance(exc, ServerError):
            if exc.status_code in (401, 403, 404):
                return FATAL
            return TRANSIENT if exc.status_code in (408, 409, 429) or exc.status_code >= 500 \
                else FAILED
        if isinstance(exc, httpx.ConnectError):
            return FATAL
        if isinstance(exc, httpx.TransportError):  # timeouts and dropped connections
            return TRANSIENT
        return FAILED if isinstance(exc, ReplyError) else None

    def describe(self, exc: BaseException | None) -> str:
        if isinstance(exc, ServerError):
            return f"HTTP {exc.status_code}: {exc}"
        name = type(exc).__name__ if exc is not None else "unknown error"
        return f"{name}: {exc}" if str(exc) else name

    def refused(self, exc: BaseException) -> str:
        import httpx

        if isinstance(exc, httpx.ConnectError):
            return f"cannot reach {self.base_url}: {exc} (is the server running?)"
        return f"{self.base_url} refused the request for model {self.model!r}: {self.describe(exc)}"


def list_models(base_url: str | None, *, api_key: str | None = None,
                timeout: float = 5.0) -> list[str]:
    """The model ids ``GET /v1/models`` lists, sorted; DistillError in one line if it fails."""
    import httpx

    base = api_base(base_url)
    try:
        with _http_client(base, api_key, timeout, 1) as http:
            response = http.get("/models")
        if response.status_code >= 400:
            raise ServerError(response)
        return sorted(str(m["id"]) for m in response.json().get("data", []))
    except (httpx.HTTPError, ServerError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise DistillError(f"cannot list the models of {base}: {type(exc).__name__}: {exc}") \
            from None


# ---------------------------------------------------------------------------- helpers


def _http_client(base_url: str, api_key: str | None, timeout: float, connections: int) -> Any:
    import httpx

    headers = {"user-agent": "palace-lab"}
    if api_key:
        headers["authorization"] = f"Bearer {api_key}"
    return httpx.Client(base_url=base_url, headers=headers, timeout=timeout, trust_env=False,
                        limits=httpx.Limits(max_connections=max(1, connections)))


def _with_format(body: dict, mode: str) -> dict:
    """The body as sent in response-format ``mode`` (the body is built for json_schema)."""
    if mode == "json_schema":
        return body
    out = {k: v for k, v in body.items() if k != "response_format"}
    if mode == "json_object":
        out["response_format"] = {"type": "json_object"}
    return out


def _error_message(response: Any) -> str:
    try:
        data = response.json()
    except ValueError:
        return response.text[:300] or response.reason_phrase
    error = data.get("error", data) if isinstance(data, dict) else data
    message = error.get("message", error) if isinstance(error, dict) else error
    return str(message)[:300]


def _declines(response: Any) -> bool:
    message = _error_message(response).lower()
    return any(word in message for word in _FORMAT_WORDS)


def _read_completion(response: Any, body: dict) -> tuple[tuple[dict, ...], Usage]:
    try:
        data = response.json()
        content = data["choices"][0]["message"].get("content")
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        raise ReplyError(f"not a chat completion: {response.text[:200]!r}") from None
    if isinstance(content, list):  # content parts
        content = "".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
    reply = ({"type": "text", "text": content or ""},)
    return reply, _usage(data.get("usage"), body, content or "")


def _usage(reported: Any, body: dict, content: str) -> Usage:
    if not isinstance(reported, Mapping) or "prompt_tokens" not in reported:
        return Usage(estimate_tokens(json.dumps(body["messages"], ensure_ascii=False)),
                     estimate_tokens(content))
    cached = (reported.get("prompt_tokens_details") or {}).get("cached_tokens") or 0
    prompt = int(reported.get("prompt_tokens") or 0)
    return Usage(prompt - int(cached), int(reported.get("completion_tokens") or 0), int(cached))


def _text(reply: tuple[dict, ...]) -> str:
    return "".join(str(b.get("text", "")) for b in reply if b.get("type") == "text")
