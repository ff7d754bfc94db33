"""Team mode (`index.team = true`): a shared Qdrant index of the default branch + a small local overlay.

A CI job builds the canonical index of the default branch into Qdrant (`ragls index PATH --backend qdrant --url
…`, write mode, `stores/qdrant.py`); it records the commit it reflects (`indexed_commit` in the collection's meta
point). Each developer's server opens that collection read-only and asks git what the working tree changed since
that commit (`repo.local_changes`: modified, added — untracked files included — and deleted). Only those files
are indexed locally, into an ordinary embedded `FolderIndex` (LanceDB + tantivy) restricted to them
(`FolderIndex.restrict_to`), so answers reflect the working tree without re-embedding the rest.

Search (`TeamIndex.search`): the shared collection is queried (dense + sparse BM25 in one request; on qdrant-client's
embedded local mode, which scores sparse vectors in Python, BM25 runs over the dense candidates' payloads instead)
with the changed and deleted paths excluded by a payload filter (so a locally deleted file never surfaces, and a locally edited file surfaces only with its new
text), the overlay by its own vector and BM25 stores; the vector lists are merged by cosine similarity (same model:
comparable), the keyword lists (Qdrant sparse BM25 vs tantivy BM25, different corpora statistics) by rank,
alternating; then ragls' weighted RRF (`fuse.py`). Shared chunks are cited as files of the local folder (their
text is the committed text, which is the local text for an unchanged file).

The diff is re-read when older than `CHANGES_TTL_S` (one `git diff` + `git ls-files`, ~10 ms on a small repo).
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from pathlib import Path

from ragls.config.settings import Settings
from ragls.core.errors import ConfigError
from ragls.embedding.embed import Embedder
from ragls.index.indexer import FolderIndex, resolve_index_dir
from ragls.index.repo import LocalChanges, local_changes
from ragls.retrieval.fuse import reciprocal_rank_fusion
from ragls.retrieval.result import RetrievalResult
from ragls.retrieval.search import check_query, hits_from_fused
from ragls.stores.qdrant import QdrantChunkStore, chunk_from_payload, is_url
from ragls.stores.term_vectors import bm25_rank

log = logging.getLogger(__name__)

CHANGES_TTL_S = 2.0


def overlay_settings(settings: Settings) -> Settings:
    """The overlay's settings: the folder's own, with the embedded backend (LanceDB) instead of Qdrant."""
    index = settings.index.model_copy(update={"backend": "lancedb", "team": False})
    return settings.model_copy(update={"index": index})


class TeamIndex:
    """Shared collection (read-only) + local overlay of one workspace folder.

    `overlay` is the local `FolderIndex` (sync it as any index; it holds only the changed files). Opening loads
    the embedding model (the collection name depends on it). Raises ConfigError when the shared collection does not
    exist or records no indexed commit.
    """

    def __init__(self, folder: Path, settings: Settings, embedder: Embedder, *, index_dir: Path | None = None):
        self.folder = Path(folder).resolve()
        self.settings = settings
        self.embedder = embedder
        base = resolve_index_dir(self.folder, settings, index_dir)
        self.overlay = FolderIndex(self.folder, overlay_settings(settings), embedder, index_dir=base / "overlay")
        self.overlay.restrict_to = lambda: set(self.changes(fresh=True).changed)  # a sync asks git anew
        try:
            self.overlay.open_vectors()  # loads the model; its vectors fingerprint (model + windows) names the collection
            self.shared = QdrantChunkStore.for_folder(self.folder, settings, base, embedder.dim,
                                                      self.overlay.vectors_fp, self.overlay.fingerprint, create=False)
            self.indexed_commit = self.shared.meta().get("indexed_commit")
            if not self.indexed_commit:
                raise ConfigError(f"the shared Qdrant collection {self.shared.collection!r} records no indexed "
                                  f"commit: its build has not finished (`ragls index PATH --backend qdrant --url …`)")
        except Exception:
            self.overlay.close()
            raise
        self._changes: LocalChanges | None = None
        self._changes_at = 0.0
        self._lock = threading.Lock()
        self.error: str | None = None

    def changes(self, fresh: bool = False) -> LocalChanges:
        """What differs locally from the indexed commit (cached CHANGES_TTL_S unless `fresh`). When git cannot
        answer (the commit is not in this clone) nothing is overlaid and `error` says to fetch."""
        with self._lock:
            if fresh or self._changes is None or time.monotonic() - self._changes_at > CHANGES_TTL_S:
                found = local_changes(self.folder, self.indexed_commit)
                if found is None:
                    self.error = (f"the shared index was built at commit {self.indexed_commit[:12]}, unknown to this "
                                  f"clone: `git fetch` so local changes can be overlaid")
                    found = LocalChanges(self.indexed_commit)
                else:
                    self.error = None
                self._changes, self._changes_at = found, time.monotonic()
            return self._changes

    def sync(self):
        """Bring the overlay up to date with the local changes (full scan of the changed files only)."""
        return self.overlay.sync()

    def store_name(self) -> str:
        """What `rag/status` names as the store (no secrets)."""
        from ragls.stores.qdrant import display_location

        return (f"qdrant-team:{self.shared.collection}@{display_location(self.shared.location)}"
                f"+overlay:lancedb+tantivy")

    def status(self) -> dict:
        """Backend facts for `rag/status` (no secrets): collection, location, indexed commit, overlaid files."""
        ch = self.changes()
        return {"backend": "qdrant-team", "collection": self.shared.collection, "indexedCommit": self.indexed_commit,
                "sharedPoints": self.shared.count(), "overlayFiles": self.overlay.manifest.file_count(),
                "modified": len(ch.modified), "added": len(ch.added), "deleted": len(ch.deleted),
                **({"error": self.error} if self.error else {})}

    def search(self, query: str, *, settings, top_k: int | None = None) -> RetrievalResult:
        """Top `top_k` hits for `query` over the shared index minus the locally changed/deleted files, plus the
        overlay (module docstring). Hit.similarity: cosine similarity when the vector signal saw the chunk.
        Raises InvalidParams for an empty query."""
        query = check_query(query)
        top_k = top_k or settings.top_k
        n = max(settings.candidates, top_k)
        hidden = self.changes().hidden
        qvec = self.embedder.embed_query(query)
        chunks: dict[tuple[str, str], object] = {}
        similarity: dict[tuple[str, str], float] = {}
        vector: list[tuple[tuple[str, str], float]] = []
        if is_url(self.shared.location):
            dense, sparse = self.shared.hybrid_points(qvec, query, n, hidden)  # one round trip
        else:  # embedded local mode scores sparse vectors in Python (~11 s/query at 10k chunks, benchmarks.md):
            dense = self.shared.dense_points(qvec, n, hidden)  # BM25 over the dense candidates' payloads instead
            texts = [p.payload.get("page_content", "") for p, _ in dense]
            sparse = [dense[i] for i, _ in bm25_rank(query, texts)]
        for p, score in dense:
            key = ("shared", p.payload["chunk_id"])
            chunks[key] = p.payload
            similarity[key] = score
            vector.append((key, score))
        shared_kw = []
        for p, _ in sparse:
            key = ("shared", p.payload["chunk_id"])
            chunks.setdefault(key, p.payload)
            shared_kw.append(key)
        local_kw = []
        if self.overlay.manifest.chunk_count():
            if self.overlay.try_open_vectors():
                for cid, sim in self.overlay.vectors.search(qvec, n):
                    similarity[("local", cid)] = sim
                    vector.append((("local", cid), sim))
            local_kw = [("local", cid) for cid, _ in self.overlay.bm25.search(query, n,
                                                                              title_weight=settings.bm25_title_weight)]
        vector.sort(key=lambda kv: -kv[1])
        keyword = [k for pair in _zip_longest(shared_kw, local_kw) for k in pair if k is not None]
        rankings = {"vector": [k for k, _ in vector[:n]], "bm25": keyword[:n]}
        weights = {"vector": settings.vector_weight, "bm25": settings.bm25_weight}
        fused = reciprocal_rank_fusion(rankings, weights, settings.rrf_k)
        local_ids = [cid for side, cid in (f.key for f in fused) if side == "local"]
        local = self.overlay.manifest.get_chunks(local_ids) if local_ids else {}

        def resolve(key):
            side, cid = key
            if side == "local":
                return local.get(cid)
            chunk = dataclasses.replace(chunk_from_payload(chunks[key]), folder=str(self.folder))
            return None if chunk.path in hidden else chunk  # the filter excludes them too: never trust one place

        return hits_from_fused(fused, resolve, similarity, top_k)

    def close(self) -> None:
        self.overlay.close()


def _zip_longest(a: list, b: list):
    for i in range(max(len(a), len(b))):
        yield (a[i] if i < len(a) else None, b[i] if i < len(b) else None)
