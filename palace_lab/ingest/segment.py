"""Segmentation: a conversation's messages become exchanges.

An exchange opens at a real user request (``Message.is_request``) and runs until the next one;
tool calls and tool results stay inside it. Nothing is lost: messages before the first request
(a greeting, a system preamble, an assistant that speaks first) belong to the first exchange,
and a conversation without any request is one exchange.

A request that says nothing and gets no answer ("pause", then "OK, continue" twice before the
agent replies; a last "continue" the session never answered) opens no exchange: it stays with
the exchange it follows (:func:`unanswered`), so every exchange holds something that was asked
or answered. It is still stored, counted and shown in that exchange's verbatim text.

Two texts are kept per exchange, both built from searchable messages only:
- ``verbatim``: everything the person and the agent said and did, tool input and output
  included (what the verbatim search layer indexes and what drill-down shows);
- ``dialogue``: the person's and the agent's words without tool traffic.

What one exchange contributes to cards and indexes is bounded: a message longer than
:data:`MAX_MESSAGE_CHARS` and an exchange text longer than :data:`MAX_EXCHANGE_CHARS` keep their
head and tail around a marker that says how much was cut (:func:`clip`). The stored messages
always keep the whole text: drill-down and re-segmentation lose nothing.
"""

from __future__ import annotations

import re

from palace_lab.files import files_touched
from palace_lab.model import Conversation, Exchange, Message, exchange_id_for
from palace_lab.text.content import is_content_free

MAX_MESSAGE_CHARS = 200_000
MAX_EXCHANGE_CHARS = 1_000_000
CUT_NOTE = "characters cut here; the stored messages keep them"


def clip(text: str, limit: int) -> str:
    """``text`` within ``limit`` characters (plus the marker): its first three quarters and its
    last quarter are kept, so both the request and the final answer survive."""
    if len(text) <= limit:
        return text
    head = limit * 3 // 4
    tail = limit - head
    cut = len(text) - head - tail
    return f"{text[:head]}\n[… palace_lab: {cut:,} {CUT_NOTE} …]\n{text[len(text) - tail:]}"


def is_clipped(text: str) -> bool:
    return CUT_NOTE in text


_LABEL = {"user": "user", "assistant": "assistant", "tool_call": "tool call",
          "tool_result": "tool result", "system": "system"}


def render_message(m: Message) -> str:
    label = _LABEL[m.role]
    if m.tool_name and m.role == "tool_call":
        label = f"{label} {m.tool_name}"
    return f"[{label}] {clip(m.text, MAX_MESSAGE_CHARS)}"


# The inverse of render_message: a rendered message starts a line after a blank one with its label.
_MESSAGE_SPLIT = re.compile(r"\n\n(?=\[(?:user|assistant|tool call[^\]\n]*|tool result|system)\] )")


def split_messages(verbatim: str) -> list[tuple[str, str]]:
    """(label, text) of each rendered message of an exchange's verbatim text."""
    out = []
    for chunk in _MESSAGE_SPLIT.split(verbatim):
        if chunk.startswith("[") and "] " in chunk:
            label, text = chunk[1:].split("] ", 1)
            out.append((label, text))
        elif chunk.strip():
            out.append(("", chunk))
    return out


def request_text(m: Message) -> str:
    """The person's words of a request (machine text such as IDE tags comes after)."""
    return m.meta.get("request_text") or m.text


IDLE_CHARS = 200  # "pause", "OK, continue", "(no content)": what says nothing is short


def unanswered(messages: tuple[Message, ...]) -> set[int]:
    """Positions of the short requests without content (under :data:`IDLE_CHARS`) that nothing
    answers: the next searchable message is another request, or there is none. The first
    request always opens."""
    out: set[int] = set()
    searchable = [m for m in messages if m.searchable]
    for m, following in zip(searchable, searchable[1:] + [None]):
        if (m.is_request and (following is None or following.is_request)
                and len(m.text) < IDLE_CHARS and is_content_free(request_text(m))):
            out.add(m.position)
    first = next((m.position for m in messages if m.is_request), None)
    out.discard(first)
    return out


def _groups(messages: tuple[Message, ...]) -> list[list[Message]]:
    groups: list[list[Message]] = []
    idle = unanswered(messages)
    for m in messages:
        if m.position in idle:
            groups[-1].append(m)
        elif m.is_request and groups and any(x.is_request for x in groups[-1]):
            groups.append([m])
        elif m.is_request and groups and not any(x.is_request for x in groups[-1]):
            groups[-1].append(m)  # the preamble joins the first request's exchange
        elif not groups:
            groups.append([m])
        else:
            groups[-1].append(m)
    return groups


def _exchange(conv: Conversation, group: list[Message], cwd: str | None) -> Exchange:
    searchable = [m for m in group if m.searchable]
    request = next((m for m in group if m.is_request), None)
    verbatim = clip("\n\n".join(render_message(m) for m in searchable), MAX_EXCHANGE_CHARS)
    dialogue = clip("\n\n".join(
        render_message(m) for m in searchable if m.role in ("user", "assistant")),
        MAX_EXCHANGE_CHARS)
    return Exchange(
        exchange_id=exchange_id_for(conv.conversation_id, group[0].source_key),
        conversation_id=conv.conversation_id,
        ply_start=group[0].position,
        ply_end=group[-1].position,
        request=clip(request_text(request), MAX_MESSAGE_CHARS) if request else "",
        verbatim=verbatim,
        dialogue=dialogue,
        files_touched=files_touched(verbatim, cwd),
        project=conv.project,
        timestamp=(request.timestamp if request else None) or group[0].timestamp,
    )


def segment(conv: Conversation) -> list[Exchange]:
    """The exchanges of one conversation, in order. Empty conversations have none."""
    if not conv.messages:
        return []
    return [_exchange(conv, g, conv.cwd) for g in _groups(conv.messages)]
