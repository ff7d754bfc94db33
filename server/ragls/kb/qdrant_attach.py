"""Attach an existing Qdrant collection read-only (`[rags.NAME] qdrant = { url, collection, api_key_env }`).

Checks, at attach and at every start (`AttachedCollection.open`), each failing with an `AttachError` that says
what is wrong and what to do:
- the collection exists (the message lists the server's collections);
- it has a single unnamed dense vector: named vectors are refused (ragls cannot know which of them its embedding
  model matches), multi-vector (late-interaction, ColBERT-style) points are refused (ragls compares one embedding
  per chunk), a sparse-only collection is refused (no dense vector to search);
- its dimension equals the embedder's; when it does, a warning says that equal dimensions do not prove the same
  model and names the model the collection must have been built with;
- the chunk text is in the `page_content` payload field (LangChain's default; `payload_text_field` overrides),
  at the top level or under `metadata`;
- point ids may be integers or UUIDs (both are Qdrant ids; hits carry them as strings);
- an empty collection attaches with a warning.
Nothing is ever written to an attached collection: this module only calls read methods (collection_exists,
get_collection, count, scroll, query_points).

Retrieval: the collection is a source of the retrieval pipeline (`CollectionSource`, `retrieval/search.py`): dense
search in Qdrant (top `retrieval.candidates`), plus BM25 over the returned payloads' texts (ragls' analysis) when the
collection has no ragls `bm25` sparse vector (when it has, Qdrant's sparse search with its IDF modifier is the
keyword signal); then the pipeline's weighted RRF, exact-match bonus, near-duplicate removal, reranker, focus lines
and abstention evidence, as for a workspace folder. Citations: the payload's `source` / `metadata.source` (or
`path`) and its line (`start_line`/`line`) or `page` fields when it has them (`stores/qdrant.chunk_from_payload`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ragls.config.settings import env_var_name
from ragls.core.errors import ConfigError, RequestFailed
from ragls.core.ir import RagInfo
from ragls.retrieval.result import RetrievalResult
from ragls.retrieval.search import SIGNALS, search
from ragls.retrieval.source import Candidates, PooledSource, pool_bm25
from ragls.stores.qdrant import SPARSE, chunk_from_payload, connect
from ragls.stores.term_vectors import query_vector
from ragls.stores.vectors import WindowMatch

if TYPE_CHECKING:
    from ragls.config.settings import RetrievalSettings
    from ragls.embedding.embed import Embedder

log = logging.getLogger(__name__)

SAMPLE_POINTS = 16  # points read at attach to find the text field


class AttachError(ConfigError):
    """An attached collection cannot be used; the message says why and what to change."""


@dataclass
class QdrantAttach:
    """Where an attached collection lives. `api_key_env` names the environment variable holding the API key (the
    key itself is never part of the configuration). `url` may also be ":memory:" or a local directory."""

    url: str
    collection: str | None = None
    api_key_env: str | None = None
    payload_text_field: str = "page_content"

    @classmethod
    def from_dict(cls, data: dict) -> QdrantAttach:
        """From the `qdrant = {...}` table of a `[rags.NAME]` entry. Raises ConfigError for unknown keys, a
        missing url or an `api_key` given inline (keys come from the environment only)."""
        if not isinstance(data, dict):
            raise ConfigError("qdrant must be a table: { url = \"http://host:6333\", collection = \"...\" }")
        if "api_key" in data:
            raise ConfigError("qdrant.api_key is not accepted: put the key in an environment variable and name it "
                              "with qdrant.api_key_env (e.g. api_key_env = \"QDRANT_API_KEY\")")
        known = {"url", "location", "collection", "api_key_env", "payload_text_field"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError(f"unknown qdrant setting(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
        key_env = data.get("api_key_env")
        try:
            env_var_name(key_env if key_env is None or isinstance(key_env, str) else "")
        except ValueError as exc:
            raise ConfigError(f"qdrant.api_key_env {exc}") from None
        url = data.get("url") or data.get("location")
        if not isinstance(url, str) or not url:
            raise ConfigError("qdrant.url is required (http://host:6333, a local directory or \":memory:\")")
        return cls(url=url, collection=data.get("collection"), api_key_env=data.get("api_key_env"),
                   payload_text_field=data.get("payload_text_field") or "page_content")


def list_collections(client) -> list[str]:
    """Names of the server's collections, sorted."""
    return sorted(c.name for c in client.get_collections().collections)


@dataclass
class AttachedCollection:
    """A validated, read-only collection. `warnings`: what attached but deserves the user's attention (shown in
    `rag/status`); `status()` describes it without any secret."""

    config: QdrantAttach
    client: object
    dim: int
    points: int
    has_sparse: bool
    warnings: list[str] = field(default_factory=list)

    @classmethod
    def open(cls, config: QdrantAttach, embedder: Embedder, *, client=None) -> AttachedCollection:
        """Connect (unless `client` is given), run every check of the module docstring against `embedder`
        (its model is loaded) and return the attached collection. Raises AttachError (a ConfigError)."""
        if client is None:
            client = connect(config.url, config.api_key_env)
        name = config.collection
        if not name:
            raise AttachError(f"no collection given; collections at {config.url}: "
                              f"{', '.join(list_collections(client)) or '(none)'}")
        if not client.collection_exists(name):
            raise AttachError(f"Qdrant collection {name!r} does not exist at {config.url}; collections there: "
                              f"{', '.join(list_collections(client)) or '(none)'}")
        embedder.ensure_loaded()
        info = client.get_collection(name)
        dim = check_vectors(name, info.config.params.vectors, embedder.dim, embedder.model_name)
        sparse = info.config.params.sparse_vectors or {}
        warnings = [(f"equal dimensions ({dim}) do not prove the same model: the collection {name!r} must have "
                     f"been embedded with {embedder.model_name} (ragls' embedding.model), or its similarities are "
                     f"meaningless")]
        points = client.count(name, exact=True).count
        if points == 0:
            warnings.append(f"Qdrant collection {name!r} is empty: queries find nothing until it is filled")
        else:
            check_text_field(client, name, config.payload_text_field)
        for w in warnings:
            log.warning("rag attach %s: %s", name, w)
        return cls(config=config, client=client, dim=dim, points=points, has_sparse=SPARSE in sparse,
                   warnings=warnings)

    def status(self) -> dict:
        """What `rag/status` shows: url, collection, points, warnings — never the API key (only its variable's
        name)."""
        out = {"backend": "qdrant", "url": self.config.url, "collection": self.config.collection,
               "points": self.points, "readOnly": True, "warnings": list(self.warnings)}
        if self.config.api_key_env:
            out["apiKeyEnv"] = self.config.api_key_env
        return out

    def search(self, embedder: Embedder, query: str, *, settings: RetrievalSettings,
               top_k: int | None = None, **options) -> RetrievalResult:
        """Top `top_k` hits (default `settings.top_k`) for `query` through the retrieval pipeline
        (`search.search`, `options` are its keyword arguments) with this collection as its one source
        (`CollectionSource`). Hit.similarity is Qdrant's dense score (cosine similarity for a cosine collection).
        Raises InvalidParams for an empty query."""
        return search([CollectionSource(self, embedder)], embedder, query, settings=settings, top_k=top_k,
                      **options)


class CollectionSource(PooledSource):
    """An attached collection as a retrieval source (`retrieval/source.py`): dense top `n` from Qdrant (with the
    points' vectors, for near-duplicate removal); the keyword list is Qdrant's sparse search of the ragls `bm25`
    vector when the collection has one, else BM25 over the dense candidates' payload texts (`source.pool_bm25`),
    whose statistics also weigh the query's terms for abstention. Its BM25 scores are not tantivy's: merged with
    other sources' by rank. Chunks come with the candidates (never looked up again); `parent_document` and
    `bm25_feedback` do not apply (no chunk list per file, no corpus statistics)."""

    def __init__(self, attached: AttachedCollection, embedder: Embedder):
        self.attached = attached
        self.embedder = embedder

    def candidates(self, q, n: int, settings, signals, *, plain: bool = False) -> Candidates:
        att = self.attached
        name, field_name = att.config.collection, att.config.payload_text_field
        out = Candidates()
        pool = "bm25" in signals and not att.has_sparse
        if "vector" in signals or pool:
            qvec = q.vector if q.vector is not None else self.embedder.embed_query(q.text)
            dense = att.client.query_points(name, query=[float(x) for x in qvec], limit=n, with_payload=True,
                                            with_vectors=True).points
            for p in dense:
                cid = str(p.id)
                chunk = chunk_from_payload(p.payload or {}, field_name, fallback_id=cid)
                if not chunk.text:
                    continue
                out.chunks[cid] = chunk
                if "vector" in signals:
                    vec = p.vector.get("") if isinstance(p.vector, dict) else p.vector
                    out.lists.setdefault("vector", []).append((cid, float(p.score)))
                    out.similarity[cid] = float(p.score)
                    out.matches[cid] = WindowMatch(cid, float(p.score), 0, chunk.span.start_line,
                                                   chunk.span.end_line, np.asarray(vec, dtype=np.float32))
        if "bm25" in signals:
            if att.has_sparse:
                from qdrant_client import models

                kw = []
                idx, vals = query_vector(q.text)
                if idx:
                    for p in att.client.query_points(name, query=models.SparseVector(indices=idx, values=vals),
                                                     using=SPARSE, limit=n, with_payload=True).points:
                        cid = str(p.id)
                        chunk = out.chunks.get(cid) or chunk_from_payload(p.payload or {}, field_name, fallback_id=cid)
                        if chunk.text:
                            out.chunks[cid] = chunk
                            kw.append((cid, float(p.score)))
                out.lists["bm25"] = kw
                _, out.stats = pool_bm25(q, out.chunks)
            else:
                out.lists["bm25"], out.stats = pool_bm25(q, out.chunks)
        return out


def check_vectors(name: str, vectors, dim: int, model_name: str) -> int:
    """The dense dimension of a collection's vector configuration; raises AttachError unless it is one unnamed,
    single-vector dense vector of dimension `dim`."""
    if vectors is None or (isinstance(vectors, dict) and not vectors):
        raise AttachError(f"Qdrant collection {name!r} has no dense vector (sparse vectors only): ragls needs a "
                          f"dense embedding per point to search it")
    if isinstance(vectors, dict):
        if list(vectors) == [""]:
            vectors = vectors[""]
        else:
            raise AttachError(
                f"Qdrant collection {name!r} has named vectors ({', '.join(sorted(vectors))}): ragls attaches "
                f"collections with a single unnamed dense vector (LangChain's layout), because it cannot tell "
                f"which named vector was made by its embedding model; re-create the collection with one unnamed "
                f"vector or index the documents with ragls itself")
    if getattr(vectors, "multivector_config", None) is not None:
        raise AttachError(f"Qdrant collection {name!r} stores several vectors per point (multi-vector, "
                          f"late-interaction models such as ColBERT): ragls compares one embedding per chunk")
    size = int(vectors.size)
    if size != dim:
        raise AttachError(f"Qdrant collection {name!r} holds {size}-dimensional vectors but ragls' embedding model "
                          f"{model_name} gives {dim}: set embedding.model to the model the collection was built "
                          f"with")
    return size


def check_text_field(client, name: str, text_field: str) -> None:
    """Raise AttachError when none of the first SAMPLE_POINTS points has a string `text_field` in its payload (top
    level or under `metadata`), naming the fields they do have."""
    points, _ = client.scroll(name, limit=SAMPLE_POINTS, with_payload=True, with_vectors=False)
    seen: set[str] = set()
    for p in points:
        payload = p.payload or {}
        meta = payload.get("metadata") if isinstance(payload.get("metadata"), dict) else {}
        if isinstance(payload.get(text_field), str) or isinstance(meta.get(text_field), str):
            return
        seen |= set(payload)
    raise AttachError(f"the points of Qdrant collection {name!r} have no {text_field!r} payload field (fields "
                      f"found: {', '.join(sorted(seen)) or 'none'}); set payload_text_field to the field that holds "
                      f"the chunk text")


class QdrantRag:
    """The `[rags.NAME] qdrant = {...}` backend of the named-RAG registry (`kb/rags.py`, `Rag` protocol): an attached
    collection, read-only. Connected and checked on first use (the checks load the embedding model); a failed
    check is raised to the request (-32602 with its message) and listed in `rag/list` errors."""

    def __init__(self, spec, registry):
        self.spec = spec
        self.config = QdrantAttach.from_dict(spec.table.get("qdrant"))
        self.embedder = registry.embedder_for(spec.settings)
        self._attached: AttachedCollection | None = None
        self._reranker = None
        self.error: str | None = None

    def attached(self) -> AttachedCollection:
        """The checked collection. Raises AttachError / RequestFailed (unreachable server; never the key)."""
        if self._attached is None:
            try:
                self._attached = AttachedCollection.open(self.config, self.embedder)
            except ConfigError as exc:
                self.error = str(exc)
                raise
            except Exception as exc:  # noqa: BLE001 - connection refused, TLS, HTTP errors
                self.error = f"cannot reach Qdrant at {self.config.url}: {type(exc).__name__}: {exc}"
                raise RequestFailed(self.error) from None
            self.error = None
        return self._attached

    takes_llm_steps = True  # retrieve() accepts generation= and expand= (RagWorkspace.retrieve)

    def retrieve(self, query: str, top_k: int | None, signals=SIGNALS, *, generation=None,
                 expand: bool | None = None) -> RetrievalResult:
        """The retrieval pipeline over the collection with this RAG's own retrieval settings and reranker; with
        `generation` (the workspace's backend) also its enabled LLM steps (`retrieval/assisted.py`; `expand` is
        the request's switch)."""
        from ragls.retrieval.assisted import assisted_search
        from ragls.retrieval.rerankers import RerankerSlot

        if self._reranker is None:
            self._reranker = RerankerSlot()
        settings = self.spec.settings
        options = {"signals": signals, "max_context_chars": settings.generation.max_context_chars,
                   **self._reranker.options(settings)}
        source = CollectionSource(self.attached(), self.embedder)
        return assisted_search([source], self.embedder, query, settings=settings.retrieval, generation=generation,
                               expand=expand, top_k=top_k, **options)

    def sync(self):
        from ragls.index.indexer import SyncReport

        return SyncReport()  # read-only: nothing to index

    def rebuild(self):
        return self.sync()

    def ensure_indexed(self) -> None:
        self.attached()

    def info(self):
        from ragls.stores.qdrant import display_location

        errors, points = [], 0
        try:
            att = self.attached()
            points = att.points
            errors = [{"message": f"warning: {w}"} for w in att.warnings]
        except Exception as exc:  # noqa: BLE001 - reported, never raised from rag/list
            errors = [{"message": self.error or str(exc)}]
        source = f"qdrant:{display_location(self.config.url)}/{self.config.collection}"
        return RagInfo(name=self.spec.name, sources=[source],
                       files=0, chunks=points, pending_vectors=0, last_indexed_at=None, errors=errors,
                       kind="qdrant", origin=str(self.spec.origin))

    def close(self) -> None:
        self._attached = None
