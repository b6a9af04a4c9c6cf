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
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Behaviour:
    kind: str  # card | answer | text | error | slow | expired
    data: Any = None
    status: int = 200
    headers: dict = field(default_factory=dict)
    delay: float = 0.0


def card(data: dict | None = None) -> Behaviour:
    """A valid answer (``data`` or a card derived from the request)."""
    return Behaviour("card", data)


def answer(data: dict) -> Behaviour:
    """A tool call with exactly ``data`` as its input, valid or not."""
    return Behaviour("answer", data)


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


def error(status: int, *, retry_after: float | None = None) -> Behaviour:
    """An HTTP error with the API's error body (and ``retry-after`` when given)."""
    headers = {} if retry_after is None else {"retry-after": str(retry_after)}
    return Behaviour("error", status=status, headers=headers)


def slow(seconds: float) -> Behaviour:
    """A valid card, sent only after ``seconds``."""
    return Behaviour("slow", delay=seconds)


def expired() -> Behaviour:
    """A batch item the API never processed."""
    return Behaviour("expired")


@dataclass(frozen=True)
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    raw: bytes

    @property
    def body(self) -> Any:
        return json.loads(self.raw) if self.raw else None


def _user_text(body: dict) -> str:
    content = body["messages"][0]["content"]
    return content if isinstance(content, str) else " ".join(b.get("text", "") for b in content)


def default_card(body: dict) -> dict:
    """A valid card whose specific_context is the longest word inside ``<exchange>``."""
    user = _user_text(body)
    found = re.search(r"<exchange>\n(.*)\n</exchange>", user, re.S)
    words = (found.group(1) if found else user).split() or ["(empty)"]
    return {
        "exchange_core": "Stub summary: " + " ".join(words[:12]),
        "specific_context": max(words, key=len),
        "room_assignments": [
            {"room_type": "concept", "room_key": "stub_room", "room_label": "Stub room", "relevance": 0.8}
        ],
    }


class AnthropicStub:
    """The server. Use as a context manager; queue behaviours with :meth:`push`."""

    def __init__(self, *, polls_until_ended: int = 1) -> None:
        self.queue: deque[Behaviour] = deque()
        self.batch_queue: deque[Behaviour] = deque()
        self.requests: list[Recorded] = []
        self.batches: dict[str, dict] = {}
        self.polls_until_ended = polls_until_ended
        self._seen_prefixes: set[str] = set()
        self.in_flight = 0
        self.max_in_flight = 0  # the most /v1/messages requests served at once
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._server: ThreadingHTTPServer | None = None

    # -- control -------------------------------------------------------------------------

    def push(self, *behaviours: Behaviour) -> None:
        self.queue.extend(behaviours)

    def push_batch(self, *behaviours: Behaviour) -> None:
        self.batch_queue.extend(behaviours)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def calls(self, method: str = "POST", path: str = "/v1/messages") -> list[Recorded]:
        return [r for r in self.requests if r.method == method and r.path == path]

    def __enter__(self) -> "AnthropicStub":
        handler = type("Handler", (_Handler,), {"stub": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, args=(0.02,), daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._server.shutdown()
        self._server.server_close()

    # -- answers -------------------------------------------------------------------------

    def next_behaviour(self, batch: bool = False) -> Behaviour:
        queue = self.batch_queue if batch else self.queue
        with self._lock:
            return queue.popleft() if queue else card()

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
        behaviour = self.next_behaviour(batch=True)
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


class _Handler(BaseHTTPRequestHandler):
    stub: AnthropicStub

    def log_message(self, *args: object) -> None:  # keep pytest output clean
        pass

    def _record(self) -> Recorded:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        headers = {k.lower(): v for k, v in self.headers.items()}
        rec = Recorded(self.command, self.path.split("?")[0], headers, raw)
        with self.stub._lock:
            self.stub.requests.append(rec)
        return rec

    def _send(self, status: int, payload: Any, headers: dict | None = None, *, jsonl: bool = False) -> None:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("content-type", "application/x-jsonl" if jsonl else "application/json")
            self.send_header("content-length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout test)
            pass

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        rec = self._record()
        if rec.path == "/v1/messages/batches":
            return self._send(200, self.stub.create_batch(rec.body))
        if rec.path != "/v1/messages":
            return self._send(404, _not_found(rec.path))
        with self.stub._lock:
            self.stub.in_flight += 1
            self.stub.max_in_flight = max(self.stub.max_in_flight, self.stub.in_flight)
        try:
            self._answer(rec)
        finally:
            with self.stub._lock:
                self.stub.in_flight -= 1

    def _answer(self, rec: Recorded) -> None:
        behaviour = self.stub.next_behaviour()
        if behaviour.kind == "error":
            kind = _ERROR_TYPES.get(behaviour.status, "api_error")
            body = {"type": "error", "error": {"type": kind, "message": f"stub {behaviour.status}"}}
            return self._send(behaviour.status, body, behaviour.headers)
        if behaviour.kind == "slow" and self.stub._stop.wait(behaviour.delay):
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
            return self._send(200, lines.encode(), jsonl=True)
        with self.stub._lock:
            self.stub.batches[batch_id]["polls"] += 1
        self._send(200, self.stub.batch_object(batch_id))
