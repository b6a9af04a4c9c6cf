"""The search engine: a mode and a query in, ranked exchanges (hits) out.

A pure mode ranks one layer with one mechanism. A fused mode runs each of its pure runs to a
depth of ``max(k, 100)`` and fuses them (:mod:`palace_lab.search.fusion`); documents a run did
not retrieve get nothing from it. Scores are BM25 scores, cosine similarities (HNSW distance
converted to ``1 − d``) or fused scores. Ties are broken by exchange id, so results are
deterministic. Query embedding happens inside :meth:`SearchEngine.search` and counts in its
latency; :meth:`SearchEngine.run` embeds a whole query set in one batch.

A search never blocks for minutes on a vector layer that is not embedded yet: when building a
run's index would embed more than ``inline_embed`` texts, :meth:`SearchEngine.answer` leaves
that run out and says so (``inline_embed``: default :data:`INLINE_EMBED_LIMIT`, no limit for
an embedder marked ``instant``) (:mod:`palace_lab.search.readiness`);
:meth:`SearchEngine.prepare` builds it explicitly, with progress. :meth:`SearchEngine.run` (evaluation) always builds what it needs,
so figures are never computed on a substitute mode.

A hit's preview starts with the exchange's opening user message; hits point at the verbatim
exchange (conversation id and ply range) whatever layer found them.

Every query is mended first (:func:`palace_lab.text.broken.mend`): a broken character (a lone
surrogate from command-line bytes or a ``\\ud83d`` escape) becomes U+FFFD, so the CLI, the MCP
server and the app search the same text and none of them fails on it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from palace_lab.index.embed import Embedder
from palace_lab.errors import SearchError
from palace_lab.index import IndexSet, LayerIndex
from palace_lab.index.indexset import BuildProgress, require_cards
from palace_lab.index.layers import get_layer
from palace_lab.model import Hit, hits_of
from palace_lab.search import fusion
from palace_lab.search.filters import Filters
from palace_lab.search.modes import DEFAULT_MODE, FusedMode, Mode, PureMode, parse_mode
from palace_lab.search import readiness as planning
from palace_lab.search.readiness import BEHIND_EMBED_LIMIT, INLINE_EMBED_LIMIT, Readiness, substitute
from palace_lab.settings import DEFAULT_EMBEDDER
from palace_lab.text.broken import mend

if TYPE_CHECKING:
    from palace_lab.store import Palace

MIN_DEPTH = 100


@dataclass(frozen=True)
class Answer:
    """What :meth:`SearchEngine.answer` returns: the hits and the readiness they were made with (what ran, what was left out)."""

    hits: list[Hit]
    readiness: Readiness

    def to_dict(self) -> dict:
        return {"hits": [h.to_dict() for h in self.hits], **self.readiness.to_dict()}


class SearchEngine:
    """Searches one palace with one distiller version (default: the newest) and one embedder."""

    def __init__(self, palace: Palace, *, distiller: str | None = None,
                 embedder: str | Embedder = DEFAULT_EMBEDDER, cache: bool = True,
                 progress: BuildProgress | None = None,
                 inline_embed: float | None = None, **index_options):
        self.palace = palace
        self.inline_embed = inline_embed
        self.indexes = IndexSet(palace, distiller=distiller, embedder=embedder, cache=cache,
                                progress=progress, **index_options)
        self._meta: tuple[str, dict[str, tuple]] | None = None
        self._rooms: tuple[str, dict[str, frozenset[str]]] | None = None
        self._masks: dict[tuple, np.ndarray] = {}
        # Runs a background build (:mod:`palace_lab.search.background`) is embedding, with the
        # texts it has left: planned as missing (or behind) without counting them again.
        self.building: dict[PureMode, int] = {}

    @property
    def distiller(self) -> str | None:
        return self.indexes.distiller

    # -- public API -----------------------------------------------------------------------

    def prepare(self, modes: Iterable[str | Mode], progress: BuildProgress | None = None,
                *, compact: bool = False) -> None:
        """Load or build every index the modes need (so the first search is fast); with
        ``compact``, a BM25 index carrying a delta is rebuilt whole (``palace-lab index``)."""
        try:
            for mode in modes:
                for run in _mode(mode).runs:
                    self._index(run, progress)
                    if compact:
                        self.indexes.compact(run.layer, run.mechanism, progress)
        finally:
            self.indexes.release()

    def readiness(self, mode: str | Mode = DEFAULT_MODE) -> Readiness:
        """Which runs of ``mode`` a search would leave out right now, and the mode it runs."""
        return self._readiness(mode)[0]

    def _readiness(self, mode: str | Mode) -> tuple[Readiness, dict]:
        """The readiness of ``mode`` and, for runs *behind*, the previous index each searches
        instead."""
        parsed = _mode(mode)
        limit = self._inline_limit()
        missing, pending, behind, behind_n, stale, exact = [], [], [], [], {}, []
        for run in dict.fromkeys(parsed.runs):
            building = self.building.get(run)
            n = self._pending(run) if building is None else building
            old = None
            if (building or n > min(limit, BEHIND_EMBED_LIMIT)) and run.mechanism == "hnsw":
                old = self.indexes.stale(run.layer, run.mechanism)
            if old is not None:
                behind.append(run), behind_n.append(n)
                stale[run] = old
            elif building or n > limit:
                missing.append(run), pending.append(n)
            elif self._unbuilt_graph(run, limit):
                exact.append(run)
        used = planning.searched_exactly(substitute(parsed, tuple(missing)), tuple(exact))
        ready = Readiness(parsed, used, tuple(missing), tuple(pending), tuple(behind), tuple(behind_n),
                         tuple(exact))
        return ready, stale

    def _unbuilt_graph(self, run: PureMode, limit: float) -> bool:
        """True for an HNSW run of a large layer whose graph is neither loaded nor cached
        (its vectors are stored: nothing to embed), when searches may not build everything
        inline (see :mod:`palace_lab.search.readiness`, *unbuilt graph*)."""
        return (run.mechanism == "hnsw" and limit != math.inf
                and not self.indexes.is_open(run.layer, run.mechanism)
                and self.palace.count("exchanges") > planning.INLINE_GRAPH_ROWS)

    def answer(self, query: str, mode: str | Mode = DEFAULT_MODE, k: int = 10,
               filters: Filters | dict | None = None, *,
               vector: np.ndarray | None = None) -> Answer:
        """The ``k`` best exchanges for ``query`` under ``mode`` (or what of it is built now).

        ``vector``: the query's embedding if the caller already has it (comparing several
        modes on one query embeds it once); otherwise it is computed here when needed.
        """
        query = mend(query)
        try:
            (ready, stale), k, chosen = self._readiness(mode), _check_k(k), Filters.coerce(filters)
            if vector is None and _needs_vectors(ready.used):
                vector = self._embed([query])[0]
            ranked = self._ranked(query, vector, ready.used, k, chosen, stale)
        finally:
            self.indexes.release()  # texts read to build a changed layer's index
        return Answer(self._hits(ranked), ready)

    def search(self, query: str, mode: str | Mode = DEFAULT_MODE, k: int = 10,
               filters: Filters | dict | None = None, *,
               vector: np.ndarray | None = None) -> list[Hit]:
        """The hits of :meth:`answer` (best first); its ``readiness`` says what was left out."""
        return self.answer(query, mode, k, filters, vector=vector).hits

    def run(self, queries: Mapping[str, str], mode: str | Mode = DEFAULT_MODE, k: int = 10,
            filters: Filters | dict | None = None) -> dict[str, dict[str, float]]:
        """A run ``{query_id: {exchange_id: score}}`` over a query set (one embedding batch)."""
        parsed, k, chosen = _mode(mode), _check_k(k), Filters.coerce(filters)
        queries = {qid: mend(text) for qid, text in queries.items()}
        qids = list(queries)
        vectors = self._embed([queries[q] for q in qids]) if _needs_vectors(parsed) else None
        out = {}
        for i, qid in enumerate(qids):
            vector = vectors[i] if vectors is not None else None
            out[qid] = dict(self._ranked(queries[qid], vector, parsed, k, chosen))
        return out

    def pure_run(self, query: str, mode: str | PureMode, depth: int,
                 vector: np.ndarray | None = None, filters: Filters | dict | None = None
                 ) -> dict[str, float]:
        """One pure mode's ``{exchange_id: score}`` to ``depth`` (for fusion experiments)."""
        parsed = _mode(mode)
        if not isinstance(parsed, PureMode):
            raise SearchError(f"{mode!r} is not a pure MECHANISM:LAYER mode")
        query = mend(query)
        if vector is None and parsed.mechanism != "bm25":
            vector = self._embed([query])[0]
        return self._pure(query, vector, parsed, depth, Filters.coerce(filters))

    # -- ranking --------------------------------------------------------------------------

    def _inline_limit(self) -> float:
        """Texts one search may embed: ``inline_embed`` if given, else
        :data:`INLINE_EMBED_LIMIT` (no limit for an instant embedder, the tests' fake)."""
        if self.inline_embed is not None:
            return self.inline_embed
        return math.inf if self.indexes.embedder.instant else INLINE_EMBED_LIMIT

    def _pending(self, run: PureMode) -> int:
        """Texts still to embed for ``run`` (0: runnable as it is, or an instant embedder)."""
        if self._inline_limit() == math.inf:
            return 0
        if get_layer(run.layer).needs_cards and not self.indexes.distiller:
            return 0  # the run raises its clear "distill first" error when searched
        return self.indexes.pending(run.layer, run.mechanism)

    def _embed(self, texts: list[str]) -> np.ndarray:
        return self.indexes.embed_queries(texts)

    def _ranked(self, query: str, vector, mode: Mode, k: int, filters: Filters | None,
                stale: dict | None = None) -> list[tuple[str, float]]:
        if isinstance(mode, PureMode):
            run = self._pure(query, vector, mode, k, filters, stale)
        else:
            depth = max(k, MIN_DEPTH)
            runs = [self._pure(query, vector, r, depth, filters, stale) for r in mode.runs]
            params = dict(mode.params)
            run = fusion.fuse(mode.fusion, runs, weights=mode.weights, **params)
        return fusion.rank_order(run)[:k]

    def _pure(self, query: str, vector, mode: PureMode, depth: int,
              filters: Filters | None, stale: dict | None = None) -> dict[str, float]:
        index = (stale or {}).get(mode) or self._index(mode)
        allowed = self._mask(index, filters) if filters else None
        rows, scores = index.search(query if mode.mechanism == "bm25" else vector, depth, allowed)
        ids = index.ids  # a grown HNSW index has blank ids for removed rows
        return {ids[r]: float(s) for r, s in zip(rows.tolist(), scores.tolist()) if ids[r]}

    def _index(self, mode: PureMode, progress: BuildProgress | None = None) -> LayerIndex:
        require_cards(self.indexes, mode.layer)
        return self.indexes.get(mode.layer, mode.mechanism, progress)

    # -- exchange metadata and filters ----------------------------------------------------

    def _facets(self) -> dict[str, tuple[str | None, str | None]]:
        """``{exchange_id: (project, timestamp)}`` for filters, re-read when exchanges change."""
        version = self.indexes.content_key("verbatim")
        if self._meta is None or self._meta[0] != version:
            self._meta, self._masks = (version, self.palace.exchange_facets()), {}
        return self._meta[1]

    def _room_keys(self) -> dict[str, frozenset[str]]:
        distiller = self.indexes.distiller
        if not distiller:
            raise SearchError("the room filter needs distilled cards; "
                              "run `palace-lab distill --db DB` first")
        version = self.indexes.content_key("core")
        if self._rooms is None or self._rooms[0] != version:
            rooms = {c.exchange_id: frozenset(r.room_key for r in c.room_assignments)
                     for c in self.palace.cards(distiller)}
            self._rooms, self._masks = (version, rooms), {}
        return self._rooms[1]

    def _mask(self, index: LayerIndex, filters: Filters) -> np.ndarray:
        facets = self._facets()
        rooms = self._room_keys() if filters.room else {}
        key = (index.key, filters)
        if key not in self._masks:
            if len(self._masks) > 64:
                self._masks.clear()
            none = frozenset()
            self._masks[key] = np.fromiter(
                (eid in facets and filters.admits(*facets[eid], rooms.get(eid, none))
                 for eid in index.ids),
                dtype=bool, count=index.size)
        return self._masks[key]

    def _hits(self, ranked: list[tuple[str, float]]) -> list[Hit]:
        """Hits of the ranked ids, reading only their rows (not the whole palace)."""
        return hits_of(ranked, self.palace.exchanges_by_id([eid for eid, _ in ranked]))


def _mode(mode: str | Mode) -> Mode:
    return mode if isinstance(mode, (PureMode, FusedMode)) else parse_mode(mode)


def _needs_vectors(mode: Mode) -> bool:
    return any(r.mechanism != "bm25" for r in mode.runs)


def _check_k(k) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise SearchError(f"k must be a positive integer, got {k!r}")
    return int(k)
