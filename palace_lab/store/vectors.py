"""Embeddings in the palace, keyed by (content hash, model): never computed twice.

A vector is stored as a little-endian float32 blob of ``dim`` values (``numpy.float32`` with
``'<f4'`` byte order), readable from any language.
"""

from __future__ import annotations

import numpy as np

from palace_lab.store.opening import rows_in


def to_blob(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype="<f4").tobytes()


def from_blob(blob: bytes, dim: int) -> np.ndarray:
    vec = np.frombuffer(blob, dtype="<f4")
    if vec.shape[0] != dim:
        raise ValueError(f"embedding blob holds {vec.shape[0]} values, expected {dim}")
    return vec


class VectorsMixin:
    def get_embeddings(self, hashes: list[str], model: str) -> dict[str, np.ndarray]:
        rows = rows_in(self.conn, "SELECT content_hash, dim, vector FROM embeddings WHERE"
                                  " model=? AND content_hash IN ({marks})", hashes, model)
        return {h: from_blob(blob, dim) for h, dim, blob in rows}

    def count_embeddings(self, model: str) -> int:
        return self.conn.execute("SELECT COUNT(*) FROM embeddings WHERE model=?",
                                 (model,)).fetchone()[0]

    def embedded(self, hashes: list[str], model: str) -> set[str]:
        """Which of ``hashes`` have a vector of ``model`` (reads no vector)."""
        return {h for (h,) in rows_in(self.conn, "SELECT content_hash FROM embeddings WHERE"
                                             " model=? AND content_hash IN ({marks})",
                                      hashes, model)}

    def put_embeddings(self, model: str, vectors: dict[str, np.ndarray]) -> None:
        rows = [(h, model, int(v.shape[0]), to_blob(v)) for h, v in vectors.items()]
        with self.transaction() as tx:
            tx.executemany("INSERT OR REPLACE INTO embeddings VALUES (?,?,?,?)", rows)
