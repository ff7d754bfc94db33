"""`RaglsServer`: lifecycle, workspace folders, configuration changes, file events; registers the handlers.

After `initialized` the workspace is opened off the event loop by `ragls.workspace.live.LiveWorkspace` (the lifecycle `ragls
mcp` and `ragls http` share: index worker, watcher, local socket, writer hand-off, named-RAG sync, reopen on a
`ragls.toml` change): each folder's SQLite manifest and BM25 index with their start-up reconciliation (no embedding
model, no LanceDB yet), then the indexer thread scans every folder, loads the embedding model and opens the vector
stores, and the watcher starts. This module adds what is the editor's: its folders and settings (with a fallback to
valid ones), progress and messages. Requests that arrive meanwhile wait
for the (short) open; queries during indexing answer from what is indexed so far — BM25 alone until the model is
loaded.

An editor shows "starting" until `initialize` is answered and the "ragls: indexing" progress begins, so this module
imports only what those need (pygls, lsprotocol, the editor's trust keys): the settings (pydantic), the workspace and
the handlers are imported by the opening thread once the progress is shown, and by the first request
(bench/history/session-52.md "What a newcomer and an editor wait for").
"""

from __future__ import annotations

import asyncio
import functools
import importlib
import json
import logging
import os
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer

from ragls import __version__
from ragls.config.trust import EDITOR_TRUST_CONFIGS_KEY, EDITOR_TRUST_KEY, editor_trust, editor_trusted_configs
from ragls.core.errors import ConfigError, NotReady, RequestFailed
from ragls.core.uris import folder_uri_path, uri_to_path
from ragls.embedding import MODEL_LOADING
from ragls.lsp.plain import to_plain
from ragls.lsp.progress import ThreadSafeProgress
from ragls.lsp.protocol import Answered, RaglsProtocol
from ragls.workspace import live as live_module
from ragls.workspace.live import LiveHooks, LiveWorkspace
from ragls.workspace.roots import is_too_broad

if TYPE_CHECKING:
    from ragls.workspace.rag_workspace import RagWorkspace

log = logging.getLogger(__name__)


OPENING = "opening the index"  # the progress message from `initialized` until the workspace is open
SHOWN_WAIT_S = 1.0  # at most this long the opening waits for the editor to have the progress (an answer to its create)


class NoFolderOpen(RequestFailed):
    """The client has no workspace folder open (an empty editor window): requests say so, without a pop-up."""


class RaglsServer(LanguageServer):
    """The ragls language server. `ws` is the open RagWorkspace (None until opened)."""

    def report_server_error(self, error: Exception, source) -> None:
        """Messages that could not be read are answered to their sender (RaglsProtocol), not shown as pop-ups."""
        if isinstance(error, Answered):
            log.warning("ragls: answered an unreadable request with an error: %s", error)
            return
        if isinstance(error, (json.JSONDecodeError, UnicodeDecodeError)):
            log.warning("ragls: a message was not valid JSON: %s", error)
            self.protocol.answer_parse_error(error)
            return
        if source is JsonRpcException:  # the reading loop: the sender is answered or it was a notification
            log.warning("ragls: could not handle a message: %s", error)
            return
        super().report_server_error(error, source)

    def __init__(self):
        super().__init__("ragls", __version__, protocol_cls=RaglsProtocol)
        self.init_options: dict[str, Any] = {}
        self.client_name: str | None = None  # `initialize` clientInfo.name: errors name settings as it does
        # The client's latest `workspace/didChangeConfiguration` (its whole `ragls` section); None until one
        # arrives. Once set it replaces initializationOptions, so a setting the user reset or removed is gone.
        self.config_layer: dict[str, Any] | None = None
        # `workspaceTrusted` from the client (VS Code Workspace Trust, Neovim's vim.secure): True / False, or None
        # when the client does not say (the user's trust store decides; config/trust.py).
        self.editor_trust: bool | None = None
        # `workspaceTrustedConfigs`: the ragls.toml versions the user approved ({folder: "sha256:<hex>"}), or None.
        self.editor_trust_configs: dict[str, str] | None = None
        # The workspace's lifecycle (ragls.workspace.live, shared with `ragls mcp` and `ragls http`); made at `initialized`.
        self.live: LiveWorkspace | None = None
        self.progress_sender: ThreadSafeProgress | None = None
        self._opening_shown = False  # the first opening began the progress (`_valid_settings`)
        # Why initialize's rootUri (the only folder named) is no folder: "rootUri 'not a uri' is not a file:// URI of
        # a folder", warned and said by each request while no folder is open; None when it was one, or not needed.
        self.root_problem: str | None = None
        self._warned: set[str] = set()
        self._warned_lock = threading.Lock()

    # -- workspace lifecycle -------------------------------------------------------------------------------
    def folders(self) -> list[Path]:
        """The workspace folders: the client's (multi-root; a root URI alone is the first, `on_initialize`) as
        `workspace/didChangeWorkspaceFolders` changed them. Never the server's current directory, and never the
        filesystem root or the home directory unless they hold a ragls.toml: an editor opened on a stray file,
        or a folder `/` added to the workspace, must not start embedding a whole disk (the other folders stay).
        Nor a folder that does not exist (or is a file): it is named in a warning and nothing is created for it —
        opening it made an empty index directory in the cache and reported an empty folder."""
        folders = []
        if self.root_problem is not None:
            self._warn_once(f"ragls: {self.root_problem}")
        for f in self.workspace.folders.values():
            if not f.uri.lower().startswith("file:"):  # a virtual folder (vscode-vfs://, a remote): not on this disk
                self._warn_once(f"ragls: not indexing {f.uri!r} (not a file: folder)")
                continue
            try:  # `%00` (no path can hold it: every file call would raise), a host, no absolute path
                path = folder_uri_path(f.uri)
            except ValueError as exc:
                self._warn_once(f"ragls: not indexing {f.uri!r} ({exc})")
                continue
            if not os.path.isdir(path):  # nothing to index, and no index directory to make for it
                why = "not a folder" if os.path.lexists(path) else "no such folder"
                self._warn_once(f"ragls: not indexing {path!r} ({why})")
            else:
                folders.append(Path(path))
        kept = []
        for folder in folders:
            if is_too_broad(folder):
                self._warn_once(f"ragls: not indexing {str(folder)!r} (the filesystem root or your home directory); "
                                f"open a project folder, or add a ragls.toml there to index it anyway")
            else:
                kept.append(folder)
        return kept

    @property
    def ws(self) -> RagWorkspace | None:
        """The open workspace, None while opening."""
        return self.live.ws if self.live is not None else None

    @property
    def worker(self):
        """The index worker of the open workspace (watch.IndexWorker), None while opening."""
        return self.live.worker if self.live is not None else None

    def _open_workspace(self, folders, settings, on_status) -> RagWorkspace:
        """`LiveWorkspace`'s factory: the workspace with the layers `_valid_settings` chose. The embedding model loads
        later, on the indexer thread after the start-up text phase (BM25 first); its loading (or, on a first run,
        downloading) is part of the same "ragls: indexing" progress."""
        from ragls.workspace.rag_workspace import RagWorkspace

        layers, ignored = settings
        self.progress_sender.indexing(True, OPENING)
        try:
            ws = RagWorkspace(list(folders), layers, on_status=on_status)
        except Exception:
            self.progress_sender.indexing(False, "failed")
            raise
        if ignored is not None:
            ws.errors.append({"message": ignored})
            self._warn_once(ignored)
        return ws

    def _hooks(self) -> LiveHooks:
        """Where the lifecycle's messages go in an editor: progress, window/logMessage, a warning shown once."""

        def status(msg: str) -> None:
            # The embedding model's loading notes (a download, the offline fallback): the progress keeps saying that
            # the model loads (docs/protocol.md; clients key "loading model" on the prefix) for the seconds it takes.
            self._log(msg, types.MessageType.Info)
            self.progress_sender.indexing(True, msg if msg.startswith(MODEL_LOADING) else f"{MODEL_LOADING}: {msg}")

        return LiveHooks(status=status, busy=self.progress_sender.indexing,
                         detail=lambda msg: self._log(msg, types.MessageType.Log),
                         info=lambda msg: self._log(msg, types.MessageType.Info),
                         warning=lambda msg: self._log(f"ragls: {msg}", types.MessageType.Warning),
                         act=self._warn_once,
                         failed=self._report_open_failure)

    def _valid_settings(self, folders, overrides) -> tuple[list[dict[str, Any]], str | None]:
        """`LiveWorkspace`'s settings check: the layers to open with — initializationOptions + the latest
        configuration; when the client's settings are invalid, the last layers that validate (initializationOptions
        only, then the folders' ragls.toml alone) and the line saying so. An invalid ragls.toml is still an error
        (ConfigError): only the user can fix it, and an open workspace is kept meanwhile."""
        if not folders:
            raise NoFolderOpen(f"{self.root_problem or 'no workspace folder is open'}: open a project folder to index "
                               "its documents")
        if not self._opening_shown:
            # The first thing the opening thread does. Importing the settings (pydantic) and then the workspace
            # holds the GIL for long stretches (~0.4 s of CPU quiet, ~3 s at load 14 on 2 cores): first the event loop
            # finishes the progress handshake, so the editor shows "indexing: opening the index" instead of
            # "starting" meanwhile (bench/history/session-52.md "What a newcomer and an editor wait for").
            self._opening_shown = True
            self.progress_sender.indexing(True, OPENING)
            self.progress_sender.wait_shown(SHOWN_WAIT_S)
            try:
                return self._valid_settings(folders, overrides)
            except BaseException:
                self.progress_sender.indexing(False, "failed")
                raise
        from ragls.config.trust_filter import load_folder_settings

        first_error: ConfigError | None = None
        fallbacks = [[self.init_options]] if self.config_layer is not None else []
        # The editor's word on workspace trust (initializationOptions, or a later configuration) holds for every
        # attempt, also when its other settings are dropped as invalid.
        trust = [] if self.editor_trust is None else [{EDITOR_TRUST_KEY: self.editor_trust}]
        if trust and self.editor_trust_configs is not None:
            trust[0][EDITOR_TRUST_CONFIGS_KEY] = self.editor_trust_configs
        for layers in ([self.client_settings()], *fallbacks, []):
            try:
                for folder in folders:
                    load_folder_settings(folder, *layers, *trust)
            except ConfigError as exc:
                first_error = first_error or exc
                continue
            ignored = None if first_error is None else f"ragls: ignoring the editor's settings: {first_error}"
            return layers + trust, ignored
        raise first_error

    def client_settings(self) -> dict[str, Any]:
        """The editor's settings in force: the last didChangeConfiguration, else initializationOptions."""
        return self.init_options if self.config_layer is None else self.config_layer

    def _warn_once(self, message: str) -> None:
        """window/showMessage a warning the user should act on, once per distinct message; stderr (which editors
        put in the same output channel) gets it once too, at warning level. Every reopen repeats the warning while
        its cause lasts (each `didChangeConfiguration` of a setting changed in several steps reopens, and which
        steps see the invalid settings depends on timing), so a repeat is logged at debug: `rag/status` `errors`
        carries it for as long as it holds. Thread-safe: two reopens (a setting changed, the watcher's look at the
        saved file) that meet the same invalid ragls.toml at once show it once."""
        with self._warned_lock:
            repeat = message in self._warned
            if not repeat and self.progress_sender is not None:
                self._warned.add(message)
        if repeat:
            log.debug("%s", message)
            return
        log.warning("%s", message)
        if self.progress_sender is None:
            return
        self.progress_sender.loop.call_soon_threadsafe(
            self.window_show_message, types.ShowMessageParams(type=types.MessageType.Warning, message=message))

    def _log(self, message: str, kind: types.MessageType) -> None:
        """Log `message` once: as window/logMessage to the client when connected (editors put it in their log or
        output channel, where stderr also goes, so stderr gets it only at debug level), else on stderr."""
        log.log(logging.DEBUG if self.progress_sender is not None else logging.INFO, "%s", message)
        if self.progress_sender is not None:
            self.progress_sender.loop.call_soon_threadsafe(
                self.window_log_message, types.LogMessageParams(type=kind, message=message))

    def start_open(self) -> None:
        """(Re)open the workspace on the client's folders and settings, in the background; the previous one stops
        indexing at once and closes when its last request ends (`LiveWorkspace.reopen`)."""
        from ragls.lsp.local_socket import LocalSocketServer

        if self.live is None:
            self.live = LiveWorkspace(self.folders(), socket_server=LocalSocketServer, hooks=self._hooks(),
                                      factory=self._open_workspace, settings=self._valid_settings).start()
        else:
            self.live.reopen(self.folders())

    def _report_open_failure(self, exc: BaseException) -> None:
        log.error("cannot open the workspace: %s", exc)
        if isinstance(exc, NoFolderOpen) or self.progress_sender is None:
            return  # an empty editor window: requests say so, no pop-up
        self.progress_sender.loop.call_soon_threadsafe(
            self.window_show_message, types.ShowMessageParams(type=types.MessageType.Error, message=f"ragls: {exc}"))

    async def get_workspace(self) -> RagWorkspace:
        """The open workspace, waiting for it to open (up to `live.OPEN_TIMEOUT_S`, 120 s, as MCP and HTTP do); held
        until the request ends (`_in_request`). Raises NotReady (a RequestFailed) when it could not be opened, is still
        opening after that wait ("try again": a stuck opening answers instead of holding every request for ever), or
        the server is not initialized yet."""
        if self.live is None:
            raise NotReady("the server is not initialized yet")
        if self.live.ready():
            return self.live.get()
        return await asyncio.to_thread(self.live.get, live_module.OPEN_TIMEOUT_S)


server = RaglsServer()


@server.feature(types.INITIALIZE)
def on_initialize(ls: RaglsServer, params: types.InitializeParams) -> None:
    ls.init_options = to_plain(params.initialization_options) or {}
    if not isinstance(ls.init_options, dict):
        ls.init_options = {}
    ls.client_name = params.client_info.name if params.client_info else None
    ls.editor_trust = editor_trust([ls.init_options])
    ls.editor_trust_configs = editor_trusted_configs([ls.init_options])
    workspace = ls.workspace
    if not workspace.folders and workspace.root_uri:
        # A client that names only a root (rootUri, or the older rootPath) has one workspace folder, that root:
        # a later didChangeWorkspaceFolders adds to it or removes it, as in VS Code and Neovim (which send the
        # root as workspaceFolders too); without this, the first folder added replaced the root. A root that is no
        # folder's URI ("not a uri", "file://%00") is named, repr'd so a control character shows.
        try:
            name = Path(folder_uri_path(workspace.root_uri)).name or "/"
        except ValueError:
            ls.root_problem = f"rootUri {workspace.root_uri!r} is not a file:// URI of a folder"
        else:
            workspace.add_folder(types.WorkspaceFolder(uri=workspace.root_uri, name=name))


@server.feature(types.INITIALIZED)
async def on_initialized(ls: RaglsServer, params: types.InitializedParams) -> None:
    ls.progress_sender = ThreadSafeProgress(ls, asyncio.get_running_loop())
    ls.start_open()


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
async def on_did_change_configuration(ls: RaglsServer, params: types.DidChangeConfigurationParams) -> None:
    settings = to_plain(params.settings)
    if not isinstance(settings, dict):
        return
    if isinstance(settings.get("ragls"), dict):
        settings = settings["ragls"]
    async with _CONFIGURATION_ORDER:
        if "ragls.config.settings" not in sys.modules:
            # Neovim sends its settings right after `initialized`: the settings (pydantic) are imported off the event
            # loop, which meanwhile finishes the progress handshake; the lock keeps the notifications in order.
            await asyncio.to_thread(importlib.import_module, "ragls.config.settings")
        _apply_configuration(ls, settings)


# didChangeConfiguration notifications apply one at a time, in the order they came (asyncio.Lock is FIFO).
_CONFIGURATION_ORDER = asyncio.Lock()


def _apply_configuration(ls: RaglsServer, settings: dict[str, Any]) -> None:
    # The notification carries the client's whole current configuration: it replaces initializationOptions (a
    # setting the user reset is simply absent, or null) and is compared with what is in force, not with the
    # previous notification, so going back to the start-up values also takes effect.
    from ragls.config.settings import normalize

    trust = editor_trust([settings])
    configs = editor_trusted_configs([settings])
    if (normalize(settings)[0] == normalize(ls.client_settings())[0] and trust in (None, ls.editor_trust)
            and configs in (None, ls.editor_trust_configs)):
        ls.config_layer = settings
        return  # nothing that concerns ragls changed
    ls.config_layer = settings
    ls.editor_trust = ls.editor_trust if trust is None else trust
    ls.editor_trust_configs = ls.editor_trust_configs if configs is None else configs
    if ls.live is not None:
        ls.start_open()


@server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
async def on_did_change_folders(ls: RaglsServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
    if ls.live is not None:
        ls.start_open()


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def on_did_save(ls: RaglsServer, params: types.DidSaveTextDocumentParams) -> None:
    if ls.live is not None and params.text_document.uri.startswith("file:"):
        ls.live.notify([uri_to_path(params.text_document.uri)])


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def on_did_change_watched(ls: RaglsServer, params: types.DidChangeWatchedFilesParams) -> None:
    if ls.live is not None:
        ls.live.notify([uri_to_path(c.uri) for c in params.changes if c.uri.startswith("file:")])


@server.feature(types.SHUTDOWN)
async def on_shutdown(ls: RaglsServer, params: Any) -> None:
    if ls.live is not None:  # waits for an opening in progress, then stops the indexer and closes the stores
        await asyncio.to_thread(ls.live.close, SHUTDOWN_STOP_S)


# Editors wait a few seconds for `shutdown` (VS Code's client 5 s here) and kill a server still running 2 s after
# `exit` (SIGKILL, logged as an error). An embedding batch on a busy machine can take longer, so `shutdown` waits
# SHUTDOWN_STOP_S for the indexer and `exit` EXIT_WAIT_S more; then the process ends at once, without the interpreter
# teardown that takes seconds with the model loaded (or aborts under a running ONNX thread). An indexer still
# running then ends as abruptly as under the editor's SIGKILL; its unfinished batch is indexed again next time.
SHUTDOWN_STOP_S = 3.0
EXIT_WAIT_S = 1.0


@server.feature(types.EXIT)
def on_exit(ls: RaglsServer, params: Any) -> None:
    import os
    import sys

    if ls.live is not None and ls.live.lingering is not None:
        ls.live.lingering.stop(EXIT_WAIT_S)
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0 if ls.protocol._shutdown else 1)  # LSP: 1 when no shutdown came first


def _command(handler):
    """workspace/executeCommand form of a handler: one argument, the params object."""

    async def run_command(ls: RaglsServer, *args):
        return await handler(ls, args[0] if args else {})

    return run_command


def _in_request(handler):
    """`handler` as one request of the live workspace (`LiveWorkspace.request`): the workspace and named RAGs it
    uses are not closed under it when the workspace reopens."""

    @functools.wraps(handler)
    async def run(ls: RaglsServer, params: Any):
        if ls.live is None:
            return await handler(ls, params)
        with ls.live.request():
            return await handler(ls, params)

    return run


# method -> (its workspace/executeCommand name, its handler in lsp/handlers.py, imported on the first request)
METHODS = {
    "rag/query": ("ragls.query", "rag_query"),
    "rag/ask": ("ragls.ask", "rag_ask"),
    "rag/rebuild": ("ragls.rebuild", "rag_rebuild"),
    "rag/status": ("ragls.status", "rag_status"),
    "rag/list": ("ragls.listRags", "rag_list"),
    "rag/commitMessage": ("ragls.commitMessage", "rag_commit_message"),
    "rag/readPassage": ("ragls.readPassage", "rag_read_passage"),
    "rag/models": ("ragls.models", "rag_models"),
    "rag/tool": ("ragls.tool", "rag_tool"),
}


def _import_handlers(ls: RaglsServer):
    """lsp/handlers.py (and kb/rags.py, which a request's scope uses: `LiveWorkspace.request`), imported on a worker
    thread once the editor shows the indexing progress — as the opening does (`_open_workspace`): an import on the
    event loop would wait there for the opening thread's imports of the same modules, and any import holds the
    GIL through the progress handshake."""
    if ls.progress_sender is not None and ls.live is not None and not ls.live.ready():  # still opening
        ls.progress_sender.wait_shown(SHOWN_WAIT_S)
    importlib.import_module("ragls.kb.rags")
    return importlib.import_module("ragls.lsp.handlers")


async def _handlers_module(ls: RaglsServer):
    """lsp/handlers.py once its import has finished: from sys.modules when it has, else imported (or waited for)
    on a worker thread (`_import_handlers`). A module another thread is still importing is in sys.modules already,
    half run (`__spec__._initializing`, as importlib's own `_find_and_load` tests): taking it from there answered a
    rag/status with "partially initialized module 'ragls.lsp.handlers' has no attribute 'rag_status'" when it came
    while the opening thread imported the handlers (CI, session 54); the import on a worker thread waits for that
    thread's import to end."""
    handlers = sys.modules.get("ragls.lsp.handlers")
    if handlers is None or getattr(getattr(handlers, "__spec__", None), "_initializing", False):
        handlers = await asyncio.to_thread(_import_handlers, ls)
    return handlers


def _handler(name: str):
    """The handler `name` of lsp/handlers.py (imported off the event loop when first called: `_handlers_module`),
    run as one request of the live workspace (`_in_request`)."""

    async def run(ls: RaglsServer, params: Any):
        handlers = await _handlers_module(ls)
        return await _in_request(getattr(handlers, name))(ls, params)

    run.__name__ = run.__qualname__ = name
    return run


def _register() -> None:
    for method, (command, name) in METHODS.items():
        handler = _handler(name)
        server.feature(method)(handler)
        server.command(command)(_command(handler))


_register()


def serve(tcp: str | None = None) -> None:
    """Run the server on stdio, or on TCP "HOST:PORT" for debugging. Caps glibc's malloc arenas first
    (`ragls.core.heap.limit_arenas`)."""
    from ragls.core import heap
    from ragls.lsp.errors import install_log_filter

    heap.limit_arenas()
    install_log_filter()  # expected errors ("nothing staged") are one log line, not a traceback
    import pygls.server

    from ragls.lsp import framing

    pygls.server.run_async = framing.run_async  # pygls's stdio loop dies or goes deaf on a bad frame (framing.py)
    if tcp:
        host, _, port = tcp.rpartition(":")
        server.start_tcp(host or "127.0.0.1", int(port))
    else:
        server.start_io()
