"""`LiveWorkspace`: a RagWorkspace kept fresh without an editor — its indexer thread and file watcher, opened in
the background so the caller can serve at once (used by `ragls mcp`; the language server does the same in
`lsp/server.py`, where progress goes to the editor).

Progressive start, as in the language server: opening touches only SQLite and tantivy; the indexer thread runs
the start-up scan (stat-only for unchanged files), then loads the embedding model and opens the vector stores —
with `hold_vectors=True` (`ragls mcp`) only once `release_vectors()` is called, so the model load does not compete
with the caller's own start-up for the CPU. Until then queries answer from BM25 alone (`RagWorkspace.progressive`).

One index, several processes: each folder's index is written by the process holding its lock
(`FolderIndex.writer`). A process that finds the lock held reads (each query first reloads the writer's commits)
and retries the lock every `watch.TAKEOVER_INTERVAL_S` seconds, so it takes over when the writer exits.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ragls.core.errors import NotReady, RaglsError

log = logging.getLogger(__name__)


class LiveWorkspace:
    """Open `folders` on a background thread (`start`), with an IndexWorker and (when `watch.enabled`) a
    FileWatcher. `get(timeout)` waits for the open workspace; `close()` stops the threads, closes the stores and
    releases the writer locks. `hold_vectors`: the embedding model is not loaded until `release_vectors()`.
    `socket_server(ws)`: makes the local socket server `ragls query/ask/status` answer through
    (`lsp.local_socket.LocalSocketServer`, passed by the CLI so this layer does not import a front); None: none
    (required, so no caller forgets it).
    Thread-safe."""

    def __init__(self, folders: Sequence[Path], overrides: Sequence[dict[str, Any] | None] = (),
                 hold_vectors: bool = False, *, socket_server: Callable[[Any], Any] | None):
        self.folders = [Path(f).resolve() for f in folders]
        self.overrides = list(overrides)
        self._vectors_held = hold_vectors  # no embedding model until release_vectors() (IndexWorker.hold_vectors)
        self._held_worker = None
        self.ws = None
        self.worker = None
        self.watcher = None
        self._socket_server = socket_server
        self.local_socket = None
        self.error: BaseException | None = None
        self.opened = threading.Event()
        self._closed = False
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._open, name="ragls-open", daemon=True)

    def start(self) -> LiveWorkspace:
        """Begin opening on a background thread (idempotent). Returns self."""
        with self._lock:
            if not self._thread.is_alive() and not self.opened.is_set():
                self._thread.start()
        return self

    def _open(self) -> None:
        from ragls.watch import FileWatcher, IndexWorker
        from ragls.workspace import RagWorkspace

        try:
            ws = RagWorkspace(self.folders, self.overrides, on_status=lambda msg: log.info("%s", msg))
            for warning in ws.warnings:
                log.warning("ragls: %s", warning)
            ws.progressive = True  # BM25 answers while the embedding model loads
            worker = IndexWorker(ws, on_log=lambda msg: log.info("%s", msg),
                                 on_settings_file=lambda: log.warning(
                                     "ragls: ragls.toml changed; restart `ragls mcp` to apply the new settings"))
            for idx in ws.indexes:
                if not idx.writer:
                    owner = idx.writer_process() or {}
                    log.info("ragls: %s (pid %s) indexes %s; this process reads its index and takes over when "
                             "it exits", owner.get("role", "another process"), owner.get("pid"), idx.folder)
            worker.request_sync()  # the first unit of work: the start-up scan
            with self._lock:
                if self._vectors_held:
                    worker.hold_vectors()
                self._held_worker = worker  # release_vectors() reaches it from now on
            worker.start()
            if self._socket_server is not None:  # `ragls query/ask/status` answer through this process
                self.local_socket = self._socket_server(ws)
                self.local_socket.start()
                worker.on_writer_change = self.local_socket.sync_writers  # takeover / handover
            watcher = None
            if ws.settings.watch.enabled:
                watcher = FileWatcher(worker, ws.folders)
                watcher.start()
            with self._lock:
                self.ws, self.worker, self.watcher = ws, worker, watcher
                closed = self._closed
            if closed:  # close() was called while opening
                self._shutdown()
        except BaseException as exc:  # noqa: BLE001 - delivered to every request by get()
            log.error("ragls: cannot open the index: %s", exc)
            self.error = exc
        finally:
            self.opened.set()

    def release_vectors(self) -> None:
        """Let the indexer load the embedding model and embed (when built with `hold_vectors=True`; idempotent,
        cheap, callable from any thread, before or after the workspace is open)."""
        with self._lock:
            self._vectors_held = False
            worker = self._held_worker
        if worker is not None:
            worker.allow_vectors()

    def get(self, timeout: float | None = 120.0):
        """The open RagWorkspace. Raises NotReady (a RequestFailed; HTTP 503) when it could not be opened (the
        reason), is not open after `timeout` seconds, or is closing."""
        if not self.opened.wait(timeout):
            raise NotReady(f"the index is still opening after {timeout:g} s; try again")
        if self.error is not None:
            if isinstance(self.error, RaglsError):
                raise NotReady(f"the index could not be opened: {self.error}")
            raise NotReady(f"the index could not be opened: {type(self.error).__name__}: {self.error}")
        if self.ws is None:
            raise NotReady("the server is shutting down")
        return self.ws

    def get_indexed(self, timeout: float | None = 120.0):
        """`get()`, then wait (up to `timeout` s) until every folder has been indexed once — the text phase, so BM25
        can answer. Returns at once for a folder indexed before (its start-up scan runs in the background); only a
        folder never indexed (no `last_indexed_at`, by this process or the writer) makes a first query wait."""
        ws = self.get(timeout)
        deadline = time.monotonic() + (timeout or 0)
        while time.monotonic() < deadline and not self._closed:
            if all(idx.manifest.get_meta("last_indexed_at") for idx in ws.indexes):
                break
            time.sleep(0.05)
        return ws

    def close(self) -> None:
        """Stop the watcher and the indexer thread, then close the stores (releasing the writer locks). If the
        indexer thread does not stop in time the stores stay open and the lock held until the process exits:
        releasing it under a running writer would let a second process write concurrently."""
        with self._lock:
            self._closed = True
            if self.ws is None:
                return
        self._shutdown()

    def _shutdown(self) -> None:
        if self.local_socket is not None:
            self.local_socket.stop()
            self.local_socket = None
        if self.watcher is not None:
            self.watcher.stop()
        stopped = self.worker.stop() if self.worker is not None else True
        if stopped and self.ws is not None:
            self.ws.close()
        elif self.ws is not None:
            log.error("the indexer thread did not stop; keeping the index lock until the process exits")
        self.ws = self.worker = self.watcher = None
