"""`embedding.parallel`: N worker processes, each with its own ONNX Runtime session (one intra-op thread), kept
alive for the life of the Embedder so the model loads once per worker, not once per call.

The parent sorts texts by length (embedding/embed.py) and hands each worker an interleaved share, so every worker pads to
similar lengths; results come back in input order. Workers load exactly the parent's model (its name and, for a
local or offline model, its folder) from local files only. Used for indexing batches; queries stay in-process.

No folder's code runs in a worker. multiprocessing starts each worker (and its resource tracker) as `python -c
"from multiprocessing.spawn import spawn_main; …"` in the server's working directory, and `-c` puts that directory
first on sys.path: a folder holding a `multiprocessing/` package ran it in every worker when ragls was started there
(an agent's `ragls mcp`, `ragls index` in a clone; session 58). The stdlib offers no way to pass `-P` or another
working directory to those processes, so the pool starts them all at once (`EmbedPool.__init__`) with
`PYTHONSAFEPATH=1` in the environment (Python 3.11+: no directory of the command line on sys.path), restored
right after; once a worker runs, multiprocessing sets its sys.path to the parent's. On Python 3.10, which has no
safe path, the pool is not started (`SAFE_PATH_SUPPORTED`) and the Embedder embeds in-process.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from multiprocessing import resource_tracker
from typing import Any

import numpy as np

_worker_embedder = None

SAFE_PATH_SUPPORTED = sys.version_info >= (3, 11)  # PYTHONSAFEPATH / -P
_ENV_LOCK = threading.Lock()  # one pool at a time changes the environment


@contextmanager
def safe_path_environment() -> Iterator[None]:
    """`PYTHONSAFEPATH=1` in the environment while the block starts processes, then as it was. Another thread's
    subprocess started in the meantime (a git command, a loader) gets it too, which only keeps the directory of
    its command line off a Python program's sys.path."""
    with _ENV_LOCK:
        before = os.environ.get("PYTHONSAFEPATH")
        os.environ["PYTHONSAFEPATH"] = "1"
        try:
            yield
        finally:
            if before is None:
                os.environ.pop("PYTHONSAFEPATH", None)
            else:
                os.environ["PYTHONSAFEPATH"] = before


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
        with safe_path_environment():
            resource_tracker.ensure_running()
            self._pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_init_worker,
                                             initargs=(make_embedder, settings.model_dump(), model_name))
            # A spawn pool starts a worker per submit while none is idle: every worker starts here, in this
            # environment (each then loads the model, in parallel with the rest of the caller's work).
            for _ in range(workers):
                self._pool.submit(os.getpid)

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
