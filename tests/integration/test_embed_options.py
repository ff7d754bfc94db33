"""Throughput and footprint knobs (issue 18): `embedding.parallel` worker processes give the same vectors as one
process (real offline model, real worker processes); `embedding.provider` chains end on the CPU and an unknown or
missing provider warns; `profile = "low-ram"` overrides every other layer."""

from __future__ import annotations

import numpy as np
from ragls.config.settings import build_settings
from ragls.embedding.embed import OFFLINE_MODEL_NAME, Embedder, execution_providers, offline_model_dir


def embedding(**extra):
    emb = {"model": OFFLINE_MODEL_NAME, "model_path": str(offline_model_dir()), **extra}
    return build_settings({"embedding": emb})[0].embedding


def test_parallel_workers_match_one_process():
    texts = [f"Paragraph {i}: " + "retries use exponential backoff " * (i % 7 + 1) for i in range(24)]
    single = Embedder(embedding())
    pooled = Embedder(embedding(parallel=2))
    try:
        expected = single.embed_documents(texts)
        got = pooled.embed_documents(texts)
        assert pooled._pool is not None and pooled._pool.workers == 2  # the worker processes did the work
        assert pooled.texts_embedded == 24 and got.shape == expected.shape
        assert np.allclose(got, expected, atol=1e-5)
        small = pooled.embed_documents(texts[:3])  # below 4 texts per worker: in-process
        assert np.allclose(small, expected[:3], atol=1e-5)
    finally:
        pooled.close()


def test_provider_chains_end_on_cpu():
    warnings: list[str] = []
    cpu_only = ["CPUExecutionProvider"]
    assert execution_providers("cpu", ["CUDAExecutionProvider", *cpu_only], warnings.append) == cpu_only
    assert execution_providers("auto", ["CUDAExecutionProvider", *cpu_only], warnings.append) == [
        "CUDAExecutionProvider", "CPUExecutionProvider"]
    assert execution_providers("auto", cpu_only, warnings.append) == cpu_only
    assert execution_providers("rocm", ["ROCMExecutionProvider", *cpu_only], warnings.append) == [
        "ROCMExecutionProvider", "CPUExecutionProvider"]
    assert warnings == []
    assert execution_providers("cuda", cpu_only, warnings.append) == cpu_only
    assert execution_providers("tpu", cpu_only, warnings.append) == cpu_only
    assert "does not have" in warnings[0] and "unknown embedding provider 'tpu'" in warnings[1]


def test_low_ram_profile_overrides_other_layers():
    s, warns = build_settings({"retrieval": {"reranker_model": "Xenova/ms-marco-MiniLM-L-6-v2",
                                             "extractor_model": "gpt-4o-mini"},
                               "embedding": {"parallel": 4, "batch_size": 16}},
                              {"profile": "low-ram"})
    assert warns == [] and s.profile == "low-ram"
    assert s.retrieval.reranker_model is None and s.retrieval.extractor_model is None
    assert s.embedding.parallel == 0 and s.embedding.batch_size == 1 and s.index.embedding_cache_mb == 128
    default, _ = build_settings({"embedding": {"parallel": 4}})
    assert default.profile == "default" and default.embedding.parallel == 4
