"""Indexer: walk -> load -> chunk -> BM25 + manifest (text phase) -> embed -> vectors (vector phase).

The text phase is cheap and runs first for every changed file, so BM25 answers are available within a second or
two; the vector phase then embeds what is pending in small batches (`EMBED_BATCH` chunks), so a save that arrives
meanwhile is handled between two batches instead of waiting for the whole cold index.

Crash safety (a `kill -9` anywhere must end, after restart, in the same index as a clean rebuild):
1. the paths about to change are written to the manifest's journal;
2. BM25 deletes the paths' documents, adds the new chunks, commits;
3. one SQLite transaction replaces the paths' file and chunk rows and clears their journal entries;
4. vectors: rows of those paths are deleted; new chunks get rows as soon as their embeddings exist.
`reconcile()` runs at start-up: journaled paths are dropped from all stores (the next sync re-indexes them), BM25
is rebuilt from the manifest when its ids differ, vector rows whose id is not in the manifest (or duplicated) are
deleted, and chunks without a vector are queued for embedding.
"""

from __future__ import annotations

import logging
import os
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from filelock import FileLock, Timeout

from ragls.chunking import chunk_document
from ragls.config import Settings
from ragls.embed import Embedder
from ragls.errors import Skipped
from ragls.hashing import fingerprint, text_hash
from ragls.ir import Chunk, Document
from ragls.sources.load import load_file
from ragls.sources.walk import FileFilter, walk
from ragls.stores.bm25 import TOKENIZER_VERSION, Bm25Store
from ragls.stores.manifest import FileRecord, Manifest
from ragls.stores.vectors import VectorStore

log = logging.getLogger(__name__)

TEXT_BATCH_FILES = 64
EMBED_BATCH = 32

# Progress callback: (phase, done, total, message). Phases: "files", "embed".
ProgressFn = Callable[[str, int, int, str], None]


def _crash_point(name: str) -> None:
    """Test hook: RAGLS_TEST_CRASH_AT=<name> kills the process (as kill -9 would) at that step."""
    if os.environ.get("RAGLS_TEST_CRASH_AT") == name:
        os._exit(137)


def embedding_input(chunk: Chunk) -> str:
    """Text sent to the embedding model: the heading path, then the chunk (titles help short chunks)."""
    if chunk.title and not chunk.text.lstrip().startswith("#"):
        return f"{chunk.title}\n\n{chunk.text}"
    return chunk.text


@dataclass
class SyncReport:
    """Outcome of one sync: counts of files (re)indexed, deleted, unchanged; skipped files with reasons."""

    indexed: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    unchanged: int = 0
    skipped: list[Skipped] = field(default_factory=list)
    chunks_added: int = 0
    elapsed_ms: float = 0.0


def default_index_dir(folder: Path) -> Path:
    """Per-workspace index folder in the user's cache dir: <cache>/indexes/<name>-<hash of the folder path>."""
    from ragls.embed import cache_root

    resolved = str(folder.resolve())
    return cache_root() / "indexes" / f"{folder.name or 'root'}-{text_hash(resolved)[:12]}"


class FolderIndex:
    """The index of one workspace folder: manifest (SQLite), BM25 (tantivy) and vectors (LanceDB).

    Opening takes the folder's writer lock if it is free; otherwise the index is read-only (`writer` False) and
    `sync` does nothing — another process (a second editor window) is indexing it. Raises RequestFailed when the
    embedding model cannot be loaded.
    """

    # Hook after each text-phase write (graph RAG): (paths whose old chunks are gone, new chunks of those paths).
    on_text_written: Callable[[list[str], list[Chunk]], None] | None = None

    def __init__(self, folder: Path, settings: Settings, embedder: Embedder, *, index_dir: Path | None = None,
                 on_progress: ProgressFn | None = None):
        self.folder = Path(folder).resolve()
        self.settings = settings
        self.embedder = embedder
        self.index_dir = Path(index_dir or settings.index.path or default_index_dir(self.folder)).expanduser()
        if not self.index_dir.is_absolute():
            self.index_dir = self.folder / self.index_dir
        self.index_dir.mkdir(parents=True, exist_ok=True)
        self.on_progress = on_progress or (lambda *a: None)
        self._lock = FileLock(str(self.index_dir / "index.lock"))
        try:
            self._lock.acquire(timeout=0)
            self.writer = True
        except Timeout:
            self.writer = False
        self.manifest = Manifest(self.index_dir / "manifest.sqlite", folder=str(self.folder))
        self.bm25 = Bm25Store(self.index_dir / "bm25", writable=self.writer)
        self.embed_fp = embedder.fingerprint
        self.fingerprint = fingerprint({
            "embedding": self.embed_fp, "chunk_size": settings.chunking.chunk_size,
            "chunk_overlap": settings.chunking.overlap, "tokenizer": TOKENIZER_VERSION, "layout": 1,
        })
        self.vectors = VectorStore(self.index_dir / "vectors", embedder.dim)
        self.filter = FileFilter(self.folder, settings.sources, self.index_dir)
        self.embedded_chunks = 0  # chunks whose vectors this process computed (not from the cache)
        if self.writer:
            self._check_fingerprint()
            self.reconcile()

    # -- start-up ------------------------------------------------------------------------------------------
    def _check_fingerprint(self) -> None:
        old = self.manifest.get_meta("fingerprint")
        if old == self.fingerprint:
            return
        if old is not None:
            log.warning("index settings changed (embedding model, chunking or tokenizer): rebuilding %s", self.folder)
        self.manifest.clear()
        self.manifest.prune_cache(self.embed_fp)
        self.bm25.delete_all()
        self.bm25.commit()
        self.vectors.delete_all()
        self.manifest.set_meta("fingerprint", self.fingerprint)

    def reconcile(self) -> dict[str, int]:
        """Repair the stores after a crash (see module docstring). Returns counts of what was repaired."""
        repaired = {"journaled": 0, "bm25_rebuilt": 0, "vector_rows_deleted": 0}
        journal = self.manifest.journal()
        if journal:
            log.warning("recovering %d file(s) from an interrupted index run", len(journal))
            self.bm25.delete_paths(journal)
            self.bm25.commit()
            self.vectors.delete_paths(journal)
            self.manifest.forget(journal)
            repaired["journaled"] = len(journal)
        ids = self.manifest.chunk_ids()
        bm25_ids = self.bm25.ids()
        if len(bm25_ids) != len(ids) or set(bm25_ids) != ids:
            self.bm25.delete_all()
            for batch in self.manifest.iter_chunks():
                self.bm25.add(batch)
            self.bm25.commit()
            repaired["bm25_rebuilt"] = 1
        counts = Counter(self.vectors.ids())
        bad = [i for i, n in counts.items() if i not in ids or n > 1]
        if bad:
            self.vectors.delete_ids(bad)
            repaired["vector_rows_deleted"] = sum(counts[i] for i in bad)
        return repaired

    # -- text phase ----------------------------------------------------------------------------------------
    def _scan(self, only: Iterable[str] | None) -> tuple[list[Document], list[str], SyncReport]:
        """Decide what changed. `only`: relative paths hinted by the watcher (always re-hashed)."""
        report = SyncReport()
        known = self.manifest.files()
        if only is None:
            listed = walk(self.folder, self.settings.sources, self.index_dir)
            candidates = sorted(set(listed) | set(known))
            listed_set = set(listed)
            self.manifest.clear_skipped(keep=listed_set)
        else:
            candidates = sorted(set(only))
            listed_set = {p for p in candidates if self.filter.included(p)}
        docs: list[Document] = []
        deleted: list[str] = []
        total = len(candidates)
        for n, rel in enumerate(candidates, 1):
            if n % 200 == 0:
                self.on_progress("files", n, total, f"{n}/{total} files scanned")
            path = self.folder / rel
            if rel not in listed_set or not path.is_file():
                if rel in known:
                    deleted.append(rel)
                continue
            rec = known.get(rel)
            if only is None and rec is not None:
                try:
                    st = path.stat()
                except OSError:
                    deleted.append(rel)
                    continue
                if rec.size == st.st_size and rec.mtime_ns == st.st_mtime_ns:
                    report.unchanged += 1
                    continue
            loaded = load_file(self.folder, rel, self.settings.sources.max_file_bytes)
            if isinstance(loaded, Skipped):
                if loaded.reason.startswith("vanished"):
                    if rel in known:
                        deleted.append(rel)
                    continue
                report.skipped.append(loaded)
                if rel in known:
                    deleted.append(rel)
                continue
            if rec is not None and rec.content_hash == loaded.content_hash:
                self.manifest.touch_file(FileRecord(rel, loaded.size, loaded.mtime_ns, loaded.content_hash))
                report.unchanged += 1
                continue
            docs.append(loaded)
        return docs, deleted, report

    def _write_text(self, docs: list[Document], deleted: list[str]) -> list[Chunk]:
        """Steps 1-4 of the write order for one batch. Returns the new chunks."""
        paths = [d.path for d in docs] + deleted
        self.manifest.journal_add(paths)
        _crash_point("after_journal")
        chunk_size, overlap = self.settings.chunking.chunk_size, self.settings.chunking.overlap
        chunks = [c for d in docs for c in chunk_document(d, chunk_size, overlap)]
        self.bm25.delete_paths(paths)
        self.bm25.add(chunks)
        self.bm25.commit()
        _crash_point("after_bm25")
        records = [FileRecord(d.path, d.size, d.mtime_ns, d.content_hash) for d in docs]
        self.manifest.replace_files(records, chunks, deleted)
        _crash_point("after_manifest")
        if self.on_text_written is not None:
            self.on_text_written(paths, chunks)
        self.vectors.delete_paths(paths)
        self._add_cached_vectors(chunks)
        return chunks

    def _add_cached_vectors(self, chunks: list[Chunk]) -> int:
        """Give chunks whose embedding is cached their vector row now (a rename re-embeds nothing)."""
        keys = {c.id: text_hash(embedding_input(c)) for c in chunks}
        cached = self.manifest.cached_vectors(self.embed_fp, keys.values())
        hits = [c for c in chunks if keys[c.id] in cached]
        if hits:
            import numpy as np

            self.vectors.add(hits, np.stack([cached[keys[c.id]] for c in hits]))
        return len(hits)

    def sync(self, only: Iterable[str] | None = None, *, embed: bool = True) -> SyncReport:
        """Bring the index up to date with the folder (or with the hinted relative paths `only`).

        Text phase for every change first, then (when `embed`) the vector phase for every pending chunk.
        Returns a SyncReport. Does nothing but report when this process is not the writer.
        """
        t0 = time.perf_counter()
        if not self.writer:
            return SyncReport()
        docs, deleted, report = self._scan(only)
        for s in report.skipped:
            self.manifest.set_skipped(s.path, s.reason)
        total = len(docs) + len(deleted)
        done = 0
        if deleted:
            self._write_text([], deleted)
            done += len(deleted)
        for start in range(0, len(docs), TEXT_BATCH_FILES):
            batch = docs[start:start + TEXT_BATCH_FILES]
            report.chunks_added += len(self._write_text(batch, []))
            done += len(batch)
            self.on_progress("files", done, total, f"{done}/{total} files")
        report.indexed = [d.path for d in docs]
        report.deleted = deleted
        if total:
            self.manifest.set_meta("last_indexed_at", str(time.time()))
        if embed:
            while self.embed_pending_batch():
                pass
        report.elapsed_ms = (time.perf_counter() - t0) * 1000
        return report

    # -- vector phase --------------------------------------------------------------------------------------
    def pending_ids(self) -> list[str]:
        """Chunk ids in the manifest without a vector row, ordered by path and position."""
        have = set(self.vectors.ids())
        rows = self.manifest.db.execute("SELECT id FROM chunks ORDER BY path, ordinal").fetchall()
        return [r[0] for r in rows if r[0] not in have]

    def pending_count(self) -> int:
        return max(0, self.manifest.chunk_count() - self.vectors.count())

    def embed_pending_batch(self, batch: int = EMBED_BATCH, first: Iterable[str] = ()) -> int:
        """Embed up to `batch` pending chunks (ids in `first` before the rest). Returns how many got vectors;
        0 means nothing is pending."""
        if not self.writer:
            return 0
        pending = self.pending_ids()
        if not pending:
            return 0
        pending_set = set(pending)
        ordered = [i for i in first if i in pending_set]
        ordered += [i for i in pending if i not in set(ordered)]
        chunks = list(self.manifest.get_chunks(ordered[:batch]).values())
        # Length-bucketed: the batch holds neighbouring chunks of similar size after the embedder's sort.
        keys = {c.id: text_hash(embedding_input(c)) for c in chunks}
        cached = self.manifest.cached_vectors(self.embed_fp, keys.values())
        todo: dict[str, str] = {}
        for c in chunks:
            if keys[c.id] not in cached:
                todo.setdefault(keys[c.id], embedding_input(c))
        if todo:
            import numpy as np

            vecs = self.embedder.embed_documents(list(todo.values()))
            fresh = dict(zip(todo.keys(), vecs))
            self.manifest.cache_vectors(self.embed_fp, fresh)
            cached.update(fresh)
            self.embedded_chunks += len(todo)
            _crash_point("after_embed_cache")
        # The manifest may have changed while embedding (only on this thread, but be strict): keep live ids.
        live = self.manifest.get_chunks([c.id for c in chunks])
        chunks = [c for c in chunks if c.id in live]
        if chunks:
            import numpy as np

            self.vectors.add(chunks, np.stack([cached[keys[c.id]] for c in chunks]))
            self.on_progress("embed", len(chunks), self.pending_count(), "embedding")
        return len(chunks)

    # -- maintenance ---------------------------------------------------------------------------------------
    def rebuild(self) -> SyncReport:
        """Drop the index (keeping the embedding cache) and index the folder again."""
        if self.writer:
            self.manifest.clear()
            self.bm25.delete_all()
            self.bm25.commit()
            self.vectors.delete_all()
        return self.sync()

    def refresh(self) -> None:
        """Readers: pick up what the writer process committed."""
        self.bm25.reload()
        self.vectors.refresh()

    def close(self) -> None:
        self.bm25.close()
        self.manifest.close()
        if self.writer:
            self._lock.release()
