"""A local stand-in for an OpenAI-compatible server (Ollama, llama.cpp, vLLM, LM Studio).

It serves, on 127.0.0.1 and a free port:

- ``POST /v1/chat/completions``: answers with the JSON text of a card (derived from the
  request's ``<exchange>``) or with what the test queued: a given object, raw text (broken
  JSON, prose), a card wrapped in words and a code fence, an HTTP error, or a slow answer
  that outlasts the client's timeout. A ``response_format`` whose type is not in ``formats``
  is declined with a 400 that names it, as servers without structured output do; a declined
  request uses up no queued behaviour.
- ``GET /v1/models``: the ``models`` given.

Usage is deterministic (about one token per four characters) unless ``report_usage=False``.
"""

from __future__ import annotations

import json
from typing import Any

from stub_server import (  # noqa: F401 - re-exported for the tests
    Behaviour,
    StubHandler,
    StubServer,
    answer,
    card,
    default_card,
    error,
    slow,
)

ALL_FORMATS = ("json_schema", "json_object")


def raw(content: str) -> Behaviour:
    """The assistant's text exactly as given (broken JSON, prose, a code fence)."""
    return Behaviour("raw", content)


def wrapped() -> Behaviour:
    """A valid card said the chatty way: words before it, inside a ```json fence."""
    return Behaviour("wrapped")


def first_user_text(body: dict) -> str:
    return next(m["content"] for m in body["messages"] if m["role"] == "user")


class OpenAIStub(StubServer):
    answer_path = "/v1/chat/completions"

    def __init__(self, *, formats: tuple[str, ...] = ALL_FORMATS,
                 models: tuple[str, ...] = ("qwen2.5:0.5b-instruct", "llama3.2:1b"),
                 report_usage: bool = True) -> None:
        super().__init__()
        self.handler = _Handler
        self.formats, self.models, self.report_usage = formats, models, report_usage

    def declines(self, body: dict) -> str | None:
        wanted = (body.get("response_format") or {}).get("type")
        if wanted and wanted not in self.formats:
            return f"response_format type '{wanted}' is not supported by this server"
        return None

    def completion(self, body: dict, behaviour: Behaviour) -> dict:
        if behaviour.kind == "raw":
            content = behaviour.data
        else:
            data = behaviour.data if behaviour.data is not None else default_card(first_user_text(body))
            content = json.dumps(data)
            if behaviour.kind == "wrapped":
                content = f"Sure! Here is the card:\n```json\n{content}\n```\nAnything else?"
        out: dict[str, Any] = {
            "id": f"chatcmpl-{len(self.requests):04d}",
            "object": "chat.completion",
            "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
        }
        if self.report_usage:
            out["usage"] = {"prompt_tokens": len(json.dumps(body["messages"])) // 4,
                            "completion_tokens": max(1, len(content) // 4),
                            "total_tokens": 0}
        return out


class _Handler(StubHandler):
    stub: OpenAIStub

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        rec = self._record()
        if rec.path != "/v1/models":
            return self._send(404, {"error": {"message": f"no route {rec.path}"}})
        data = [{"id": m, "object": "model", "owned_by": "stub"} for m in self.stub.models]
        self._send(200, {"object": "list", "data": data})

    def do_POST(self) -> None:  # noqa: N802
        rec = self._record()
        if rec.path != "/v1/chat/completions":
            return self._send(404, {"error": {"message": f"no route {rec.path}"}})
        declined = self.stub.declines(rec.body)
        if declined:
            return self._send(400, {"error": {"message": declined, "type": "invalid_request_error"}})
        with self.stub.serving():
            behaviour = self.stub.next_behaviour()
            if behaviour.kind == "error":
                body = {"error": {"message": f"stub {behaviour.status}", "type": "server_error"}}
                return self._send(behaviour.status, body, behaviour.headers)
            if self.stub.wait(behaviour):
                return None
            self._send(200, self.stub.completion(rec.body, behaviour))
