"""Showing conversation material safely: cards and verbatim exchanges as plain text.

Conversation text, card text and room labels are untrusted (they may hold markup, links or
HTML). They are only ever shown with ``st.text`` or inside dataframes, never through a
Markdown-rendering call; ids and labels that must go into Markdown (captions, widget labels)
pass through :func:`md_escape` first.
"""

from __future__ import annotations

import re

import streamlit as st

from palace_lab.redact import redact_card

ROLE_ICONS = {"user": ":material/person:", "assistant": ":material/smart_toy:",
              "tool_call": ":material/build:", "tool_result": ":material/terminal:",
              "system": ":material/settings:"}
MESSAGE_CHARS = 3000
MAX_MESSAGES = 60
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
    card = redact_card(card)[0]  # a card stored before a redaction rule existed
    rooms = "; ".join(f"{r.room_type}: {r.room_label} ({r.relevance:.2f})" for r in card.room_assignments)
    lines = [card.exchange_core, f"detail: {card.specific_context}"]
    if card.keywords:
        lines.append("keywords: " + " ".join(card.keywords))
    lines.append(f"rooms: {rooms or '(none)'}")
    if card.files_touched:
        more = len(card.files_touched) - 4
        lines.append("files: " + ", ".join(card.files_touched[:4]) + (f" (+{more})" if more > 0 else ""))
    st.text("\n".join(lines))  # one element per card: one field per line


VERBATIM_NOTE = ("Verbatim text, exactly as the source wrote it: secrets in it are not redacted "
                 "here. Cards, packs and everything sent to an LLM are.")


def show_messages(palace, exchange) -> None:
    """The exchange's messages (its ply range), each as text under its role."""
    messages = palace.messages(exchange.conversation_id, exchange.ply_start, exchange.ply_end)
    st.caption(f"conversation {md_escape(exchange.conversation_id)} · messages "
               f"{exchange.ply_start}–{exchange.ply_end} · {md_escape(exchange.project or 'no project')}"
               f" · {md_escape(exchange.timestamp or 'no time')}")
    st.caption(VERBATIM_NOTE)
    for m in messages[:MAX_MESSAGES]:
        with st.chat_message(m.role if m.role in ("user", "assistant") else "tool",
                             avatar=ROLE_ICONS.get(m.role, ":material/notes:")):
            st.caption(md_escape(f"{m.role}{' · ' + m.tool_name if m.tool_name else ''}"))
            st.text(clip(m.text, MESSAGE_CHARS))
    if len(messages) > MAX_MESSAGES:
        st.caption(f"{len(messages) - MAX_MESSAGES} more messages not shown.")
