"""Cross-encoder reranking with fastembed's `TextCrossEncoder` (ONNX Runtime): `retrieval.rerank_backend =
"cross-encoder"`, or `retrieval.reranker_model` set with no backend named (the behaviour before issue 20).

The union of the vector and BM25 candidates is re-scored by the cross-encoder (query, chunk) and sorted by that
score; it replaces RRF and the graph signal (see search.py and rerankers.py, which runs it within
`retrieval.rerank_timeout_ms`). The model runs on `retrieval.rerank_provider` (`rerank_providers`).

Model resolution, in order, never waiting on a network that is not there (the rules of embedding/embed.py):
1. `retrieval.reranker_model_path`: a local model directory (fastembed `specific_model_path`). It needs
   tokenizer.json, tokenizer_config.json (with `model_max_length`), special_tokens_map.json, optionally
   config.json, and the ONNX file: at the path fastembed lists for a known model name (`onnx/model.onnx` for the
   Xenova ms-marco models), else `model.onnx` or `onnx/model.onnx`, else the only `*.onnx` in the directory.
   A name fastembed does not know is registered as a custom model for that file.
2. The configured model already in the local fastembed cache (`local_files_only`, no network round trip).
3. A download, only when the model hub answers a 3 s probe.
Otherwise `RequestFailed` naming the ways to fix it. There is no bundled fallback cross-encoder.

Long inputs never crash: the tokenizer truncates each (query, chunk) pair to the model's window
(`model_max_length` of tokenizer_config.json, longest-first), and chunk text is cut to `MAX_DOC_CHARS` before
tokenizing so a huge chunk costs no more than a full window.
"""

from __future__ import annotations

import logging
import threading
from abc import ABC, abstractmethod
from collections.abc import Sequence
from pathlib import Path

from ragls.core.errors import RequestFailed

log = logging.getLogger(__name__)

DEFAULT_RERANKER = "Xenova/ms-marco-MiniLM-L-6-v2"
MAX_DOC_CHARS = 8000  # ~2000 tokens: more than any cross-encoder window; the tokenizer truncates the rest
BATCH_SIZE = 16


def _known_model(name: str):
    """fastembed's description of `name` (case-insensitive), or None."""
    from fastembed.rerank.cross_encoder import TextCrossEncoder

    for desc in TextCrossEncoder._list_supported_models():
        if desc.model.lower() == name.lower():
            return desc
    return None


def _onnx_file(path: Path, preferred: str | None) -> str | None:
    """The ONNX file of a local model dir, relative to it (see module docstring for the search order)."""
    for rel in [preferred, "model.onnx", "onnx/model.onnx"]:
        if rel and (path / rel).is_file():
            return rel
    found = sorted(p.relative_to(path).as_posix() for p in path.rglob("*.onnx"))
    return found[0] if len(found) == 1 else None


def rerank_providers(setting: str) -> list[str]:
    """ONNX Runtime providers for `retrieval.rerank_provider` (auto: CUDA when available, else CPU; cpu / cuda /
    rocm / directml, each chain ending on the CPU; an unknown value or a provider this onnxruntime lacks: the CPU,
    with a warning). See `embedding.sessions.execution_providers`."""
    import onnxruntime as ort

    from ragls.embedding.sessions import execution_providers

    return execution_providers(setting or "auto", ort.get_available_providers(), log.warning,
                               "retrieval.rerank_provider")


class LazyModel(ABC):
    """A fastembed model loaded on first use, thread-safe; a load failure is remembered so later queries fail fast
    (no second network probe). Subclasses set `kind` (for messages) and implement `_load()`."""

    kind = "model"

    def __init__(self, model_name: str, model_path: str | None, threads: int | None, provider: str):
        self.model_name = model_name
        self.model_path = model_path
        self.threads = threads
        self.provider = provider
        self.source = ""  # "path", "cache" or "download"
        self._model = None
        self._error: RequestFailed | None = None
        self._lock = threading.Lock()

    @abstractmethod
    def _load(self):
        """The fastembed model (sets `source`). Raises RequestFailed with what the user can fix."""

    def _from_cache_or_download(self, factory, name: str, fixes: str):
        """`factory(name, cache_dir=…, **kw)` from fastembed's local cache, else downloaded when the hub answers;
        sets `source`. Raises RequestFailed naming `fixes` (what the user can do) when neither works."""
        from ragls.embedding.model_source import hub_reachable
        from ragls.index.paths import cache_root

        common = {"threads": self.threads, "providers": rerank_providers(self.provider)}
        fe_cache = str(cache_root() / "fastembed")
        try:
            model = factory(name, cache_dir=fe_cache, local_files_only=True, **common)
            self.source = "cache"
            return model
        except Exception as exc:  # noqa: BLE001 - fastembed raises ValueError or OSError variants for "not cached"
            log.debug("%s %s not in the local cache: %s", self.kind, name, exc)
        if hub_reachable(name):
            log.info("downloading %s %s (first run only)", self.kind, name)
            try:
                model = factory(name, cache_dir=fe_cache, **common)
                self.source = "download"
                return model
            except Exception as exc:  # noqa: BLE001
                log.warning("download of %s failed: %s", name, exc)
        raise RequestFailed(f"cannot load {self.kind} {name}: it is not cached and cannot be downloaded. Fix one "
                            f"of: {fixes}")

    def ensure_loaded(self):
        """Load the model now (idempotent). Returns the fastembed model. Raises RequestFailed."""
        if self._model is None:
            with self._lock:
                if self._error is not None:
                    raise self._error
                if self._model is None:
                    try:
                        self._model = self._load()
                    except RequestFailed as exc:
                        self._error = exc
                        raise
                    except Exception as exc:  # noqa: BLE001 - a broken model folder: one clear message
                        self._error = RequestFailed(f"cannot load {self.kind} {self.model_name}: {exc}")
                        raise self._error from None
        return self._model


class Reranker(LazyModel):
    """A cross-encoder loaded lazily (thread-safe) from `RetrievalSettings` (`reranker_model`,
    `reranker_model_path`). `threads`: ONNX Runtime threads (None = its default); `provider`: the
    `retrieval.rerank_provider` value (`rerank_providers`).

    `score(query, texts)` -> list of floats (higher = more relevant), one per text, in input order.
    Raises `RequestFailed` on first use when the model cannot be loaded (the failure is remembered, so later
    queries fail fast without another network probe).
    """

    name = "cross-encoder"
    kind = "reranker model"

    def __init__(self, model: str | None, model_path: str | None = None, threads: int | None = None,
                 provider: str = "auto"):
        super().__init__(model or DEFAULT_RERANKER, model_path, threads, provider)

    @classmethod
    def from_settings(cls, retrieval, threads: int | None = None) -> Reranker | None:
        """A Reranker when `retrieval.reranker_model` (or `reranker_model_path`) is set, else None."""
        if not retrieval.reranker_model and not retrieval.reranker_model_path:
            return None
        return cls(retrieval.reranker_model, retrieval.reranker_model_path, threads, retrieval.rerank_provider)

    # -- loading -------------------------------------------------------------------------------------------
    def _load(self):
        from fastembed.common.model_description import ModelSource
        from fastembed.rerank.cross_encoder import TextCrossEncoder

        name = self.model_name
        common = {"threads": self.threads, "providers": rerank_providers(self.provider)}
        if self.model_path:
            path = Path(self.model_path).expanduser()
            if not path.is_dir():
                raise RequestFailed(f"retrieval.reranker_model_path {path} is not a directory")
            known = _known_model(name)
            rel = _onnx_file(path, known.model_file if known else None)
            if rel is None:
                raise RequestFailed(f"retrieval.reranker_model_path {path} has no .onnx model file "
                                    "(expected model.onnx or onnx/model.onnx)")
            if known is None or known.model_file != rel:
                # Not a name fastembed knows, or another file layout: register it as a custom model.
                custom = name if known is None else f"ragls-local/{name}@{rel}"
                if _known_model(custom) is None:
                    TextCrossEncoder.add_custom_model(custom, sources=ModelSource(hf=custom), model_file=rel)
                name = custom
            self.source = "path"
            return TextCrossEncoder(name, specific_model_path=str(path), **common)
        if _known_model(name) is None:
            raise RequestFailed(f"unknown reranker model {name!r}; use one fastembed lists (e.g. {DEFAULT_RERANKER}) "
                                "or set retrieval.reranker_model_path to a local ONNX cross-encoder folder")
        return self._from_cache_or_download(
            TextCrossEncoder, name,
            "(1) connect to the internet once so it downloads, "
            "(2) set retrieval.reranker_model_path to a local fastembed cross-encoder folder, "
            "(3) unset retrieval.reranker_model to use hybrid RRF ranking")

    # -- scoring -------------------------------------------------------------------------------------------
    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        """Cross-encoder scores of (query, text) pairs, in input order; [] for no texts. Raises RequestFailed."""
        model = self.ensure_loaded()
        if not texts:
            return []
        docs = [t[:MAX_DOC_CHARS] for t in texts]
        return [float(s) for s in model.rerank(query[:MAX_DOC_CHARS], docs, batch_size=BATCH_SIZE)]

    def rerank(self, query: str, chunks: Sequence) -> list[tuple]:
        """[(chunk, cross-encoder score)] best first (`rerank_input` of each chunk). Raises RequestFailed."""
        return sort_by_scores(chunks, self.score(query, [rerank_input(c) for c in chunks]))


def rerank_input(chunk) -> str:
    """Text a reranker model sees for a chunk: its context (contextual retrieval), heading path, then the text (as
    for embeddings)."""
    text = chunk.text
    if chunk.title and not chunk.text.lstrip().startswith("#"):
        text = f"{chunk.title}\n\n{text}"
    return f"{chunk.context}\n\n{text}" if getattr(chunk, "context", "") else text


def sort_by_scores(chunks: Sequence, scores: Sequence[float]) -> list[tuple]:
    """[(chunk, score)] best first; ties keep the input order (the fused order)."""
    return sorted(zip(chunks, (float(s) for s in scores)), key=lambda cs: -cs[1])
