"""Indexer: walk -> load -> chunk -> BM25 + manifest (text phase) -> embed -> vectors (vector phase).

The text phase is cheap and runs first for every changed file, so BM25 answers are available within a second or
two; the vector phase then embeds what is pending in small batches (`EMBED_BATCH` chunks), so a save that arrives
meanwhile is handled between two batches instead of waiting for the whole cold index.

The text phase needs neither the embedding model nor LanceDB: the vector store is opened on first use
(`open_vectors`, which loads the model), so a server answers BM25 queries before ~2 s of model loading and lancedb
imports are done. Until then `vectors_ready` is False and search uses BM25 alone.

Crash safety (a `kill -9` anywhere must end, after restart, in the same index as a clean rebuild):
1. the paths about to change are written to the manifest's journal;
2. BM25 deletes the paths' documents, adds the new chunks, commits;
3. one SQLite transaction replaces the paths' file and chunk rows, clears their journal entries and marks them
   `vector_dirty` (for files indexed before, their new chunk rows were staged beside the old ones before step 2,
   so a query in between finds whichever version BM25 returns: a re-indexed file is never missing from results);
4. vectors (once open): rows of those paths are deleted, the dirty mark cleared; new chunks get rows as soon as
   their embeddings exist.
`reconcile()` runs at start-up: journaled paths are dropped from the manifest and BM25 (the next sync re-indexes
them) and BM25 is rebuilt from the manifest when its ids differ. When the vector store opens, rows of dirty paths,
rows whose id is not in the manifest (or duplicated) and, after an embedding-model change (`vectors_fp` meta key),
all rows are deleted; chunks without a vector are queued for embedding. A wipe (rebuild, settings change) is
bracketed by the `wipe` meta key: a crash inside it makes reconcile finish the wipe, and the next sync indexes
everything.

Only the writer thread mutates the stores; the set of chunks still waiting for a vector is kept in memory
(`_pending`, recomputed by reconcile), so choosing the next embedding batch costs O(batch), not O(index).
Query threads read concurrently: SQLite in WAL mode (one connection per thread), tantivy searchers (each a
snapshot of a commit), LanceDB (each call reads a consistent version).
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from ragls.config.settings import Settings
from ragls.core.hashing import fingerprint, rebuild_reason, text_hash
from ragls.core.ir import Chunk, Document
from ragls.core.telemetry import traced
from ragls.embedding.embed import Embedder
from ragls.index import autodoc, inclusion, ownership
from ragls.index.chunking import chunk_document
from ragls.index.ownership import WriterLock
from ragls.index.paths import check_index_dir, default_index_dir, make_index_dir, resolve_index_dir  # noqa: F401
from ragls.index.rest_labels import document_labels
from ragls.index.scan import VANISHED, SyncReport, TextScan  # noqa: F401 - SyncReport, VANISHED re-exported
from ragls.index.vector_phase import EMBED_BATCH, EMBED_STEP, WINDOW_BATCH, VectorPhase, _crash_point, _pause_point  # noqa: F401
from ragls.index.windows import Window, embedding_input, plan_windows
from ragls.sources.redact import REDACT_VERSION, mask_document
from ragls.sources.walk import OUTSIDE_LINK, FileFilter, walk, walk_with  # noqa: F401 - walk re-exported
from ragls.stores.bm25 import TOKENIZER_VERSION, Bm25Store
from ragls.stores.manifest import FileRecord, Manifest

__all__ = ["FolderIndex", "SyncReport", "default_index_dir", "embedding_input"]

if TYPE_CHECKING:
    from ragls.stores.vectors import VectorStore

log = logging.getLogger(__name__)

TEXT_BATCH_FILES = 64

# Embedding report: (chunks computed by the model, chunks whose vector came from the cache).
EmbeddedFn = Callable[[int, int], None]

# Progress callback: (phase, done, total, message). Phases: "scan" (files checked for changes), "files" (files
# indexed), "embed", "windows".
ProgressFn = Callable[[str, int, int, str], None]


class FolderIndex(TextScan, VectorPhase):
    """The index of one workspace folder: manifest (SQLite), BM25 (tantivy) and vectors (LanceDB).

    Opening takes the folder's writer lock if it is free; otherwise the index is read-only (`writer` False) and
    `sync` does nothing — another process (a second editor window) is indexing it. Opening loads neither the
    embedding model nor LanceDB: `open_vectors()` does (the vector phase calls it), raising RequestFailed when the
    embedding model cannot be loaded.
    """

    # Hook after each text-phase write (graph RAG): (paths whose old chunks are gone, new chunks of those paths).
    on_text_written: Callable[[list[str], list[Chunk]], None] | None = None
    # Team overlay (kb/team.py): the only relative paths this index may hold, asked at every sync; None: all files.
    restrict_to: Callable[[], set[str]] | None = None

    def __init__(self, folder: Path, settings: Settings, embedder: Embedder, *, index_dir: Path | None = None,
                 on_progress: ProgressFn | None = None, on_embedded: EmbeddedFn | None = None,
                 read_only: bool = False):
        self.folder = Path(folder).resolve()
        self.settings = settings
        self.embedder = embedder
        self.index_dir = resolve_index_dir(self.folder, settings, index_dir)
        make_index_dir(self.index_dir)
        check_index_dir(self.index_dir)  # no planted link to write through (an index.path inside the folder)
        self.on_progress = on_progress or (lambda *a: None)
        self.on_embedded = on_embedded or (lambda *a: None)
        self._lock = WriterLock(self.index_dir)  # index.lock, writer.json, handover.json (ragls.index.ownership)
        # read_only (e.g. `ragls status`): never write, not even a start-up repair or a settings rebuild.
        self.read_only = read_only
        self.writer = False if read_only else self._try_lock()
        from ragls.stores.embed_cache import EmbeddingCache

        self.manifest = Manifest(self.index_dir / "manifest.sqlite", folder=str(self.folder),
                                 shared_cache=EmbeddingCache.shared(settings.index.embedding_cache_mb))
        self.bm25 = Bm25Store(self.index_dir / "bm25", writable=self.writer)
        from ragls.index.contextual import Contextualizer

        # retrieval.contextual: LLM-written chunk contexts (index/contextual.py); None when off
        self.contextualizer = Contextualizer.from_settings(settings, self.index_dir)
        # What the text stores depend on; the vectors' own identity (model) is `embed_fp`, known once loaded.
        self.fingerprint_parts = {
            "chunk_size": settings.chunking.chunk_size, "chunk_overlap": settings.chunking.overlap,
            # layout 3: embedding windows; 4: balanced fences, no markup-only chunks; 5: (b466282-d9d35e8, withdrawn)
            # text titles as heading paths; 6: text titles are the leaf section without inline markup; 7: a Markdown
            # page without a "# " title heads its heading paths with its front matter's title; 8: reST pages hold
            # the text of their `.. include::` files (index/inclusion.py); 9: a chunk starting inside a code block
            # starts on the line its prepended fence stands in for; 10: a long reST grid table is split between rows;
            # 11: a Markdown chunk holds its HTML blocks read as Markdown (index/html_blocks.py); 12: no chunk of a
            # reST page's hidden markup only (index/rest_hidden.py); 13: Markdown pages hold the text of their MkDocs
            # includes (snippets, include-markdown); 14: a text document's chunk is titled by the section in force
            # where its text starts, not where its leading blank lines or a reST section's label do; 15: the manifest
            # keeps each reST page's section labels (index/rest_labels.py)
            "tokenizer": TOKENIZER_VERSION, "layout": 15,
            # a masker that finds more secret shapes re-chunks old indexes, so their stores lose the values too
            **({"redact": REDACT_VERSION} if settings.sources.exclude_secrets else {}),
            **(self.contextualizer.identity() if self.contextualizer is not None else {}),
        }
        self.fingerprint = fingerprint(self.fingerprint_parts)
        self.embed_fp: str | None = None  # the embedding model's identity: keys the embedding cache
        self.vectors_fp: str | None = None  # embed_fp + window settings: the identity of the vector rows
        self.window: tuple[int, int] | None = None  # effective (window, stride) in wordpieces, once loaded
        # The index was built with other chunking/tokenizer settings (`settings_changed`, why: `rebuild_reason`, for
        # the rebuild's log line and `ragls status`); the writer rebuilds it when it opens.
        self._read_built_with(self.manifest.get_meta("fingerprint"))
        self._vectors: VectorStore | None = None
        self.vectors_error: str | None = None  # why the vector store could not be opened (no embedding model)
        # Serialises opening the vector store (any thread) with the writer's manifest-then-vectors steps.
        self._vec_lock = threading.RLock()
        self.filter = FileFilter(self.folder, settings.sources, self.index_dir)
        self.filter.section_titles = self.manifest.section_titles  # what a page's `:ref:` reads (answer/ref_titles.py)
        self.embedded_chunks = 0  # chunks whose vectors this process computed (not from the cache)
        self.cached_chunks = 0  # chunks whose vectors this process took from the embedding cache
        self._pending: dict[str, None] = {}  # chunk ids without a vector, in indexing order (writer only)
        self._urgent: dict[str, None] = {}  # the subset from files changed since start-up: embedded first
        # Real paths of symlink targets -> the alias keys indexed for them (from the last full scan; the watcher
        # re-indexes the aliases when a target changes).
        self.symlink_targets: dict[str, list[str]] = {}
        # Chunks with their first window embedded but not all the others: chunk id -> window indexes it has.
        self._pending_windows: dict[str, set[int]] = {}
        # chunk id -> characters and estimated work per vector step (`vector_work_estimate`, vector_phase.py)
        self._chunk_chars: dict[str, int] = {}
        self._chunk_work: dict[str, tuple[float, float, float]] = {}
        self._chunk_work_sums = (0.0, 0.0)  # their sums: (first vectors + other windows, answer sentences)
        # Chunk ids whose answer sentences may still lack a cached vector (the sentence pass, vector_phase.py), and
        # what those sentences are: `chunk -> texts`, given by the workspace (the answer layer's `chunk_units`); None
        # (a named RAG's or a team overlay's index, `index.sentence_vectors` false): no sentence pass.
        # While `sync` runs: the changed or deleted files it found and has still to write (None before its scan
        # found them, and when no sync runs): what a start-up scan of an indexed folder really has queued.
        self.sync_left: int | None = None
        self._pending_sentences: dict[str, None] = {}
        self.answer_sentences: Callable[[Chunk], list[str]] | None = None
        # The version of the code `answer_sentences` runs (a digest of its source, given with it): recorded beside the
        # marks, so a ragls that reads passages differently embeds the new sentences ahead (`_reconcile_vectors`).
        self.sentences_version: Callable[[], str] | None = None
        # Paths whose old vector rows are still to be deleted (`drop_stale_vectors`; a delete that failed is retried).
        self._stale_vector_paths: set[str] = set()
        if self.writer:
            self._start_writing()

    def _try_lock(self) -> bool:
        return self._lock.try_acquire(announce=not self.read_only)

    def writer_process(self) -> dict | None:
        """{pid, role} of the process that writes this index (this one when `writer`; role "unknown" when it
        did not say), None when nobody holds the lock."""
        if self.writer:
            return {"pid": os.getpid(), "role": ownership.PROCESS_ROLE}
        if not self.other_writer:
            return None
        return self._lock.holder()

    def writer_holder(self) -> str:
        """Who holds this index's writer lock, for messages: "another `ragls index` run (pid 4242)", "an editor's
        ragls server (pid 4242)", "an agent's `ragls mcp` server (pid 4242)", "the background server `ragls serve
        --background` (pid 4242)", or "another ragls process" when
        unknown (index/ownership.py's writer.json)."""
        info = self._lock.holder()
        pid, role = info.get("pid"), info.get("role", "unknown")
        if pid is None or not ownership.alive(pid):
            return "another ragls process"
        if pid == os.getpid():
            return "this process"
        if role == "ragls serve":
            return f"an editor's ragls server (pid {pid})"
        if role == "ragls serve --background":
            return f"the background server `ragls serve --background` (pid {pid})"
        if role == "ragls mcp":
            return f"an agent's `ragls mcp` server (pid {pid})"
        return f"another `{role}` run (pid {pid})"

    @property
    def other_writer(self) -> bool:
        """True when another process holds the writer lock (`rag/status` "writer": false). A read-only index
        checks the lock now; otherwise this process would hold it if it were free (it retries: takeover)."""
        if self.writer:
            return False
        return not (self.read_only and self._lock.is_free())

    def _start_writing(self) -> None:
        if self.manifest.get_meta("folder") != str(self.folder):
            self.manifest.set_meta("folder", str(self.folder))  # `ragls prune` finds orphaned indexes by it
        self._check_fingerprint()
        self.reconcile()

    def try_become_writer(self) -> bool:
        """Read-only index: take the writer lock if the other process released it (its editor closed, or it handed
        the index over); then reconcile and return True — the caller should run a full sync. False while the other
        process holds it (asking it for the index when it yields: `ownership`), or while this process yields to
        a live process that asked for the index."""
        if self.writer or self.read_only or not self._lock.may_take():
            return False
        if not self._try_lock():
            self._lock.request_handover()
            return False
        self.writer = True
        self.bm25.set_writable(True)
        if self._lock.requester() == os.getpid():
            self._lock.clear_request()
        self._start_writing()
        return True

    def handover_requested(self) -> bool:
        """Writer: this process yields and an editor's language server asked for the index (`ownership`)."""
        return self.writer and self._lock.handover_requested()

    def release_writer(self) -> None:
        """Writer: stop writing and release the lock (the handover); queries go on from the stores, refreshed
        from the new writer's commits. Call on the indexer thread, between two units of work; the new writer
        recomputes what is still pending."""
        if not self.writer:
            return
        with self._vec_lock:
            self.bm25.set_writable(False)  # drops tantivy's own writer lock too
            self._pending.clear()
            self._urgent.clear()
            self.writer = False
            self._lock.release()

    # -- start-up ------------------------------------------------------------------------------------------
    def _read_built_with(self, built_with: str | None) -> None:
        """Remember the fingerprint the manifest records (`built_with`, None for a new index) and, when it is not
        this index's, `settings_changed` and why (`core.hashing.rebuild_reason`, computed here once per fingerprint
        read)."""
        self._built_with = built_with
        self.settings_changed = built_with is not None and built_with != self.fingerprint
        self.rebuild_reason = rebuild_reason(self.manifest.get_meta("fingerprint_parts"), self.fingerprint_parts) \
            if self.settings_changed else None

    def _check_fingerprint(self) -> None:
        old, parts = self.manifest.get_meta("fingerprint"), json.dumps(self.fingerprint_parts, sort_keys=True)
        if old == self.fingerprint:
            if self.manifest.get_meta("fingerprint_parts") != parts:  # an index of a ragls that did not record them
                self.manifest.set_meta("fingerprint_parts", parts)
            return
        if old is not None:
            if old != self._built_with:  # another process built it since this one opened it (a takeover)
                self._read_built_with(old)
            log.warning("%s: rebuilding %s (unchanged text reuses its cached vectors)", self.rebuild_reason, self.folder)
        self._wipe()
        self.manifest.set_meta("fingerprint", self.fingerprint)
        self.manifest.set_meta("fingerprint_parts", parts)

    def _wipe(self) -> None:
        """Empty all three stores (the embedding cache stays) and forget `last_indexed_at` (the index counts as
        never indexed until its next sync: a named RAG's first use waits for it, `SourcesRag.ensure_indexed`).
        Crash-safe: the `wipe` meta key is set first and cleared last, and reconcile finishes an interrupted wipe."""
        self.manifest.set_meta("wipe", "1")
        self.manifest.set_meta("last_indexed_at", "")
        self.bm25.delete_all()
        self.bm25.commit()
        with self._vec_lock:
            if self._vectors is not None:
                self._vectors.delete_all()
            else:
                self.manifest.set_meta("vectors_fp", "")  # the vector store deletes every row when it opens
            self.manifest.clear()
            self._pending.clear()
            self._urgent.clear()
            self._pending_windows.clear()
            self._pending_sentences.clear()
        self.manifest.set_meta("wipe", "")

    def reconcile(self) -> dict[str, int]:
        """Repair the stores after a crash (see module docstring). Returns counts of what was repaired."""
        repaired = {"journaled": 0, "bm25_rebuilt": 0, "vector_rows_deleted": 0, "vectors_wiped": 0, "wiped": 0}
        if self.manifest.get_meta("wipe"):
            log.warning("finishing an interrupted wipe of %s", self.index_dir)
            self._wipe()
            repaired["wiped"] = 1
        journal = self.manifest.journal()
        if journal:
            log.warning("recovering %d file(s) from an interrupted index run", len(journal))
            self.bm25.delete_paths(journal)
            self.bm25.commit()
            self.manifest.forget(journal)  # marks them vector_dirty
            repaired["journaled"] = len(journal)
        ids = self.manifest.chunk_ids()
        bm25_ids = self.bm25.ids()
        if len(bm25_ids) != len(ids) or set(bm25_ids) != ids:
            self.bm25.delete_all()
            for batch in self.manifest.iter_chunks():
                self.bm25.add(batch)
            self.bm25.commit()
            repaired["bm25_rebuilt"] = 1
        with self._vec_lock:
            self._urgent = {}
            if self._vectors is not None:  # a reader taking over: its store is open already, at the version it
                # last read; the rows the old writer added since would count as missing (and be added twice)
                self._vectors.refresh()
                repaired.update(self._reconcile_vectors(self._vectors))
            # else the pending set is computed when the store opens; until then every chunk counts as pending
        return repaired

    # -- text phase: writing (`TextScan._scan` decides what changed) ------------------------------------------
    def _write_text(self, docs: list[Document], deleted: list[str], *, urgent: bool = False,
                    includes: inclusion.Includes | None = None,
                    labels: dict[str, dict[str, str]] | None = None) -> tuple[list[Chunk], int]:
        """Steps 1-4 of the write order for one batch (`includes`: what its reST pages include, `index.inclusion`;
        its reST pages' section labels, `index.rest_labels`, and `labels`, those of the files they include, go to the
        manifest with their chunks).
        Returns the new chunks and how many of them got their vector from the embedding cache at once; the others
        join the pending set (`urgent`: at its front)."""
        paths = [d.path for d in docs] + deleted
        self.manifest.journal_add(paths)
        _crash_point("after_journal")
        chunk_size, overlap = self.settings.chunking.chunk_size, self.settings.chunking.overlap
        if self.settings.sources.exclude_secrets:
            docs = [mask_document(d) for d in docs]  # secret values never reach the stores (sources/redact.py)
        chunks = [c for d in docs for c in chunk_document(d, chunk_size, overlap)]
        if self.contextualizer is not None:
            chunks = self.contextualizer.apply(docs, chunks)  # never raises: failed chunks stay plain
        old_ids = self.manifest.chunk_ids_of(paths)
        if old_ids and chunks:  # re-indexed files: old and new rows side by side until BM25 has switched
            self.manifest.stage_chunks(chunks)
            _crash_point("after_stage")
        self.bm25.delete_paths(paths)
        self.bm25.add(chunks)
        self.bm25.commit()
        _crash_point("after_bm25")
        records = [FileRecord(d.path, d.size, d.mtime_ns, d.content_hash) for d in docs]
        with self._vec_lock:
            self.manifest.replace_files(records, chunks, deleted, includes,
                                        {**{d.path: found for d in docs if (found := document_labels(d))}, **(labels or {})})
            autodoc.record(self.manifest, docs, deleted)  # API pages filled from docstrings (the status notice)
            _crash_point("after_manifest")
            for i in old_ids:
                self._pending.pop(i, None)
                self._urgent.pop(i, None)
                self._pending_windows.pop(i, None)
                self._pending_sentences.pop(i, None)
            for c in chunks:  # pending first: a vector-store failure below (a full disk) loses no chunk
                self._pending[c.id] = None
                self._pending_sentences[c.id] = None
                if urgent:
                    self._urgent[c.id] = None
            hits: set[str] = set()
            if self._vectors is not None:  # else the store drops the dirty paths' rows when it opens
                self._stale_vector_paths.update(paths)
                self.drop_stale_vectors()
                hits = self._add_cached_vectors(chunks)
            for cid in hits:
                self._pending.pop(cid, None)
                self._urgent.pop(cid, None)
        if self.on_text_written is not None:
            self.on_text_written(paths, chunks)
        return chunks, len(hits)

    def drop_stale_vectors(self) -> None:
        """Delete the vector rows of paths whose chunks were replaced (`_stale_vector_paths`) and clear their dirty
        mark. Runs before any vector row is added (here and in the vector phase), so a delete that failed (a full
        disk) is retried before the paths' new rows exist and can never delete them. Writer, store open."""
        if self._stale_vector_paths and self._vectors is not None:  # else the store drops them when it opens
            paths = sorted(self._stale_vector_paths)
            self._vectors.delete_paths(paths)
            self.manifest.clear_vector_dirty(paths)
            self._stale_vector_paths.clear()

    def _windows(self, chunks: list[Chunk]) -> dict[str, list[Window]]:
        """{chunk id: its embedding windows} (`ragls.index.windows`) for the effective window settings."""
        tok = self.embedder.tokenizer()
        window, stride = self.window
        return {c.id: plan_windows(c, tok, window, stride) for c in chunks}

    def _add_cached_vectors(self, chunks: list[Chunk]) -> set[str]:
        """Give chunks whose first window's embedding is cached their vector rows now, with every other window
        that is cached too (a rename re-embeds nothing); chunks left with missing windows join the window pass.
        Returns the ids of the chunks that got their first window."""
        plans = self._windows(chunks)
        keys = {(w.chunk_id, w.index): text_hash(w.text) for ws in plans.values() for w in ws}
        cached = self.manifest.cached_vectors(self.embed_fp, keys.values())
        ready = [w for ws in plans.values() if keys[(ws[0].chunk_id, 0)] in cached for w in ws
                 if keys[(w.chunk_id, w.index)] in cached]
        if not ready:
            return set()
        import numpy as np

        hashes = [keys[(w.chunk_id, w.index)] for w in ready]
        self.vectors.add({c.id: c for c in chunks}, ready, np.stack([cached[h] for h in hashes]), hashes)
        got: dict[str, set[int]] = {}
        for w in ready:
            got.setdefault(w.chunk_id, set()).add(w.index)
        for cid, ws in got.items():
            if len(ws) < len(plans[cid]):
                self._pending_windows[cid] = ws
        self.cached_chunks += len(got)
        return set(got)

    @traced("index.sync")
    def sync(self, only: Iterable[str] | None = None, *, embed: bool = True) -> SyncReport:
        """Bring the index up to date with the folder (or with the hinted relative paths `only`).

        Text phase for every change first, then (when `embed`) the vector phase for every pending chunk. Chunks
        of hinted files are embedded before those of a full scan. Returns a SyncReport (`chunks_added`: new chunk
        rows; `from_cache`: of those, how many got their vector from the cache; `vectors_error`: why the vector
        phase could not run — no embedding model — while the text index is complete). Does nothing but report
        when this process is not the writer.
        """
        t0 = time.perf_counter()
        if not self.writer:
            return SyncReport()
        try:
            report = self._sync_text(only)
        finally:
            self.sync_left = None
        if report.indexed or report.deleted or report.skipped:
            self.manifest.set_meta("last_indexed_at", str(time.time()))
        elif not self.manifest.get_meta("last_indexed_at"):
            self.manifest.set_meta("last_indexed_at", str(time.time()))  # an empty folder is indexed too
        if embed:
            if self.try_open_vectors():
                while self.embed_pending_batch():
                    pass
                self._record_indexed_commit()
            else:  # keyword search works without a model; the caller shows the reason
                report.vectors_error = self.vectors_error
        report.elapsed_ms = (time.perf_counter() - t0) * 1000
        return report

    def _sync_text(self, only: Iterable[str] | None) -> SyncReport:
        """`sync`'s text phase: scan (stat-only for unchanged files), then write the changed and deleted files,
        `sync_left` counting those still to write once the scan has found them."""
        docs, deleted, report = self._scan(only)
        # reST pages hold the text of the files they include (index/inclusion.py)
        folder = inclusion.Folder(self.folder, self.settings, self.filter, self.manifest,
                                  self.restrict_to() if self.restrict_to is not None else None)
        docs, includes, labels = inclusion.resolve(folder, docs, deleted, [s.path for s in report.skipped])
        total = len(docs) + len(deleted)
        self.sync_left = total
        done = 0
        urgent = only is not None
        if deleted:
            self._write_text([], deleted, urgent=urgent)
            done += len(deleted)
            self.sync_left = total - done
        for start in range(0, len(docs), TEXT_BATCH_FILES):
            batch = docs[start:start + TEXT_BATCH_FILES]
            chunks, from_cache = self._write_text(batch, [], urgent=urgent,
                                                  includes={d.path: includes[d.path] for d in batch if d.path in includes},
                                                  labels={d.path: labels[d.path] for d in batch if d.path in labels})
            report.chunks_added += len(chunks)
            report.from_cache += from_cache
            done += len(batch)
            self.sync_left = total - done
            self.on_progress("files", done, total, f"{done}/{total} files")
        for s in report.skipped:  # after their old rows left every store (see _write_text)
            self.manifest.set_skipped(s.path, s.reason, report.stamps.get(s.path))
        report.indexed = [d.path for d in docs]
        report.deleted = deleted
        return report

    def _record_indexed_commit(self) -> None:
        """Qdrant backend, nothing pending: record the commit the collection now reflects (the team overlay diffs
        the working tree against it)."""
        store = self._vectors
        if store is None or self._pending or not hasattr(store, "set_meta"):
            return
        from ragls.index.repo import head_commit

        commit = head_commit(self.folder)
        if commit and store.meta().get("indexed_commit") != commit:
            store.set_meta(indexed_commit=commit, model=self.vectors_fp, chunker=self.fingerprint)

    # -- maintenance ---------------------------------------------------------------------------------------
    def rebuild(self) -> SyncReport:
        """Drop the index (keeping the embedding cache) and index the folder again."""
        if self.writer:
            self._wipe()
        return self.sync()

    def refresh(self) -> None:
        """Readers: pick up what the writer process committed."""
        self.bm25.reload()
        if self._vectors is not None:
            self._vectors.refresh()

    def ann_due(self) -> bool:
        """Writer with open vectors, nothing left to embed, past `index.ann_threshold` window rows and no
        approximate index yet: the indexer thread should call `build_ann()`."""
        threshold = self.settings.index.ann_threshold
        if not self.writer or self._vectors is None or threshold <= 0 or not self.windows_complete():
            return False
        from ragls.stores.vectors import ANN_MIN_ROWS

        return self._vectors.count() >= max(threshold, ANN_MIN_ROWS) and not self._vectors.has_ann()

    def build_ann(self) -> None:
        """Build the vector store's approximate index (stores/vectors.py `build_ann`); queries go on meanwhile."""
        log.info("building the approximate vector index of %s (%d window rows)", self.folder, self._vectors.count())
        self._vectors.build_ann()

    def compact(self) -> None:
        """Merge the small vector-store fragments left by many small writes (writer only)."""
        if self.writer and self._vectors is not None:
            self.vectors.compact()

    def close(self) -> None:
        self.bm25.close()
        self.manifest.close()
        if self.contextualizer is not None:
            self.contextualizer.close()
        if self.writer:
            self.writer = False
            self._lock.release()
