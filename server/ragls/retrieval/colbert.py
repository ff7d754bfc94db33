"""ColBERT late-interaction reranking (`retrieval.rerank_backend = "colbert"`) with fastembed's
`LateInteractionTextEmbedding` (ONNX Runtime).

A ColBERT model embeds every token: the query into Q (query tokens x dim, padded with [MASK] tokens to its query
length — ColBERT's query augmentation) and each candidate into D (document tokens x dim, unit-normalised). The
score is MaxSim (Khattab & Zaharia 2020, eq. 3): the sum over the query tokens of their best dot product with a
document token, S = sum_i max_j Q_i . D_j. Scores grow with the query length; they are not comparable with a
cross-encoder's logits (see `retrieval.relevance_floor`).

Model resolution follows cross_encoder.py: `retrieval.colbert_model_path` (a local folder: tokenizer files + an ONNX
file; a name fastembed does not know is loaded as a ColBERT model with that file), else `retrieval.colbert_model`
from the local fastembed cache, else a download when the hub answers; otherwise `RequestFailed` naming the fixes.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from ragls.core.errors import RequestFailed
from ragls.retrieval.cross_encoder import (
    MAX_DOC_CHARS,
    LazyModel,
    _onnx_file,
    rerank_input,
    rerank_providers,
    sort_by_scores,
)

log = logging.getLogger(__name__)

DEFAULT_COLBERT = "answerdotai/answerai-colbert-small-v1"
BATCH_SIZE = 8


def _known_model(name: str):
    from fastembed import LateInteractionTextEmbedding

    for desc in LateInteractionTextEmbedding._list_supported_models():
        if desc.model.lower() == name.lower():
            return desc
    return None


def maxsim(query_tokens, doc_tokens) -> float:
    """ColBERT's MaxSim: sum over query token vectors (rows of `query_tokens`, [q, dim]) of the best dot product
    with a document token vector (rows of `doc_tokens`, [d, dim]); 0.0 for a document without tokens."""
    if len(doc_tokens) == 0:
        return 0.0
    return float((query_tokens @ doc_tokens.T).max(axis=1).sum())


class ColbertReranker(LazyModel):
    """A ColBERT model loaded lazily (thread-safe). `rerank(query, chunks)` -> [(chunk, MaxSim score)] best first.
    Raises RequestFailed on first use when the model cannot be loaded (remembered: later queries fail fast)."""

    name = "colbert"
    kind = "ColBERT model"

    def __init__(self, model: str | None, model_path: str | None = None, threads: int | None = None,
                 provider: str = "auto"):
        super().__init__(model or DEFAULT_COLBERT, model_path, threads, provider)

    @classmethod
    def from_settings(cls, retrieval, threads: int | None = None) -> ColbertReranker:
        return cls(retrieval.colbert_model, retrieval.colbert_model_path, threads, retrieval.rerank_provider)

    def _load(self):
        from fastembed import LateInteractionTextEmbedding

        common = {"threads": self.threads, "providers": rerank_providers(self.provider)}
        name = self.model_name
        if self.model_path:
            path = Path(self.model_path).expanduser()
            if not path.is_dir():
                raise RequestFailed(f"retrieval.colbert_model_path {path} is not a directory")
            known = _known_model(name)
            rel = _onnx_file(path, known.model_file if known else None)
            if rel is None:
                raise RequestFailed(f"retrieval.colbert_model_path {path} has no .onnx model file")
            self.source = "path"
            if known is not None and known.model_file == rel:
                return LateInteractionTextEmbedding(name, specific_model_path=str(path), **common)
            return _local_colbert(name, rel)(name, specific_model_path=str(path), **common)
        if _known_model(name) is None:
            raise RequestFailed(f"unknown ColBERT model {name!r}; use one fastembed lists (e.g. {DEFAULT_COLBERT}) or "
                                "set retrieval.colbert_model_path to a local ONNX ColBERT folder")
        return self._from_cache_or_download(
            LateInteractionTextEmbedding, name,
            "connect to the internet once, set retrieval.colbert_model_path to a local folder, or choose another "
            "retrieval.rerank_backend")

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        """MaxSim scores of `texts` for `query`, in input order. Raises RequestFailed."""
        model = self.ensure_loaded()
        if not texts:
            return []
        q = next(iter(model.query_embed(query[:MAX_DOC_CHARS])))
        docs = model.embed([t[:MAX_DOC_CHARS] for t in texts], batch_size=BATCH_SIZE)
        return [maxsim(q, d) for d in docs]

    def rerank(self, query: str, chunks: Sequence) -> list[tuple]:
        """[(chunk, MaxSim)] best first; ties keep the input (fused) order."""
        return sort_by_scores(chunks, self.score(query, [rerank_input(c) for c in chunks]))


def _local_colbert(name: str, model_file: str):
    """A fastembed `Colbert` class that knows one more model: `name` with its ONNX file at `model_file` (fastembed
    has no public way to add a late-interaction model)."""
    from fastembed.common.model_description import DenseModelDescription, ModelSource
    from fastembed.late_interaction.colbert import Colbert

    desc = DenseModelDescription(model=name, sources=ModelSource(hf=name), model_file=model_file, dim=1,
                                 description="local ColBERT model (ragls retrieval.colbert_model_path)",
                                 license="", size_in_GB=0.0)

    class LocalColbert(Colbert):
        @classmethod
        def _list_supported_models(cls):
            return [desc]

    return LocalColbert
