"""The set of indexes of one palace: built lazily per (layer, mechanism), cached as files.

``IndexSet.get(layer, mechanism)`` returns a :class:`LayerIndex`: loaded from the cache folder
when its key matches (see :mod:`palace_lab.index.cache` for how staleness is detected), built
otherwise (layer texts → embeddings from the palace cache → index → files). Row ``i`` of every
index is ``LayerIndex.ids[i]``.

While an IndexSet lives (a Streamlit resource, a notebook), it notices writes to the palace
cheaply (SQLite ``PRAGMA data_version`` for other connections plus ``total_changes`` for its
own): only then does it recompute the fingerprints, drop indexes whose key changed and, when
no distiller was named, follow the newest distiller version.

Building from the slot's previous index instead of from scratch (read what changed, a BM25
delta, a grown HNSW, a search on the previous index while the new one waits) is
:mod:`palace_lab.index.incremental`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from palace_lab.index.embed import Embedder, embed_texts, get_embedder, pending_keys
from palace_lab.errors import SearchError
from palace_lab.index import cache as files
from palace_lab.index import bm25_delta
from palace_lab.index.bm25 import BM25Index
from palace_lab.index.exact import Found
from palace_lab.index.hnsw import HNSWParams
from palace_lab.index.mechanisms import MECHANISMS, IndexParams, get_mechanism
from palace_lab.index.incremental import IncrementalBuilds
from palace_lab.index.layer_index import LayerIndex
from palace_lab.index.previous import previous_of, rows_note, saver, write_rows_note
from palace_lab.text.tokenize import Tokenizer, TokenizerSettings
from palace_lab.index.layers import get_layer, layer_texts
from palace_lab.model import content_hash
from palace_lab.settings import DEFAULT_EMBEDDER

if TYPE_CHECKING:
    from palace_lab.store import Palace

BuildProgress = Callable[[str, int, int], None]


class IndexSet(IncrementalBuilds):
    """Indexes of one palace for one distiller version and one embedder."""

    def __init__(self, palace: Palace, *, distiller: str | None = None, embedder: str | Embedder = DEFAULT_EMBEDDER,
                 cache: bool = True, root: Path | None = None,
                 tokenizer: TokenizerSettings | None = None, hnsw: HNSWParams | None = None,
                 bm25_k1: float = 1.5, bm25_b: float = 0.75,
                 progress: BuildProgress | None = None):
        self.palace = palace
        self.embedder = get_embedder(embedder)
        self.use_cache = cache
        self.root = (root or files.cache_root(palace)) if cache else None
        self.tokenizer = Tokenizer(tokenizer)
        self.hnsw_params = hnsw or HNSWParams()
        self.bm25_params = {"k1": bm25_k1, "b": bm25_b}
        self.params = IndexParams(self.tokenizer, self.hnsw_params, bm25_k1, bm25_b)
        self.progress = progress
        self._follow_latest = distiller is None
        self._distiller = distiller
        self._lock = threading.RLock()
        self._indexes: dict[tuple[str, str], tuple[str, LayerIndex]] = {}
        self._vectors: dict[str, tuple[str, np.ndarray]] = {}
        self._state: tuple | None = None
        self._content: dict[str, str] = {}
        self._slots: dict[tuple, str] = {}
        self._pending: dict[str, list] = {}
        self._texts: tuple | None = None  # the last layer's (key, ids, texts), see layer_rows
        self._sources: dict[str, tuple] = {}  # see _layer_sources
        self._stale: dict[tuple[str, str], tuple[str, LayerIndex]] = {}
        self.build_log: list[dict] = []
        self.refresh()

    # -- palace state ---------------------------------------------------------------------

    @property
    def distiller(self) -> str | None:
        self.refresh()
        return self._distiller

    def refresh(self) -> bool:
        """Re-read the palace's fingerprints if it was written to; True if it had changed."""
        state = self.palace.state()
        if state == self._state:
            return False
        with self._lock:
            if self._follow_latest:
                self._distiller = self.palace.latest_distiller()
            self._content = {"": self.palace.fingerprint()}
            self._state = state
        return True

    def content_key(self, layer: str) -> str:
        """What ``layer``'s texts are made from right now (palace and cards fingerprints)."""
        self.refresh()
        return self._content_key(layer)

    def _content_key(self, layer: str) -> str:
        spec = get_layer(layer)
        if not spec.needs_cards:
            return self._content[""]
        if self._distiller not in self._content:
            self._content[self._distiller] = files.cards_fingerprint(self.palace, self._distiller)
        return content_hash(self._content[""], self._content[self._distiller])

    def _slot(self, layer: str, mechanism: str) -> str:
        which = (layer, mechanism, self._distiller)
        if which not in self._slots:
            self._slots[which] = self._make_slot(layer, mechanism)
        return self._slots[which]

    def _make_slot(self, layer: str, mechanism: str) -> str:
        spec, mech = get_layer(layer), get_mechanism(mechanism)
        parts = {"layer": layer, "layer_version": spec.version, "mechanism": mechanism,
                 "distiller": self._distiller if spec.needs_cards else None}
        if mech.needs_vectors:
            parts["embedder"] = self.embedder.name
        if mechanism == "bm25":
            parts.update(tokenizer=self.tokenizer.settings.to_dict(), bm25=self.bm25_params)
        if mechanism == "hnsw":
            parts["hnsw"] = self.hnsw_params.to_dict()
        return files.slot_key(parts)

    def key(self, layer: str, mechanism: str) -> str:
        """The cache folder name the (layer, mechanism) index has right now."""
        self.refresh()
        return files.folder_name(layer, mechanism, self._slot(layer, mechanism),
                                 self._content_key(layer))

    # -- getting indexes ------------------------------------------------------------------

    def get(self, layer: str, mechanism: str, progress: BuildProgress | None = None) -> LayerIndex:
        """The index of ``layer`` by ``mechanism``: in memory, from the cache, or built now."""
        get_layer(layer), get_mechanism(mechanism)
        with self._lock:
            key = self.key(layer, mechanism)
            held = self._indexes.get((layer, mechanism))
            if held and held[0] == key:
                return held[1]
            found = files.find(self.root, key) if self.use_cache else None
            index = self._load(found, layer, mechanism) if found else \
                self._build(key, layer, mechanism, progress or self.progress)
            self._indexes[(layer, mechanism)] = (key, index)
            return index

    def search(self, layer: str, mechanism: str, query, k: int,
               allowed: np.ndarray | None = None) -> Found:
        """``Found(rows, scores)`` of ``layer`` by ``mechanism``; ``query`` is a text for bm25,
        a unit vector for hnsw/exact. Rows map to exchange ids via ``get(...).ids``."""
        return self.get(layer, mechanism).search(query, k, allowed)

    def is_cached(self, layer: str, mechanism: str) -> bool:
        return bool(self.use_cache and files.find(self.root, self.key(layer, mechanism)))

    def is_open(self, layer: str, mechanism: str) -> bool:
        """True if the current index is in memory or in the cache (no build needed)."""
        held = self._indexes.get((layer, mechanism))
        return bool(held and held[0] == self.key(layer, mechanism)) or \
            self.is_cached(layer, mechanism)

    def pending(self, layer: str, mechanism: str) -> int:
        """How many texts building ``layer`` by ``mechanism`` would have to embed now (0 for
        bm25, and for an index already built); remembered (also on file) until the layer's
        content or the number of stored vectors changes."""
        if not get_mechanism(mechanism).needs_vectors or self.is_open(layer, mechanism):
            return 0
        name = self.key(layer, mechanism)
        held = self._pending.get(name)
        if held and held[2] == self._state:  # nothing was written since: no recount
            return held[0]
        stamp = self.palace.count_embeddings(self.embedder.name)
        note = held or (files.read_pending(self.root, name) if self.use_cache else None)
        if note is None or note[1] != stamp:
            note = [self._count_pending(layer), stamp]
            if self.use_cache:
                files.write_pending(self.root, name, note)
        self._pending[name] = [note[0], note[1], self._state]
        return note[0]

    def _count_pending(self, layer: str) -> int:
        """Distinct texts of ``layer`` without a stored vector, counted from the layer's
        embedding keys (those of its HNSW slot, for exact search too): only the rows changed
        since the last count, or since the previous HNSW index, are read."""
        key = self.key(layer, "hnsw")
        previous = (rows_note(self.root, key) or previous_of(self.root, key)) \
            if self.use_cache else None
        ids, _, rows, sources = self._rows_now(layer, "hnsw", previous)
        unchanged = previous is not None and previous[1] == ids and previous[2] == rows
        if self.use_cache and sources is not None and not unchanged:
            write_rows_note(self.root, key, ids, rows, sources)
        return pending_keys(self.palace, self.embedder, rows)

    def layer_rows(self, layer: str) -> tuple[list[str], list[str]]:
        """``(ids, texts)`` of ``layer`` now; the last layer read is kept until
        :meth:`release` (or a change), so counting what a search must embed and building the
        bm25 and hnsw indexes of one layer read the palace once, not three times."""
        key = (layer, self._distiller, self._content_key(layer))
        if self._texts is not None and self._texts[0] == key:
            return self._texts[1], self._texts[2]
        self._texts = None
        ids, texts = layer_texts(self.palace, layer, self._distiller)
        self._texts = (key, ids, texts)
        return ids, texts

    def release(self) -> None:
        """Forget the texts :meth:`layer_rows` kept (a large layer's texts are big)."""
        self._texts = None

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        """Query vectors, computed now (queries are not written to the palace)."""
        return self.embedder.embed_batch(list(texts))

    def record(self, layer: str, mechanism: str, step: str, start: float, n: int) -> None:
        self.build_log.append({"layer": layer, "mechanism": mechanism, "step": step,
                               "seconds": time.perf_counter() - start, "n": n})

    def _load(self, folder: Path, layer: str, mechanism: str) -> LayerIndex:
        start = time.perf_counter()
        ids = files.read_ids(folder)
        index = MECHANISMS[mechanism].load(folder, len(ids), self.params)
        self.record(layer, mechanism, "load", start, len(ids))
        return LayerIndex(layer, mechanism, folder.name, ids, index, folder, loaded=True)

    def _build(self, key: str, layer: str, mechanism: str, progress,
               compact: bool = False) -> LayerIndex:
        previous = previous_of(self.root, key) if self.use_cache and not compact else None
        if previous and mechanism == "bm25" and len(previous[1]) <= bm25_delta.DELTA_FROM:
            previous = None  # a small BM25 layer is rebuilt whole: read its texts once
        ids, texts, rows, sources = self._rows_now(layer, mechanism, previous)
        grown = None
        if rows and previous and mechanism == "hnsw":
            grown = self._grow(previous, layer, ids, texts, rows, progress)
        elif rows and previous and mechanism == "bm25":
            grown = self._bm25_delta(previous, layer, ids, texts, rows)
        if grown:
            index, ids, rows = grown
        else:
            if any(t is None for t in texts):  # a fresh build needs every text
                ids, texts, rows, sources = self._rows_now(layer, mechanism, None)
            index = self._fresh(layer, mechanism, texts, progress)
        folder = None
        if self.use_cache:
            start = time.perf_counter()
            meta = {"layer": layer, "mechanism": mechanism, "distiller": self._distiller,
                    "embedder": self.embedder.name, "rows": len(ids), "key": key,
                    "grown": bool(grown),
                    "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
            publish = files.replace if compact else files.publish
            folder = publish(self.root, key, ids, meta, saver(index, rows, sources))
            if isinstance(index, BM25Index):
                index.source = folder / "bm25"  # the base folder (linked from) is pruned
            self.record(layer, mechanism, "save", start, len(ids))
        return LayerIndex(layer, mechanism, key, ids, index, folder, loaded=False)

    def compact(self, layer: str, mechanism: str, progress: BuildProgress | None = None
                ) -> LayerIndex:
        """The index of ``layer`` by ``mechanism``, rebuilt from scratch if it is a BM25 index
        with a delta or removed rows (:mod:`palace_lab.index.bm25_delta`); the folder is
        replaced in place (same key: the same content)."""
        index = self.get(layer, mechanism, progress)
        if not (isinstance(index.index, BM25Index) and index.index.has_delta):
            return index
        with self._lock:
            key = self.key(layer, mechanism)
            built = self._build(key, layer, mechanism, progress or self.progress, compact=True)
            self._indexes[(layer, mechanism)] = (key, built)
            return built

    # -- building from scratch ------------------------------------------------------------

    def _fresh(self, layer: str, mechanism: str, texts: list[str], progress):
        """A new index of ``layer`` by ``mechanism``: its builder over the texts, or over
        their vectors, timed and reported."""
        mech = MECHANISMS[mechanism]
        rows = self.layer_vectors(layer, texts, progress) if mech.needs_vectors else texts
        report = progress if progress and mech.shows_progress else None
        if report:
            report(f"{mechanism} {layer}", 0, 1)
        start = time.perf_counter()
        index = mech.build(rows, self.params)
        self.record(layer, mechanism, "index", start, len(texts))
        if report:
            report(f"{mechanism} {layer}", 1, 1)
        return index

    def layer_vectors(self, layer: str, texts: list[str], progress) -> np.ndarray:
        """Vectors of a layer's texts, shared in memory by hnsw and exact."""
        content = self._content_key(layer)
        held = self._vectors.get(layer)
        if held and held[0] == content and len(held[1]) == len(texts):
            return held[1]
        start = time.perf_counter()
        report = (lambda d, t: progress(f"embedding {layer}", d, t)) if progress else None
        vectors = embed_texts(self.palace, self.embedder, texts, report)
        self.record(layer, "embed", "embed", start, len(texts))
        self._vectors[layer] = (content, vectors)
        return vectors


def require_cards(index_set: IndexSet, layer: str) -> None:
    """Raise a clear error when a distilled layer has no distiller to read cards from."""
    if get_layer(layer).needs_cards and not index_set.distiller:
        raise SearchError(f"layer {layer!r} needs distilled cards and this palace has none; "
                          "run `palace-lab distill --db DB` first")
