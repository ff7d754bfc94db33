"""Keeps the index fresh: one indexer thread fed by watchfiles, LSP didSave / didChangeWatchedFiles and requests.

Events are debounced (`watch.debounce_ms`, default 300) and batched per folder; a burst of saves to one file ends as
one update. The thread does, in order of priority: explicit jobs (rebuild), the text phase of changed files (BM25
becomes current at once), then one batch of pending embeddings at a time — so a save during a long cold index is
picked up within one embedding batch. Every failure is recorded in `workspace.errors` and the thread keeps going.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from pathlib import Path

from ragls.workspace import RagWorkspace

log = logging.getLogger(__name__)

# (active, message, percentage or None) -> reported as LSP work-done progress "ragls: indexing".
BusyFn = Callable[[bool, str, int | None], None]


class IndexWorker:
    """The single writer thread of a RagWorkspace. Thread-safe `notify`, `request_sync`, `submit`."""

    def __init__(self, ws: RagWorkspace, on_busy: BusyFn | None = None, debounce_ms: int | None = None):
        self.ws = ws
        self.on_busy = on_busy or (lambda *a: None)
        self.debounce_s = (ws.settings.watch.debounce_ms if debounce_ms is None else debounce_ms) / 1000
        self._cond = threading.Condition()
        self._dirty: dict[int, set[str] | None] = {}  # folder -> relative paths, None = full scan
        self._jobs: deque[tuple[Callable[[], object], Future]] = deque()
        self._last_event = 0.0
        self._priority: list[str] = []  # chunk ids of recently changed files: embedded first
        self._stop = threading.Event()
        self._busy = False
        self.idle = threading.Event()
        self._thread = threading.Thread(target=self._run, name="ragls-indexer", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        self._thread.join(timeout)

    # -- inputs --------------------------------------------------------------------------------------------
    def request_sync(self, folder: int | None = None) -> None:
        """Full scan of one folder (or all) soon."""
        with self._cond:
            for i in range(len(self.ws.indexes)) if folder is None else [folder]:
                self._dirty[i] = None
            self._last_event = 0.0  # no debounce for explicit requests
            self._update_queued()
            self._cond.notify_all()

    def notify(self, paths: Iterable[str | Path]) -> int:
        """Absolute paths that changed (created, modified, deleted, renamed). Returns how many were accepted."""
        accepted = 0
        with self._cond:
            for raw in paths:
                p = Path(raw)
                for i, idx in enumerate(self.ws.indexes):
                    try:
                        rel = p.absolute().relative_to(idx.folder).as_posix()
                    except ValueError:
                        continue
                    if idx.index_dir in p.absolute().parents or rel.startswith(".git/"):
                        continue
                    if p.name == ".gitignore" or p.name == "ragls.toml":
                        idx.filter.invalidate()
                        self._dirty[i] = None
                        accepted += 1
                        continue
                    if not idx.filter.included(rel):
                        continue
                    if self._dirty.get(i, set()) is not None:
                        self._dirty.setdefault(i, set()).add(rel)
                    accepted += 1
            if accepted:
                self._last_event = time.monotonic()
                self._update_queued()
                self._cond.notify_all()
        return accepted

    def _update_queued(self) -> None:
        """Files waiting for the indexer, per folder (a pending full scan counts every known file, at least 1)."""
        self.ws.queued = {i: (len(v) if v is not None else max(1, self.ws.indexes[i].manifest.file_count()))
                          for i, v in self._dirty.items()}

    def submit(self, fn: Callable[[], object]) -> Future:
        """Run `fn` on the indexer thread (e.g. a rebuild); the Future carries its result or exception."""
        fut: Future = Future()
        with self._cond:
            self._jobs.append((fn, fut))
            self._cond.notify_all()
        return fut

    # -- the loop ------------------------------------------------------------------------------------------
    def _next(self):
        """Wait for the next unit of work: ("job", ...), ("sync", folder, paths), ("embed",) or None to stop."""
        with self._cond:
            while not self._stop.is_set():
                if self._jobs:
                    return ("job", *self._jobs.popleft())
                if self._dirty:
                    wait = self._last_event + self.debounce_s - time.monotonic()
                    if wait <= 0:
                        folder, paths = next(iter(self._dirty.items()))
                        del self._dirty[folder]
                        self._update_queued()
                        self.ws.queued[folder] = len(paths) if paths is not None else max(
                            1, self.ws.indexes[folder].manifest.file_count())  # in progress counts as queued
                        return ("sync", folder, paths)
                    self._cond.wait(wait)
                    continue
                if any(idx.writer and idx.pending_count() for idx in self.ws.indexes):
                    return ("embed",)
                self._set_busy(False, "idle")
                self._cond.wait(1.0)
        return None

    def _set_busy(self, busy: bool, message: str, pct: int | None = None) -> None:
        if busy != self._busy or busy:
            self._busy = busy
            if busy:
                self.idle.clear()
            else:
                self.idle.set()
            try:
                self.on_busy(busy, message, pct)
            except Exception:  # noqa: BLE001 - progress is cosmetic
                log.exception("progress callback failed")

    def _run(self) -> None:
        while (work := self._next()) is not None:
            try:
                if work[0] == "job":
                    _, fn, fut = work
                    self._set_busy(True, "working")
                    try:
                        fut.set_result(fn())
                    except BaseException as exc:  # noqa: BLE001 - delivered to the requester
                        fut.set_exception(exc)
                elif work[0] == "sync":
                    _, folder, paths = work
                    idx = self.ws.indexes[folder]
                    self._set_busy(True, f"indexing {idx.folder.name}")
                    try:
                        report = idx.sync(None if paths is None else sorted(paths), embed=False)
                    finally:
                        with self._cond:
                            self._update_queued()
                    for rel in report.indexed:
                        self._priority += [c.id for c in idx.manifest.chunks_of(rel)]
                else:
                    self._embed_one_batch()
            except Exception as exc:  # noqa: BLE001 - the supervisor records and keeps going
                log.exception("indexer failure")
                self.ws.errors.append({"message": f"indexer: {exc}"})
                del self.ws.errors[:-20]
                time.sleep(0.5)

    def _embed_one_batch(self) -> None:
        for idx in self.ws.indexes:
            pending = idx.pending_count() if idx.writer else 0
            if pending:
                done = idx.manifest.chunk_count() - pending
                total = idx.manifest.chunk_count()
                pct = int(100 * done / total) if total else None
                self._set_busy(True, f"embedding {done}/{total} chunks", pct)
                idx.embed_pending_batch(first=self._priority)
                self._priority = self._priority[-2000:]
                return


class FileWatcher:
    """watchfiles on every workspace folder, feeding `IndexWorker.notify`. Symlinks are not followed (no loops)."""

    def __init__(self, worker: IndexWorker, folders: list[Path]):
        self.worker = worker
        self.folders = folders
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="ragls-watch", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(3)

    def _run(self) -> None:
        import watchfiles

        try:
            for changes in watchfiles.watch(*self.folders, stop_event=self._stop, debounce=100, step=50,
                                            recursive=True, raise_interrupt=False, yield_on_timeout=False,
                                            ignore_permission_denied=True):
                self.worker.notify(path for _, path in changes)
        except Exception as exc:  # noqa: BLE001 - watching is best effort; didSave still works
            log.warning("file watcher stopped: %s", exc)
            self.worker.ws.errors.append({"message": f"file watcher stopped: {exc}"})
