"""Embedder truncation with the real offline all-MiniLM-L6-v2: `embedding.max_length` is honoured and capped at the
model's declared max_seq_length (256 in its sentence_bert_config.json), although fastembed alone truncates at 512."""

from __future__ import annotations

import json

import numpy as np
import pytest
from ragls.config.settings import build_settings
from ragls.embedding.embed import (
    OFFLINE_MODEL_NAME,
    Embedder,
    declared_max_length,
    offline_model_dir,
)

MODEL_DIR = offline_model_dir()
pytestmark = pytest.mark.skipif(MODEL_DIR is None, reason="ragls[offline] not installed")

HEAD = "the boundary layer separates near the trailing edge of the wing " * 30  # > 256 tokens on its own
TAIL_A = " supersonic flutter of panels " * 20
TAIL_B = " heat transfer in slip flow " * 20


def embedder(max_length: int) -> Embedder:
    s, _ = build_settings({"embedding": {"model": OFFLINE_MODEL_NAME, "model_path": str(MODEL_DIR),
                                         "max_length": max_length}})
    return Embedder(s.embedding)


def test_declared_length_caps_the_setting():
    e = embedder(512)
    a, b = e.embed_documents([HEAD + TAIL_A, HEAD + TAIL_B])
    assert e.max_length == 256
    assert float(a @ b) == pytest.approx(1.0, abs=1e-5)  # the differing tails lie beyond token 256
    short_a, short_b = e.embed_documents(["wing flutter" + TAIL_A, "wing flutter" + TAIL_B])
    assert float(short_a @ short_b) < 0.95  # within the limit the texts do differ


def test_smaller_setting_wins_and_changes_the_fingerprint():
    e64, e512 = embedder(64), embedder(512)
    assert e64.fingerprint != e512.fingerprint
    assert e64.max_length == 64
    head = "wing " * 70
    a, b = e64.embed_documents([head + "flutter", head + "heat transfer"])
    assert np.allclose(a, b, atol=1e-5)


def test_declared_max_length_reads_sentence_bert_config(tmp_path):
    assert declared_max_length(MODEL_DIR) == 256
    assert declared_max_length(tmp_path) is None
    (tmp_path / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": "long"}))
    assert declared_max_length(tmp_path) is None
    (tmp_path / "sentence_bert_config.json").write_text("{not json")
    assert declared_max_length(tmp_path) is None
    (tmp_path / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": 384}))
    assert declared_max_length(tmp_path) == 384
