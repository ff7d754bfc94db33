"""The vector phase of a folder's index: embed what the text phase left pending, in small batches.

`FolderIndex` (index/indexer.py) mixes in `VectorPhase`: after a text sync every new chunk is pending; each call of
`embed_pending_batch` embeds the first window of up to `EMBED_BATCH` pending chunks (those of changed files
first), and once every chunk has its first vector, the remaining windows (index/windows.py) of up to `WINDOW_BATCH`
chunks — so a save that arrives during a long cold index is searchable after at most one model call
(`EMBED_STEP` texts). Vectors are cached by text hash (the manifest's embedding cache): nothing is embedded twice.
Last, when every window has its vector, the sentence pass (`_sentence_batch`) puts the vectors of the extractive
answer's candidate sentences (`FolderIndex.answer_sentences`) into that cache, `SENTENCE_BATCH` chunks at a time:
a first `rag/ask` reads them there (`Embedder.embed_memoised`) instead of running the model. Nothing waits for it:
search and answers work before it ends, and its vectors are the model's for the same texts, bit for bit.

The mixin also opens the vector store on first use (`open_vectors`: the embedding model, LanceDB or Qdrant) and,
for the writer, reconciles its rows with the manifest (`_reconcile_vectors`).

Crash safety: each batch is one vector-store add; a crash keeps whole batches or nothing, and the indexer's
reconcile re-queues what is missing. `_crash_point` / `_pause_point` are the test hooks that kill or pause the
process at named steps (tests/e2e/test_live.py).
"""

from __future__ import annotations

import logging
import os
import time
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from ragls.core.errors import ConfigError, RequestFailed, disk_full
from ragls.core.hashing import fingerprint, text_hash
from ragls.core.telemetry import traced
from ragls.index.windows import CHARS_PER_WORDPIECE, SPECIAL_TOKENS, resolve

if TYPE_CHECKING:
    from ragls.stores.vectors import VectorStore

log = logging.getLogger(__name__)

EMBED_BATCH = 32  # chunks per vector-store write
EMBED_STEP = 8  # texts per model call; between two calls the worker can yield to a save
WINDOW_BATCH = 8  # chunks whose remaining windows are embedded per window-pass batch (about 20 texts)
SENTENCE_BATCH = 4  # chunks whose answer sentences are embedded per sentence-pass batch (about 35 texts)


def _crash_point(name: str) -> None:
    """Test hook: RAGLS_TEST_CRASH_AT=<name> kills the process (as kill -9 would) at that step."""
    if os.environ.get("RAGLS_TEST_CRASH_AT") == name:
        os._exit(137)


def _pause_point(name: str) -> None:
    """Test hook: RAGLS_TEST_PAUSE_AT=<name>:<file> creates <file> at that step and waits there forever, so a test
    can kill the process with a real SIGKILL at a known point."""
    spec = os.environ.get("RAGLS_TEST_PAUSE_AT", "")
    if spec.partition(":")[0] == name:
        Path(spec.partition(":")[2]).touch()
        while True:
            time.sleep(60)


def _chunk_work(chars: int, window: int, stride: int) -> tuple[float, float, float]:
    """Estimated wordpieces the vector phase embeds for a chunk of `chars` characters at `window`/`stride`
    (`VectorPhase.vector_work_estimate`): (its first vector, its other windows, its answer sentences)."""
    pieces = chars / CHARS_PER_WORDPIECE
    body = max(1, window - SPECIAL_TOKENS)
    later = 0 if pieces <= body else -(-int(pieces - body) // stride)
    return min(pieces, body), float(later * body), pieces


class VectorPhase:
    """Mixin of `indexer.FolderIndex`: the pending-vector bookkeeping and the embedding batches. Uses the index's
    `manifest`, `embedder`, `settings`, `writer`, `read_only`, `_vectors`/`vectors`/`open_vectors()`, `_windows()`,
    `embed_fp`, `_pending`, `_urgent`, `_pending_windows`, and the `on_embedded` / `on_progress` callbacks."""

    # -- the vector store, opened on first use ---------------------------------------------------------------
    @property
    def vectors_ready(self) -> bool:
        """True once the vector store is open (model loaded, reconciled): vector search can run."""
        return self._vectors is not None

    @property
    def vectors(self) -> VectorStore:
        """The LanceDB vector store, opened (and reconciled, for the writer) on first use. Raises RequestFailed
        when the embedding model cannot be loaded."""
        return self._vectors if self._vectors is not None else self.open_vectors()

    def open_vectors(self) -> VectorStore:
        """Load the embedding model, open the vector store and (writer) reconcile it with the manifest.
        Idempotent and thread-safe. Raises RequestFailed when no embedding model can be loaded or the Qdrant store
        cannot be opened (remembered in `vectors_error`)."""
        with self._vec_lock:
            if self._vectors is None:
                try:
                    self.embedder.ensure_loaded()
                except Exception as exc:
                    if not disk_full(exc):  # a full disk (copying the model) is retried once space is freed
                        self.vectors_error = str(exc)
                    raise
                self.embed_fp = self.embedder.fingerprint
                emb = self.settings.embedding
                self.window = resolve(emb.window, emb.window_stride, self.embedder.max_length)
                self.vectors_fp = fingerprint({"embedding": self.embed_fp, "window": self.window[0],
                                               "stride": self.window[1], "layout": "windows-2"})  # 2: tail windows
                if self.settings.index.backend == "qdrant":
                    from ragls.stores.qdrant import QdrantChunkStore

                    try:
                        store = QdrantChunkStore.for_folder(self.folder, self.settings, self.index_dir,
                                                            self.embedder.dim, self.vectors_fp, self.fingerprint)
                    except (RequestFailed, ConfigError) as exc:  # held by another process, unreadable, wrong size
                        # remembered as the model's failures are: a server's indexer thread asked again in a loop
                        # (hundreds of "vector search is off ...: None" a second) and rag/status said "loading"
                        # (a StoreBusy, held by another process, stays one: a server retries it, watch.py)
                        self.vectors_error = str(exc)
                        if isinstance(exc, RequestFailed):
                            raise
                        raise RequestFailed(str(exc)) from exc
                else:
                    from ragls.stores.vectors import VectorStore

                    store = VectorStore(self.index_dir / "vectors", self.embedder.dim)
                if self.writer:
                    self._reconcile_vectors(store)
                self._vectors = store
            return self._vectors

    @property
    def store_name(self) -> str:
        """What `rag/status` names as the store: "lancedb+tantivy", or for the Qdrant backend
        "qdrant:<collection>@<location>+tantivy" (a URL without credentials; never an API key)."""
        if self.settings.index.backend != "qdrant":
            return "lancedb+tantivy"
        from ragls.stores.qdrant import display_location

        store = self._vectors
        collection = getattr(store, "collection", None) or self.settings.index.qdrant_collection
        recorded = self.manifest.get_meta("vectors_fp")
        if not collection and recorded:  # not opened (`ragls status`): the name the writer's store had
            from ragls.index.repo import collection_name, repo_identity

            collection = collection_name(repo_identity(self.folder, self.settings.index.repo_id), recorded,
                                         self.fingerprint)
        collection = collection or "(derived when the vectors open)"
        location = getattr(store, "location", None) or self.settings.index.qdrant_location or "embedded"
        return f"qdrant:{collection}@{display_location(location)}+tantivy"

    def try_open_vectors(self) -> bool:
        """`open_vectors()` for callers that go on without vectors: False when no embedding model can be loaded, or
        the disk is too full to copy it or open the store (the reason stays in `vectors_error`; a server's indexer
        thread calls `open_vectors` itself and retries a full disk)."""
        try:
            self.open_vectors()
        except RequestFailed:
            return False
        except OSError as exc:
            if not disk_full(exc):
                raise
            self.vectors_error = f"disk full: {exc}"
            return False
        return True

    def _reconcile_vectors(self, store: VectorStore) -> dict[str, int]:
        """Make the vector rows agree with the manifest (see module docstring) and recompute the pending set.
        Writer only; caller holds _vec_lock. Returns counts of what was repaired."""
        repaired = {"vector_rows_deleted": 0, "vectors_wiped": 0}
        old_fp = self.manifest.get_meta("vectors_fp")
        if old_fp != self.vectors_fp:
            if old_fp:
                log.warning("embedding model changed: re-embedding %s (from the embedding cache where possible)",
                            self.folder)
            # A Qdrant collection is per model already: a fresh manifest (CI) or another model keeps its points
            # (stale ones go below: not in the manifest); after a wipe (old_fp "") every point goes.
            if not getattr(store, "keyed_by_model", False) or old_fp == "":
                store.delete_all()
                self.manifest.clear_vector_dirty()
            self.manifest.prune_cache(self.embed_fp)
            self.manifest.mark_sentences(None)  # the cached sentence vectors are another model's
            self.manifest.set_meta("vectors_fp", self.vectors_fp)
            repaired["vectors_wiped"] = 1
        if self.manifest.get_meta("vectors_model") != self.embedder.model_name:
            self.manifest.set_meta("vectors_model", self.embedder.model_name)  # the model pin (RagWorkspace)
        if self.manifest.get_meta("vectors_max_length") != str(self.embedder.max_length):
            self.manifest.set_meta("vectors_max_length", str(self.embedder.max_length))  # for a read-only status
        dirty = self.manifest.vector_dirty()  # includes every path still in `_stale_vector_paths`
        if dirty:
            store.delete_paths(dirty)
            self.manifest.clear_vector_dirty(dirty)
        self._stale_vector_paths.clear()
        ids = self.manifest.chunk_ids()
        keys = store.window_keys()
        rows = Counter((cid, w) for cid, w, _ in keys)
        counts: dict[str, set[int]] = {}
        for cid, _, n in keys:
            counts.setdefault(cid, set()).add(n)
        # A chunk's rows are dropped (and the chunk re-queued) when its id left the manifest, a window is there
        # twice, or its rows disagree on the window count.
        bad = {cid for (cid, w), n in rows.items() if n > 1 or cid not in ids}
        bad |= {cid for cid, ns in counts.items() if len(ns) > 1}
        if bad:
            store.delete_ids(bad)
            repaired["vector_rows_deleted"] = sum(n for (cid, _), n in rows.items() if cid in bad)
        have: dict[str, set[int]] = {}
        for cid, w in rows:
            if cid not in bad:
                have.setdefault(cid, set()).add(w)
        self._pending = dict.fromkeys(i for i in self.manifest.ordered_chunk_ids() if 0 not in have.get(i, ()))
        self._urgent = {i: None for i in self._urgent if i in self._pending}
        self._pending_windows = {cid: ws for cid, ws in have.items()
                                 if 0 in ws and len(ws) < next(iter(counts[cid]))}
        self._pending_sentences = {}
        if self.answer_sentences is not None:
            version = self.sentences_version() if self.sentences_version is not None else None
            if version is not None and self.manifest.get_meta("sentences_version") != version:
                self.manifest.mark_sentences(None)  # marked by other code: its sentences may not be today's
                self.manifest.set_meta("sentences_version", version)
            self._pending_sentences = dict.fromkeys(self.manifest.sentence_pending_ids())
        # A run stopped after writing rows but before recording them (Ctrl-C, kill -9) left stale counts behind.
        self._record_vector_progress()
        return repaired

    # -- the embedding batches ---------------------------------------------------------------------------------

    def pending_ids(self) -> list[str]:
        """Chunk ids without a vector row, in the order they will be embedded (changed files first); every chunk
        until the vector store is open."""
        if self._vectors is None:
            return self.manifest.ordered_chunk_ids()
        if not self.writer:
            have = set(self._vectors.ids())
            return [i for i in self.manifest.ordered_chunk_ids() if i not in have]
        return list(self._urgent) + [i for i in self._pending if i not in self._urgent]

    def pending_count(self) -> int:
        """Chunks still without a first vector (every chunk until the vector store is open). Writer: exact, O(1).
        Reader: manifest count minus window-0 rows."""
        if self._vectors is None:
            recorded = self.recorded_vector_progress() if self.read_only else None
            return recorded[0] if recorded else self.manifest.chunk_count()
        if self.writer:
            return len(self._pending)
        return max(0, self.manifest.chunk_count() - self._vectors.chunk_count())

    @property
    def vectors_loaded(self) -> bool:
        """True once the vector store (and so the embedding model) is open in this process."""
        return self._vectors is not None

    @property
    def embedding_loading(self) -> bool:
        """True while the embedding model is still loading: a writing or serving process has not opened its vector
        store yet and no error stopped it (a read-only `ragls status` never loads it: its counts are the recorded
        ones). False for a folder indexed with no chunk: nothing waits for a model it never loads (the editor said
        "loading model" for good)."""
        if self.read_only or self._vectors is not None or self.vectors_error:
            return False
        return not (self.manifest.chunk_count() == 0 and self.manifest.get_meta("last_indexed_at"))

    def stored_pending_count(self) -> int | None:
        """Chunks without a stored first vector, known without loading the model: `pending_count()` once the
        vector store is open, before that the count the writer last recorded (`recorded_vector_progress`, at most
        the manifest's chunk count); None when nothing was recorded. Unlike `pending_count`, which counts every
        chunk until the store is open (nothing is searchable by vector yet), this says what is left to embed."""
        if self._vectors is not None:
            return self.pending_count()
        recorded = self.recorded_vector_progress()
        return min(recorded[0], self.manifest.chunk_count()) if recorded else None

    def pending_windows_count(self) -> int | None:
        """Chunks whose windows are not all embedded yet (those without a first vector included); None when
        unknown (the writer's vector store not open yet; a reader when the writer recorded nothing). Only the writer
        tracks windows: a reader (`ragls status`, or a `ragls serve --background` beside a running `ragls index`)
        says what the writer last recorded (`recorded_vector_progress`), so status through a server has the same
        "windows" line as without one."""
        if not self.writer:
            recorded = self.recorded_vector_progress()
            return recorded[0] + recorded[1] if recorded else None
        if self._vectors is None:
            return None
        return len(self._pending) + len(self._pending_windows)

    def vector_work(self) -> int:
        """Chunks the vector phase still has to embed something for (first vector, other windows or answer
        sentences); writer."""
        if self._vectors is None or not self.writer:
            return 0
        return len(self._pending) + len(self._pending_windows) + self.pending_sentences_count()

    def pending_sentences_count(self) -> int:
        """Chunks whose answer sentences the sentence pass has still to embed (writer; 0 elsewhere)."""
        return len(self._pending_sentences) if self.writer and self.answer_sentences is not None else 0

    def vector_work_estimate(self) -> tuple[float, float] | None:
        """(work left, total work) of this folder's vector phase in estimated wordpieces to embed, or None when not
        known (not the writer, or its vector store not open). A stand-in for time known before steps 2 and 3 run:
        a chunk of `c` characters is ~c / CHARS_PER_WORDPIECE wordpieces (index/windows.py); its first vector embeds
        up to a window's body of them (step 1), its other windows a body each, their count as `windows_per_chunk`
        counts them at this store's window and stride (step 2), its answer sentences about all its wordpieces once
        (step 3, where the sentence pass runs). A chunk counts as done per step (a long chunk's windows when all are
        in). On flask-docs (288 sections) the steps weigh 24/39/37 % (the time measured: 20/47/33 %) where counting
        chunks weighs each a third. Lengths are read once and again when the chunks change."""
        if self._vectors is None or not self.writer:
            return None
        sentences = self.answer_sentences is not None
        steps = (self._pending, self._pending_windows, self._pending_sentences if sentences else {})
        window, stride = self.window
        if (len(self._chunk_chars) != self.manifest.chunk_count()
                or any(i not in self._chunk_chars for ids in steps for i in ids)):
            self._chunk_chars = self.manifest.chunk_lengths()
            self._chunk_work = {i: _chunk_work(c, window, stride) for i, c in self._chunk_chars.items()}
            self._chunk_work_sums = (sum(w[0] + w[1] for w in self._chunk_work.values()),
                                     sum(w[2] for w in self._chunk_work.values()))
        work = self._chunk_work
        total = self._chunk_work_sums[0] + (self._chunk_work_sums[1] if sentences else 0.0)
        none = (0.0, 0.0, 0.0)
        left = sum(work.get(i, none)[0] for i in steps[0])
        left += sum(work.get(i, none)[1] for ids in steps[:2] for i in ids)
        left += sum(work.get(i, none)[2] for i in steps[2])
        return left, total

    def windows_complete(self) -> bool:
        """Writer with the vector store open: every window of every chunk has its vector row (the sentence pass may
        still run)."""
        return self._vectors is not None and self.writer and not self._pending and not self._pending_windows

    def prioritize(self, chunk_ids: Iterable[str]) -> int:
        """Embed the first vector of these chunks (those still pending) before any other, e.g. the BM25 candidates
        of a question waiting for its first answer. Writer with the vector store open; returns how many were
        queued first."""
        with self._vec_lock:
            ahead = [i for i in chunk_ids if i in self._pending and i not in self._urgent]
            self._urgent = {**dict.fromkeys(ahead), **self._urgent}
        return len(ahead)

    def urgent_count(self) -> int:
        """Pending chunks whose first vector is embedded before the others (changed files, `prioritize`)."""
        return len(self._urgent)

    @traced("index.embed")
    def embed_pending_batch(self, batch: int = EMBED_BATCH, should_yield: Callable[[], bool] | None = None) -> int:
        """One step of the vector phase: the first window of up to `batch` pending chunks (those of changed
        files first), or, once every chunk has its first vector, the remaining windows of up to `WINDOW_BATCH`
        chunks (writing their vector rows), or, once every window has its vector, the answer sentences of up to
        `SENTENCE_BATCH` chunks (`_sentence_batch`, into the embedding cache).

        The model runs on `EMBED_STEP` texts at a time; when `should_yield()` turns true between two steps
        (a save is waiting) what is embedded so far is written and the call returns early. Returns how many
        chunks got rows; 0 means nothing is pending. Reports (computed, from cache) through `on_embedded`.
        Opens the vector store first (RequestFailed without an embedding model).
        """
        if not self.writer:
            return 0
        self.open_vectors()
        if self._pending:
            done = self._first_window_batch(batch, should_yield)
        elif self._pending_windows:
            done = self._window_batch(WINDOW_BATCH, should_yield)
        elif self._pending_sentences and self.answer_sentences is not None:
            return self._sentence_batch(SENTENCE_BATCH, should_yield)
        else:
            self._pending_sentences.clear()
            return 0
        self._record_vector_progress()
        return done

    def _record_vector_progress(self) -> None:
        """Writer: remember the pending counts in the manifest, so a read-only `ragls status` reports them without
        loading LanceDB or the model (a reader's exact count needs both)."""
        try:
            self.manifest.set_meta("vector_progress", f"{len(self._pending)} {len(self._pending_windows)}")
        except Exception as exc:  # a hint for `ragls status` only: a full disk must not stop vector search
            if not disk_full(exc):
                raise

    def recorded_vector_progress(self) -> tuple[int, int] | None:
        """(chunks without a first vector, chunks with windows left) as the writer last recorded them, or None."""
        raw = self.manifest.get_meta("vector_progress")
        try:
            first, windows = (int(x) for x in (raw or "").split())
        except ValueError:
            return None
        return first, windows

    def _embed_texts(self, todo: dict[str, str], should_yield) -> dict:
        """Embed {text hash: text} EMBED_STEP at a time (stopping early when `should_yield()`), cache and return
        {text hash: vector} of those embedded."""
        fresh: dict = {}
        items = list(todo.items())
        # With worker processes (embedding.parallel) a step feeds all of them; otherwise small steps let a save
        # interrupt the batch sooner.
        step = EMBED_STEP * max(1, self.settings.embedding.parallel)
        for start in range(0, len(items), step):
            part = items[start:start + step]
            vecs = self.embedder.embed_documents([t for _, t in part])
            fresh.update(zip((k for k, _ in part), vecs))
            if should_yield is not None and start + step < len(items) and should_yield():
                break
        if fresh:
            self.manifest.cache_vectors(self.embed_fp, fresh)
        return fresh

    def _first_window_batch(self, batch: int, should_yield) -> int:
        ids = list(self._urgent)[:batch]
        if len(ids) < batch:
            taken = set(ids)
            for i in self._pending:
                if i not in taken:
                    ids.append(i)
                    if len(ids) == batch:
                        break
        found = self.manifest.get_chunks(ids)
        lost = [i for i in ids if i not in found]  # cannot happen with a consistent manifest; never loop on it
        for i in lost:
            self._pending.pop(i, None)
            self._urgent.pop(i, None)
        chunks = [found[i] for i in ids if i in found]
        plans = self._windows(chunks)
        firsts = {c.id: plans[c.id][0] for c in chunks}
        keys = {cid: text_hash(w.text) for cid, w in firsts.items()}
        cached = self.manifest.cached_vectors(self.embed_fp, keys.values())
        todo = {keys[c.id]: firsts[c.id].text for c in chunks if keys[c.id] not in cached}
        fresh = self._embed_texts(todo, should_yield)
        cached.update(fresh)
        computed = len(fresh)
        self.embedded_chunks += computed
        if fresh:
            _crash_point("after_embed_cache")
        ready = [c for c in chunks if keys[c.id] in cached]
        if ready:
            import numpy as np

            hashes = [keys[c.id] for c in ready]
            self.drop_stale_vectors()  # old rows of replaced chunks go before any new row (indexer)
            self.vectors.add({c.id: c for c in ready}, [firsts[c.id] for c in ready],
                             np.stack([cached[h] for h in hashes]), hashes)
            for c in ready:
                self._pending.pop(c.id, None)
                self._urgent.pop(c.id, None)
                if len(plans[c.id]) > 1:
                    self._pending_windows[c.id] = {0}
            self.cached_chunks += len(ready) - computed
            self.on_embedded(computed, len(ready) - computed)
            self.on_progress("embed", len(ready), self.pending_count(), "embedding")
        return len(ready) + len(lost)

    def _window_batch(self, batch: int, should_yield) -> int:
        """The window pass: the missing windows of up to `batch` chunks, written in one vector-store add per
        call (a crash keeps whole batches or nothing; reconcile re-queues what is missing)."""
        ids = list(self._pending_windows)[:batch]
        found = self.manifest.get_chunks(ids)
        for i in ids:
            if i not in found:
                self._pending_windows.pop(i, None)
        chunks = [found[i] for i in ids if i in found]
        plans = self._windows(chunks)
        missing = [w for c in chunks for w in plans[c.id] if w.index not in self._pending_windows[c.id]]
        keys = {(w.chunk_id, w.index): text_hash(w.text) for w in missing}
        cached = self.manifest.cached_vectors(self.embed_fp, keys.values())
        todo = {keys[(w.chunk_id, w.index)]: w.text for w in missing if keys[(w.chunk_id, w.index)] not in cached}
        fresh = self._embed_texts(todo, should_yield)
        cached.update(fresh)
        ready = [w for w in missing if keys[(w.chunk_id, w.index)] in cached]
        if ready:
            import numpy as np

            hashes = [keys[(w.chunk_id, w.index)] for w in ready]
            self.drop_stale_vectors()  # old rows of replaced chunks go before any new row (indexer)
            self.vectors.add({c.id: c for c in chunks}, ready, np.stack([cached[h] for h in hashes]), hashes)
            _pause_point("window_pass")
            for w in ready:
                self._pending_windows.get(w.chunk_id, set()).add(w.index)
        done = 0
        for c in chunks:
            have = self._pending_windows.get(c.id)
            if have is not None and len(have) >= len(plans[c.id]):
                del self._pending_windows[c.id]
                done += 1
        self.on_progress("windows", done, len(self._pending_windows), "embedding windows")
        return max(done, len(ids) - len(chunks), 1 if ready else 0)

    def _sentence_batch(self, batch: int, should_yield) -> int:
        """The sentence pass: the answer sentences (`answer_sentences`) of up to `batch` chunks whose vectors the
        embedding cache lacks, embedded and cached (`_embed_texts`); the chunks whose sentences all have a vector are
        marked in the manifest (`mark_sentences`: a restart does not read them again). Returns how many chunks
        were done (at least 1 while any was taken: the caller's loop ends)."""
        ids = list(self._pending_sentences)[:batch]
        found = self.manifest.get_chunks(ids)
        texts = {cid: self._sentences_of(found[cid]) for cid in ids if cid in found}
        keys = {t: text_hash(t) for ts in texts.values() for t in ts}
        cached = self.manifest.cached_vectors(self.embed_fp, set(keys.values()))
        todo = {h: t for t, h in keys.items() if h not in cached}
        fresh = self._embed_texts(todo, should_yield)
        have = cached.keys() | fresh.keys()
        done = [cid for cid, ts in texts.items() if all(keys[t] in have for t in ts)]
        self.manifest.mark_sentences(done)
        for cid in [*done, *(i for i in ids if i not in found)]:
            self._pending_sentences.pop(cid, None)
        self.on_progress("sentences", len(done), len(self._pending_sentences), "embedding answer sentences")
        return max(1, len(done))

    def _sentences_of(self, chunk) -> list[str]:
        """`answer_sentences(chunk)`; none (logged) when reading the chunk fails: the sentence pass only saves time."""
        try:
            return self.answer_sentences(chunk)
        except Exception:  # noqa: BLE001 - its sentences are embedded when an answer quotes them instead
            log.exception("answer sentences of %s (chunk %s) not embedded ahead", chunk.path, chunk.id)
            return []
