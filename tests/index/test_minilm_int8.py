"""MiniLM's int8 ONNX graph: its own cache name, near-float vectors, batches equal to queries."""

from __future__ import annotations

import numpy as np

from palace_lab.index.embed import embed_texts, embedding_key, get_embedder
from palace_lab.index.minilm_int8 import Int8MiniLMEmbedder, int8_file, session
from palace_lab.settings import DEFAULT_EMBEDDER, cache_dir

TEXTS = ["connection pool timeout raised to 30 s", "keep leading zeros in the csv",
         "database pool exhausted under load", "README install section", "résumé ünïcode",
         "", "retry loop " * 300]


def test_the_default_embedder_is_int8_and_keys_its_own_cache(palace):
    int8, minilm = get_embedder(DEFAULT_EMBEDDER), get_embedder("minilm")
    assert isinstance(int8, Int8MiniLMEmbedder)
    assert int8.name == "all-MiniLM-L6-v2-int8-v1" != minilm.name
    assert get_embedder("minilm-int8-128").name == "all-MiniLM-L6-v2-int8-v1@seq128"
    assert embedding_key(int8, "x") != embedding_key(minilm, "x")
    vectors = embed_texts(palace, int8, TEXTS[:3])
    assert palace.get_embeddings([embedding_key(int8, TEXTS[0])], int8.name)
    assert not palace.get_embeddings([embedding_key(minilm, TEXTS[0])], minilm.name)
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32


def test_vectors_are_unit_length_and_near_the_float_model():
    int8 = Int8MiniLMEmbedder()
    vectors = int8.embed_batch(TEXTS)
    floats = get_embedder("minilm").embed_batch(TEXTS * 2)[: len(TEXTS)]  # torch batch
    assert vectors.shape == (len(TEXTS), 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert (vectors * floats).sum(axis=1).min() > 0.95
    sims = vectors @ vectors[0]
    assert sims[2] > sims[3]  # pool timeout is nearer to pool exhausted than to a README


def test_a_batch_on_the_pool_equals_the_texts_one_by_one():
    """Documents (a batch on worker threads) and queries (one text) run the same network."""
    int8 = Int8MiniLMEmbedder(threads=2)
    batch = int8.embed_batch(TEXTS)
    alone = np.vstack([int8.embed_batch([t]) for t in TEXTS])
    assert np.abs(batch - alone).max() < 1e-6


def test_the_quantised_file_is_cached_and_a_broken_one_is_remade():
    from palace_lab.index import embed, minilm_int8

    session()
    path = int8_file(embed.minilm_folder(), cache_dir())
    assert path.is_file() and path.parent == cache_dir() / "onnx"
    before = Int8MiniLMEmbedder().embed_batch(["pool timeout"])
    path.write_bytes(b"not a model")
    minilm_int8._SESSIONS.clear()
    after = Int8MiniLMEmbedder().embed_batch(["pool timeout"])
    assert np.abs(before - after).max() < 1e-6



def test_a_query_embeds_after_an_hnsw_index_is_loaded():
    """onnxruntime 1.32 imported after usearch 2.26 crashed the interpreter (a vector mode's
    ``palace-lab search`` died with SIGSEGV): the HNSW module imports it first."""
    import subprocess
    import sys

    code = ("import numpy as np; from palace_lab.index.hnsw import HNSWIndex; "
            "HNSWIndex.build(np.eye(4, dtype=np.float32)); "
            "from palace_lab.index.embed import get_embedder; "
            "print(get_embedder('minilm-int8').embed_batch(['pool timeout']).shape)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-500:]
    assert done.stdout.split("\n")[-2] == "(1, 384)"
