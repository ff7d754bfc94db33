"""The memory-lean model copy (ragls.embedding.onnx_prep) computes bit-identical outputs, on a small synthetic graph and on the
real offline all-MiniLM-L6-v2 against fastembed's own session; and the glibc heap helpers (ragls.core.heap)."""

from __future__ import annotations

import numpy as np
import pytest
from ragls.config.settings import build_settings
from ragls.core import heap
from ragls.embedding.embed import OFFLINE_MODEL_NAME, Embedder, offline_model_dir
from ragls.embedding.onnx_prep import REWRITE_VERSION, lean_model

ort = pytest.importorskip("onnxruntime")

MODEL_DIR = offline_model_dir()


def _onnx():
    """The `onnx` package, the test skipped without it: imported by the tests that build graphs, not at the top
    (every xdist worker imports this module to collect the suite; `import onnx` costs ~0.6 CPU-s)."""
    return pytest.importorskip("onnx")


def quantised_lookup_model(path, rng, rows=50, dim=8):
    """ids (int64 [2, 5]) -> Gather(Cast(int8 table) * per-row scale) -> [2, 5, dim], then * 2 (another consumer)."""
    onnx = _onnx()
    from onnx import TensorProto, helper, numpy_helper

    table = rng.integers(-128, 128, size=(rows, dim), dtype=np.int8)
    scale = rng.random((rows, 1), dtype=np.float32) / 100
    graph = helper.make_graph(
        [helper.make_node("Cast", ["table_q"], ["table_c"], to=TensorProto.FLOAT),
         helper.make_node("Mul", ["table_c", "table_s"], ["table_f"]),
         helper.make_node("Gather", ["table_f", "ids"], ["emb"], axis=0),
         helper.make_node("Mul", ["emb", "two"], ["out"])],
        "lookup",
        [helper.make_tensor_value_info("ids", TensorProto.INT64, [2, 5])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [2, 5, dim])],
        [numpy_helper.from_array(table, "table_q"), numpy_helper.from_array(scale, "table_s"),
         numpy_helper.from_array(np.array(2.0, np.float32), "two")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))
    return path


def run(path, ids):
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"]).run(None, {"ids": ids})[0]


def test_rewrite_gives_identical_outputs_and_is_cached(tmp_path):
    onnx = _onnx()
    rng = np.random.default_rng(7)
    source = quantised_lookup_model(tmp_path / "model.onnx", rng)
    lean = lean_model(source, tmp_path / "lean")
    assert lean != source and lean.name.endswith(f"-v{REWRITE_VERSION}.onnx")
    ops = [n.op_type for n in onnx.load(str(lean)).graph.node]
    assert ops == ["Gather", "Cast", "Gather", "Mul", "Mul"]  # rows looked up first, then dequantised
    ids = rng.integers(0, 50, size=(2, 5)).astype(np.int64)
    assert np.array_equal(run(source, ids), run(lean, ids))
    mtime = lean.stat().st_mtime_ns
    assert lean_model(source, tmp_path / "lean") == lean and lean.stat().st_mtime_ns == mtime


def test_model_without_the_pattern_is_used_as_is(tmp_path):
    onnx = _onnx()
    from onnx import TensorProto, helper

    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, str(tmp_path / "relu.onnx"))
    assert lean_model(tmp_path / "relu.onnx", tmp_path / "lean") == tmp_path / "relu.onnx"
    assert [p.suffix for p in (tmp_path / "lean").iterdir()] == [".unchanged"]
    assert lean_model(tmp_path / "missing.onnx", tmp_path / "lean") == tmp_path / "missing.onnx"  # never raises


@pytest.mark.skipif(MODEL_DIR is None, reason="ragls[offline] not installed")
def test_offline_model_vectors_equal_fastembeds_own(tmp_path, monkeypatch):
    from fastembed import TextEmbedding

    monkeypatch.setenv("RAGLS_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("RAGLS_MODELS_DIR", raising=False)  # the default place: <cache>/models
    texts = ["Ownership is a set of rules that govern how a Rust program manages memory.",
             "fn main() { println!(\"Hello, world!\"); }", "shadowing a variable", "x"]
    s, _ = build_settings({"embedding": {"model": OFFLINE_MODEL_NAME, "model_path": str(MODEL_DIR)}})
    e = Embedder(s.embedding)
    ours = e.embed_documents(texts)
    assert list((tmp_path / "models" / "lean").glob("*.onnx"))  # the lean copy is the one in use
    plain = TextEmbedding(OFFLINE_MODEL_NAME, specific_model_path=str(MODEL_DIR))
    theirs = np.asarray(list(plain.embed(texts, batch_size=s.embedding.batch_size)), dtype=np.float32)
    assert ours.shape == (4, 384)
    assert np.array_equal(ours, theirs)
    assert np.array_equal(e.embed_query("what is ownership"), next(iter(plain.query_embed("what is ownership"))))


def test_heap_helpers(monkeypatch):
    heap.trim()  # a no-op off glibc, never raises
    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")
    assert heap.limit_arenas() is False  # the user's setting wins
