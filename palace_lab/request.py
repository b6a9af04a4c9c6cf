"""The request opening: the person's own words beside every card a result shows.

Search hits (the Search lab, MCP ``search``), the reader and memory packs show an exchange's
card together with :func:`request_opening`, so a person sees what was asked, not only what the
distiller made of it.

Invariants:

- Only the person's words: IDE and system blocks a client injected into the request
  (``<ide_opened_file>``, ``<ide_selection>``, ``<system-reminder>``…, the one rule of
  :func:`palace_lab.ingest.claude_code.person_words`) are removed even from a palace ingested
  before they were, and a slash command reads as the person typed it (``/review PR 12``).
  An exchange without a request (a preamble-only conversation) has an empty opening.
- Redacted before it is cut: the redactor (:func:`palace_lab.redact.redact_text`) sees a
  window of :data:`REDACT_WINDOW` characters, so a secret that starts inside the opening is
  whole when it is matched (a PEM private key is ~3,300 characters) and never shown in part.
- One line of at most ``limit`` characters (:func:`palace_lab.model.preview_of`).
"""

from __future__ import annotations

import re

from palace_lab.ingest.claude_code import person_words
from palace_lab.model import Exchange, preview_of
from palace_lab.redact import redact_text

OPENING_CHARS = 200
REDACT_WINDOW = 8000
_SLASH = re.compile(r"<command-name>\s*(/?[\w:.\-]+)\s*</command-name>")
_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.S)


def person_request(text: str) -> str:
    """``text`` as the person typed it: injected blocks removed, a slash command unwrapped."""
    words = person_words(text)
    command = _SLASH.search(words)
    if command and words.lstrip().startswith(("<command-name>", "<command-message>")):
        args = _ARGS.search(words)
        name = command.group(1) if command.group(1).startswith("/") else "/" + command.group(1)
        return f"{name} {args.group(1).strip() if args else ''}".strip()
    return words


def request_opening(exchange: Exchange, limit: int = OPENING_CHARS) -> str:
    """The first ``limit`` characters of the person's request, redacted, on one line."""
    if not exchange.request:
        return ""
    return preview_of(redact_text(person_request(exchange.request[:REDACT_WINDOW])), limit)
