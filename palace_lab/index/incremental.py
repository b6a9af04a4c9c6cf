"""Building an index from the one it replaces: what changed is applied, the rest is reused.

A change to the palace gives a layer a new content key, so its index must be made again. When
the slot's previous index is on disk (:mod:`palace_lab.index.previous`), three things avoid a
rebuild from scratch:

- reading only the rows whose stored hash changed (:meth:`IncrementalBuilds._rows_now`; the
  hashes of a layer's sources are read once per palace content and shared by the layers made
  from the same source);
- a BM25 index takes the change as a delta (:mod:`palace_lab.index.bm25_delta`), an HNSW index
  grows by the new rows and drops the gone ones (:mod:`palace_lab.index.grow`);
- while the new HNSW index would have to embed too many texts first, a search uses the
  previous one with the changed rows blanked (:meth:`IncrementalBuilds.stale`, "behind").

:class:`IncrementalBuilds` is the half of :class:`~palace_lab.index.indexset.IndexSet` that
does this; it uses the set's palace, embedder, parameters, lock, caches and build log.
"""

from __future__ import annotations

import time

from palace_lab.index import bm25_delta, grow
from palace_lab.index.embed import embed_texts
from palace_lab.index.layer_index import LayerIndex
from palace_lab.index.layers import get_layer, layer_sources, texts_of
from palace_lab.index.mechanisms import MECHANISMS
from palace_lab.index.previous import (Previous, behind_ids, bm25_with_delta, hnsw_change,
                                       previous_of, read_sources, reusable_rows, row_keys,
                                       stable_part)


class IncrementalBuilds:
    """Reuse of a slot's previous index (mixed into :class:`~palace_lab.index.indexset.IndexSet`)."""

    def stale(self, layer: str, mechanism: str) -> LayerIndex | None:
        """The previous HNSW index of ``layer`` (an older content of the same slot), with the
        rows whose exchange is gone or whose text changed blanked to ``""`` (never returned),
        or None when there is none. What a search uses while the current index would have to
        embed too many new texts first (:data:`palace_lab.search.readiness.BEHIND_EMBED_LIMIT`):
        the new exchanges are not in it yet."""
        if mechanism != "hnsw" or not self.use_cache:
            return None
        with self._lock:
            key = self.key(layer, mechanism)
            held = self._stale.get((layer, mechanism))
            if held and held[0] == key:
                return held[1]
            previous = previous_of(self.root, key)
            if previous is None:
                return None
            base, base_ids = previous[0], previous[1]
            start = time.perf_counter()
            ids, _, rows, _ = self._rows_now(layer, mechanism, previous)
            out = behind_ids(previous, ids, rows)
            try:
                index = MECHANISMS[mechanism].load(base, len(base_ids), self.params)
            except (OSError, ValueError):
                return None
            self.record(layer, mechanism, "behind", start, len(out))
            made = LayerIndex(layer, mechanism, f"{base.name}~behind", out, index, base,
                              loaded=True)
            self._stale[(layer, mechanism)] = (key, made)
            return made

    def _bm25_delta(self, previous: Previous, layer: str, ids: list[str],
                    texts: list[str | None], rows: list[str]):
        """The previous BM25 index of this slot with the layer's changes as a delta, or None
        (:func:`palace_lab.index.previous.bm25_with_delta`)."""
        if len(ids) <= bm25_delta.DELTA_FROM:
            return None
        start = time.perf_counter()
        made = bm25_with_delta(previous, ids, texts, rows, self.tokenizer)
        if made:
            self.record(layer, "bm25", "delta", start, made[0].size - made[0].main_rows)
        return made

    def _grow(self, previous: Previous, layer: str, ids: list[str], texts: list[str | None],
              rows: list[str], progress):
        """The previous HNSW index of this slot with the layer's changes applied, or None
        when a rebuild is due (:mod:`palace_lab.index.grow`)."""
        change = hnsw_change(previous, ids, rows)
        if change is None:
            return None
        base, base_ids, base_rows = previous
        start = time.perf_counter()
        report = (lambda d, t: progress(f"embedding {layer}", d, t)) if progress else None
        vectors = embed_texts(self.palace, self.embedder, [texts[i] for i in change.added],
                              report)
        grown = grow.grow(base, self.hnsw_params, base_ids, base_rows, change, ids, rows,
                          vectors)
        self.record(layer, "hnsw", "grow", start, change.size())
        return grown

    def _rows_now(self, layer: str, mechanism: str, previous: Previous | None):
        """``(ids, texts, rows, sources)`` of the layer now: its rows' keys (:func:`row_keys`)
        and, for a layer with a source, the stored hashes they are made from. When
        ``previous`` knows the hashes its rows were made from, only the rows whose hash
        changed are read: the others' texts are None and their keys the previous ones."""
        start = time.perf_counter()
        listed, by_id = self._layer_sources(layer) \
            if self.use_cache and mechanism in ("bm25", "hnsw") else (None, None)
        known = read_sources(previous[0]) if listed and previous else None
        if known is not None:
            ids, hashes = listed
            rows = reusable_rows(stable_part(previous, mechanism), known, ids, hashes)
            todo = [i for i, r in enumerate(rows) if r is None]
            try:
                read = texts_of(self.palace, layer, self._distiller, [ids[i] for i in todo])
            except KeyError:  # a row went away since the hashes were read: read it all
                return self._rows_now(layer, mechanism, None)
            texts: list[str | None] = [None] * len(ids)
            for i, text, row in zip(todo, read, row_keys(mechanism, read, self.embedder,
                                                          cached=True)):
                texts[i], rows[i] = text, row
            self.record(layer, mechanism, "texts", start, len(todo))
            return ids, texts, rows, by_id
        ids, texts = self.layer_rows(layer)
        self.record(layer, mechanism, "texts", start, len(ids))
        rows = row_keys(mechanism, texts, self.embedder, cached=self.use_cache)
        sources = by_id if listed and listed[0] == ids else None
        return ids, texts, rows, sources

    def _layer_sources(self, layer: str) -> tuple[tuple[list[str], list[str]] | None,
                                                  dict[str, str] | None]:
        """``(layer_sources(...), {exchange_id: hash})`` of ``layer`` now, read once per
        content of the palace and shared by the layers made from the same source (every card
        layer reads the same card hashes): a change makes the count of each vector layer and
        the delta of each BM25 layer read them, five to eight times at once otherwise. The
        lists are shared: callers copy before they change them."""
        source = get_layer(layer).source
        if source is None:
            return None, None
        shared = f"{source}:{self._distiller}" if source == "card" else source
        content = self._content_key(layer)
        held = self._sources.get(shared)
        if held is None or held[0] != content:
            listed = layer_sources(self.palace, layer, self._distiller)
            held = (content, listed, dict(zip(*listed)))
            self._sources[shared] = held
        return held[1], held[2]
