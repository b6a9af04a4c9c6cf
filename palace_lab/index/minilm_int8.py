"""all-MiniLM-L6-v2 with int8 weights in ONNX Runtime: a whole history embedded in minutes.

The float graph of :mod:`palace_lab.index.minilm_onnx` (one text, no padding) is quantised by
``onnxruntime.quantization.quantize_dynamic``: int8 weights per output channel, activations
quantised at run time, so no calibration data is needed and the result is deterministic. The
quantised file is kept beside the float one in ``$PALACE_LAB_CACHE_DIR/onnx/``, named by
:data:`VERSION` and the float file's own name (which hashes the packaged weights), written to a
temporary file and renamed into place.

Invariants:

- The vectors are not the float model's (cosine to them: median 0.994, min 0.986 over the
  sample's verbatim texts), so :class:`Int8MiniLMEmbedder` has its own ``name``
  (``all-MiniLM-L6-v2-int8-v1``, ``@seqN`` for another truncation): its vectors key their own
  cache rows and indexes, and queries run the same int8 network as the documents.
- A batch runs text by text, each without padding, on ``threads`` worker threads sharing one
  session of one intra-op thread each (ORT releases the interpreter lock while it runs), so a
  batch uses the cores a PyTorch batch would, without the padding of mixed lengths.
  Measured: ``benchmarks/bench_embedders.py`` and the embedder table of docs/search.md.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from palace_lab.files import write_atomic
from palace_lab.index import minilm_onnx
from palace_lab.index.embed import Embedder, minilm_folder
from palace_lab.index.minilm_numpy import load_tokenizer

VERSION = 1  # bump when the quantisation changes: the embedder name changes with it
_LOCK = threading.Lock()
_SESSIONS: dict[str, object] = {}


def int8_file(folder: Path, cache: Path) -> Path:
    """Where the int8 graph of the packaged model is (or will be) kept."""
    float_path = minilm_onnx.model_file(folder, cache)
    return float_path.with_name(f"{float_path.stem}-int8pc-v{VERSION}.onnx")


def write_int8(folder: Path, cache: Path) -> Path:
    """Quantise the float graph (built first if needed) into :func:`int8_file`, atomically."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    float_path = minilm_onnx.model_file(folder, cache)
    if not float_path.is_file():
        minilm_onnx.write_model(folder, float_path)
    path = int8_file(folder, cache)
    return write_atomic(path, lambda tmp: quantize_dynamic(
        str(float_path), str(tmp), per_channel=True, weight_type=QuantType.QInt8))


def _session(path: Path):
    import onnxruntime as ort

    return minilm_onnx._session(ort, path)


def session():
    """The int8 session over the packaged model, once per process (quantised on first use)."""
    from palace_lab.settings import cache_dir

    folder, cache = minilm_folder(), cache_dir()
    path = int8_file(folder, cache)
    with _LOCK:
        if str(path) not in _SESSIONS:
            if not path.is_file():
                write_int8(folder, cache)
            try:
                _SESSIONS[str(path)] = _session(path)
            except Exception:  # a truncated file (a crashed writer): quantise again, once
                write_int8(folder, cache)
                _SESSIONS[str(path)] = _session(path)
        return _SESSIONS[str(path)]


class Int8MiniLMEmbedder(Embedder):
    """MiniLM's int8 ONNX graph for documents and queries (see the module docstring).

    ``max_seq_length`` word pieces are read from the start of each text (256, MiniLM's own);
    ``threads`` texts run at once (default: the machine's cores).
    """

    dim = 384

    def __init__(self, *, max_seq_length: int = 256, threads: int | None = None):
        self.max_seq_length = max_seq_length
        self.threads = threads or os.cpu_count() or 1
        suffix = "" if max_seq_length == 256 else f"@seq{max_seq_length}"
        self.name = f"all-MiniLM-L6-v2-int8-v{VERSION}{suffix}"
        self._pool: ThreadPoolExecutor | None = None
        self._tokenizer = None

    def tokenizer(self):
        if self._tokenizer is None:  # read once: parsing tokenizer.json costs a query's time
            self._tokenizer = load_tokenizer(minilm_folder(), self.max_seq_length)
        return self._tokenizer

    def _one(self, ids: Sequence[int]) -> np.ndarray:
        (pooled,) = session().run(None, {"input_ids": np.asarray(ids, dtype=np.int64)})
        return pooled / max(float(np.linalg.norm(pooled)), 1e-12)

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        tokenizer = self.tokenizer()
        if len(texts) == 1 or self.threads == 1:  # a query: no pool to wake
            ids = [tokenizer.encode(t).ids for t in texts]
            return np.vstack([self._one(i) for i in ids]).astype(np.float32)
        ids = [e.ids for e in tokenizer.encode_batch(list(texts))]
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.threads, thread_name_prefix="minilm-int8")
        return np.vstack(list(self._pool.map(self._one, ids))).astype(np.float32)
