"""A tiny, valid ONNX ColBERT (late-interaction) model for tests, built with the `onnx` helper API.

Inputs input_ids / attention_mask (int64, [batch, seq]) -> token embeddings (float32, [batch, seq, dim]): a lookup
table whose row for each of the given `words` (single MiniLM tokens) is a distinct one-hot vector and whose other
rows are zero. fastembed's Colbert pads queries with [MASK] (a zero row) and unit-normalises document tokens, so
MaxSim(query, document) = the number of distinct given words that occur in both. The tokenizer files are the
offline all-MiniLM-L6-v2 ones (`ragls.embedding.embed.offline_model_dir()`), so fastembed's own Colbert code path loads it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from tiny_cross_encoder import model_dir_tokens

if TYPE_CHECKING:
    import onnx


def build_model(token_ids: list[int], vocab: int) -> onnx.ModelProto:
    """The lookup described in the module docstring (dim = len(token_ids))."""
    import onnx  # here: every xdist worker imports this module to collect the suite (`import onnx`: ~0.6 CPU-s)
    from onnx import TensorProto, helper, numpy_helper

    table = np.zeros((vocab, len(token_ids)), dtype=np.float32)
    for i, t in enumerate(token_ids):
        table[t, i] = 1.0
    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "seq"])
              for n in ("input_ids", "attention_mask")]
    output = helper.make_tensor_value_info("token_embeddings", TensorProto.FLOAT, ["batch", "seq", len(token_ids)])
    nodes = [
        helper.make_node("Gather", ["table", "input_ids"], ["looked_up"], axis=0),
        # attention_mask takes part (a real model reads it): masked positions give zero vectors
        helper.make_node("Cast", ["attention_mask"], ["mask_f"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["mask_f", "axis2"], ["mask_3d"]),
        helper.make_node("Mul", ["looked_up", "mask_3d"], ["token_embeddings"]),
    ]
    inits = [numpy_helper.from_array(table, "table"), numpy_helper.from_array(np.array([2], dtype=np.int64), "axis2")]
    graph = helper.make_graph(nodes, "tiny_colbert", inputs, [output], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="ragls-tests")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def make_colbert_dir(dest: Path, words: list[str], onnx_rel: str = "model.onnx") -> Path:
    """Write a ColBERT folder at `dest` whose MaxSim counts the shared `words` (each one MiniLM token)."""
    import onnx

    ids, vocab = model_dir_tokens(dest, words)
    (dest / onnx_rel).parent.mkdir(parents=True, exist_ok=True)
    onnx.save(build_model(ids, vocab), str(dest / onnx_rel))
    return dest
