"""ChatGPT data export → conversations.

Format: ``conversations.json`` — inside the export ZIP (next to chat.html, user.json,
message_feedback.json…) or on its own — is a list of conversations; tools that split an export,
or save one conversation, write the bare conversation object instead. A conversation has
``id``/``conversation_id``, ``title``, ``create_time`` (unix seconds, float), ``current_node`` and
``mapping`` {node_id: {id, message | null, parent, children[]}}. A message has ``author.role``
(user | assistant | system | tool), ``author.name`` (the tool), ``recipient``,
``content.content_type`` with its fields, ``create_time`` and ``metadata``.

Traps:

- The mapping is a tree: every regenerated reply or edited prompt is a branch. What the person saw
  is the path from ``current_node`` up through ``parent``, reversed. ``children[0]`` is merely
  the oldest branch.
- The root node has ``message: null``.
- ``content.parts`` mixes strings with dicts (image and audio asset pointers, transcriptions);
  an image part often comes *before* the person's words, so those words go to
  ``meta["request_text"]`` for previews.
- Hidden messages (``metadata.is_visually_hidden_from_conversation``, the empty system prompt,
  custom instructions sent as a ``user_editable_context`` "user" message) are neither requests
  nor the person's history: role system, not searchable.
- An assistant message addressed to a tool (``recipient`` other than "all") is a tool call; the
  tool answers with ``author.role == "tool"``.
- Reasoning nodes (``thoughts``, ``reasoning_recap``) are kept as assistant messages marked
  ``meta["thinking"]`` and not searchable, so they stay out of the verbatim layer.
"""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

from palace_lab.errors import UnknownFormatError
from palace_lab.ingest.base import (
    RECORD_ERRORS, Parser, ParseResult, SkipRecord, looks_like_export_json, read_file_bounded,
    read_member_bounded, sniff_export_zip, utc_from_unix,
    zip_member,
)
from palace_lab.model import Conversation, Message, content_hash

NAME = "chatgpt"

# Keys as JSON keys, not as text quoted inside some message (that would be \"mapping\").
_MAPPING_KEY = re.compile(rb'(?<!\\)"mapping"\s*:\s*\{')
_CLAUDE_KEY = re.compile(rb'(?<!\\)"chat_messages"\s*:')
_COMPANIONS = ("chat.html", "message_feedback.json", "user.json")
_THINKING_TYPES = frozenset({"thoughts", "reasoning_recap"})
_HIDDEN_TYPES = frozenset({"user_editable_context", "model_editable_context"})
# Which fields carry the text of the non-"parts" content types, in reading order.
_TEXT_FIELDS = {
    "code": ("text",),
    "execution_output": ("text",),
    "system_error": ("name", "text"),
    "tether_quote": ("title", "url", "text"),
    "tether_browsing_display": ("summary", "result"),
    "reasoning_recap": ("content",),
    "user_editable_context": ("user_profile", "user_instructions"),
    "model_editable_context": ("model_set_context",),
}
_FALLBACK_FIELDS = ("text", "result", "content", "summary")



def sniff(path: Path, head: bytes) -> bool:
    """True for an export ZIP, a conversations.json or a bare conversation object."""
    try:
        if head.startswith(b"PK"):
            return _sniff_zip(path)
        return _looks_like_chatgpt_json(head)
    except Exception:  # a sniffer is asked about every file: it must never raise
        return False


def parse(path: Path) -> ParseResult:
    result = ParseResult()
    for raw in _load_conversations(path):
        if not isinstance(raw, dict) or not isinstance(raw.get("mapping"), dict):
            result.skip("not_a_conversation")
            continue
        try:
            conversation = _conversation(raw, path, result)
        except RECORD_ERRORS:  # a field of the wrong shape: this conversation only
            result.skip("malformed_conversation")
            continue
        result.keep(conversation)
    return result


PARSER = Parser(NAME, sniff, parse)


# --- sniffing -----------------------------------------------------------------------------


def _looks_like_chatgpt_json(head: bytes) -> bool:
    return looks_like_export_json(head, _MAPPING_KEY, "mapping") and not _CLAUDE_KEY.search(head)


def _sniff_zip(path: Path) -> bool:
    def companions(zf) -> bool:
        return any(zip_member(zf, c) is not None for c in _COMPANIONS)

    return sniff_export_zip(path, _looks_like_chatgpt_json, companions)



# --- loading ------------------------------------------------------------------------------


def _load_conversations(path: Path) -> list:
    data = _read_export_json(path)
    if isinstance(data, dict) and isinstance(data.get("mapping"), dict):
        return [data]
    if not isinstance(data, list):
        raise UnknownFormatError(
            f"{path.name} is JSON but neither a list of ChatGPT conversations nor one "
            f"conversation object (its top level is a {type(data).__name__})."
        )
    if data and not any(isinstance(c, dict) and isinstance(c.get("mapping"), dict) for c in data):
        raise UnknownFormatError(
            f"{path.name} holds a list of {len(data)} items but none is a ChatGPT conversation "
            "(none has a 'mapping')."
        )
    return data


def _read_export_json(path: Path):
    raw = _read_zip_member(path) if _is_zip(path) else read_file_bounded(path)
    try:
        return json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise UnknownFormatError(f"{path.name} is not readable JSON ({exc}).") from exc


def _is_zip(path: Path) -> bool:
    with open(path, "rb") as fh:
        return fh.read(2) == b"PK"


def _read_zip_member(path: Path) -> bytes:
    try:
        with zipfile.ZipFile(path) as zf:
            member = zip_member(zf, "conversations.json")
            if member is None:
                raise UnknownFormatError(
                    f"{path.name} is a ZIP without conversations.json (it holds {_listing(zf)})."
                )
            return read_member_bounded(zf, member, path.name)
    except zipfile.BadZipFile as exc:
        raise UnknownFormatError(f"{path.name} is a damaged ZIP ({exc}).") from exc


def _listing(zf: zipfile.ZipFile, limit: int = 5) -> str:
    names = zf.namelist()
    if not names:
        return "nothing"
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


# --- conversations ------------------------------------------------------------------------


def _conversation(raw: dict, path: Path, result: ParseResult) -> Conversation:
    cid = _conversation_id(raw)
    messages: list[Message] = []
    for node_id, node in _thread(raw["mapping"], raw.get("current_node")):
        msg = node.get("message")
        if msg is None:
            continue  # the root, and placeholder nodes: nothing was said
        try:
            draft = _draft(msg)
        except SkipRecord as skip:
            result.skip(skip.reason)
            continue
        messages.append(
            Message(conversation_id=cid, position=len(messages), source_key=node_id,
                    source_path=str(path), **draft)
        )
    title = raw.get("title") if isinstance(raw.get("title"), str) else None
    return Conversation(conversation_id=cid, source_format=NAME, messages=tuple(messages),
                        title=title or None, source_path=str(path))


def _conversation_id(raw: dict) -> str:
    for key in ("conversation_id", "id"):
        if isinstance(raw.get(key), str) and raw[key]:
            return raw[key]
    # No id of its own (a hand-saved object): derive one that is stable across re-ingest.
    seed = (str(raw.get("create_time")), str(raw.get("title")), str(raw.get("current_node")))
    return "chatgpt-" + content_hash(*seed)[:16]


def _thread(mapping: dict, current_node) -> list[tuple[str, dict]]:
    """The branch the person saw: from the current node up through ``parent``, reversed."""
    node_id = current_node if isinstance(current_node, str) and current_node in mapping else None
    if node_id is None:
        node_id = _latest_leaf(mapping)
    path: list[tuple[str, dict]] = []
    seen: set[str] = set()
    while isinstance(node_id, str) and node_id in mapping and node_id not in seen:
        seen.add(node_id)
        node = mapping[node_id]
        if not isinstance(node, dict):
            break
        path.append((node_id, node))
        node_id = node.get("parent")
    path.reverse()
    return path


def _latest_leaf(mapping: dict) -> str | None:
    """Without a current node, the most recently written leaf is the best guess."""
    leaves = [k for k, n in mapping.items() if isinstance(n, dict) and not n.get("children")]
    return max(leaves, key=lambda k: _create_time(mapping[k]), default=None)


def _create_time(node: dict) -> float:
    msg = node.get("message")
    value = msg.get("create_time") if isinstance(msg, dict) else None
    return float(value) if isinstance(value, (int, float)) else 0.0


# --- messages -----------------------------------------------------------------------------


def _draft(msg) -> dict:
    """Message fields (all but identity and position) for one node's message."""
    if not isinstance(msg, dict):
        raise SkipRecord("bad_message")
    author = msg.get("author") if isinstance(msg.get("author"), dict) else {}
    content = msg.get("content") if isinstance(msg.get("content"), dict) else {}
    ctype = content.get("content_type")
    text, words = _content_text(content)
    draft = {"role": "", "text": text, "timestamp": utc_from_unix(msg.get("create_time")),
             "meta": {}}
    if _is_hidden(msg, author.get("role"), ctype, text):
        draft.update(role="system", searchable=False)
        return draft
    if author.get("role") == "user":
        _add_attachments(draft, msg.get("metadata"))
    if not draft["text"].strip():
        raise SkipRecord("empty_message")
    if ctype in _THINKING_TYPES:
        draft.update(role="assistant", searchable=False, meta={"thinking": True})
        return draft
    _assign_role(draft, msg, author, words)
    return draft


def _assign_role(draft: dict, msg: dict, author: dict, words: str) -> None:
    role, recipient = author.get("role"), msg.get("recipient")
    metadata = msg.get("metadata") if isinstance(msg.get("metadata"), dict) else {}
    if role == "tool":
        draft.update(role="tool_result", tool_name=author.get("name") or None)
    elif role == "assistant" and isinstance(recipient, str) and recipient != "all":
        draft.update(role="tool_call", tool_name=recipient)
    elif role == "assistant":
        draft["role"] = "assistant"
    elif role == "user":
        draft.update(role="user", is_request=True)
        if words and draft["text"] != words:
            draft["meta"]["request_text"] = words
    elif role == "system":
        draft["role"] = "system"
    else:
        raise SkipRecord("unknown_role")
    if isinstance(metadata.get("model_slug"), str) and role == "assistant":
        draft["meta"]["model"] = metadata["model_slug"]


def _add_attachments(draft: dict, metadata) -> None:
    """Uploaded files' names belong to the request's verbatim text, after the words."""
    metadata = metadata if isinstance(metadata, dict) else {}
    files = metadata.get("attachments") if isinstance(metadata.get("attachments"), list) else []
    names = [a["name"] for a in files if isinstance(a, dict) and isinstance(a.get("name"), str)]
    if names:
        lines = "\n".join(f"[attachment: {name}]" for name in names)
        draft["text"] = f"{draft['text']}\n\n{lines}" if draft["text"] else lines
        draft["meta"]["attachments"] = names


def _is_hidden(msg: dict, role, ctype, text: str) -> bool:
    metadata = msg.get("metadata") if isinstance(msg.get("metadata"), dict) else {}
    if metadata.get("is_visually_hidden_from_conversation") or metadata.get(
        "is_user_system_message"
    ):
        return True
    return ctype in _HIDDEN_TYPES or (role == "system" and not text.strip())


def _content_text(content: dict) -> tuple[str, str]:
    """(text to keep, the person's own words in it) of one message content."""
    ctype = content.get("content_type")
    if isinstance(content.get("parts"), list):
        return _parts_text(content["parts"])
    if ctype == "thoughts" and isinstance(content.get("thoughts"), list):
        text = "\n\n".join(
            t["content"] for t in content["thoughts"]
            if isinstance(t, dict) and isinstance(t.get("content"), str)
        )
        return text, text
    fields = _TEXT_FIELDS.get(ctype, _FALLBACK_FIELDS)
    text = "\n".join(content[f] for f in fields if isinstance(content.get(f), str) and content[f])
    return text, text


def _parts_text(parts: list) -> tuple[str, str]:
    rendered: list[str] = []
    words: list[str] = []
    for part in parts:
        if isinstance(part, str):
            rendered.append(part)
            words.append(part)
        elif isinstance(part, dict) and isinstance(part.get("text"), str) and part["text"]:
            rendered.append(part["text"])  # an audio transcription: still the person's words
            words.append(part["text"])
        elif isinstance(part, dict):
            rendered.append(_placeholder(part))
    return "\n".join(p for p in rendered if p), "\n".join(w for w in words if w)


def _placeholder(part: dict) -> str:
    kind = part.get("content_type") if isinstance(part.get("content_type"), str) else ""
    if "image" in kind:
        return "[image]"
    if "audio" in kind or "video" in kind:
        return "[audio]"
    return f"[{kind or 'attachment'}]"
