"""Embeddings in the palace, keyed by (content hash, model): never computed twice.

A vector is stored as a little-endian float32 blob of ``dim`` values (``numpy.float32`` with
``'<f4'`` byte order), readable from any language.
"""

from __future__ import annotations

import numpy as np


def to_blob(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype="<f4").tobytes()


def from_blob(blob: bytes, dim: int) -> np.ndarray:
    vec = np.frombuffer(blob, dtype="<f4")
    if vec.shape[0] != dim:
        raise ValueError(f"embedding blob holds {vec.shape[0]} values, expected {dim}")
    return vec


class VectorsMixin:
    def get_embeddings(self, hashes: list[str], model: str) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        for i in range(0, len(hashes), 500):  # stay under SQLite's variable limit
            chunk = hashes[i:i + 500]
            marks = ",".join("?" * len(chunk))
            rows = self.conn.execute(
                f"SELECT content_hash, dim, vector FROM embeddings WHERE model=?"
                f" AND content_hash IN ({marks})", (model, *chunk))
            for h, dim, blob in rows:
                out[h] = from_blob(blob, dim)
        return out

    def count_embeddings(self, model: str) -> int:
        return self.conn.execute("SELECT COUNT(*) FROM embeddings WHERE model=?",
                                 (model,)).fetchone()[0]

    def embedded(self, hashes: list[str], model: str) -> set[str]:
        """Which of ``hashes`` have a vector of ``model`` (reads no vector)."""
        out: set[str] = set()
        for i in range(0, len(hashes), 500):
            chunk = hashes[i:i + 500]
            marks = ",".join("?" * len(chunk))
            out.update(h for (h,) in self.conn.execute(
                f"SELECT content_hash FROM embeddings WHERE model=? AND content_hash IN ({marks})",
                (model, *chunk)))
        return out

    def put_embeddings(self, model: str, vectors: dict[str, np.ndarray]) -> None:
        rows = [(h, model, int(v.shape[0]), to_blob(v)) for h, v in vectors.items()]
        with self.transaction() as tx:
            tx.executemany("INSERT OR REPLACE INTO embeddings VALUES (?,?,?,?)", rows)
