"""The static embedder distilled from MiniLM: the recipe's pieces, the cached table, the real model."""

from __future__ import annotations

import numpy as np
import pytest

from palace_lab.index import static
from palace_lab.index.embed import embed_texts, embedding_key, get_embedder
from palace_lab.index.static import StaticEmbedder, distill, pca, pool, zipf_sif_weights


def _lookup_encoder(vocab: int, dim: int, seed: int = 0):
    """A stand-in network: each position's output is a fixed random vector of its id."""
    states = np.random.default_rng(seed).normal(size=(vocab, dim)).astype(np.float32)
    return lambda ids: states[ids], states


def test_zipf_sif_weights_by_hand():
    # p = (1/2, 1/3) / (5/6) = (0.6, 0.4)
    assert np.allclose(zipf_sif_weights(2, 0.1), [0.1 / 0.7, 0.1 / 0.5])
    w = zipf_sif_weights(1000, 1e-4)
    assert np.all(np.diff(w) > 0)  # rarer (later) pieces weigh more


def test_distillation_on_a_tiny_vocabulary():
    encode, states = _lookup_encoder(vocab=12, dim=6)
    table = distill(encode, 12, cls=0, sep=1, dims=4, sif=0.05)
    assert table.shape == (12, 4) and table.dtype == np.float32
    # row r before PCA: the mean of [CLS], r and [SEP]
    means = (states[0] + states + states[1]) / 3
    expected = pca(means, 4) * zipf_sif_weights(12, 0.05)[:, None]
    assert np.allclose(table, expected, atol=1e-5)
    assert np.array_equal(table, distill(encode, 12, cls=0, sep=1, dims=4, sif=0.05))


def test_pca_is_centred_and_keeps_distances_at_full_rank():
    _, states = _lookup_encoder(vocab=20, dim=5, seed=3)
    projected = pca(states, 5)
    assert np.allclose(projected.mean(axis=0), 0, atol=1e-5)
    d = lambda m: np.linalg.norm(m[:, None] - m[None], axis=-1)  # noqa: E731
    assert np.allclose(d(projected), d(states), atol=1e-4)


def test_pool_by_hand():
    table = np.array([[1, 0], [0, 1], [3, 4]], dtype=np.float32)
    out = pool(table, [[0, 1], [2], []])
    assert np.allclose(out, [[2 ** -0.5, 2 ** -0.5], [0.6, 0.8], [1, 0]])


@pytest.fixture
def small_static(monkeypatch):
    """The real tokenizer with a random 8-d table instead of a minute of distillation."""
    calls = []

    def fake_distill(self):
        calls.append(1)
        vocab = self._tokenizer().get_vocab_size()
        return np.random.default_rng(1).normal(size=(vocab, self.dim)).astype(np.float32)

    monkeypatch.setattr(StaticEmbedder, "_distill", fake_distill)
    monkeypatch.setattr(static, "_TABLES", {})
    return calls


def test_vectors_are_deterministic_normalised_and_cached(small_static, palace):
    emb = StaticEmbedder(dims=8)
    texts = ["connection pool timeout", "", "pool timeout", "Ünïcode ✓ 🎉"]
    a = emb.embed_batch(texts)
    assert a.shape == (4, 8) and a.dtype == np.float32
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-6)
    assert emb.table_path().is_file() and emb.name in emb.table_path().name
    static._TABLES.clear()  # a new process: the table is read from the cache dir
    assert np.array_equal(StaticEmbedder(dims=8).embed_batch(texts), a)
    assert small_static == [1]
    embed_texts(palace, emb, texts)
    assert palace.count_embeddings(emb.name) == 4


def test_name_keys_the_caches(small_static):
    emb, minilm = StaticEmbedder(dims=8), get_embedder("minilm")
    assert emb.name != StaticEmbedder(dims=16).name != StaticEmbedder(dims=8, sif=1e-3).name
    assert embedding_key(emb, "x") != embedding_key(minilm, "x")
    assert get_embedder("minilm-static").name.startswith(f"minilm-static-v{static.VERSION}-")


def test_index_folders_differ_by_embedder(palace):
    from palace_lab.index.indexset import IndexSet

    fake, other = get_embedder("fake"), StaticEmbedder(dims=8)
    slots = {IndexSet(palace, embedder=e)._slot("verbatim", "hnsw") for e in (fake, other)}
    assert len(slots) == 2


def test_dims_are_checked():
    with pytest.raises(ValueError, match="1..384"):
        StaticEmbedder(dims=512)


@pytest.mark.slow  # imports torch and transformers: 60 s on a loaded 2-core machine
def test_token_vectors_of_the_packaged_model_are_minilm_vectors_of_the_piece():
    """The real network: a word that is one word piece, run alone, is what MiniLM embeds for
    that word (same [CLS] word [SEP] input, same mean pooling), up to normalisation."""
    emb = StaticEmbedder()
    tok = emb._tokenizer()
    words = ["pool", "water", "city"]
    ids = np.array([tok.token_to_id(w) for w in words])
    vectors = static.token_vectors(static.torch_encoder(emb.folder), ids,
                                   cls=tok.token_to_id("[CLS]"), sep=tok.token_to_id("[SEP]"))
    from palace_lab.index.embed import normalise_rows

    expected = get_embedder("minilm").embed_batch(words)
    assert np.abs(normalise_rows(vectors) - expected).max() < 1e-4
