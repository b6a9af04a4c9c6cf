"""all-MiniLM-L6-v2 in plain numpy, for queries: no torch import on the search path.

A ``palace-lab search`` is one process per query; importing torch and sentence-transformers
costs it seconds (6 s + 17 s measured on a loaded 2-core machine) before a 10 ms embedding.
This is the same network, read from the same packaged ``model.safetensors`` and
``tokenizer.json`` (the Rust ``tokenizers`` library: lower-casing, WordPiece, ``[CLS] … [SEP]``,
cut at ``max_seq_length`` word pieces), the weights memory-mapped from the safetensors file,
one text at a time without padding:

- BERT (Devlin et al. 2019): word + position + token-type embeddings, LayerNorm; then 6 layers
  of 12-head self-attention (softmax(QKᵀ/√d)V) and a GELU feed-forward, each with a residual
  connection and LayerNorm (ε = 1e-12);
- sentence-transformers' pooling for this model: the mean of the last hidden states, then L2
  normalisation.

GELU is the exact ``x·Φ(x)``; Φ uses the erf approximation 7.1.26 of Abramowitz & Stegun
(|error| < 1.5e-7, below float32 resolution). Vectors match the torch model's to about 1e-6
in cosine (:func:`palace_lab.index.embed` tests compare them), so they are used under the same
embedder name.
"""

from __future__ import annotations

import math
import threading
from pathlib import Path

import numpy as np

N_LAYERS, HEADS, EPS = 6, 12, 1e-12
# Constants are Python floats, never numpy float64 scalars (``np.sqrt(2.0)``): under numpy 2's
# promotion rules a float64 scalar turns a float32 array into float64, and a float64 × float32
# matmul leaves BLAS for numpy's own loop (a query took ~25x longer: 28 ms for one 12 × 1536
# by 1536 × 384 product against 0.3 ms).
_SQRT_HALF = math.sqrt(0.5)
_LOCK = threading.Lock()
_LOADED: dict[tuple[str, int], "NumpyMiniLM"] = {}


def _erf(x: np.ndarray) -> np.ndarray:
    """Abramowitz & Stegun 7.1.26."""
    sign = np.sign(x)
    x = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * x)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027
                                                                         + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-x * x))


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x * _SQRT_HALF))


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Every float32 tensor of a safetensors file as a read-only memory-mapped array.

    The format: 8 bytes little-endian header length, a JSON header ``{name: {dtype, shape,
    data_offsets: [begin, end]}}``, then the tensors' bytes (offsets from the header's end).
    Mapping instead of reading costs milliseconds; a query touches few embedding rows.
    """
    import json

    raw = np.memmap(path, dtype=np.uint8, mode="r")
    size = int(np.frombuffer(raw[:8].tobytes(), dtype="<u8")[0])
    header = json.loads(raw[8:8 + size].tobytes())
    out = {}
    for name, spec in header.items():
        if name == "__metadata__" or spec["dtype"] != "F32":
            continue
        begin, end = spec["data_offsets"]
        out[name] = raw[8 + size + begin:8 + size + end].view("<f4").reshape(spec["shape"])
    return out


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + EPS) * weight + bias


def load_tokenizer(folder: Path, max_seq_length: int):
    """The packaged tokenizer: one text, no padding, cut at ``max_seq_length`` word pieces."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=max_seq_length)
    return tokenizer


class NumpyMiniLM:
    """The encoder's weights (memory-mapped, PyTorch's ``(out, in)`` layout) and tokenizer."""

    def __init__(self, folder: Path, max_seq_length: int = 256):
        self.tokenizer = load_tokenizer(folder, max_seq_length)
        self.w = read_safetensors(folder / "model.safetensors")

    def embed(self, text: str) -> np.ndarray:
        """One unit-length 384-d vector."""
        ids = np.asarray(self.tokenizer.encode(text).ids, dtype=np.int64)
        w = self.w
        x = (w["embeddings.word_embeddings.weight"][ids]
             + w["embeddings.position_embeddings.weight"][: len(ids)]
             + w["embeddings.token_type_embeddings.weight"][0])
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        for layer in range(N_LAYERS):
            x = self._layer(x, f"encoder.layer.{layer}.")
        pooled = x.mean(axis=0)
        return (pooled / max(np.linalg.norm(pooled), 1e-12)).astype(np.float32)

    def _layer(self, x: np.ndarray, p: str) -> np.ndarray:
        w = self.w
        attended = self._attention(x, p + "attention.self.")
        x = _layer_norm(attended @ w[p + "attention.output.dense.weight"].T
                        + w[p + "attention.output.dense.bias"] + x,
                        w[p + "attention.output.LayerNorm.weight"],
                        w[p + "attention.output.LayerNorm.bias"])
        inner = _gelu(x @ w[p + "intermediate.dense.weight"].T + w[p + "intermediate.dense.bias"])
        return _layer_norm(inner @ w[p + "output.dense.weight"].T + w[p + "output.dense.bias"] + x,
                           w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])

    def _attention(self, x: np.ndarray, p: str) -> np.ndarray:
        n, dim = x.shape
        head = dim // HEADS

        def project(name: str) -> np.ndarray:  # (heads, n, head)
            y = x @ self.w[p + name + ".weight"].T + self.w[p + name + ".bias"]
            return y.reshape(n, HEADS, head).transpose(1, 0, 2)

        q, k, v = project("query"), project("key"), project("value")
        scores = q @ k.transpose(0, 2, 1) / math.sqrt(head)
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        scores /= scores.sum(axis=-1, keepdims=True)
        return (scores @ v).transpose(1, 0, 2).reshape(n, dim)


def load(folder: Path, max_seq_length: int = 256) -> NumpyMiniLM:
    """The model of ``folder``, loaded once per process."""
    key = (str(folder), max_seq_length)
    with _LOCK:
        if key not in _LOADED:
            _LOADED[key] = NumpyMiniLM(folder, max_seq_length)
        return _LOADED[key]
