"""all-MiniLM-L6-v2 as an ONNX Runtime graph, for queries: the numpy network, fused by ORT.

The graph is the network of :mod:`palace_lab.index.minilm_numpy` op for op (float32, one text
of ``n`` word pieces, no padding, no batch axis): Gather of the word rows + the first ``n``
position rows + token type 0, LayerNormalization (ε = 1e-12); 6 layers of 12-head attention
(Q, K, V in one MatMul, softmax(QKᵀ/√d)V) and an exact-erf GELU feed-forward, each with a
residual and a LayerNormalization; the mean over the word pieces. L2 normalisation and
tokenisation stay in Python. ORT fuses it into its own kernels (one intra-op thread), where the
numpy network pays a Python dispatch and a temporary array per op.

The model file is built with ``onnx.helper`` from the packaged ``model.safetensors`` (no torch,
deterministic) on first use into ``$PALACE_LAB_CACHE_DIR/onnx/``, named by :data:`VERSION`
and the source file's path, size and mtime, so another model or a changed graph never reuses
it. It is written to a temporary file and renamed into place; a file ORT cannot load is
rebuilt once. :func:`load` returns None when onnxruntime or onnx is missing or the build fails,
and the caller keeps the numpy network.
"""

from __future__ import annotations

import math
import threading
from pathlib import Path

import numpy as np

from palace_lab.files import write_atomic
from palace_lab.index.minilm_numpy import EPS, HEADS, N_LAYERS, load_tokenizer, read_safetensors
from palace_lab.model import content_hash

VERSION = 1  # bump when the graph built here changes
OPSET = 17  # LayerNormalization
IR_VERSION = 8  # what opset 17 needs; onnx 1.23 writes 14 by default, which ORT 1.30 refuses
_LOCK = threading.Lock()
_LOADED: dict[tuple[str, str, int], "OnnxMiniLM | None"] = {}


def model_file(folder: Path, cache: Path) -> Path:
    """Where the graph of the safetensors in ``folder`` is (or will be) kept."""
    source = folder / "model.safetensors"
    stat = source.stat()
    key = content_hash(str(VERSION), str(source.resolve()), str(stat.st_size),
                       str(stat.st_mtime_ns))[:16]
    return cache / "onnx" / f"all-MiniLM-L6-v2-v{VERSION}-{key}.onnx"


class _Graph:
    """Nodes and initializers of the graph under construction, with fresh output names."""

    def __init__(self, weights: dict[str, np.ndarray]):
        self.w, self.nodes, self.inits, self.count = weights, [], [], 0

    def const(self, name: str, value: np.ndarray) -> str:
        from onnx import numpy_helper

        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def op(self, kind: str, *inputs: str, **attrs) -> str:
        from onnx import helper

        self.count += 1
        out = f"{kind.lower()}{self.count}"
        self.nodes.append(helper.make_node(kind, list(inputs), [out], **attrs))
        return out

    def split(self, x: str, parts: int) -> list[str]:
        """``x`` cut into ``parts`` equal pieces along its last axis."""
        from onnx import helper

        self.count += 1
        outs = [f"split{self.count}_{i}" for i in range(parts)]
        self.nodes.append(helper.make_node("Split", [x], outs, axis=-1))
        return outs

    def dense(self, x: str, prefix: str) -> str:
        """``x @ Wᵀ + b`` of a PyTorch Linear (weights stored transposed once, at build)."""
        weight = self.const(prefix + ".weight", self.w[prefix + ".weight"].T)
        return self.op("Add", self.op("MatMul", x, weight), self.const(prefix + ".bias",
                                                                      self.w[prefix + ".bias"]))

    def layer_norm(self, x: str, prefix: str) -> str:
        return self.op("LayerNormalization", x, self.const(prefix + ".weight",
                                                           self.w[prefix + ".weight"]),
                       self.const(prefix + ".bias", self.w[prefix + ".bias"]),
                       axis=-1, epsilon=EPS)


def _attention(g: _Graph, x: str, p: str) -> str:
    dim = g.w[p + "query.weight"].shape[0]
    head = dim // HEADS
    qkv_w = np.concatenate([g.w[p + n + ".weight"].T for n in ("query", "key", "value")], axis=1)
    qkv_b = np.concatenate([g.w[p + n + ".bias"] for n in ("query", "key", "value")])
    qkv = g.op("Add", g.op("MatMul", x, g.const(p + "qkv.weight", qkv_w)),
               g.const(p + "qkv.bias", qkv_b))
    shape = g.const(p + "heads.shape", np.array([-1, HEADS, head]))
    q, k, v = (g.op("Reshape", part, shape) for part in g.split(qkv, 3))  # (n, heads, head)
    q = g.op("Transpose", q, perm=[1, 0, 2])
    k = g.op("Transpose", k, perm=[1, 2, 0])
    v = g.op("Transpose", v, perm=[1, 0, 2])
    scale = g.const(p + "scale", np.array(1.0 / math.sqrt(head), dtype=np.float32))
    probs = g.op("Softmax", g.op("Mul", g.op("MatMul", q, k), scale), axis=-1)
    merged = g.op("Transpose", g.op("MatMul", probs, v), perm=[1, 0, 2])
    return g.op("Reshape", merged, g.const(p + "merged.shape", np.array([-1, dim])))


def _layer(g: _Graph, x: str, p: str) -> str:
    attended = g.dense(_attention(g, x, p + "attention.self."), p + "attention.output.dense")
    x = g.layer_norm(g.op("Add", attended, x), p + "attention.output.LayerNorm")
    inner = g.dense(x, p + "intermediate.dense")
    half = g.const(p + "half", np.array(0.5, dtype=np.float32))
    one = g.const(p + "one", np.array(1.0, dtype=np.float32))
    root = g.const(p + "sqrt_half", np.array(math.sqrt(0.5), dtype=np.float32))
    erf = g.op("Erf", g.op("Mul", inner, root))
    gelu = g.op("Mul", g.op("Mul", inner, half), g.op("Add", erf, one))
    out = g.dense(gelu, p + "output.dense")
    return g.layer_norm(g.op("Add", out, x), p + "output.LayerNorm")


def build(folder: Path):
    """The ONNX model (an ``onnx.ModelProto``) of the safetensors in ``folder``."""
    from onnx import TensorProto, helper

    g = _Graph(read_safetensors(folder / "model.safetensors"))
    n = g.op("Shape", "input_ids")
    positions = g.op("Slice", g.const("embeddings.position_embeddings.weight",
                                      g.w["embeddings.position_embeddings.weight"]),
                     g.const("zero", np.array([0])), n, g.const("axis0", np.array([0])))
    x = g.op("Add", g.op("Gather", g.const("embeddings.word_embeddings.weight",
                                           g.w["embeddings.word_embeddings.weight"]),
                         "input_ids"), positions)
    x = g.op("Add", x, g.const("token_type0", g.w["embeddings.token_type_embeddings.weight"][0]))
    x = g.layer_norm(x, "embeddings.LayerNorm")
    for layer in range(N_LAYERS):
        x = _layer(g, x, f"encoder.layer.{layer}.")
    g.nodes.append(helper.make_node("ReduceMean", [x], ["pooled"], axes=[0], keepdims=0))
    dim = g.w["embeddings.word_embeddings.weight"].shape[1]
    graph = helper.make_graph(
        g.nodes, "all-MiniLM-L6-v2",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["n"])],
        [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, [dim])], g.inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                             producer_name="palace_lab", ir_version=IR_VERSION)


def write_model(folder: Path, path: Path) -> None:
    """Build and save atomically: a temporary file in the same folder, renamed into place."""
    import onnx

    model = build(folder)
    write_atomic(path, lambda tmp: onnx.save(model, str(tmp)))


def _session(ort, path: Path):
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1  # one short text: more threads only wait (see embed.py)
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.log_severity_level = 3  # errors only: nothing on stderr for --json consumers
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


class OnnxMiniLM:
    """One ORT session over the cached model file and the packaged tokenizer."""

    def __init__(self, folder: Path, cache: Path, max_seq_length: int = 256):
        import onnxruntime as ort  # missing: fail here, before spending ~2 s on a build

        path = model_file(folder, cache)
        if not path.is_file():
            write_model(folder, path)
        try:
            self.session = _session(ort, path)
        except Exception:  # a truncated or corrupt file (not ours, or a crashed writer)
            write_model(folder, path)
            self.session = _session(ort, path)
        self.path = path
        self.tokenizer = load_tokenizer(folder, max_seq_length)

    def embed(self, text: str) -> np.ndarray:
        """One unit-length 384-d vector (ORT sessions may run from several threads)."""
        ids = np.asarray(self.tokenizer.encode(text).ids, dtype=np.int64)
        (pooled,) = self.session.run(None, {"input_ids": ids})
        return (pooled / max(float(np.linalg.norm(pooled)), 1e-12)).astype(np.float32)


def load(folder: Path, cache: Path, max_seq_length: int = 256) -> OnnxMiniLM | None:
    """The ONNX model of ``folder``, once per process; None if ONNX cannot be used here."""
    key = (str(folder), str(cache), max_seq_length)
    with _LOCK:
        if key not in _LOADED:
            try:
                _LOADED[key] = OnnxMiniLM(folder, cache, max_seq_length)
            except Exception:  # onnxruntime/onnx missing or broken, unwritable cache: numpy
                _LOADED[key] = None
        return _LOADED[key]
