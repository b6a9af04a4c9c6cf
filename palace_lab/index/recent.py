"""An embedder that remembers: evaluating twenty modes on the same queries embeds them once.

:class:`RecentEmbedder` wraps another embedder and keeps the vectors of the last ``size`` short
texts (least recently added out first). It keeps the wrapped embedder's name, so index caches and
the palace's embedding cache are shared with the plain embedder. Thread-safe: the app's searches
may share one.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np

from palace_lab.index.embed import Embedder


class RecentEmbedder(Embedder):
    """Wraps an embedder and remembers the vectors of the last ``size`` short texts."""

    def __init__(self, inner: Embedder, *, size: int = 4096, max_chars: int = 500):
        self.inner, self.size, self.max_chars = inner, size, max_chars
        self.name, self.dim = inner.name, inner.dim
        self._recent: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def embed_batch(self, texts):
        texts = list(texts)
        with self._lock:
            found = {t: self._recent[t] for t in texts if t in self._recent}
        missing = list(dict.fromkeys(t for t in texts if t not in found))
        if missing:
            found.update(zip(missing, self.inner.embed_batch(missing)))
        with self._lock:
            for text in missing:
                if len(text) <= self.max_chars:
                    self._recent[text] = found[text]
            while len(self._recent) > self.size:
                self._recent.popitem(last=False)
        rows = [found[t] for t in texts]
        if not rows:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.vstack(rows).astype(np.float32, copy=False)
