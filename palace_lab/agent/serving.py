"""A search engine that keeps answering while the palace changes under it.

:class:`palace_lab.search.SearchEngine` notices every write to the palace and rebuilds the
indexes it needs before its next answer: right for the CLI (one process, one state), slow for a
long-lived server beside ``palace-lab watch``, where every pass would make the next agent search
wait for a BM25 and HNSW rebuild (10-30 s at 15k exchanges on two cores).

So :class:`Serving` holds a *generation*: one engine on its own palace connection, its indexes
built for the modes asked so far, then frozen (it stops looking for writes). When the palace's
content changes (the exchange and card fingerprints, checked only after SQLite says another
connection wrote), the next generation is built in a background thread on a new connection and
swapped in when ready; until then answers come from the previous generation. On a palace that
is not changing, the serving generation is the palace as it is, so its ranking is exactly the
one ``palace-lab search`` prints. A mode the generation has not built yet is built at once, in a
new generation (a frozen engine never builds: its keys would not match the palace's content).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from palace_lab.settings import DEFAULT_EMBEDDER

if TYPE_CHECKING:
    from palace_lab.store import Palace

log = logging.getLogger("palace_lab.mcp")


@dataclass
class Generation:
    palace: object
    engine: object
    content: str
    modes: frozenset[str]
    state: tuple = field(default=())


def _state(palace: Palace) -> tuple:
    conn = palace.conn
    return (conn.execute("PRAGMA data_version").fetchone()[0], conn.total_changes)


class Serving:
    """Generations of search engines over the palace file at ``path`` (see the module doc)."""

    def __init__(self, path, *, distiller: str | None = None, embedder: str = DEFAULT_EMBEDDER,
                 background: bool = True):
        self.path, self.distiller, self.embedder = path, distiller, embedder
        self.background = background
        self._current: Generation | None = None
        self._next: threading.Thread | None = None
        self._retired: list[Generation] = []
        self._lock = threading.RLock()
        self.generations = 0

    def engine(self, mode: str | None = None):
        """The engine to answer with: current, or built now for a mode it does not have.

        Callers use one engine at a time (the caller's lock): a retired generation is closed
        here, when its last answer is done."""
        with self._lock:
            self._close_retired()
            current = self._current
            if current is None or (mode and mode not in current.modes):
                wanted = (current.modes if current else frozenset()) | ({mode} if mode else set())
                self._swap(self._build(wanted))
                return self._current.engine
            if self._changed(current):
                self._renew(current.modes)
            return self._current.engine

    def close(self) -> None:
        with self._lock:
            if self._next is not None:
                self._next.join(timeout=60)
            self._close_retired()
            if self._current is not None:
                self._current.palace.close()
                self._current = None

    # -- generations ------------------------------------------------------------------------

    def _build(self, modes: frozenset[str]) -> Generation:
        from palace_lab.agent.pack_cache import content_key
        from palace_lab.search import SearchEngine
        from palace_lab.store import Palace

        palace = Palace.open(self.path, create=False)
        try:
            state = _state(palace)  # before reading: a write during the build is seen later
            content = content_key(palace)
            engine = SearchEngine(palace, distiller=self.distiller, embedder=self.embedder)
            engine.prepare(sorted(modes))
            for mode in sorted(modes):  # metadata, room keys and the model, loaded once here
                engine.search("warm up", mode, 1)
        except BaseException:
            palace.close()
            raise
        # Frozen: the engine stops looking for writes, so it keeps its built indexes. Its keys
        # stay those of `content`; a newer content is served by the next generation.
        engine.indexes.refresh = lambda: False
        return Generation(palace, engine, content, frozenset(modes), state)

    def _swap(self, generation: Generation) -> None:
        # The previous generation may be answering a search right now (the swap can come from
        # the builder thread): it is closed at the next call, when its caller is done with it.
        with self._lock:
            if self._current is not None:
                self._retired.append(self._current)
            self._current = generation
            self.generations += 1

    def _close_retired(self) -> None:
        while self._retired:
            self._retired.pop().palace.close()

    def _changed(self, current: Generation) -> bool:
        from palace_lab.agent.pack_cache import content_key

        state = _state(current.palace)
        if state == current.state:
            return False
        current.state = state  # our own reads and the builders' cache writes move it too
        return content_key(current.palace) != current.content

    def _renew(self, modes: frozenset[str]) -> None:
        if self._next is not None and self._next.is_alive():
            return
        if not self.background:
            self._swap(self._build(modes))
            return

        def renew():
            try:
                self._swap(self._build(modes))
            except Exception as exc:  # noqa: BLE001 - the current generation keeps serving
                log.warning("could not build the next index generation: %s", exc)

        self._next = threading.Thread(target=renew, name="palace-next-generation", daemon=True)
        self._next.start()
