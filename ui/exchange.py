"""Showing conversation material safely: cards and verbatim exchanges as plain text.

Conversation text, card text and room labels are untrusted (they may hold markup, links or
HTML). They are only ever shown with ``st.text`` or inside dataframes, never through a
Markdown-rendering call; ids and labels that must go into Markdown (captions, widget labels)
pass through :func:`md_escape` first.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

import streamlit as st

from palace_lab.ingest.traffic.subject import tool_subjects
from palace_lab.redact import stored_card
from palace_lab.request import request_opening

if TYPE_CHECKING:
    from palace_lab.store import Palace

ROLE_ICONS = {"user": ":material/person:", "assistant": ":material/smart_toy:",
              "tool_call": ":material/build:", "tool_result": ":material/terminal:",
              "system": ":material/settings:"}
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:=])")


def md_escape(text: object) -> str:
    """``text`` with every Markdown-significant character backslash-escaped, on one line."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(str(text).split()))


def clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n[… {len(text) - limit:,} more characters not shown]"


def show_card(card) -> None:
    """The fields of a distilled card, as text: the paper's four and the keywords."""
    if card is None:
        st.caption("No card of this distiller version for this exchange.")
        return
    card = stored_card(card)
    rooms = "; ".join(f"{r.room_type}: {r.room_label} ({r.relevance:.2f})" for r in card.room_assignments)
    lines = [card.exchange_core, f"detail: {card.specific_context}"]
    if card.keywords:
        lines.append("keywords: " + " ".join(card.keywords))
    lines.append(f"rooms: {rooms or '(none)'}")
    if card.files_touched:
        more = len(card.files_touched) - 4
        lines.append("files: " + ", ".join(card.files_touched[:4]) + (f" (+{more})" if more > 0 else ""))
    st.text(unescape("\n".join(lines)))  # one element per card: one field per line


def show_asked(exchange) -> None:
    """The opening of the person's request under a card (redacted: :mod:`palace_lab.request`)."""
    opening = request_opening(exchange) if exchange is not None else ""
    if opening:
        st.text(f"asked: {opening}")


def unescape(text: str) -> str:
    """Card text lifted from JSON-escaped tool output keeps ``\\n`` and ``\\"``: show them plainly."""
    return text.replace("\\n", " ").replace('\\"', '"').replace("\\t", " ")


VERBATIM_NOTE = ("Verbatim text, exactly as the source wrote it: secrets in it are not redacted "
                 "here. Cards, packs and everything sent to an LLM are.")
PAGE_MESSAGES = 20
PAGE_CHARS = 4000
TOOL_ROLES = ("tool_call", "tool_result")


def role_label(m) -> tuple[str, str]:
    """(label, icon) of a message as its source says: a subagent's prompt is no person's."""
    if m.role == "user" and m.meta.get("sidechain"):
        return "prompt to a subagent", ":material/smart_toy:"
    name = f"{m.role} · {m.tool_name}" if m.tool_name else m.role
    return name, ROLE_ICONS.get(m.role, ":material/notes:")


def pager(label: str, items: int, size: int, key: str, *, bottom: bool = False) -> int:
    """The 0-based page of ``items`` in pages of ``size`` (a number input when there are several).

    ``bottom``: a second selector under the page's items, kept equal to the first (``key``)
    both ways, so a long page can be turned where its reading ends.
    """
    pages = -(-items // size)
    if pages <= 1:
        return 0
    if bottom:
        twin = f"{key}_bottom"
        st.session_state[twin] = st.session_state.get(key, 1)
        st.number_input(f"{label} (of {pages})", 1, pages, key=twin, on_change=_copy,
                        args=(twin, key))
        return int(st.session_state[twin]) - 1
    page = st.number_input(f"{label} (of {pages})", 1, pages, key=key)  # starts at 1
    return int(page) - 1


def _copy(source: str, target: str) -> None:
    st.session_state[target] = st.session_state[source]


def paged(rows: Sequence, size: int, key: str, *, label: str, noun: str, order: str
          ) -> tuple[int, Sequence]:
    """``(page, its rows)`` of ``rows`` in pages of ``size`` (:func:`pager`), with a caption
    naming the range shown (e.g. "Rooms 201–400 of 23,098, the largest first.")."""
    page = pager(label, len(rows), size, key)
    shown = rows[page * size:(page + 1) * size]
    if len(rows) > size:
        st.caption(f"{noun} {page * size + 1:,}–{page * size + len(shown):,} of {len(rows):,}, "
                   f"{order}.")
    return page, shown


def show_text(text: str, key: str, *, code: bool) -> None:
    """``text`` as plain text or monospace, paged by :data:`PAGE_CHARS` characters."""
    part = pager("Part", len(text), PAGE_CHARS, f"{key}_part")
    chunk = text[part * PAGE_CHARS:(part + 1) * PAGE_CHARS]
    if len(text) > PAGE_CHARS:
        st.caption(f"characters {part * PAGE_CHARS + 1:,}–{part * PAGE_CHARS + len(chunk):,} "
                   f"of {len(text):,}")
    if code:
        st.code(chunk, language=None, wrap_lines=False)
    else:
        st.text(chunk)


def show_message(m, key: str, subject: str = "") -> None:
    """One message; a tool row is collapsed and named by its ``subject`` (file or command)."""
    name, icon = role_label(m)
    if m.role in TOOL_ROLES:  # collapsed, with its size; sent to the page only when opened
        lines = m.text.count("\n") + 1
        size = f"{len(m.text):,} characters · {lines:,} line{'s' if lines > 1 else ''}"
        named = f"{name} · {subject}" if subject else name
        box = st.expander(md_escape(f"{named} · {size}"),
                          icon=icon, key=f"{key}_open", on_change="rerun")
        if box.open:
            with box:
                show_text(m.text, key, code=True)
        return
    with st.chat_message("user" if m.role == "user" else "assistant", avatar=icon):
        st.caption(md_escape(name))
        show_text(m.text, key, code=False)


def show_messages(palace: Palace, exchange, key: str = "x") -> None:
    """The exchange's messages (its ply range), paged, each under its role as the source says."""
    messages = palace.messages(exchange.conversation_id, exchange.ply_start, exchange.ply_end)
    st.caption(f"conversation {md_escape(exchange.conversation_id)} · messages "
               f"{exchange.ply_start}–{exchange.ply_end} · {md_escape(exchange.project or 'no project')}"
               f" · {md_escape(exchange.timestamp or 'no time')}")
    st.caption(VERBATIM_NOTE)
    page = pager("Messages page", len(messages), PAGE_MESSAGES, f"{key}_{exchange.exchange_id}_page")
    shown = messages[page * PAGE_MESSAGES:(page + 1) * PAGE_MESSAGES]
    if len(messages) > PAGE_MESSAGES:
        st.caption(f"messages {page * PAGE_MESSAGES + 1}–{page * PAGE_MESSAGES + len(shown)} of "
                   f"{len(messages)}")
    subjects = tool_subjects(messages, files_touched=exchange.files_touched,
                             project=exchange.project)
    for m in shown:
        show_message(m, f"{key}_{exchange.exchange_id}_{m.position}", subjects.get(m.position, ""))
    if len(messages) > PAGE_MESSAGES:  # a long exchange is read top to bottom: turn the page here
        pager("Messages page", len(messages), PAGE_MESSAGES, f"{key}_{exchange.exchange_id}_page",
              bottom=True)
