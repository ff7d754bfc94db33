"""Keeps the index fresh: one indexer thread fed by watchfiles (`file_watcher.py`), LSP didSave /
didChangeWatchedFiles and requests.

Events are debounced (`watch.debounce_ms`, default 300) and batched per folder; a burst of saves to one file ends as
one update (a file saved without pause still gets indexed every `max_defer_s`). The thread does, in order of
priority: explicit jobs (rebuild), the text phase of changed files (BM25 becomes current at once), opening the vector
stores (loading the embedding model: after the start-up text phase, so BM25 answers come first), then one batch of
pending embeddings at a time. An embedding batch yields between two model calls when a save is due, so a save
during a long cold index is searchable after at most one model call (`vector_phase.EMBED_STEP` chunks).

A directory event (a folder renamed, deleted or created) triggers a full scan of that workspace folder, since the
watcher reports no event for the files inside. A read-only index (another process holds the writer lock) is
retried now and then: when the other editor window closes, this process takes over.

Every failure is recorded in `workspace.errors` and the thread keeps going: a failed unit of work is retried after a
back-off (1 s, doubling up to `MAX_BACKOFF_S`), its files queued again, so nothing is lost; a failure repeating the
same message is logged and listed once (no traceback storm). A full disk (`errors.disk_full`) is reported once as
"disk full" (log, `rag/status` errors, one editor warning); searches answer from the index as it is, and indexing
resumes by itself once a retry succeeds (issue 29).
"""

from __future__ import annotations

import logging
import os
import shutil
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from pathlib import Path

from ragls.core import heap
from ragls.core.errors import RequestFailed, StoreBusy, disk_full
from ragls.core.uris import path_key
from ragls.embedding import MODEL_LOADING
from ragls.sources.walk import OUTSIDE_LINK
from ragls.workspace.rag_workspace import RagWorkspace
from ragls.workspace.vector_progress import VectorProgress

log = logging.getLogger(__name__)

# (active, message, percentage or None) -> reported as LSP work-done progress "ragls: indexing".
BusyFn = Callable[[bool, str, int | None], None]
# One human-readable line about work done (the LSP layer sends it as window/logMessage).
LogFn = Callable[[str], None]

TAKEOVER_INTERVAL_S = 2.0  # how often a read-only index retries the writer lock
RELEASE_AFTER_S = 5.0  # requests' model runs (Embedder.unreleased_since) this long ago: their run memory goes back
HANDOVER_CHECK_S = 0.5  # how often a yielding writer (`ragls mcp`) looks for an editor asking for the index
COMPACT_AFTER_WRITES = 64  # vector-store writes before a compaction when idle
FIRST_BACKOFF_S = 1.0  # wait before retrying a failed unit of work; doubles on each failure in a row
MAX_BACKOFF_S = 30.0
SPACE_FREED_BYTES = 1 << 20  # a back-off after a full disk ends early once this much more space is free
EMBED_GATE_ENV = "RAGLS_TEST_EMBED_GATE"  # test hook: no embedding while the file this names exists


def _embedding_gated() -> bool:
    gate = os.environ.get(EMBED_GATE_ENV)
    return bool(gate) and os.path.exists(gate)


class IndexWorker:
    """The single writer thread of a RagWorkspace. Thread-safe `notify`, `request_sync`, `submit`.

    `on_busy` drives the "ragls: indexing" progress; `on_log` receives one line per text sync and per embedding
    batch, e.g. "embedded 8 chunks, 0 from cache (total computed by the model: 40)"; `on_warning` a line the user
    should act on (no embedding model: vector search is off); `on_settings_file()` is called (outside the lock)
    when a workspace folder's own ragls.toml changed — the owner decides whether to reopen with new settings.
    `debounce_ms` defaults to `watch.debounce_ms` of the first folder.
    """

    def __init__(self, ws: RagWorkspace, on_busy: BusyFn | None = None, debounce_ms: int | None = None,
                 on_log: LogFn | None = None, on_warning: LogFn | None = None,
                 on_settings_file: Callable[[], None] | None = None):
        self.ws = ws
        self.on_busy = on_busy or (lambda *a: None)
        self.on_log = on_log or (lambda msg: log.info("%s", msg))
        self.on_warning = on_warning or (lambda msg: log.warning("%s", msg))
        self.on_settings_file = on_settings_file or (lambda: None)
        # Called on the indexer thread after this process became or stopped being the writer of an index (takeover,
        # handover): the owner binds or unbinds the local socket that `ragls query/ask/status` use.
        self.on_writer_change: Callable[[], None] = lambda: None
        self.debounce_s = (ws.settings.watch.debounce_ms if debounce_ms is None else debounce_ms) / 1000
        self.max_defer_s = max(2.0, 5 * self.debounce_s)
        self._cond = threading.Condition()
        self._dirty: dict[int, set[str] | None] = {}  # folder -> relative paths, None = full scan
        self._first_event: dict[int, float] = {}  # folder -> monotonic time of its oldest unhandled event
        self._jobs: deque[tuple[Callable[[], object], Future, str]] = deque()
        self._last_event = 0.0
        self._stop = threading.Event()
        self._busy = False
        self._busy_pct = 0  # the highest percentage reported in this busy period (`_set_busy`)
        self._progress = VectorProgress(ws)  # the vector phase's message and percentage
        self._writes_since_compact = 0
        self._embedded_since_release = False  # the model ran for the index since its memory was last given back
        self._next_takeover = 0.0
        self._next_handover_check = 0.0
        self._active: tuple[int, int] | None = None  # (folder, files) of the sync in progress
        self._warned: dict[int, tuple] = {}  # folder -> include and ignore-file warnings shown last (shown once)
        # After a failure: no work but explicit jobs before `_retry_at` (monotonic); `_failure` is the error entry
        # shown in workspace.errors (one per failure streak, removed when a retry succeeds).
        self._backoff = 0.0
        self._retry_at = 0.0
        self._failure: dict | None = None
        self._last_failed: str | None = None  # the kind of work that failed last ("sync", "open", "embed"...)
        self._open_in_backoff = False  # a failed text sync lets the vector store try to open during the back-off
        self._free_when_full: int | None = None  # free bytes on the index disk(s) when a write failed for space
        self.idle = threading.Event()
        # Set: the worker may load the embedding model. `ragls mcp` clears it until its protocol stack is up and
        # the first answer is out (`hold_vectors` / `allow_vectors`), so the model load does not compete for CPU.
        self.vectors_allowed = threading.Event()
        self.vectors_allowed.set()
        self._thread = threading.Thread(target=self._run, name="ragls-indexer", daemon=True)
        for idx in ws.indexes:
            idx.on_embedded = self._embedded_reporter(idx)

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 30.0) -> bool:
        """Stop the thread (an embedding batch stops at its next model call). Returns True when it ended."""
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout)
        return not self._thread.is_alive()

    def busy(self) -> bool:
        """True while the indexer thread works or has work queued (text changes, vectors, windows). While a failure
        repeats (the indexer backs off and retries: a full disk, a deleted index directory), only the retry in
        progress counts: work that keeps failing kept a background server (`cli/background.run_headless`) alive
        for good, e.g. one whose folder and index had been deleted."""
        if self._failure is not None:
            return self._busy
        return self._busy or self.text_work_due() or any(idx.vector_work() for idx in self.ws.indexes)

    def hold_vectors(self) -> None:
        """Do not load the embedding model (open the vector stores) until `allow_vectors()`; text work, BM25
        answers and everything else go on. Call before `start()` to hold from the beginning."""
        self.vectors_allowed.clear()

    def allow_vectors(self) -> None:
        """Let the worker load the embedding model and embed pending chunks (idempotent, cheap, any thread)."""
        if self.vectors_allowed.is_set():
            return
        self.vectors_allowed.set()
        with self._cond:
            self._cond.notify_all()

    # -- inputs --------------------------------------------------------------------------------------------
    def request_sync(self, folder: int | None = None) -> None:
        """Full scan of one folder (or all) soon."""
        with self._cond:
            for i in range(len(self.ws.indexes)) if folder is None else [folder]:
                self._dirty[i] = None
                self._first_event.setdefault(i, 0.0)
            self._last_event = 0.0  # no debounce for explicit requests
            self._update_queued()
            self._cond.notify_all()

    def notify(self, paths: Iterable[str | Path]) -> int:
        """Absolute paths that changed (created, modified, deleted, renamed). Returns how many were accepted.

        Cheap enough for the event loop: filters by name and the workspace's ignore rules; only a path that is
        not an indexable file costs one stat and (for a vanished directory) one indexed SQLite lookup.
        """
        accepted = 0
        settings_file = False
        now = time.monotonic()
        with self._cond:
            for raw in paths:
                p = Path(raw).absolute()
                for i, idx in enumerate(self.ws.indexes):
                    try:
                        rel = path_key(p.relative_to(idx.folder).as_posix())
                    except ValueError:
                        continue
                    if rel in ("", ".") or idx.index_dir == p or idx.index_dir in p.parents:
                        continue
                    idx.filter.changed()  # the file verdicts rag/query remembers (`FileFilter.served`)
                    if rel == ".git/info/exclude":  # the repository's own ignore rules changed
                        idx.filter.invalidate()
                        self._mark(i, None, now)
                        accepted += 1
                        continue
                    if rel == ".git" or rel.startswith(".git/"):
                        continue
                    aliases = idx.symlink_targets.get(os.path.realpath(p)) if idx.symlink_targets else None
                    if aliases:  # the target of symlinked files that are indexed under their own path
                        for alias in aliases:
                            self._mark(i, alias, now)
                        accepted += 1
                    if p.name in (".gitignore", "ragls.toml"):
                        settings_file |= p.name == "ragls.toml" and p.parent == idx.folder
                        idx.filter.invalidate()
                        self._mark(i, None, now)
                        accepted += 1
                        continue
                    if self._dirty.get(i, set()) is None:  # a full scan is queued: it reads this path too, and no
                        accepted += 1  # filter is asked (one a .gitignore event cleared reads all of them first)
                        continue
                    # A directory first, even when its name matches an include glob ("notes.txt" replaced by a
                    # folder): files written into a new directory before its watch exists get no events.
                    if self._is_directory_event(idx, p, rel):
                        self._mark(i, None, now)  # the files inside get no events of their own
                        accepted += 1
                    elif idx.filter.reason(rel) in (None, OUTSIDE_LINK):  # a link out: the sync lists it skipped
                        self._mark(i, rel, now)
                        accepted += 1
            if accepted:
                self._last_event = now
                self._update_queued()
                self._cond.notify_all()
        if settings_file:
            self.on_settings_file()
        return accepted

    @staticmethod
    def _is_directory_event(idx, p: Path, rel: str) -> bool:
        if p.is_symlink():
            return False  # symlinked directories are never followed
        if p.is_dir():
            return idx.filter.dir_walked(rel)
        return not p.exists() and idx.manifest.has_files_under(rel)

    def _mark(self, folder: int, rel: str | None, now: float) -> None:
        if rel is None:
            self._dirty[folder] = None
        elif self._dirty.get(folder, set()) is not None:
            self._dirty.setdefault(folder, set()).add(rel)
        self._first_event.setdefault(folder, now)

    def _update_queued(self) -> None:
        """Files waiting for the indexer, per folder (`ws.queued`: hinted files, and for a pending full scan
        `_scan_estimate`), and those of the sync in progress (`ws.syncing`, until its scan has found the changed
        files: `RagWorkspace.files_queued`). Caller holds _cond."""
        self.ws.queued = {i: (len(v) if v is not None else self._scan_estimate(i)) for i, v in self._dirty.items()}
        self.ws.syncing = dict([self._active]) if self._active is not None else {}

    def _scan_estimate(self, folder: int) -> int:
        """Files a full scan of `folder` is expected to index before it has looked: every file of a folder never
        indexed (at least 1), none of one indexed before — the scan checks every file but queues only what changed
        (an agent was told "16 files queued … still being built" by a fresh server on a complete index)."""
        manifest = self.ws.indexes[folder].manifest
        return 0 if manifest.get_meta("last_indexed_at") else max(1, manifest.file_count())

    def submit(self, fn: Callable[[], object], message: str = "working") -> Future:
        """Run `fn` on the indexer thread (e.g. a rebuild), `message` its progress text (after "ragls: indexing");
        the Future carries its result or exception."""
        fut: Future = Future()
        with self._cond:
            self._jobs.append((fn, fut, message))
            self._cond.notify_all()
        return fut

    # -- the loop ------------------------------------------------------------------------------------------
    def _due(self, now: float) -> tuple[int | None, float]:
        """(folder whose changes are due, or None; seconds until the next one is due). Caller holds _cond."""
        if not self._dirty:
            return None, 3600.0
        settle = self._last_event + self.debounce_s - now
        for folder in self._dirty:
            if settle <= 0 or now - self._first_event.get(folder, now) >= self.max_defer_s:
                return folder, 0.0
        oldest = min(self._first_event.get(f, now) for f in self._dirty)
        return None, max(0.01, min(settle, oldest + self.max_defer_s - now))

    def text_work_due(self) -> bool:
        """True when a job or a debounced change waits (an embedding batch then yields)."""
        if self._stop.is_set():
            return True
        with self._cond:
            return bool(self._jobs) or self._due(time.monotonic())[0] is not None

    def _next(self):
        """Wait for the next unit of work: ("job", ...), ("sync", folder, paths), ("open",), ("embed",), ...,
        ("release",) once the work after an embedding burst is done or RELEASE_AFTER_S after requests' model runs
        (`Embedder.release_memory`), or None to stop."""
        with self._cond:
            while not self._stop.is_set():
                if self._jobs:
                    return ("job", *self._jobs.popleft())
                now = time.monotonic()
                if now < self._retry_at:  # backing off after a failure (e.g. a full disk)
                    if self._open_in_backoff and self._vectors_to_open():
                        self._open_in_backoff = False  # vector search can work meanwhile (opening may write nothing)
                        return ("open",)
                    self._set_busy(False, "paused")
                    self._cond.wait(min(self._retry_at - now, 1.0))
                    if self._space_freed():
                        self._retry_at = 0.0  # retry now rather than at the end of a long back-off
                    continue
                folder, wait = self._due(now)
                if folder is not None:
                    paths = self._dirty.pop(folder)
                    self._first_event.pop(folder, None)
                    self._active = (folder, len(paths) if paths is not None else self._scan_estimate(folder))
                    self._update_queued()
                    return ("sync", folder, paths)
                if now >= self._next_handover_check:
                    self._next_handover_check = now + HANDOVER_CHECK_S
                    if any(idx.handover_requested() for idx in self.ws.indexes):
                        return ("handover",)
                if not self._dirty and self._vectors_to_open():
                    return ("open",)
                if not _embedding_gated() and any(idx.vector_work() for idx in self.ws.indexes):
                    if not self._dirty:
                        return ("embed",)
                    wait = min(wait, 0.05)  # a change settles soon: do not start a batch now
                elif not self._dirty:
                    if self._writes_since_compact >= COMPACT_AFTER_WRITES:
                        return ("compact",)
                    if any(idx.ann_due() for idx in self.ws.indexes):
                        return ("ann",)
                    if self._embedded_since_release:
                        self._embedded_since_release = False
                        return ("release",)
                    ran = self.ws.embedder.unreleased_since  # a request's run (rag/ask, abstention) since then
                    if ran is not None and now - ran >= RELEASE_AFTER_S:
                        return ("release",)
                    if now >= self._next_takeover and any(not idx.writer for idx in self.ws.indexes):
                        self._next_takeover = now + TAKEOVER_INTERVAL_S
                        return ("takeover",)
                    self._set_busy(False, "done")  # the end message: the outcome of "ragls: indexing"
                    wait = min(wait, 0.1 if _embedding_gated() else TAKEOVER_INTERVAL_S,
                               *((ran + RELEASE_AFTER_S - now,) if ran is not None else ()))
                self._cond.wait(wait)
        return None

    def _vectors_to_open(self) -> bool:
        """True when the model may load and some folder's vector store is not open and has not failed for good."""
        return self.vectors_allowed.is_set() and any(
            not idx.vectors_ready and idx.vectors_error is None for idx in self.ws.indexes)

    def _set_busy(self, busy: bool, message: str, pct: int | None = None) -> None:
        """Report the "ragls: indexing" progress: one begin/report/end per busy period, whose percentage never
        goes back (new chunks arriving mid-way lower `VectorProgress.report`'s figure; the bar holds until it passes)."""
        if busy != self._busy or busy:
            self._busy = busy
            if busy:
                self.idle.clear()
                if pct is not None:
                    pct = self._busy_pct = max(pct, self._busy_pct)
            else:
                self.idle.set()
                self._busy_pct = 0
            try:
                self.on_busy(busy, message, pct)
            except Exception:
                log.exception("progress callback failed")

    def _run(self) -> None:
        while (work := self._next()) is not None:
            try:
                if work[0] == "job":
                    _, fn, fut, message = work
                    self._set_busy(True, message)
                    try:
                        fut.set_result(fn())
                    except BaseException as exc:  # noqa: BLE001 - delivered to the requester
                        fut.set_exception(exc)
                elif work[0] == "sync":
                    self._sync(*work[1:])
                elif work[0] == "open":
                    self._open_vectors()
                elif work[0] == "embed":
                    self._embedded_since_release = True
                    self._embed_one_batch()
                elif work[0] == "release":  # everything embedded: the model's run memory goes back to the OS
                    self.ws.embedder.release_memory()
                elif work[0] == "handover":
                    self._handover()
                elif work[0] == "ann":
                    self._set_busy(True, "for fast search of a large index")  # the approximate vector index
                    for idx in self.ws.indexes:
                        if idx.ann_due():
                            idx.build_ann()
                elif work[0] == "compact":
                    self._writes_since_compact = 0
                    for idx in self.ws.indexes:
                        idx.compact()
                else:
                    self._takeover()
            except Exception as exc:  # noqa: BLE001 - recorded, retried after a back-off
                self._failed(work, exc)
            else:
                if self._backoff and work[0] == self._last_failed:  # the work that failed works again
                    self._recovered()
            heap.trim()  # what a batch freed goes back to the OS (ragls.core.heap)

    def _failed(self, work: tuple, exc: Exception) -> None:
        """A unit of work raised: queue its files again, back off, and report the failure once per streak (the
        traceback only when the message is new; a full disk as one "disk full" line, also shown to the user)."""
        if work[0] == "sync":
            _, folder, paths = work
            with self._cond:
                for rel in paths if paths is not None else [None]:
                    self._mark(folder, rel, time.monotonic())
                self._update_queued()
        self._last_failed = work[0]
        self._open_in_backoff = work[0] == "sync"
        full = disk_full(exc)
        where = ", ".join(str(idx.index_dir) for idx in self.ws.indexes)
        message = (f"disk full: the index ({where}) cannot be written; indexing is paused and resumes by itself "
                   f"once space is freed (searches answer from the index as it is)" if full else f"indexer: {exc}")
        self._free_when_full = self._free_bytes() if full else None
        self._backoff = min(MAX_BACKOFF_S, self._backoff * 2 if self._backoff else FIRST_BACKOFF_S)
        self._retry_at = time.monotonic() + self._backoff
        if self._failure is not None and self._failure["message"] == message:
            log.debug("%s (again: %s; retrying in %.0f s)", message, exc, self._backoff)
            return
        if full:
            log.debug("disk full: %s", exc)
            self.on_warning(f"ragls: {message}")  # logged by on_warning (and shown once by an editor)
        else:
            log.exception("indexer failure")
        if self._failure in self.ws.errors:
            self.ws.errors.remove(self._failure)
        self._failure = {"message": message}
        self.ws.errors.append(self._failure)
        del self.ws.errors[:-20]

    def _free_bytes(self) -> int | None:
        """Free bytes on the file systems of the indexes (the smallest), or None when they cannot be read."""
        try:
            return min(shutil.disk_usage(idx.index_dir).free for idx in self.ws.indexes)
        except (OSError, ValueError):
            return None

    def _space_freed(self) -> bool:
        """After a full-disk failure: True once at least `SPACE_FREED_BYTES` more are free than at the failure."""
        if self._free_when_full is None:
            return False
        free = self._free_bytes()
        return free is not None and free >= self._free_when_full + SPACE_FREED_BYTES

    def _recovered(self) -> None:
        """A unit of work succeeded after failures: drop the failure's error entry and say indexing resumed."""
        self._backoff = self._retry_at = 0.0
        if self._failure is not None:
            if self._failure in self.ws.errors:
                self.ws.errors.remove(self._failure)
            self.on_log(f"ragls: indexing resumed (it had stopped on: {self._failure['message']})")
            self._failure = None
            self._writer_changed()  # e.g. the local socket's server.json could not be written on a full disk

    def _sync(self, folder: int, paths: set[str] | None) -> None:
        idx = self.ws.indexes[folder]
        try:
            if not idx.writer:
                return
            self._set_busy(True, f"indexing {idx.folder.name}")
            report = idx.sync(None if paths is None else sorted(paths), embed=False)
        finally:
            with self._cond:
                self._active = None
                self._update_queued()
        warned = (idx.include_warning, tuple(map(tuple, idx.ignore_warnings)))
        if warned != self._warned.get(folder):
            for line in ([idx.include_warning] if idx.include_warning else []) + [
                    f"{path}: {why}" for path, why in idx.ignore_warnings]:
                self.on_warning(f"ragls: {line}")
        self._warned[folder] = warned
        if report.indexed or report.deleted:
            self._writes_since_compact += 1
            self.on_log(f"ragls: indexed {len(report.indexed)} file(s), deleted {len(report.deleted)} in "
                        f"{idx.folder.name}: {report.chunks_added} chunks, {report.from_cache} vectors from cache, "
                        f"{idx.pending_count()} chunks waiting for embeddings")

    def _embedded_reporter(self, idx) -> Callable[[int, int], None]:
        def report(computed: int, from_cache: int) -> None:
            self._writes_since_compact += 1
            self.on_log(f"ragls: embedded {computed} chunks, {from_cache} from cache in {idx.folder.name} "
                        f"(total computed by the model: {idx.embedded_chunks})")
        return report

    def _open_vectors(self) -> None:
        """Load the embedding model and open every folder's vector store (a failure is recorded once per folder,
        in `vectors_error`, and shown by rag/status; BM25 keeps answering)."""
        for idx in self.ws.indexes:
            if idx.vectors_ready or idx.vectors_error is not None:
                continue
            self._set_busy(True, MODEL_LOADING)
            try:
                idx.open_vectors()  # a full disk raises: retried after a back-off (`_failed`)
            except StoreBusy:  # another process holds the store now: retried after a back-off too, said once
                idx.vectors_error = None
                raise
            except RequestFailed:  # not retried in a loop: vectors_error stops _next from asking again
                self.on_warning(f"ragls: vector search is off for {idx.folder.name}, keyword (BM25) search still "
                                f"works: {idx.vectors_error}")

    def _embed_one_batch(self) -> None:
        """One vector-phase batch of the first folder with work: first vectors, then the remaining windows, then
        the answer sentences (`FolderIndex.embed_pending_batch`), reported as steps of one progress
        (`vector_progress.VectorProgress`)."""
        for idx in self.ws.indexes:
            if idx.vector_work():
                self._set_busy(True, *self._progress.report(idx))
                idx.embed_pending_batch(should_yield=self.text_work_due)
                return

    def _handover(self) -> None:
        """Give the index of every folder an editor asked for to that editor (indexer.YIELDING_ROLES)."""
        for idx in self.ws.indexes:
            if idx.handover_requested():
                idx.release_writer()
                with self._cond:
                    self._next_takeover = time.monotonic() + TAKEOVER_INTERVAL_S
                self.on_log(f"ragls: handed the index of {idx.folder.name} over to the editor's language server; "
                            "this process reads it now")
                self._writer_changed()

    def _takeover(self) -> None:
        for i, idx in enumerate(self.ws.indexes):
            if not idx.writer and idx.try_become_writer():
                self.on_log(f"ragls: the other ragls process released {idx.index_dir}; this one indexes now")
                self.request_sync(i)
                self._writer_changed()

    def _writer_changed(self) -> None:
        try:
            self.on_writer_change()
        except Exception:
            log.exception("writer change callback failed")
