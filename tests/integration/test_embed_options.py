"""Throughput and footprint knobs (issue 18): `embedding.parallel` worker processes give the same vectors as one
process (real offline model, real worker processes), and `embedding.threads` batches run side by side give the
vectors of one batch after another; `embedding.provider` chains end on the CPU and an unknown or
missing provider warns; `profile = "low-ram"` overrides every other layer."""

from __future__ import annotations

import os
import threading
import time

import numpy as np
from ragls.config.settings import build_settings
from ragls.embedding.embed import OFFLINE_MODEL_NAME, Embedder, offline_model_dir
from ragls.embedding.sessions import execution_providers, thread_split


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


def test_parallel_workers_run_no_module_of_the_working_directory(tmp_path, monkeypatch):
    """multiprocessing starts a worker as `python -c …` in the working directory, and `-c` puts it first on
    sys.path: a cloned folder's `multiprocessing/` package ran in every worker (and the resource tracker) when ragls
    ran there (an agent's `ragls mcp`). The pool starts its workers with PYTHONSAFEPATH (pool.py)."""
    folder = tmp_path / "clone"
    for name in ("multiprocessing", "numpy", "ragls"):
        (folder / name).mkdir(parents=True)
        (folder / name / "__init__.py").write_text(
            f"open({str(tmp_path / ('ran-' + name))!r}, 'w').write('ran')\nraise SystemExit(3)\n")
    monkeypatch.chdir(folder)
    monkeypatch.delenv("PYTHONSAFEPATH", raising=False)
    texts = [f"Paragraph {i}: the ferry leaves the north pier at noon " * (i % 3 + 1) for i in range(16)]
    pooled = Embedder(embedding(parallel=2))
    try:
        got = pooled.embed_documents(texts)
        assert pooled._pool is not None and got.shape[0] == 16
    finally:
        pooled.close()
    assert sorted(p.name for p in tmp_path.glob("ran-*")) == []
    assert "PYTHONSAFEPATH" not in os.environ  # the environment is as it was
    expected = Embedder(embedding()).embed_documents(texts)
    assert np.allclose(got, expected, atol=1e-5)


class _Overlap:
    """An ONNX Runtime session whose `run` records how many calls were in it at once (each lasts at least 50 ms,
    so calls that can overlap do)."""

    def __init__(self, session):
        self.session, self.active, self.most = session, 0, 0
        self.lock = threading.Lock()

    def __getattr__(self, name):
        return getattr(self.session, name)

    def run(self, *args, **kwargs):
        with self.lock:
            self.active += 1
            self.most = max(self.most, self.active)
        try:
            time.sleep(0.05)
            return self.session.run(*args, **kwargs)
        finally:
            with self.lock:
                self.active -= 1


def test_batches_run_side_by_side_with_the_vectors_of_one_thread():
    texts = [f"Sentence {i} says that " + "a borrowed reference outlives its owner " * (i % 5 + 1) for i in range(11)]
    one = Embedder(embedding(threads=1))
    two = Embedder(embedding(threads=2))
    expected = one.embed_documents(texts)
    inner = two.ensure_loaded().model
    assert inner.model.get_session_options().intra_op_num_threads == 1  # each batch on one thread
    inner.model = overlap = _Overlap(inner.model)
    got = two.embed_documents(texts)
    assert overlap.most == 2  # two batches (of embedding.batch_size texts) in the model at once
    assert got.shape == (11, two.dim) and np.array_equal(got, expected)  # bit for bit, rows in input order
    assert two.texts_embedded == 11


def test_embedders_of_one_model_file_share_its_session_and_its_vectors():
    """A second Embedder of the same model file, providers and threads takes the session the first built (graph
    optimisation once per process), also after the first is gone; other threads get a session of their own."""
    texts = [f"Line {i}: the retry budget resets after " + "a successful health check " * (i % 3 + 1) for i in range(5)]
    first = Embedder(embedding())
    expected = first.embed_documents(texts)
    session = first.ensure_loaded().model.model
    del first
    again = Embedder(embedding())
    assert again.ensure_loaded().model.model is session
    assert np.array_equal(again.embed_documents(texts), expected)
    wider = Embedder(embedding(threads=4))  # two batches of two intra-op threads each
    inner = wider.ensure_loaded().model.model
    assert inner is not session and inner.get_session_options().intra_op_num_threads == 2
    assert np.allclose(wider.embed_documents(texts), expected, atol=1e-6)


def test_threads_split_into_two_batches_at_once():
    assert thread_split(1) == (1, 1)  # one batch after another
    assert thread_split(2) == (2, 1) and thread_split(3) == (2, 1)  # two batches of one thread each
    assert thread_split(16) == (2, 8)  # never more than two batches' activations in memory
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    assert thread_split(None) == (min(2, cpus), max(1, cpus // min(2, cpus)))  # default: the CPUs ragls may run on


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
