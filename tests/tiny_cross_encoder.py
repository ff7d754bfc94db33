"""A tiny, valid ONNX cross-encoder for tests, built with the `onnx` helper API.

Inputs input_ids / attention_mask / token_type_ids (int64, [batch, seq]) -> logits (float32, [batch, 1]).
logit = number of times `token_id` occurs in the second segment (the document: token_type_ids == 1, unmasked).
Its "position table" (zeros) has `max_positions` rows, and its first `seq` rows are added to each input row, so, like a real BERT, it fails on
inputs longer than its window unless the tokenizer truncates them. The tokenizer files are the offline
all-MiniLM-L6-v2 ones (`ragls.embedding.embed.offline_model_dir()`), so the same fastembed code path loads it.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import onnx

TOKENIZER_FILES = ("tokenizer.json", "config.json", "tokenizer_config.json", "special_tokens_map.json")


def build_model(token_id: int, max_positions: int = 512) -> onnx.ModelProto:
    """The ONNX graph described in the module docstring."""
    import onnx  # here: every xdist worker imports this module to collect the suite (`import onnx`: ~0.6 CPU-s)
    from onnx import TensorProto, helper, numpy_helper

    i64 = TensorProto.INT64
    inputs = [helper.make_tensor_value_info(n, i64, ["batch", "seq"])
              for n in ("input_ids", "attention_mask", "token_type_ids")]
    output = helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 1])
    inits = [
        numpy_helper.from_array(np.array(token_id, dtype=np.int64), "token"),
        numpy_helper.from_array(np.array([1], dtype=np.int64), "axis1"),
        numpy_helper.from_array(np.array([0], dtype=np.int64), "axis0"),
        numpy_helper.from_array(np.array([2], dtype=np.int64), "axis2"),
        numpy_helper.from_array(np.zeros(max_positions, dtype=np.float32), "positions"),
    ]
    nodes = [
        helper.make_node("Equal", ["input_ids", "token"], ["is_tok"]),
        helper.make_node("Cast", ["is_tok"], ["tok_f"], to=TensorProto.FLOAT),
        helper.make_node("Cast", ["attention_mask"], ["mask_f"], to=TensorProto.FLOAT),
        helper.make_node("Cast", ["token_type_ids"], ["seg_f"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["tok_f", "mask_f"], ["m1"]),
        helper.make_node("Mul", ["m1", "seg_f"], ["m2"]),
        # position table: positions[:seq] is added to every row, which cannot broadcast when seq > max_positions
        helper.make_node("Shape", ["input_ids"], ["shape"]),
        helper.make_node("Slice", ["shape", "axis1", "axis2"], ["seq"]),
        helper.make_node("Slice", ["positions", "axis0", "seq"], ["pos_vals"]),
        helper.make_node("Add", ["m2", "pos_vals"], ["m3"]),
        helper.make_node("ReduceSum", ["m3", "axis1"], ["logits"], keepdims=1),
    ]
    graph = helper.make_graph(nodes, "tiny_cross_encoder", inputs, [output], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="ragls-tests")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def model_dir_tokens(dest: Path, words: list[str]) -> tuple[list[int], int]:
    """Make `dest` a model folder with the offline MiniLM's tokenizer files (TOKENIZER_FILES); (each word's token
    id, the vocabulary size). Each of `words` must be one MiniLM token."""
    from ragls.embedding.embed import offline_model_dir
    from tokenizers import Tokenizer

    src = offline_model_dir()
    assert src is not None, "needs ragls[offline]"
    dest.mkdir(parents=True, exist_ok=True)
    for name in TOKENIZER_FILES:
        shutil.copyfile(src / name, dest / name)
    tok = Tokenizer.from_file(str(src / "tokenizer.json"))
    tok.no_padding()
    ids = []
    for word in words:
        got = tok.encode(word, add_special_tokens=False).ids
        assert len(got) == 1, f"{word!r} is not a single token: {got}"
        ids.append(got[0])
    return ids, tok.get_vocab_size()


def make_cross_encoder_dir(dest: Path, word: str, onnx_rel: str = "onnx/model.onnx") -> Path:
    """Write a cross-encoder folder at `dest` whose score counts `word` (one MiniLM token) in the document."""
    import onnx

    (token_id,), _ = model_dir_tokens(dest, [word])
    (dest / onnx_rel).parent.mkdir(parents=True, exist_ok=True)
    onnx.save(build_model(token_id), str(dest / onnx_rel))
    return dest
