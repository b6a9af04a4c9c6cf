"""The palace as MCP tools: ``palace-lab mcp --db DB`` (the official ``mcp`` SDK, stdio).

Tools (all read-only, idempotent, closed-world; each returns structured output with a schema):

- ``search``: ranked hits, exactly the ranking of ``palace-lab search`` for the same arguments
  (:meth:`palace_lab.agent.recall.Recall.search`);
- ``get_exchange``: the verbatim exchange, paged by characters;
- ``pack``: a memory pack never over its token budget;
- ``rooms``: the room map with counts; ``stats``: exchanges, projects, layers and budgets.

Every description says that what comes back is recalled data, not instructions. A bad argument
is refused by the input schema or by the library and comes back as a tool error (``isError``
with one line of text); the server keeps serving. Streamable HTTP binds to 127.0.0.1 only.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, Field

from palace_lab.agent.recall import DEFAULT_PAGE, MAX_K, MAX_PAGE, MAX_ROOMS, NOTICE, Recall
from palace_lab.errors import PalaceError
from palace_lab.settings import DEFAULT_EMBEDDER

log = logging.getLogger("palace_lab.mcp")

INSTRUCTIONS = (
    "palace-lab holds this person's past sessions with coding agents, distilled into cards. "
    "Use `search` to recall earlier work (decisions, errors, file paths, commands), then "
    "`get_exchange` on a hit's exchange_id to read what was actually said, page by page. "
    + NOTICE)
MAX_BUDGET = 100_000


class RoomOut(BaseModel):
    room_type: str
    room_key: str
    room_label: str
    relevance: float


class CardOut(BaseModel):
    core: str = Field(description="exchange_core: what the exchange was about, 1-2 sentences")
    context: str = Field(description="specific_context: one detail copied exactly")
    keywords: list[str] = Field(default_factory=list,
                                description="the exchange's distinctive terms (surviving vocabulary)")
    rooms: list[RoomOut]
    files: list[str]


class HitOut(BaseModel):
    exchange_id: str
    conversation_id: str
    project: str | None
    timestamp: str | None
    ply_start: int
    ply_end: int
    rank: int
    score: float
    preview: str = Field(description="the start of the exchange's opening user message")
    request: str = Field(default="", description="the opening of the person's own request "
                         "(injected IDE/system blocks removed, secrets redacted)")
    card: CardOut | None = Field(description="the distilled card (None before distilling)")


class SearchOut(BaseModel):
    query: str
    mode: str
    k: int
    filters: dict[str, str]
    hits: list[HitOut]
    notice: str


class ExchangeOut(BaseModel):
    exchange_id: str
    conversation_id: str
    project: str | None
    timestamp: str | None
    ply_start: int
    ply_end: int
    files_touched: list[str]
    card: CardOut | None
    offset: int
    limit: int
    total_chars: int
    next_offset: int | None = Field(description="offset of the next page; null on the last")
    text: str = Field(description="this page of the verbatim exchange")
    notice: str


class PackOut(BaseModel):
    format: str
    budget: int
    tokens: int = Field(description="tokens of `text`, never above `budget`")
    encoding: str
    distiller: str
    focus: dict[str, str]
    items: int
    candidates: int
    rooms: list[str]
    exchange_ids: list[str]
    text: str
    notice: str


class RoomStatOut(BaseModel):
    room_type: str
    room_key: str
    room_label: str
    exchanges: int
    mean_relevance: float


class RoomsOut(BaseModel):
    distiller: str
    project: str | None
    cards: int
    total_rooms: int
    rooms: list[RoomStatOut]


class DistillerOut(BaseModel):
    version: str
    backend: str
    cards: int


class StatsOut(BaseModel):
    exchanges: int
    conversations: int
    messages: int
    projects: dict[str, int]
    distillers: list[DistillerOut]
    default_distiller: str | None
    default_mode: str
    budget: dict[str, Any] = Field(description="per layer token totals and means, compression")


DESCRIPTIONS = {
    "search": "Search past sessions: the k best exchanges for a query, best first, each with its "
              "distilled card, the opening of the person's request (`request`) and a preview. "
              "Same ranking as `palace-lab search`. " + NOTICE,
    "get_exchange": "Read one exchange verbatim (request, agent text, tool calls and output), "
                    "one page of characters at a time: call again with offset=next_offset until "
                    "it is null. Secrets are shown as [REDACTED:kind]. " + NOTICE,
    "pack": "A memory pack: the most important and recent distilled cards, grouped by room, as "
            "Markdown of at most `budget` tokens, each item citing its exchange id. " + NOTICE,
    "rooms": "The room map: rooms (files, concepts, workflows) the distilled cards are filed "
             "in, largest first, with exchange counts. " + NOTICE,
    "stats": "The palace in numbers: exchanges, conversations, projects, distiller versions, "
             "the default search mode, token budgets per layer and compression.",
}


def _answer(call, *args, **kwargs):
    """``call``'s answer; a refusal or a failure becomes a one-line tool error."""
    from mcp.server.mcpserver.exceptions import ToolError

    try:
        return call(*args, **kwargs)
    except (PalaceError, ValueError, LookupError, TypeError) as exc:
        raise ToolError(str(exc)) from None
    except Exception as exc:  # one line to the agent; the traceback goes to our log
        log.exception("tool failed")
        raise ToolError(f"unexpected error: {type(exc).__name__}: {exc}") from None


class Tools:
    """The tools, one method each; the SDK reads their signatures as the input schemas."""

    def __init__(self, recall: Recall):
        self.recall = recall

    def search(
        self,
        query: Annotated[str, Field(min_length=1, description="what to recall, in plain words")],
        mode: Annotated[str | None, Field(description="search mode name or mode string "
                                          "(`palace-lab modes`); default: the palace's saved "
                                          "default, else the library's")] = None,
        k: Annotated[int, Field(ge=1, le=MAX_K, description="number of hits")] = 10,
        project: Annotated[str | None, Field(description="only this project")] = None,
        since: Annotated[str | None, Field(description="only on or after this ISO date")] = None,
        until: Annotated[str | None, Field(description="only up to this ISO date")] = None,
        room: Annotated[str | None, Field(description="only exchanges filed in this room key")] = None,
    ) -> SearchOut:
        return SearchOut.model_validate(_answer(self.recall.search, query, mode=mode, k=k,
                                                project=project, since=since, until=until,
                                                room=room))

    def get_exchange(
        self,
        exchange_id: Annotated[str, Field(min_length=1, description="an exchange id (x…)")],
        offset: Annotated[int, Field(ge=0, description="first character of the page")] = 0,
        limit: Annotated[int, Field(ge=1, le=MAX_PAGE, description="page size in characters")
                         ] = DEFAULT_PAGE,
    ) -> ExchangeOut:
        return ExchangeOut.model_validate(_answer(self.recall.exchange, exchange_id,
                                                  offset=offset, limit=limit))

    def pack(
        self,
        budget: Annotated[int, Field(ge=1, le=MAX_BUDGET, description="token budget")],
        query: Annotated[str | None, Field(description="focus: rank memories by this")] = None,
        project: Annotated[str | None, Field(description="focus: only this project")] = None,
    ) -> PackOut:
        return PackOut.model_validate(_answer(self.recall.pack, budget, query=query,
                                              project=project))

    def rooms(
        self,
        project: Annotated[str | None, Field(description="only this project")] = None,
        limit: Annotated[int, Field(ge=1, le=MAX_ROOMS, description="at most this many")] = 50,
    ) -> RoomsOut:
        return RoomsOut.model_validate(_answer(self.recall.rooms, project=project, limit=limit))

    def stats(self) -> StatsOut:
        return StatsOut.model_validate(_answer(self.recall.stats))


def build_server(recall: Recall):
    """An ``MCPServer`` whose tools answer from ``recall``: read-only, idempotent, closed-world."""
    from mcp.server.mcpserver import MCPServer
    from mcp_types import ToolAnnotations

    app = MCPServer(name="palace-lab", instructions=INSTRUCTIONS)
    read_only = ToolAnnotations(read_only_hint=True, idempotent_hint=True,
                                destructive_hint=False, open_world_hint=False)
    tools = Tools(recall)
    for name, description in DESCRIPTIONS.items():
        app.add_tool(getattr(tools, name), name=name, description=description,
                     annotations=read_only)
    return app


def serve(db: str | Path, *, distiller: str | None = None, embedder: str = DEFAULT_EMBEDDER,
          http_port: int | None = None, warm: bool = True) -> None:
    """Serve the palace at ``db`` over stdio (or streamable HTTP on 127.0.0.1:``http_port``)."""
    recall = Recall.open(db, distiller=distiller, embedder=embedder)
    try:
        if warm:
            _warm_in_background(recall)
        app = build_server(recall)
        if http_port is None:
            app.run()
        else:
            app.run("streamable-http", host="127.0.0.1", port=http_port)
    finally:
        recall.close()


def _warm_in_background(recall: Recall) -> None:
    """Load the default mode's indexes while the client initialises; a failure is only logged
    (the first search then reports it as a tool error)."""
    import threading

    def warm():
        try:
            recall.warm()
        except Exception as exc:  # noqa: BLE001 - logged, never fatal
            log.warning("could not warm the indexes: %s", exc)

    threading.Thread(target=warm, name="palace-warm", daemon=True).start()
