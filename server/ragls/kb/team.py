"""Team mode (`index.team = true`): a shared Qdrant index of the default branch + a small local overlay.

A CI job builds the canonical index of the default branch into Qdrant (`ragls index PATH --backend qdrant --url
…`, write mode, `stores/qdrant.py`); it records the commit it reflects (`indexed_commit` in the collection's meta
point). Each developer's server opens that collection read-only and asks git what the working tree changed since
that commit (`repo.local_changes`: modified, added — untracked files included — and deleted). Only those files
are indexed locally, into an ordinary embedded `FolderIndex` (LanceDB + tantivy) restricted to them
(`FolderIndex.restrict_to`), so answers reflect the working tree without re-embedding the rest.

Search (`TeamIndex.search`, or the workspace's one retrieval over all its folders): the team folder is two sources
of the retrieval pipeline (`retrieval/search.py`): the shared collection (`SharedSource`: dense + sparse BM25 in one
request; on qdrant-client's embedded local mode, which scores sparse vectors in Python, BM25 runs over the dense
candidates' payloads instead) with the changed and deleted paths excluded by a payload filter (so a locally deleted
file never surfaces, and a locally edited file surfaces only with its new text), and the overlay (its own vector
and BM25 stores). The vector lists are merged by cosine similarity (same model: comparable), the keyword lists
(Qdrant sparse BM25 vs tantivy BM25, different corpora statistics) by rank, alternating; then the pipeline's
weighted RRF, dedup, focus lines and abstention evidence. Shared chunks are cited as files of the local folder
(their text is the committed text, which is the local text for an unchanged file).

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
from ragls.retrieval.result import RetrievalResult
from ragls.retrieval.search import search
from ragls.retrieval.source import Candidates, FolderSource, PooledSource, pool_bm25
from ragls.stores.qdrant import QdrantChunkStore, chunk_from_payload, is_url

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

    def sources(self) -> list:
        """The team folder as retrieval sources: the shared collection minus the local changes
        (`SharedSource`), then the overlay (`retrieval.source.FolderSource`)."""
        return [SharedSource(self), FolderSource(self.overlay)]

    def search(self, query: str, *, settings, top_k: int | None = None) -> RetrievalResult:
        """Top `top_k` hits for `query` over the shared index minus the locally changed/deleted files, plus the
        overlay, through the retrieval pipeline (`retrieval.search.search`). Raises InvalidParams for an empty
        query."""
        return search(self.sources(), self.embedder, query, settings=settings, top_k=top_k)

    def close(self) -> None:
        self.overlay.close()


class SharedSource(PooledSource):
    """The shared collection of a team folder as a retrieval source (`retrieval/source.py`): the locally changed
    and deleted paths are excluded by a payload filter (and again when chunks are read: never trust one place).
    Dense search returns each chunk's best window (focus lines, vector for dedup); the keyword list is Qdrant's
    sparse BM25 on a served Qdrant (one round trip for both), BM25 over the dense candidates' payloads in embedded
    local mode (which scores sparse vectors in Python, ~11 s/query at 10k chunks, bench/history/early-speed-and-operations.md, "Qdrant backend"). Its BM25
    scores are not tantivy's, so the pipeline interleaves its keyword list with the overlay's by rank. Chunks are
    cited as files of the local folder. `retrieval.bm25_feedback` and `parent_document` do not apply to it."""

    def __init__(self, team: TeamIndex):
        self.team = team

    def candidates(self, q, n: int, settings, signals, *, plain: bool = False) -> Candidates:
        team = self.team
        shared = team.shared
        hidden = team.changes().hidden
        qvec = q.vector if q.vector is not None else team.embedder.embed_query(q.text)
        out = Candidates()
        if is_url(shared.location):
            dense, sparse = shared.hybrid_points(qvec, q.text, n, hidden)  # one round trip
        else:
            dense, sparse = shared.window_points(qvec, n, hidden), None
        for m, payload in dense:
            chunk = self._chunk(payload, hidden)
            if chunk is None:
                continue
            out.chunks[m.chunk_id] = chunk
            if "vector" in signals:
                out.lists.setdefault("vector", []).append((m.chunk_id, m.similarity))
                out.similarity[m.chunk_id] = m.similarity
                out.matches[m.chunk_id] = m
        if "bm25" in signals:
            if sparse is None:
                out.lists["bm25"], out.stats = pool_bm25(q, out.chunks)
            else:
                kw = []
                for p, score in sparse:
                    chunk = self._chunk(p.payload, hidden)
                    if chunk is not None:
                        out.chunks.setdefault(chunk.id, chunk)
                        kw.append((chunk.id, score))
                out.lists["bm25"] = kw
                _, out.stats = pool_bm25(q, out.chunks)
        return out

    def _chunk(self, payload: dict, hidden):
        chunk = dataclasses.replace(chunk_from_payload(payload), folder=str(self.team.folder))
        return None if chunk.document in hidden or chunk.path in hidden or not chunk.text else chunk
