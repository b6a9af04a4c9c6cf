"""The app's palace-wide figures, computed once per palace content and kept for every reader.

The Overview and Budgets read every exchange's token counts (:func:`budget_rows`), Rooms the
size of every room (:func:`room_stats`), Memory lifecycle every exchange's tool traffic
(:func:`toolcall_rows`), its consolidation replay and card vocabulary
(:mod:`palace_lab.experiments.lifecycle_figures`). At 50,000 exchanges each takes tens of seconds to compute from the
palace, so each is kept in the figures cache (:mod:`palace_lab.store.figures`), keyed by the
palace's content, the distiller version and the code that computes it: a page reads a file.

:func:`prepare_palace` makes them all ahead of the first visit, with the Overview's retrieval
figures when every mode they need is built: ``palace-lab index`` calls it after the indexes (the step that brings a palace to full strength), so a fresh server's first
visit of every page reads figures instead of counting. A page that finds one missing (a palace
never indexed) computes it once, with a spinner, and keeps it for the next server.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import astuple, fields
from typing import TYPE_CHECKING

from palace_lab import rooms
from palace_lab.budget import DEFAULT_ENCODING, ExchangeBudget
from palace_lab.budget import budget_rows as count_budget_rows
from palace_lab.experiments import lifecycle_figures
from palace_lab.index.cache import cards_fingerprint
from palace_lab.ingest.traffic import toolcalls
from palace_lab.lifecycle import pack
from palace_lab.model import content_hash
from palace_lab.store import figures
from palace_lab.store.memo import code_version

if TYPE_CHECKING:
    from palace_lab.store import Palace


def content_key(palace: Palace, version: str | None) -> str:
    """What ``version``'s figures are made from: the exchanges' and the cards' fingerprints."""
    return content_hash(palace.fingerprint(), cards_fingerprint(palace, version))


def budget_rows(palace: Palace, version: str | None,
                encoding: str = DEFAULT_ENCODING) -> list[ExchangeBudget]:
    """Every exchange's token counts by layer (:func:`palace_lab.budget.budget_rows`), kept."""
    names = [f.name for f in fields(ExchangeBudget)]  # every field, in its order

    def compute() -> list[list]:
        return [[getattr(r, n) for n in names] for r in count_budget_rows(palace, version, encoding)]

    # "budget2": rows carry the searched layer (core + keywords) since rules:v3
    key = (f"{encoding}-{content_key(palace, version)[:16]}-"
           f"{code_version('palace_lab.budget', 'palace_lab.tokens')}")
    return [ExchangeBudget(*r) for r in figures.cached(palace, "budget2", key, compute)]


def room_stats(palace: Palace, version: str | None) -> list[rooms.RoomStat]:
    """Every room's size in exchanges and verbatim tokens, largest first, kept."""
    def compute() -> list[list]:
        tokens = {r.exchange_id: r.verbatim for r in budget_rows(palace, version)}
        filed = palace.card_rooms(version)
        return [list(astuple(s)) for s in rooms.room_stats(filed, tokens)]

    key = f"{content_key(palace, version)[:16]}-{code_version('palace_lab.rooms', 'palace_lab.model')}"
    return [rooms.RoomStat(*row) for row in figures.cached(palace, "rooms", key, compute)]


def toolcall_rows(palace: Palace) -> list[toolcalls.ToolCallRow]:
    """The palace's tool-call table (:func:`toolcalls.toolcall_table`), kept."""
    def compute() -> list[list]:
        return [list(astuple(r)) for r in toolcalls.toolcall_table(palace)]

    key = f"{palace.fingerprint()[:16]}-{code_version('palace_lab.ingest.traffic.toolcalls')}"
    return [toolcalls.ToolCallRow(*r) for r in figures.cached(palace, "toolcalls", key, compute)]


def prepare_palace(palace: Palace, searched: str | None = None,
                   progress: Callable[[str, int, int], None] | None = None, *,
                   engine=None, embedder: str | None = None) -> dict[str, dict]:
    """:func:`prepare` for the version the app opens on (the one with the most cards) and the
    version ``searched`` (what ``palace-lab index`` built), each once; seconds by version.
    With the ``engine`` that built the indexes (and its ``embedder``'s registry name), the
    Overview's retrieval figures too (``story``), when every mode they need is built."""
    from palace_lab.experiments.story import main_version

    versions = dict.fromkeys(v for v in (main_version(palace), searched) if v) or {None: None}
    took = {str(v): prepare(palace, v, progress) for v in versions}
    took[next(iter(took))].update(lifecycle_figures.prepare(palace))  # every version's at once
    start = time.perf_counter()
    if engine is not None and embedder and story_figures(palace, engine, embedder):
        took[str(engine.distiller)]["story"] = round(time.perf_counter() - start, 3)
    return took


def story_figures(palace: Palace, engine, embedder: str) -> bool:
    """Keep the Overview's retrieval figures (:func:`story.retrieval_figures`) when ``engine``
    searches the version the app opens on and every mode they need is built now (this never
    embeds a layer nor builds a graph: a palace below full strength keeps its Overview's
    compute button); True when they are kept."""
    from palace_lab.experiments import query_sets
    from palace_lab.experiments.story import default_query_set, main_version, retrieval_figures

    version = main_version(palace)
    if not version or engine.distiller != version:
        return False
    if any(engine.readiness(mode).degraded for mode in query_sets.DEFAULT_MODES):
        return False
    return retrieval_figures(palace, distiller=version, query_set=default_query_set(palace),
                             embedder=embedder, engine=engine) is not None


def prepare(palace: Palace, version: str | None,
            progress: Callable[[str, int, int], None] | None = None) -> dict[str, float]:
    """Make (or find) every page figure of ``version``; seconds each took, by kind."""
    steps = {"budget2": lambda: budget_rows(palace, version),
             "toolcalls": lambda: toolcall_rows(palace)}
    if version:
        steps["rooms"] = lambda: room_stats(palace, version)
        steps["importance"] = lambda: pack.importances(palace, version)  # the memory pack's
    took = {}
    for i, (kind, make) in enumerate(steps.items()):
        start = time.perf_counter()
        make()
        took[kind] = round(time.perf_counter() - start, 3)
        if progress:
            progress("page figures", i + 1, len(steps))
    return took
