"""The running server's local socket: `ragls query / ask / status` answer through the process that already holds a
folder's index (an editor's `ragls serve`) instead of loading the model and the stores again.

Transport: a Unix domain socket, one request per connection, newline-delimited JSON (UTF-8):
  client → server: `{"method": "rag/query" | "rag/ask" | "rag/status", "params": {...}}` (the docs/protocol.md params)
  server → client: zero or more `{"delta": "..."}` (rag/ask streaming), then `{"result": {...}}` (the protocol result)
                   or `{"error": {"code": int, "message": str}}` (the JSON-RPC codes of lsp/errors.py).

Where: the writer process writes `server.json` (`{"pid", "socket"}`) into the index directory (a background server
also for an index it only reads while no process serves it: `ragls index` writes it, `LocalSocketServer.readers`). The socket itself is
`<index dir>/ragls.sock` when that path fits the 107-byte limit of `sun_path`, else `<runtime dir>/ragls-<hash>.sock`
in an owner-only (0700) directory. Both files are owner-only (0600).

Security: the client refuses a `server.json` or socket owned by another user; the server checks each peer's
uid with SO_PEERCRED and serves only its own user. Nothing here is reachable from the network.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import socket
import socketserver
import stat
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ragls.core.atomic import atomic_target
from ragls.core.errors import INVALID_REQUEST, InvalidParams, RaglsError, to_wire_error
from ragls.index.paths import user_temp_dir

log = logging.getLogger(__name__)

SERVER_FILE = "server.json"
SOCKET_NAME = "ragls.sock"
_SUN_PATH_MAX = 107  # Linux sun_path is 108 bytes including the terminating NUL
METHODS = ("rag/query", "rag/ask", "rag/status")


class SocketRefused(Exception):
    """The server's socket exists but must not be used (owned by another user); the caller runs in-process."""


def _socket_path(index_dir: Path) -> Path | None:
    """Where the server of `index_dir` binds its socket: `<index_dir>/ragls.sock`, or when that name is too long for
    a socket (`_SUN_PATH_MAX` bytes) `ragls-<digest>.sock` in the user's own runtime folder
    (`$XDG_RUNTIME_DIR` or the temporary dir, `/ragls-<uid>`: `paths.user_temp_dir`). None when that folder may not be
    the user's alone (a link planted under its name was made 700 through, and the socket bound in its target)."""
    direct = index_dir / SOCKET_NAME
    if len(os.fsencode(direct)) <= _SUN_PATH_MAX:
        return direct
    runtime = user_temp_dir(f"ragls-{os.getuid()}", Path(os.environ.get("XDG_RUNTIME_DIR") or tempfile.gettempdir()))
    if runtime is None:
        return None
    digest = hashlib.sha256(os.fsencode(index_dir.resolve())).hexdigest()[:16]
    return runtime / f"ragls-{digest}.sock"


# -- server --------------------------------------------------------------------------------------------------
class _Handler(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        server: LocalSocketServer = self.server.owner  # type: ignore[attr-defined]
        try:
            self._serve(server)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client went away: Ctrl-C, or `find_server`'s probe (connected and closed, asking nothing)

    def _serve(self, server: LocalSocketServer) -> None:
        try:
            peer_uid = _peer(self.request)[1]
        except OSError:
            peer_uid = -1
        if peer_uid != os.getuid():
            self._send({"error": {"code": INVALID_REQUEST, "message": "refused: not the server's user"}})
            return
        try:
            request = json.loads(self.rfile.readline(1 << 20).decode("utf-8"))
        except (ValueError, RecursionError):  # UnicodeDecodeError included; JSON nested ~1,000 deep: RecursionError
            request = None
        if not isinstance(request, dict):
            self._send({"error": {"code": INVALID_REQUEST, "message": 'invalid request: not a JSON object (one line '
                                  'of UTF-8 JSON, {"method": ..., "params": {...}})'}})
            return
        method, params = request.get("method"), request.get("params")
        if method not in METHODS:
            self._send({"error": {"code": INVALID_REQUEST,
                                  "message": f"invalid request: unknown method {method!r}; known: {', '.join(METHODS)}"}})
            return
        params = {} if params is None else params
        if not isinstance(params, dict):  # what wire.parse answers over LSP and HTTP
            self._send({"error": to_wire_error(InvalidParams("params must be an object"))})
            return
        try:
            result = server.dispatch(method, params, lambda piece: self._send({"delta": piece}))
            self._send({"result": result})
        except (BrokenPipeError, ConnectionResetError):
            raise
        except Exception as exc:  # every failure is answered, the server keeps serving
            if not isinstance(exc, RaglsError):
                log.exception("local socket request %s failed", method)
            with contextlib.suppress(OSError):
                self._send({"error": to_wire_error(exc)})

    def _send(self, obj: dict) -> None:
        self.wfile.write(json.dumps(obj, ensure_ascii=False).encode("utf-8") + b"\n")
        self.wfile.flush()


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


class LocalSocketServer:
    """Serves `rag/query`, `rag/ask`, `rag/status` for `ws` (a RagWorkspace) on one socket per writer index.

    `start()` binds and writes each index's `server.json`; `stop()` removes both. Results are the wire dicts of
    lsp/wire.py, so a CLI answer is the same whichever process computes it. With `readers` (`ragls serve
    --background`, whose whole job is answering the CLI) it also serves an index it only reads while no other process
    serves it: the writer is then a process without a socket (`ragls index` building a large folder's first index),
    and a reader answers as the writer would (it reloads the writer's commits before each query)."""

    def __init__(self, ws: Any, hold: Callable[[], Any] | None = None, readers: bool = False):
        self.ws = ws
        self.readers = readers
        # hold(): the context each request runs in, yielding the workspace (`live.LiveWorkspace` keeps a workspace
        # open until its requests end); default: `ws` as is.
        self._hold = hold or (lambda: contextlib.nullcontext(ws))
        self._servers: dict[Path, tuple[_Server, Path, Path]] = {}  # index dir -> (server, socket, server.json)
        self._lock = threading.Lock()
        self._stopped = False  # stop() is final: a takeover ending on the indexer thread after it binds nothing
        self.last_used = time.monotonic()  # of the last request (time.monotonic()): a background server's idle exit

    def start(self) -> None:
        """Bind a socket for every index this process writes (`server.json` names it)."""
        self.sync_writers()

    def sync_writers(self) -> None:
        """Bind the indexes this process now writes and unbind those it no longer writes: after a takeover the
        new writer answers `ragls query`; after a handover the old one stops claiming to. With `readers`, also the
        indexes it reads that no other live process serves (`find_server`). Idempotent; nothing after `stop()` (the
        indexer thread's takeover may end after the socket stopped: it bound again, and the exiting process left a
        `server.json` and socket behind)."""
        with self._lock:
            if self._stopped:
                return
            serving = {idx.index_dir: idx for idx in self.ws.indexes
                       if idx.writer or self._serves_read(idx.index_dir)}
            for index_dir in [d for d in self._servers if d not in serving]:
                self._unbind(index_dir)
            for index_dir, idx in serving.items():
                if index_dir not in self._servers:
                    self._bind(idx)

    def _serves_read(self, index_dir: Path) -> bool:
        """Whether this process (with `readers`) serves an index it reads: when it does already, or no other live
        process does (a `server.json` naming another user's files is no server to replace)."""
        if not self.readers:
            return False
        try:
            found = find_server(index_dir)
        except SocketRefused:
            return False
        return found is None or found[0] == os.getpid()

    def _bind(self, idx: Any) -> None:
        path = _socket_path(idx.index_dir)
        if path is None:
            log.warning("no local socket for %s: its runtime folder is not this user's alone", idx.folder)
            return
        with contextlib.suppress(FileNotFoundError):
            path.unlink()  # a stale socket of a process that died
        try:
            srv = _Server(str(path), _Handler)
        except OSError as exc:
            log.warning("no local socket for %s: %s", idx.folder, exc)
            return
        os.chmod(path, 0o600)
        srv.owner = self  # type: ignore[attr-defined]
        info = idx.index_dir / SERVER_FILE
        try:
            with atomic_target(info) as tmp:
                tmp.write_text(json.dumps({"pid": os.getpid(), "socket": str(path)}))
                os.chmod(tmp, 0o600)
        except OSError as exc:  # e.g. a full disk: the CLI answers in its own process meanwhile
            log.warning("no local socket for %s: cannot write %s: %s", idx.folder, info, exc)
            srv.server_close()
            with contextlib.suppress(OSError):
                path.unlink()
            return
        threading.Thread(target=srv.serve_forever, name="ragls-local-socket", daemon=True).start()
        self._servers[idx.index_dir] = (srv, path, info)

    def _unbind(self, index_dir: Path) -> None:
        srv, path, info = self._servers.pop(index_dir)
        srv.shutdown()
        srv.server_close()
        try:  # server.json may already name the new writer: remove only what is still ours
            mine = json.loads(info.read_text()).get("pid") == os.getpid()
        except (OSError, ValueError):
            mine = False
        for f in (path, info) if mine else ():
            with contextlib.suppress(OSError):
                f.unlink()

    def stop(self) -> None:
        """Unbind every socket and remove the `server.json` files still naming this process; for good."""
        with self._lock:
            self._stopped = True
            for index_dir in list(self._servers):
                self._unbind(index_dir)

    def dispatch(self, method: str, params: dict, on_delta: Callable[[str], None]) -> dict:
        """Run one request on the workspace; returns the protocol result dict. Raises RaglsError."""
        self.last_used = time.monotonic()
        with self._hold() as ws:
            return self._run(ws, method, params, on_delta)

    @staticmethod
    def _run(ws: Any, method: str, params: dict, on_delta: Callable[[str], None]) -> dict:
        """Parse (`wire.parse`, as over LSP and HTTP), call the one workspace operation, convert."""
        from ragls.lsp.wire import AskParams, QueryParams, parse, to_wire_answer, to_wire_query, to_wire_status

        if method == "rag/query":
            p = parse(QueryParams, params)
            return to_wire_query(ws.query(p.query, p.top_k, p.rag, p.expand), p.explain)
        if method == "rag/ask":
            p = parse(AskParams, params)
            history = [m.model_dump() for m in p.history] if p.history else None
            answer = ws.ask(p.question, top_k=p.top_k, rag=p.rag, documents=p.documents, history=history,
                            expand=p.expand, on_delta=on_delta if params.get("stream") is True else None)
            return to_wire_answer(answer)
        return to_wire_status(ws.status())


# -- client --------------------------------------------------------------------------------------------------
def _owned_by_me(path: Path) -> bool:
    return os.stat(path).st_uid == os.getuid()


def find_server(index_dir: Path) -> tuple[int, Path] | None:
    """(pid, socket path) of the process serving `index_dir`, or None when none is running (stale files are
    ignored). Raises SocketRefused when the files or the listening process belong to another user.

    The pid is the one the kernel names for the socket's listener (SO_PEERCRED of a connection, closed at once), not
    only `server.json`'s: after a `kill -9`, an OOM kill or a reboot that file and the socket stay, and their pid may
    belong to another process by now (pids are reused: 32,768 of them by default, a container's restart from 1), which
    `ragls serve --stop` signalled and `ragls serve --background` took for the server. A socket nobody listens on is
    stale (None); one whose listener's pid differs from the file's is served by that listener. The pid is 0 when
    the listener runs in a pid namespace this process cannot see (the host's server, asked from a toolbox or
    distrobox container sharing the home and uid): its socket serves, but no pid names it here — never signal 0,
    which is the caller's own process group (`cli/background.stop`)."""
    info = index_dir / SERVER_FILE
    try:
        data = json.loads(info.read_text())
        pid, path = int(data["pid"]), Path(data["socket"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    try:
        if not _owned_by_me(info) or not _owned_by_me(path):
            raise SocketRefused(f"{path} belongs to another user; not using it")
        if not stat.S_ISSOCK(os.stat(path).st_mode):
            return None
    except FileNotFoundError:
        return None
    listener = _listener(path)
    if listener is None:  # nobody listens: the server died without removing its files
        return None
    if listener == (-1, -1):  # no answer within the timeout (a server too busy to accept), or no SO_PEERCRED here:
        # the file's pid, if alive
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            raise SocketRefused(f"the server process {pid} belongs to another user; not using it") from None
        return pid, path
    if listener[1] != os.getuid():
        raise SocketRefused(f"the server process {listener[0]} belongs to another user; not using it")
    return listener[0], path


def _listener(path: Path, timeout: float = 5.0) -> tuple[int, int] | None:
    """(pid, uid) of the process listening on the Unix socket `path` (SO_PEERCRED of a connection made and closed
    at once), None when nobody listens (refused,
    gone), (-1, -1) when the connection did not complete within `timeout` seconds or the platform cannot say who
    listens (no SO_PEERCRED: macOS, the BSDs; `find_server` then takes `server.json`'s pid, if alive)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        try:
            s.connect(str(path))
            if not hasattr(socket, "SO_PEERCRED"):
                return -1, -1
            return _peer(s)
        except TimeoutError:
            return -1, -1
        except OSError:  # ECONNREFUSED (no listener), ENOENT (removed meanwhile)
            return None


def _peer(conn: socket.socket) -> tuple[int, int]:
    """(pid, uid) of the process at the other end of the connected Unix socket `conn`: the kernel's SO_PEERCRED
    (struct ucred: pid, uid, gid as 32-bit ints). Raises OSError, and AttributeError where the platform has no
    SO_PEERCRED (macOS, the BSDs)."""
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
    return int.from_bytes(creds[0:4], "little"), int.from_bytes(creds[4:8], "little")


def request(sock_path: Path, method: str, params: dict, timeout: float = 600.0) -> Iterator[dict]:
    """Send one request; yield each message (`{"delta"}` pieces, then `{"result"}` or `{"error"}`).
    Raises OSError when the server cannot be reached."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        s.connect(str(sock_path))
        s.sendall(json.dumps({"method": method, "params": params}).encode("utf-8") + b"\n")
        with s.makefile("rb") as f:
            for line in f:
                msg = json.loads(line)
                yield msg
                if "result" in msg or "error" in msg:
                    return
