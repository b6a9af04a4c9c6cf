"""What the local API stubs share: a threaded HTTP server on 127.0.0.1, a queue of behaviours,
and a record of every request (method, path, lower-cased headers, raw body) so tests can
assert what was sent.

:mod:`anthropic_stub` (the Messages API) and :mod:`openai_stub` (chat completions) subclass
:class:`StubServer` and :class:`StubHandler` with their own endpoints and answer shapes.
"""

from __future__ import annotations

import json
import re
import threading
from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Behaviour:
    kind: str  # card | answer | text | raw | error | slow | expired
    data: Any = None
    status: int = 200
    headers: dict = field(default_factory=dict)
    delay: float = 0.0


def card(data: dict | None = None) -> Behaviour:
    """A valid answer (``data`` or a card derived from the request)."""
    return Behaviour("card", data)


def answer(data: dict) -> Behaviour:
    """An answer with exactly ``data`` as its object, valid or not."""
    return Behaviour("answer", data)


def error(status: int, *, retry_after: float | None = None) -> Behaviour:
    """An HTTP error with the API's error body (and ``retry-after`` when given)."""
    headers = {} if retry_after is None else {"retry-after": str(retry_after)}
    return Behaviour("error", status=status, headers=headers)


def slow(seconds: float) -> Behaviour:
    """A valid card, sent only after ``seconds``."""
    return Behaviour("slow", delay=seconds)


@dataclass(frozen=True)
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    raw: bytes

    @property
    def body(self) -> Any:
        return json.loads(self.raw) if self.raw else None


def default_card(user: str) -> dict:
    """A valid card whose specific_context is the longest word inside ``<exchange>``."""
    found = re.search(r"<exchange>\n(.*)\n</exchange>", user, re.S)
    words = (found.group(1) if found else user).split() or ["(empty)"]
    return {
        "exchange_core": "Stub summary: " + " ".join(words[:12]),
        "specific_context": max(words, key=len),
        "room_assignments": [
            {"room_type": "concept", "room_key": "stub_room", "room_label": "Stub room", "relevance": 0.8}
        ],
    }


class StubServer:
    """The server. Use as a context manager; queue behaviours with :meth:`push`."""

    handler: type  # a StubHandler subclass
    answer_path = ""  # the endpoint whose requests are counted in flight

    def __init__(self) -> None:
        self.queue: deque[Behaviour] = deque()
        self.requests: list[Recorded] = []
        self.in_flight = 0
        self.max_in_flight = 0  # the most answer requests served at once
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._server: ThreadingHTTPServer | None = None

    def push(self, *behaviours: Behaviour) -> None:
        self.queue.extend(behaviours)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def calls(self, method: str = "POST", path: str | None = None) -> list[Recorded]:
        path = path or self.answer_path
        return [r for r in self.requests if r.method == method and r.path == path]

    def next_behaviour(self, queue: deque | None = None) -> Behaviour:
        queue = self.queue if queue is None else queue
        with self._lock:
            return queue.popleft() if queue else card()

    def wait(self, behaviour: Behaviour) -> bool:
        """Sleep out a slow behaviour; True when the server stopped meanwhile."""
        return behaviour.kind == "slow" and self._stop.wait(behaviour.delay)

    @contextmanager
    def serving(self):
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            yield
        finally:
            with self._lock:
                self.in_flight -= 1

    def __enter__(self):
        handler = type("Handler", (self.handler,), {"stub": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, args=(0.02,), daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._server.shutdown()
        self._server.server_close()


class StubHandler(BaseHTTPRequestHandler):
    stub: StubServer

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

    def _send(self, status: int, payload: Any, headers: dict | None = None, *,
              content_type: str = "application/json") -> None:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("content-type", content_type)
            self.send_header("content-length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout test)
            pass
