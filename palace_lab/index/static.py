"""A static embedder distilled from the packaged MiniLM: one vector per word piece, averaged.

Distillation (the recipe of model2vec, Tulkens & van Dongen 2024, written here: the forward
pass in PyTorch, the rest in numpy):

1. every word piece of MiniLM's vocabulary goes through the network alone, as
   ``[CLS] piece [SEP]`` (in PyTorch, batched), and its vector is the mean of the three output
   states (the model's own mean pooling);
2. PCA: the table is centred (the direction every piece shares carries no meaning) and
   projected on its ``dims`` principal axes, each axis's sign fixed so the table is
   deterministic;
3. SIF weighting (Arora et al. 2017) with the frequencies Zipf's law gives the vocabulary's
   order (WordPiece vocabularies are roughly frequency-sorted): row ``r`` is scaled by
   ``a / (a + p(r))``, ``p(r) ∝ 1/(r + 2)``, so frequent pieces weigh less in a mean.

A text is embedded as the mean of its word pieces' rows (same tokenizer, no truncation, no
special tokens), L2-normalised; a text without pieces gets a fixed unit vector. No network runs
at embed time: 94x the documents a second of MiniLM in PyTorch, 2 ms a query, at a measured
cost in retrieval quality (``benchmarks/bench_embedders.py``, docs/search.md).

The table is built once, offline (454 s measured on 2 cores under load average 12), into
``<cache dir>/static-embedders/<name>-<source>.npy``, where ``name`` carries the recipe
(:data:`VERSION`, dims, SIF coefficient) and ``source`` hashes the packaged model's weights
file; it is memory-mapped afterwards. ``name`` is also the embedder name that keys the palace's
embedding cache and the vector indexes, so vectors of another recipe never mix.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from palace_lab.files import write_atomic
from palace_lab.index.embed import Embedder, minilm_folder, normalise_rows

VERSION = 1  # bump when the recipe changes: the name (and so every cache key) changes with it
Encode = Callable[[np.ndarray], np.ndarray]  # (batch, n) ids → (batch, n, dim) hidden states
_LOCK = threading.RLock()  # table() distils under it, and distilling reads the tokenizer
_TABLES: dict[str, np.ndarray] = {}
_TOKENIZERS: dict[str, object] = {}


def token_vectors(encode: Encode, ids: np.ndarray, *, cls: int, sep: int,
                  batch: int = 512) -> np.ndarray:
    """``(len(ids), dim)``: each id's mean output state as ``[CLS] id [SEP]``."""
    rows = []
    for start in range(0, len(ids), batch):
        part = np.asarray(ids[start:start + batch], dtype=np.int64)
        seqs = np.stack([np.full_like(part, cls), part, np.full_like(part, sep)], axis=1)
        rows.append(np.asarray(encode(seqs), dtype=np.float32).mean(axis=1))
    return np.vstack(rows)


def pca(table: np.ndarray, dims: int) -> np.ndarray:
    """Centred rows projected on their ``dims`` principal axes (largest loading positive)."""
    centred = table - table.mean(axis=0)
    _, _, vt = np.linalg.svd(centred.astype(np.float64), full_matrices=False)
    axes = vt[:dims]
    signs = np.sign(axes[np.arange(len(axes)), np.abs(axes).argmax(axis=1)])
    return (centred @ (axes * signs[:, None]).T).astype(np.float32)


def zipf_sif_weights(size: int, coefficient: float) -> np.ndarray:
    """``a / (a + p(r))`` with Zipf frequencies ``p(r) ∝ 1/(r + 2)`` over ranks ``r``."""
    inverse_rank = 1.0 / np.arange(2, size + 2, dtype=np.float64)
    proba = inverse_rank / inverse_rank.sum()
    return (coefficient / (coefficient + proba)).astype(np.float32)


def distill(encode: Encode, vocab_size: int, *, cls: int, sep: int, dims: int = 256,
            sif: float = 1e-4) -> np.ndarray:
    """The static table: token vectors, PCA to ``dims``, SIF-weighted rows."""
    table = pca(token_vectors(encode, np.arange(vocab_size), cls=cls, sep=sep), dims)
    return table * zipf_sif_weights(vocab_size, sif)[:, None]


def pool(table: np.ndarray, pieces: Sequence[Sequence[int]]) -> np.ndarray:
    """Unit-length mean of each text's rows; a text without pieces gets axis 0."""
    out = np.zeros((len(pieces), table.shape[1]), dtype=np.float32)
    for row, ids in enumerate(pieces):
        if len(ids):
            out[row] = table[np.asarray(ids, dtype=np.int64)].mean(axis=0)
    empty = ~out.any(axis=1)
    out[empty, 0] = 1.0
    return normalise_rows(out)


def torch_encoder(folder: Path) -> Encode:
    """The packaged network's hidden states in PyTorch, on every core (distillation only: a
    batched numpy forward measured half as fast on these 3-piece batches)."""
    import torch
    from transformers import AutoModel

    from palace_lab.index.embed import _quiet_transformers
    from palace_lab.settings import offline

    offline()
    _quiet_transformers()
    model = AutoModel.from_pretrained(str(folder)).eval()
    torch.set_num_threads(os.cpu_count() or 1)

    def encode(ids: np.ndarray) -> np.ndarray:
        with torch.inference_mode():
            return model(input_ids=torch.from_numpy(ids)).last_hidden_state.numpy()

    return encode


def _source_key(folder: Path) -> str:
    """Identifies the weights the table comes from: size and SHA-1 of the weights file's ends
    (the safetensors header names every tensor; hashing all 88 MB would cost each process)."""
    weights = folder / "model.safetensors"
    size = weights.stat().st_size
    digest = hashlib.sha1(str(size).encode())
    with weights.open("rb") as f:
        digest.update(f.read(1 << 20))
        f.seek(max(0, size - (1 << 20)))
        digest.update(f.read())
    return digest.hexdigest()[:12]


def _write_atomic(path: Path, table: np.ndarray) -> None:
    def save(tmp: Path) -> None:
        with open(tmp, "wb") as fh:  # a file object: np.save adds no ".npy" to the name
            np.save(fh, table)

    write_atomic(path, save)  # a concurrent distillation wrote the same bytes: either wins


class StaticEmbedder(Embedder):
    """Word-piece vectors distilled from the packaged all-MiniLM-L6-v2 (see module docstring).

    ``folder`` defaults to the packaged model; the table is distilled on first use (and
    cached, see module docstring), so constructing one costs nothing.
    """

    def __init__(self, *, dims: int = 256, sif: float = 1e-4, folder: Path | None = None):
        if not 0 < dims <= 384:
            raise ValueError(f"dims must be in 1..384 (MiniLM's width), not {dims}")
        self.dim, self.sif, self._folder = dims, sif, folder
        self._path: Path | None = None
        self.name = f"minilm-static-v{VERSION}-d{dims}-sif{sif:g}"

    @property
    def folder(self) -> Path:
        if self._folder is None:
            self._folder = minilm_folder()
        return self._folder

    def table_path(self) -> Path:
        """Where the table is cached (found once per instance: the source key reads 2 MB)."""
        if self._path is None:
            from palace_lab.settings import cache_dir

            source = _source_key(self.folder)
            self._path = cache_dir() / "static-embedders" / f"{self.name}-{source}.npy"
        return self._path

    def table(self) -> np.ndarray:
        """The distilled table, built once into the cache dir, memory-mapped afterwards."""
        path = self.table_path()
        with _LOCK:
            if str(path) not in _TABLES:
                if not path.is_file():
                    _write_atomic(path, self._distill())
                _TABLES[str(path)] = np.load(path, mmap_mode="r", allow_pickle=False)
            return _TABLES[str(path)]

    def _distill(self) -> np.ndarray:
        tok = self._tokenizer()
        return distill(torch_encoder(self.folder), tok.get_vocab_size(), dims=self.dim,
                       sif=self.sif, cls=tok.token_to_id("[CLS]"), sep=tok.token_to_id("[SEP]"))

    def _tokenizer(self):
        with _LOCK:
            key = str(self.folder)
            if key not in _TOKENIZERS:
                from tokenizers import Tokenizer

                tok = Tokenizer.from_file(str(self.folder / "tokenizer.json"))
                tok.no_padding()
                tok.no_truncation()
                _TOKENIZERS[key] = tok
            return _TOKENIZERS[key]

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        table = self.table()
        encoded = self._tokenizer().encode_batch(list(texts), add_special_tokens=False)
        return pool(table, [e.ids for e in encoded])
