"""`embedding.parallel`: N worker processes, each with its own ONNX Runtime session (one intra-op thread), kept
alive for the life of the Embedder so the model loads once per worker, not once per call.

The parent sorts texts by length (embedding/embed.py) and hands each worker an interleaved share, so every worker pads to
similar lengths; results come back in input order. Workers load exactly the parent's model (its name and, for a
local or offline model, its folder) from local files only. Used for indexing batches; queries stay in-process.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

_worker_embedder = None


def _init_worker(make_embedder, settings: dict[str, Any], model_name: str) -> None:
    global _worker_embedder
    from ragls.config.settings import EmbeddingSettings

    emb = make_embedder(EmbeddingSettings(**{**settings, "parallel": 0, "threads": 1}))
    emb.pinned_model = model_name  # the parent's model, from local files (never a download)
    emb.ensure_loaded()
    _worker_embedder = emb


def _embed(texts: list[str]) -> np.ndarray:
    return _worker_embedder.embed_documents(texts)


class EmbedPool:
    """`workers` processes embedding with the parent's model. `embed(texts)` -> float32 (len(texts), dim), rows in
    input order. Raises whatever a worker raised (e.g. RequestFailed when the model cannot load).

    `make_embedder(EmbeddingSettings)` builds each worker's embedder: the parent's class (`embed.Embedder`), passed
    in so this module does not import the one that uses it; it must be importable by name (it is pickled)."""

    def __init__(self, make_embedder, settings, model_name: str, workers: int):
        self.workers = workers
        ctx = multiprocessing.get_context("spawn")  # no fork of a process holding ONNX/LanceDB threads
        self._pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_init_worker,
                                         initargs=(make_embedder, settings.model_dump(), model_name))

    def embed(self, texts: list[str]) -> np.ndarray:
        shares = [list(range(w, len(texts), self.workers)) for w in range(self.workers)]
        futures = [self._pool.submit(_embed, [texts[i] for i in share]) for share in shares if share]
        parts = [f.result() for f in futures]
        out = np.zeros((len(texts), parts[0].shape[1]), dtype=np.float32)
        for share, vecs in zip((s for s in shares if s), parts):
            out[share] = vecs
        return out

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
