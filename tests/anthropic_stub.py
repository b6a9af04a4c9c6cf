"""A local stand-in for the Anthropic Messages API, driven by the real SDK in tests.

It serves, on 127.0.0.1 and a free port, the documented endpoints the SDK calls:

- ``POST /v1/messages``: answers with a ``tool_use`` block (the card) or with what the test
  queued: an invalid answer, a plain text answer, an HTTP error (429 with ``retry-after``,
  529, 500), or a slow answer that outlasts the client's timeout.
- ``POST /v1/messages/batches``, ``GET /v1/messages/batches/{id}`` (``in_progress`` until it
  has been polled ``polls_until_ended`` times) and ``GET /v1/messages/batches/{id}/results``
  (JSON Lines, one ``{"custom_id", "result"}`` per request).

Every request is recorded (method, path, lower-cased headers, raw body) so tests can assert
what was sent: the ``cache_control`` of the system prefix, the auth header, that a secret never
left. Usage is deterministic: about one token per four characters of the body, the system
prefix reported as a cache write the first time it is seen and as a cache read afterwards.
"""

from __future__ import annotations

import json
import re
from collections import deque
from typing import Any

from stub_server import (  # noqa: F401 - re-exported for the tests
    Behaviour,
    Recorded,
    StubHandler,
    StubServer,
    answer,
    card,
    default_card as _default_card,
    error,
    slow,
)


def text(words: str) -> Behaviour:
    """A plain text answer that ignores the tool."""
    return Behaviour("text", words)


_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


def expired() -> Behaviour:
    """A batch item the API never processed."""
    return Behaviour("expired")


def _user_text(body: dict) -> str:
    content = body["messages"][0]["content"]
    return content if isinstance(content, str) else " ".join(b.get("text", "") for b in content)


def default_card(body: dict) -> dict:
    """A valid card whose specific_context is the longest word inside ``<exchange>``."""
    return _default_card(_user_text(body))


class AnthropicStub(StubServer):
    """The server. Use as a context manager; queue behaviours with :meth:`push`."""

    answer_path = "/v1/messages"

    def __init__(self, *, polls_until_ended: int = 1) -> None:
        super().__init__()
        self.handler = _Handler
        self.batch_queue: deque[Behaviour] = deque()
        self.batches: dict[str, dict] = {}
        self.polls_until_ended = polls_until_ended
        self._seen_prefixes: set[str] = set()

    def push_batch(self, *behaviours: Behaviour) -> None:
        self.batch_queue.extend(behaviours)

    # -- answers -------------------------------------------------------------------------

    def usage(self, body: dict, output: Any) -> dict:
        system = json.dumps(body.get("system", ""))
        rest = len(json.dumps(body)) - len(system)
        cached = "cache_control" in system
        with self._lock:
            first = system not in self._seen_prefixes
            self._seen_prefixes.add(system)
        prefix_tokens = len(system) // 4
        return {
            "input_tokens": rest // 4 + (0 if cached else prefix_tokens),
            "output_tokens": max(1, len(json.dumps(output)) // 4),
            "cache_creation_input_tokens": prefix_tokens if cached and first else 0,
            "cache_read_input_tokens": prefix_tokens if cached and not first else 0,
        }

    def message(self, body: dict, behaviour: Behaviour) -> dict:
        tool = body.get("tool_choice", {}).get("name") or body["tools"][0]["name"]
        if behaviour.kind == "text":
            content = [{"type": "text", "text": behaviour.data}]
        else:
            data = behaviour.data if behaviour.data is not None else default_card(body)
            call_id = f"toolu_{len(self.requests):04d}"
            content = [{"type": "tool_use", "id": call_id, "name": tool, "input": data}]
        return {
            "id": f"msg_{len(self.requests):04d}",
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": content,
            "stop_reason": "tool_use" if behaviour.kind != "text" else "end_turn",
            "stop_sequence": None,
            "usage": self.usage(body, content),
        }

    def create_batch(self, body: dict) -> dict:
        batch_id = f"msgbatch_{len(self.batches) + 1:04d}"
        results = [self._batch_line(r) for r in body["requests"]]
        with self._lock:
            self.batches[batch_id] = {"results": results, "polls": 0}
        return self.batch_object(batch_id)

    def _batch_line(self, request: dict) -> dict:
        behaviour = self.next_behaviour(self.batch_queue)
        if behaviour.kind == "error":
            err = {"type": "error", "error": {"type": "api_error", "message": "stub item failure"}}
            result = {"type": "errored", "error": err}
        elif behaviour.kind == "expired":
            result = {"type": "expired"}
        else:
            result = {"type": "succeeded", "message": self.message(request["params"], behaviour)}
        return {"custom_id": request["custom_id"], "result": result}

    def batch_object(self, batch_id: str) -> dict:
        batch = self.batches[batch_id]
        ended = batch["polls"] >= self.polls_until_ended
        n = len(batch["results"])
        return {
            "id": batch_id,
            "type": "message_batch",
            "processing_status": "ended" if ended else "in_progress",
            "request_counts": {
                "processing": 0 if ended else n,
                "succeeded": n if ended else 0,
                "errored": 0,
                "canceled": 0,
                "expired": 0,
            },
            "created_at": "2026-03-01T00:00:00Z",
            "expires_at": "2026-03-02T00:00:00Z",
            "ended_at": "2026-03-01T00:05:00Z" if ended else None,
            "results_url": f"{self.base_url}/v1/messages/batches/{batch_id}/results" if ended else None,
        }


def _not_found(path: str) -> dict:
    return {"type": "error", "error": {"type": "not_found_error", "message": path}}


class _Handler(StubHandler):
    stub: AnthropicStub

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        rec = self._record()
        if rec.path == "/v1/messages/batches":
            return self._send(200, self.stub.create_batch(rec.body))
        if rec.path != "/v1/messages":
            return self._send(404, _not_found(rec.path))
        with self.stub.serving():
            self._answer(rec)

    def _answer(self, rec: Recorded) -> None:
        behaviour = self.stub.next_behaviour()
        if behaviour.kind == "error":
            kind = _ERROR_TYPES.get(behaviour.status, "api_error")
            body = {"type": "error", "error": {"type": kind, "message": f"stub {behaviour.status}"}}
            return self._send(behaviour.status, body, behaviour.headers)
        if self.stub.wait(behaviour):
            return None
        self._send(200, self.stub.message(rec.body, behaviour))

    def do_GET(self) -> None:  # noqa: N802
        rec = self._record()
        m = re.fullmatch(r"/v1/messages/batches/(msgbatch_\w+)(/results)?", rec.path)
        if not m or m.group(1) not in self.stub.batches:
            return self._send(404, _not_found(rec.path))
        batch_id = m.group(1)
        if m.group(2):
            lines = "".join(json.dumps(r) + "\n" for r in self.stub.batches[batch_id]["results"])
            return self._send(200, lines.encode(), content_type="application/x-jsonl")
        with self.stub._lock:
            self.stub.batches[batch_id]["polls"] += 1
        self._send(200, self.stub.batch_object(batch_id))
