"""`LiveWorkspace`: the one lifecycle of a served workspace, shared by `ragls serve` (LSP), `ragls mcp` and
`ragls http`. It opens the RagWorkspace in the background so the front can serve at once, and wires everything a
long-running server needs: the indexer thread (`watch.IndexWorker`) and the file watcher, the local socket `ragls
query/ask/status` answer through, the writer hand-off, the named RAGs' sync in the background, and a reopen when a
folder's `ragls.toml` changes what it gives (through the trust filter: an untrusted folder's file changes only the
settings `trust_filter.SAFE` lets it change). Fronts only parse, call one workspace operation and convert.

Progressive start: opening touches only SQLite and tantivy; the indexer thread runs the start-up scan (stat-only
for unchanged files), then loads the embedding model and opens the vector stores — with `hold_vectors=True`
(`ragls mcp`) only once `release_vectors()` is called, so the model load does not compete with the front's own
start-up for the CPU. Until then queries answer from BM25 alone (`RagWorkspace.progressive`).

Requests and reopening: a front runs each request inside `request()`; every workspace `get()` returns there is
held until the request ends, so a reopen (new settings, new folders) never closes a workspace — or, through
`kb.rags.request_scope`, a named RAG — under a request that is using it: the old workspace stops indexing at once
and is closed when its last request ends. Requests that arrive during a reopen wait for the new workspace.

One index, several processes: each folder's index is written by the process holding its lock
(`FolderIndex.writer`). A process that finds the lock held reads (each query first reloads the writer's commits)
and retries the lock every `watch.TAKEOVER_INTERVAL_S` seconds, so it takes over when the writer exits.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragls.core.errors import ConfigError, NotReady, RaglsError

log = logging.getLogger(__name__)

OPEN_TIMEOUT_S = 120.0  # how long a request waits for the workspace to open


@dataclass
class LiveHooks:
    """Where the lifecycle's messages go (each may be called from any thread). `status`: a step of opening or
    loading ("loading the embedding model"); `busy(busy, message, percent)`: the indexer starts or stops work;
    `detail`: the indexer's one line per sync or embedding batch; `info`/`warning`: log lines; `act`: a line the user must act on (an untrusted or invalid ragls.toml, no
    embedding model) — the editor shows it once; `failed(exc)`: the workspace could not be opened."""

    status: Callable[[str], None] = field(default=lambda msg: log.info("%s", msg))
    busy: Callable[..., None] | None = None
    detail: Callable[[str], None] = field(default=lambda msg: log.info("%s", msg))
    info: Callable[[str], None] = field(default=lambda msg: log.info("%s", msg))
    warning: Callable[[str], None] = field(default=lambda msg: log.warning("ragls: %s", msg))
    act: Callable[[str], None] = field(default=lambda msg: log.warning("%s", msg))
    failed: Callable[[BaseException], None] = field(default=lambda exc: None)


WorkspaceFactory = Callable[[Sequence[Path], Any, Callable[[str], None]], Any]
SettingsCheck = Callable[[Sequence[Path], Sequence[dict[str, Any] | None]], Any]


def _default_factory(folders, overrides, on_status):
    from ragls.workspace.rag_workspace import RagWorkspace

    return RagWorkspace(folders, overrides, on_status=on_status)


def _default_settings(folders, overrides):
    """Load each folder's settings (raises ConfigError, as the RagWorkspace would); returns `overrides`."""
    from ragls.config.trust_filter import load_folder_settings

    for folder in folders:
        load_folder_settings(folder, *overrides)
    return overrides


class _Generation:
    """One opening of the workspace: its RagWorkspace and threads, and the requests holding it."""

    def __init__(self, folders: list[Path], overrides: list):
        self.folders, self.overrides = folders, overrides
        self.opened = threading.Event()
        self.error: BaseException | None = None
        self.ws: Any = None
        self.worker: Any = None
        self.watcher: Any = None
        self.socket: Any = None
        self.settings_error: dict[str, str] | None = None  # a ragls.toml that failed to load, in ws.errors
        self.settings_touched = False  # a ragls.toml changed while it was opening (`notify`)
        self.holders = 0  # requests holding this workspace (`LiveWorkspace.request`)
        self.retired = False  # replaced or closed: close the stores when the last holder lets go
        self.stores_closed = False


_HELD: contextvars.ContextVar[list | None] = contextvars.ContextVar("ragls_live_held", default=None)


class LiveWorkspace:
    """The served workspace over `folders` (module docstring). `overrides`: settings layers over each folder's
    ragls.toml. `hold_vectors`: no embedding model (and no named-RAG sync) until `release_vectors()`.
    `socket_server(ws, hold)`: makes the local socket server (`lsp.local_socket.LocalSocketServer`, passed by the
    front so this layer imports none); `hold()` is the context a socket request runs in; None: no socket (required,
    so no caller forgets it). `hooks`: where messages go (`LiveHooks`). `settings(folders, overrides)`: the settings
    a generation opens with, checked before the open one is retired — raises ConfigError when they do not load (an
    invalid ragls.toml: the open workspace is kept, `_replace`); default: each folder's settings load, `overrides`
    returned. `factory(folders, settings, on_status)`: opens the RagWorkspace with what `settings` returned
    (default: `RagWorkspace(...)`; the language server falls back to valid settings). Thread-safe."""

    def __init__(self, folders: Sequence[Path], overrides: Sequence[dict[str, Any] | None] = (),
                 hold_vectors: bool = False, *, socket_server: Callable[..., Any] | None,
                 hooks: LiveHooks | None = None, factory: WorkspaceFactory | None = None,
                 settings: SettingsCheck | None = None):
        self.folders = [Path(f).resolve() for f in folders]
        self.overrides = list(overrides)
        self.hooks = hooks or LiveHooks()
        self._factory = factory or _default_factory
        self._settings = settings or _default_settings
        self._vectors_held = hold_vectors
        self._socket_server = socket_server
        self._lock = threading.Lock()
        self._open_lock = threading.Lock()  # one opening or closing at a time, in order
        self._gen: _Generation | None = None  # the newest generation (opening, open or failed)
        self._opened: _Generation | None = None  # the one open now, until it is retired (under `_open_lock`)
        self._closed = False
        self.lingering: Any = None  # an indexer thread that did not stop in time (the process exit waits on it)

    # -- state read by the fronts ----------------------------------------------------------------------------
    @property
    def ws(self):
        """The open RagWorkspace, None while opening or closed."""
        gen = self._gen
        return gen.ws if gen is not None else None

    @property
    def worker(self):
        gen = self._gen
        return gen.worker if gen is not None else None

    @property
    def error(self) -> BaseException | None:
        gen = self._gen
        return gen.error if gen is not None else None

    @property
    def local_socket(self):
        gen = self._gen
        return gen.socket if gen is not None else None

    def ready(self) -> bool:
        """The workspace is open (not opening, not failed)."""
        gen = self._gen
        return gen is not None and gen.opened.is_set() and gen.error is None and gen.ws is not None

    # -- lifecycle -----------------------------------------------------------------------------------------
    def start(self) -> LiveWorkspace:
        """Begin opening on a background thread (idempotent). Returns self."""
        with self._lock:
            started = self._gen is not None
        if not started:
            self.reopen()
        return self

    def reopen(self, folders: Sequence[Path] | None = None,
               overrides: Sequence[dict[str, Any] | None] | None = None) -> None:
        """Open the workspace again (new `folders` / `overrides` when given) on a background thread; the previous
        one stops indexing at once and is closed when its last request ends. Requests wait for the new one."""
        with self._lock:
            if self._closed:
                return
            if folders is not None:
                self.folders = [Path(f).resolve() for f in folders]
            if overrides is not None:
                self.overrides = list(overrides)
            gen = _Generation(list(self.folders), list(self.overrides))
            self._gen = gen
        threading.Thread(target=self._replace, args=(gen,), name="ragls-open", daemon=True).start()

    def _replace(self, gen: _Generation) -> None:
        """The opening thread of `gen`: under `_open_lock` (one opening or closing at a time), retire the generation
        that is open and open `gen` — unless a newer generation was made meanwhile (its own thread, which may run
        before or after this one, opens it). No thread ever waits for another generation's opening while holding
        the lock: `threading.Lock` is not fair, so the newest thread can take it before an older one, and waiting
        there for the older one's opening deadlocked every request after a burst of reopens (the editor's
        didChangeConfiguration per changed setting).

        The new generation's settings are loaded first: when they do not (an invalid ragls.toml the editor's trust
        prompt allowed, say) the open generation on the same folders stays the served one — its requests go on, its
        watcher sees the fix — and the error is said once (`LiveHooks.act`) and kept in its rag/status `errors`, as
        when the file is saved (`_settings_file_changed`)."""
        with self._open_lock:
            if self._gen is not gen or self._closed:  # replaced (or closed) before it opened: the newer one opens
                gen.error = NotReady("the server is shutting down" if self._closed else "the workspace was reopened")
                gen.opened.set()
                return
            try:
                settings, failure = self._settings(gen.folders, gen.overrides), None
            except ConfigError as exc:
                if self._keep_open(gen, exc):
                    return
                settings, failure = None, exc
            except BaseException as exc:  # noqa: BLE001 - delivered to every request by get()
                settings, failure = None, exc
            previous = None
            if self._opened is not None:
                previous = self._opened.ws
                self._retire(self._opened)
                self._opened = None
            if failure is not None:
                self._fail(gen, failure)
                return
            self._open(gen, settings, previous)
            if gen.error is None:
                self._opened = gen

    def _keep_open(self, gen: _Generation, exc: ConfigError) -> bool:
        """`gen`'s settings did not load: make the open generation on the same folders the served one again (False
        when there is none: `gen` fails)."""
        old = self._opened
        if old is None or old.folders != gen.folders:
            return False
        with self._lock:
            if self._gen is gen:
                self._gen = old
        gen.error = NotReady("the workspace was reopened")  # its waiting requests go on to `old`
        gen.opened.set()
        self._settings_failed(old, exc)
        return True

    def _settings_failed(self, gen: _Generation, exc: ConfigError | None) -> None:
        """Record (`exc`) or clear (None) the ragls.toml that failed to load in `gen`'s rag/status `errors`; a new
        error is said once to the user (`LiveHooks.act`)."""
        entry = None
        if exc is not None:
            entry = {"message": f"{exc} (keeping the previous settings)"}
            path = next((str(f / "ragls.toml") for f in gen.folders if str(f / "ragls.toml") in str(exc)), None)
            if path:
                entry = {"path": path, **entry}
        with self._lock:
            errors = gen.ws.errors
            if gen.settings_error in errors:
                errors.remove(gen.settings_error)
            if entry is not None:
                errors.append(entry)
            gen.settings_error = entry
        if entry is not None:
            self.hooks.act(f"ragls: {entry['message']}")

    def _open(self, gen: _Generation, settings: Any, previous: Any = None) -> None:
        """Open `gen` with `settings` (`_replace`). `previous`: the workspace of the generation just retired, whose
        loaded embedding model `gen` takes when its embedding settings are the same (`_keep_model`)."""
        from ragls.workspace.file_watcher import FileWatcher
        from ragls.workspace.watch import IndexWorker

        hooks = self.hooks
        try:
            ws = self._factory(gen.folders, settings, hooks.status)
            self._keep_model(ws, previous)
            trust_lines = {e["message"] for e in getattr(ws, "trust_errors", [])}
            for warning in ws.warnings:  # an untrusted ragls.toml: the user must act
                if warning in trust_lines:
                    hooks.act(f"ragls: {warning}")
                else:
                    hooks.warning(warning)
            for notice in getattr(ws, "notices", []):
                hooks.info(f"ragls: {notice}")
            ws.progressive = True  # BM25 answers while the embedding model loads
            worker = IndexWorker(ws, on_busy=hooks.busy, on_log=hooks.detail, on_warning=hooks.act,
                                 on_settings_file=lambda: self._settings_file_changed(gen))
            for idx in ws.indexes:
                if not idx.writer:
                    owner = idx.writer_process() or {}
                    hooks.info(f"ragls: {owner.get('role', 'another ragls process')} (pid {owner.get('pid')}) "
                               f"indexes {idx.folder}; this process reads its index and takes over when it exits")
            worker.request_sync()  # the first unit of work: the start-up scan
            with self._lock:  # with release_vectors' lock: a release now either sees this worker or comes first
                held = self._vectors_held
                if held:
                    worker.hold_vectors()
                gen.ws, gen.worker = ws, worker
            worker.start()
            if not held:
                self._sync_rags(ws)
            if self._socket_server is not None:  # `ragls query/ask/status` answer through this process
                gen.socket = self._socket_server(ws, hold=lambda: self._holding(gen))
                gen.socket.start()
                worker.on_writer_change = gen.socket.sync_writers  # takeover / handover
            if ws.settings.watch.enabled:
                gen.watcher = FileWatcher(worker, ws.folders)
                gen.watcher.start()
        except BaseException as exc:  # noqa: BLE001 - delivered to every request by get()
            self._fail(gen, exc)
            return
        gen.opened.set()  # close() during the opening waits for `_open_lock`, then retires it

    def _keep_model(self, ws: Any, previous: Any) -> None:
        """A reopen for a setting that changes no embedding (`retrieval.top_k`, an LLM setting): `ws` takes
        `previous`'s loaded model (`Embedder.adopt`) and opens its vector stores now, before any request reaches it.
        It loaded the model again on its indexer thread, after the start-up scan, and meanwhile every query answered
        from BM25 alone (a query by meaning found nothing: VS Code's Search Docs right after a topK change). Nothing
        happens while vectors are held (`hold_vectors`) or when the model differs; a store that does not open here
        is the indexer's to open (and to report) as before."""
        with self._lock:
            held = self._vectors_held
        if held or previous is None or not ws.embedder.adopt(previous.embedder):
            return
        for idx in ws.indexes:
            try:
                idx.try_open_vectors()
            except Exception as exc:  # noqa: BLE001 - the indexer thread opens it (and says why it cannot)
                log.debug("vector store of %s left to the indexer: %s", idx.folder, exc)

    def _fail(self, gen: _Generation, exc: BaseException) -> None:
        """`gen` could not be opened: every request gets `exc` (`get`) until a reopen — at once when its settings did
        not load and a ragls.toml changed meanwhile (the fix may have come while it was opening)."""
        log.error("ragls: cannot open the workspace: %s", exc)
        with self._lock:
            gen.error = exc
            gen.opened.set()
            touched = gen.settings_touched and gen is self._gen
        if gen.ws is not None or gen.worker is not None:
            self._retire(gen)
        self.hooks.failed(exc)
        if touched and isinstance(exc, ConfigError):
            self.hooks.info("ragls: ragls.toml changed: opening the workspace again")
            self.reopen()

    @staticmethod
    def _sync_rags(ws) -> None:
        rags = getattr(ws, "rags", None)
        if rags is not None and rags.names() and not rags.read_only:
            rags.sync_in_background()  # named RAGs: their own indexes, their own thread (kb/rags.py)

    def release_vectors(self) -> None:
        """Let the indexer load the embedding model and embed, and the named RAGs sync (when built with
        `hold_vectors=True`; idempotent, cheap, callable from any thread, before or after the workspace is open)."""
        with self._lock:
            was_held, self._vectors_held = self._vectors_held, False
            gen = self._gen
        if gen is not None and gen.worker is not None:
            gen.worker.allow_vectors()
            if was_held:
                self._sync_rags(gen.ws)

    def notify(self, paths) -> None:
        """Files changed (the editor's didSave / watched-files notifications): index them. When the workspace could
        not be opened because of its settings (no indexer runs), a change to a folder's ragls.toml opens it again."""
        gen = self._gen
        worker = gen.worker if gen is not None else None
        if worker is not None:
            worker.notify(paths)
            return
        if gen is None or not any(Path(p).name == "ragls.toml" and Path(p).resolve().parent in gen.folders
                                  for p in paths):
            return
        with self._lock:
            opening = not gen.opened.is_set()
            gen.settings_touched = True  # still opening: `_fail` opens it again if its settings do not load
        if not opening and isinstance(gen.error, ConfigError):
            self.hooks.info("ragls: ragls.toml changed: opening the workspace again")
            self.reopen()

    def _settings_file_changed(self, gen: _Generation) -> None:
        """A folder's ragls.toml changed (watcher or didSave; indexer thread): reopen when the settings it gives —
        through the trust filter — differ from the open ones beyond its `[rags.*]` tables; when only those changed,
        reopen only the named RAGs (`RagRegistry.reload`: a RAG a request holds is closed when it ends) and sync
        the new or changed ones in the background — the workspace's indexes, watcher and loaded embedding model
        stay. An invalid file is reported, the settings kept."""
        from ragls.config.trust_filter import load_folder_settings

        ws = gen.ws
        if gen is not self._gen or ws is None:
            return
        try:
            loaded = [load_folder_settings(folder, *ws.overrides) for folder in ws.folders]
        except ConfigError as exc:
            self._settings_failed(gen, exc)
            return
        if gen.settings_error is not None:
            self._settings_failed(gen, None)  # fixed (or back to what is open): nothing to say any more
        fresh = [_beyond_rags(settings) for settings, _, _ in loaded]
        notices = {layer.notice for _, _, layer in loaded if layer.notice}  # an edit nobody trusted yet, say
        if (fresh != [_beyond_rags(s) for s in ws.folder_settings]
                or notices != {e["message"] for e in getattr(ws, "trust_errors", [])}):  # the reopen says it
            self.hooks.info("ragls: ragls.toml changed: reopening the workspace with the new settings")
            self.reopen()
            return
        changed = ws.rags.reload()
        if changed and not ws.rags.read_only and not self._vectors_held:
            self.hooks.info(f"ragls: ragls.toml changed the named RAGs {', '.join(sorted(changed))}")
            ws.rags.sync_in_background([n for n in sorted(changed) if n in ws.rags.specs])

    # -- requests ------------------------------------------------------------------------------------------
    @contextlib.contextmanager
    def request(self) -> Iterator[None]:
        """The scope of one request: the workspace `get()` returns inside it (also from threads started with its
        context, e.g. `asyncio.to_thread`) is not closed before the scope ends."""
        from ragls.kb.rags import request_scope  # not at import: `ragls mcp` imports this module before serving

        held: list[_Generation] = []
        token = _HELD.set(held)
        try:
            with request_scope():  # the named RAGs it searches, likewise (kb/rags.py)
                yield
        finally:
            _HELD.reset(token)
            for gen in held:
                self._let_go(gen)

    def get(self, timeout: float | None = OPEN_TIMEOUT_S):
        """The open RagWorkspace (held until the current `request()` ends). Raises NotReady (a RequestFailed;
        HTTP 503) when it could not be opened (the reason), is not open after `timeout` seconds, or is closing."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            gen = self._gen
            if gen is None:
                raise NotReady("the server is not initialized yet")
            if not gen.opened.wait(None if deadline is None else max(0.0, deadline - time.monotonic())):
                raise NotReady(f"the index is still opening after {timeout:g} s; try again")
            with self._lock:
                if gen is not self._gen:
                    continue  # reopened meanwhile: wait for the new one
                if gen.error is not None:
                    raise _not_ready(gen.error)
                if gen.ws is None or gen.retired:
                    raise NotReady("the server is shutting down")
                held = _HELD.get()
                if held is not None and gen not in held:
                    held.append(gen)
                    gen.holders += 1
                return gen.ws

    def get_indexed(self, timeout: float | None = OPEN_TIMEOUT_S):
        """`get()`, then wait (up to `timeout` s) until every folder has been indexed once — the text phase, so BM25
        can answer. Returns at once for a folder indexed before (its start-up scan runs in the background); only a
        folder never indexed (no `last_indexed_at`, by this process or the writer), or emptied by a rebuild until its
        text phase ends (`FolderIndex._wipe` forgets `last_indexed_at`), makes a query wait."""
        ws = self.get(timeout)
        deadline = time.monotonic() + (timeout or 0)
        while time.monotonic() < deadline and not self._closed:
            if all(idx.manifest.get_meta("last_indexed_at") for idx in ws.indexes):
                break
            time.sleep(0.05)
        return ws

    @contextlib.contextmanager
    def _holding(self, gen: _Generation) -> Iterator[Any]:
        """A socket request on `gen`'s workspace: held like `request()`; NotReady once it is retired."""
        from ragls.kb.rags import request_scope

        with self._lock:
            if gen.retired or gen.ws is None:
                raise NotReady("the workspace is reopening; try again")
            gen.holders += 1
        try:
            with request_scope():
                yield gen.ws
        finally:
            self._let_go(gen)

    def _let_go(self, gen: _Generation) -> None:
        with self._lock:
            gen.holders -= 1
            close = gen.retired and gen.holders == 0 and not gen.stores_closed and gen.worker is None
            if close:
                gen.stores_closed = True
        if close:
            gen.ws.close()

    # -- closing -------------------------------------------------------------------------------------------
    def _retire(self, gen: _Generation, timeout: float = 30.0, closing: bool = False) -> None:
        """Stop `gen`'s socket, watcher and indexer thread (waiting up to `timeout` s for its current batch), then
        close its stores — now, or when its last request ends. If the indexer thread does not stop in time the
        stores stay open and the lock held until the process exits: releasing it under a running writer would let
        a second process write concurrently (the thread is kept in `lingering` for the exit to wait on). `closing`:
        the server is shutting down (`close`), so that is the expected end of a model load or a batch, said at
        INFO; on a reopen it is a warning (the new settings' index waits for the lock)."""
        with self._lock:
            gen.retired = True
        if gen.socket is not None:
            gen.socket.stop()
            gen.socket = None
        if gen.watcher is not None:
            gen.watcher.stop()
            gen.watcher = None
        stopped = gen.worker.stop(timeout) if gen.worker is not None else True
        if not stopped:
            self.lingering = gen.worker
            busy = f"the indexer is still loading the embedding model or indexing a batch after {timeout:g} s"
            if closing:  # the editor's shutdown waits a few seconds (lsp/server.SHUTDOWN_STOP_S), a model load longer
                log.info("shutting down: %s; it ends with the process, and what it did not finish is indexed at the "
                         "next start (nothing is lost)", busy)
            else:
                log.warning("%s; it keeps the index lock until the process exits", busy)
            return
        with self._lock:
            gen.worker = None
            close = gen.ws is not None and gen.holders == 0 and not gen.stores_closed
            if close:
                gen.stores_closed = True
        if close:
            gen.ws.close()

    def close(self, timeout: float = 30.0) -> None:
        """Stop the watcher and the indexer thread, then close the stores (releasing the writer locks); a request
        still running keeps its workspace until it ends. Waits for an opening in progress first; a generation
        whose thread has not run yet never opens (`_replace`)."""
        with self._lock:
            self._closed = True
        with self._open_lock:
            if self._opened is not None:
                self._retire(self._opened, timeout, closing=True)
                self._opened = None


def _not_ready(exc: BaseException) -> NotReady:
    if isinstance(exc, NotReady):
        return exc
    if isinstance(exc, RaglsError):
        return NotReady(f"workspace could not be opened: {exc}")
    if isinstance(exc, OSError):  # e.g. a read-only or full cache dir: one clear error per request
        where = f": {exc.filename}" if exc.filename else ""
        return NotReady(f"workspace could not be opened: {exc.strerror or exc}{where}")
    return NotReady(f"workspace could not be opened: {type(exc).__name__}: {exc}")


def _beyond_rags(settings):
    """`settings` without its `[rags.*]` tables (the registry reads those itself: `_settings_file_changed`)."""
    return settings.model_copy(update={"rags": {}})
