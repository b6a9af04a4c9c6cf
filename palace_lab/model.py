"""Value types of the palace, in the paper's words.

A *message* is one turn as the source wrote it (user request, assistant text, tool call, tool
result, system/meta text). A *conversation* is the ordered list of messages of one session. An
*exchange* is one user request and everything the agent did until the next real request; its
ply range is the 0-based message positions it spans inside its conversation. A *distilled card*
is the 4-field summary of one exchange.

Identity and storage live in :mod:`palace_lab.store`; these are plain frozen values with
``to_dict``/``from_dict`` so they travel through JSON, notebooks and the app unchanged.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, fields

ROLES = ("user", "assistant", "tool_call", "tool_result", "system")
ROOM_TYPES = ("file", "concept", "workflow")


def content_hash(*parts: str) -> str:
    """SHA-1 over the parts joined by a unit separator: the palace's content key."""
    h = hashlib.sha1()
    for i, part in enumerate(parts):
        if i:
            h.update(b"\x1f")
        h.update(part.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def exchange_id_for(conversation_id: str, opening_key: str) -> str:
    """Stable exchange id: derived from the source's own ids, never from insertion order.

    ``opening_key`` is the source key of the exchange's first message (a Claude Code record
    uuid, a ChatGPT node id, a line position for formats without ids).
    """
    return "x" + content_hash(conversation_id, opening_key)[:15]


class _Serialisable:
    def to_dict(self) -> dict:
        return asdict(self)  # type: ignore[call-overload]

    @classmethod
    def from_dict(cls, data: dict):
        names = _FIELD_NAMES.get(cls)
        if names is None:  # dataclasses.fields() on every call: 1.8 s of reading 50k cards
            names = frozenset(f.name for f in fields(cls))  # type: ignore[arg-type]
            _FIELD_NAMES[cls] = names
        return cls(**{k: v for k, v in data.items() if k in names})


_FIELD_NAMES: dict[type, frozenset[str]] = {}


@dataclass(frozen=True)
class Message(_Serialisable):
    """One turn of a conversation.

    ``is_request`` marks the person's real requests (the only messages that open an
    exchange). ``searchable`` is False for machine text that must not be indexed as the
    person's history (compaction summaries, injected instructions). ``source_key`` is the
    source's own id for the turn (record uuid, node id) or its position.
    """

    conversation_id: str
    position: int
    role: str
    text: str
    source_key: str
    is_request: bool = False
    searchable: bool = True
    tool_name: str | None = None
    timestamp: str | None = None
    source_path: str | None = None
    source_line: int | None = None
    meta: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"unknown role {self.role!r}; valid roles: {', '.join(ROLES)}")

    @property
    def hash(self) -> str:
        return content_hash(self.conversation_id, self.source_key, self.role, self.text)


@dataclass(frozen=True)
class Conversation(_Serialisable):
    """One session as a source wrote it, its messages already in order."""

    conversation_id: str
    source_format: str
    messages: tuple[Message, ...]
    project: str | None = None
    title: str | None = None
    source_path: str | None = None
    parent_id: str | None = None
    cwd: str | None = None

    @property
    def started_at(self) -> str | None:
        return next((m.timestamp for m in self.messages if m.timestamp), None)


@dataclass(frozen=True)
class Exchange(_Serialisable):
    """One user request and the agent's work until the next request (the verbatim layer)."""

    exchange_id: str
    conversation_id: str
    ply_start: int
    ply_end: int
    request: str
    verbatim: str
    dialogue: str
    files_touched: tuple[str, ...] = ()
    project: str | None = None
    timestamp: str | None = None

    @property
    def hash(self) -> str:
        return content_hash(self.exchange_id, self.verbatim)

    @property
    def preview(self) -> str:
        """The opening user message, else the start of the dialogue, else of the exchange."""
        return preview_of(self.request or self.dialogue or self.verbatim)


def preview_of(text: str, limit: int = 200) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


@dataclass(frozen=True)
class Room(_Serialisable):
    """A thematic room an exchange is filed under."""

    room_type: str
    room_key: str
    room_label: str
    relevance: float

    def __post_init__(self) -> None:
        if self.room_type not in ROOM_TYPES:
            raise ValueError(f"room_type {self.room_type!r} not in {ROOM_TYPES}")
        if not 0.0 <= float(self.relevance) <= 1.0:
            raise ValueError(f"relevance {self.relevance} outside 0..1")


@dataclass(frozen=True)
class DistilledCard(_Serialisable):
    """The card of one exchange, made by one distiller version: the paper's four fields and
    ``keywords``, the exchange's surviving vocabulary as a term list (empty where a distiller
    makes none; see :mod:`palace_lab.distill.keywords`)."""

    exchange_id: str
    distiller: str
    exchange_core: str
    specific_context: str
    room_assignments: tuple[Room, ...]
    files_touched: tuple[str, ...]
    fallback: bool = False
    keywords: tuple[str, ...] = ()

    @property
    def core_text(self) -> str:
        """The paper's searchable distilled text: exchange_core + specific_context."""
        return f"{self.exchange_core}\n{self.specific_context}".strip()

    @property
    def search_text(self) -> str:
        """What the ``core+keywords`` layer indexes: the core, then the keywords."""
        return f"{self.core_text}\n{' '.join(self.keywords)}".strip()

    @property
    def rooms_text(self) -> str:
        return "\n".join(f"{r.room_label} ({r.room_key})" for r in self.room_assignments)

    @property
    def full_text(self) -> str:
        """Every field as text, as the ``all`` layer indexes it and the budget counts it."""
        return "\n".join(part for part in (self.search_text, self.rooms_text,
                                             " ".join(self.files_touched)) if part)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["room_assignments"] = [r.to_dict() for r in self.room_assignments]
        d["files_touched"] = list(self.files_touched)
        d["keywords"] = list(self.keywords)
        return d

    @classmethod
    def from_dict(cls, data: dict) -> "DistilledCard":
        rooms = tuple(Room.from_dict(r) for r in data.get("room_assignments", ()))
        return cls(
            exchange_id=data["exchange_id"],
            distiller=data["distiller"],
            exchange_core=data["exchange_core"],
            specific_context=data["specific_context"],
            room_assignments=rooms,
            files_touched=tuple(data.get("files_touched", ())),
            fallback=bool(data.get("fallback", False)),
            keywords=tuple(data.get("keywords", ())),
        )


def rank_order(scores: Mapping[str, float]) -> list[tuple[str, float]]:
    """The one order of scored results, everywhere: ``(exchange_id, score)`` by score descending,
    ties by exchange id ascending. What search shows, evaluation scores and the CLI prints."""
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))


@dataclass(frozen=True)
class Hit(_Serialisable):
    """One search result, pointing at its verbatim exchange for drill-down."""

    exchange_id: str
    conversation_id: str
    ply_start: int
    ply_end: int
    rank: int
    score: float
    preview: str


def hits_of(ranked: Iterable[tuple[str, float]], exchanges: Mapping[str, Exchange]) -> list[Hit]:
    """Hits of ranked ``(exchange_id, score)`` pairs, numbered from 1 over the exchanges found
    (one that left the palace since its index was built is skipped): one search's hits and a
    batch's per-query hits alike."""
    hits: list[Hit] = []
    for eid, score in ranked:
        e = exchanges.get(eid)
        if e is not None:
            hits.append(Hit(eid, e.conversation_id, e.ply_start, e.ply_end, len(hits) + 1, score,
                            e.preview))
    return hits
