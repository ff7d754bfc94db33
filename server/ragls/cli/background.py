"""`ragls serve --background [PATH]`: a warm server for the command line, so `ragls query / ask / status` after the
first call answer in a fraction of a second instead of loading the model and the stores each time.

The background server is a `LiveWorkspace` (workspace/live.py: indexer thread, file watcher, the local socket of
lsp/local_socket.py that `ragls query` already looks for) in a detached process of its own session; its log is
`serve.log` in the folder's index directory. It exits after `--idle-exit` minutes (default IDLE_EXIT_MIN) without
a request once its indexing work is done, on SIGTERM, or with `ragls serve --stop [PATH]`. Starting it while one
serves the folder just says so. An editor's `ragls serve` on the same folder plays the same role.
"""

from __future__ import annotations

import functools
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from ragls.core.errors import InvalidParams, RequestFailed

log = logging.getLogger(__name__)

#: Minutes without a request after which a background server exits (`--idle-exit`).
IDLE_EXIT_MIN = 30.0
#: Seconds `ragls serve --background` waits for the new server's socket (the index opens; the model loads later).
START_TIMEOUT_S = 120.0
LOG_FILE = "serve.log"
#: Its role in the index's writer.json (`ownership.set_role`; rag/status `writerProcess.role`).
BACKGROUND_ROLE = "ragls serve --background"


def _folder_and_index(path: str | None) -> tuple[Path, Path]:
    """(folder, its index directory) for PATH, default the project around the current directory (as `ragls mcp`).
    Raises InvalidParams for a folder that must not be served (home, /) or that does not exist."""
    from ragls.index.paths import configured_index_dir
    from ragls.workspace.roots import serve_folders

    try:
        [folder] = serve_folders([path] if path else [], Path.cwd())
    except ValueError as exc:
        raise InvalidParams(str(exc)) from None
    return folder, configured_index_dir(folder, None)


def _running(index_dir: Path) -> int | None:
    from ragls.lsp.local_socket import SocketRefused, find_server

    try:
        found = find_server(index_dir)
    except SocketRefused as exc:
        raise RequestFailed(str(exc)) from None
    return found[0] if found else None


def _indexed(index_dir: Path) -> bool:
    """True once the server at `index_dir` has indexed its folders (the text phase: BM25 answers), per rag/status."""
    from ragls.lsp.local_socket import find_server, request

    found = find_server(index_dir)
    try:
        for msg in request(found[1], "rag/status", {}, timeout=10) if found else ():
            if "result" in msg:
                return all(f["lastIndexedAt"] for f in msg["result"]["folders"])
    except OSError:
        pass
    return False


def _child_env() -> dict[str, str]:
    """The background server's environment: this process's, with each relative PYTHONPATH entry made absolute
    against the current directory, so the server (started elsewhere) imports the ragls this process runs — a
    `PYTHONPATH=server` given to the CLI once started the installed ragls, another version, beside it."""
    env = dict(os.environ)
    if env.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) for p in env["PYTHONPATH"].split(os.pathsep))
    return env


def start(path: str | None, idle_exit_min: float) -> int:
    """Start the background server for PATH (or report the one running) and return once it has indexed the folder's
    text (BM25 answers; the model loads and embeds behind); print how to use and stop it. Returns the exit code:
    0 serving, 1 when it could not start within START_TIMEOUT_S (its log's last lines printed)."""
    from ragls.cli.trust import offer_trust

    folder, _ = _folder_and_index(path)
    offer_trust([folder])  # on a terminal, before detaching: the server's log is no place for the question
    folder, index_dir = _folder_and_index(path)  # a trusted folder's own index.path
    pid = _running(index_dir)
    if pid is not None:
        who = f"pid {pid}" if pid > 0 else "in another pid namespace"  # `find_server`: 0, a container's or the host's
        print(f"ragls: a server ({who}) already serves {folder}; `ragls query/ask/status` answer through it")
        return 0
    from ragls.index.paths import check_index_dir

    index_dir.mkdir(parents=True, exist_ok=True)
    check_index_dir(index_dir)  # the log is appended to: never through a planted link
    log_path = index_dir / LOG_FILE
    with open(log_path, "ab") as log_file, open(os.devnull, "rb") as devnull:
        # Started in its index directory, never in the folder: `python -m` imports from its working directory
        # first, and a folder is untrusted (a `ragls/` package at its root ran instead of ragls). And with `-P` (safe
        # path, Python >= 3.11: not even the index directory is searched; its worker processes inherit the flag).
        safe_path = ["-P"] if sys.version_info >= (3, 11) else []
        child = subprocess.Popen(
            [sys.executable, *safe_path, "-m", "ragls", "serve", "--headless", str(folder),
             "--idle-exit", str(idle_exit_min)],
            stdin=devnull, stdout=log_file, stderr=log_file, start_new_session=True, cwd=index_dir,
            env=_child_env())
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline and child.poll() is None:
        serving = _running(index_dir)
        if serving == child.pid and _indexed(index_dir):
            print(f"ragls: background server (pid {child.pid}) serves {folder}; `ragls query/ask/status` answer "
                  f"through it; it exits after {idle_exit_min:g} min without a request (or `ragls serve --stop`); "
                  f"log: {log_path}")
            return 0
        if serving is not None and serving != child.pid:
            # another start won the race (two terminals, a shell profile): ours only reads beside it and never
            # binds, so this waited START_TIMEOUT_S and said "did not start" while a server served the folder
            child.terminate()  # SIGTERM: it exits once its workspace is open (it only read the index)
            try:
                child.wait(timeout=30)
            except subprocess.TimeoutExpired:
                child.kill()
            print(f"ragls: a server (pid {serving}) already serves {folder}; `ragls query/ask/status` answer "
                  "through it")
            return 0
        time.sleep(0.05)
    tail = log_path.read_text(encoding="utf-8", errors="replace").splitlines()[-5:]
    if child.poll() is None:
        child.terminate()
    print(f"ragls: the background server did not start for {folder}:", file=sys.stderr)
    for line in tail:
        print(f"  {line}", file=sys.stderr)
    return 1


def stop(path: str | None) -> int:
    """Stop the server serving PATH (SIGTERM; it closes its index cleanly). Returns 0, also when none runs (what
    is not running is stopped, as `systemctl stop` of a stopped unit: said, not an error); 1 when the server runs
    in a pid namespace this process cannot see (`find_server`'s pid 0: said on stderr, nothing signalled). Raises
    InvalidParams (exit 2) for a PATH that is no folder to serve."""
    folder, index_dir = _folder_and_index(path)
    pid = _running(index_dir)
    if pid is None:
        print(f"ragls: no server running for {folder}")
        return 0
    if pid <= 0:  # `find_server`: a listener in another pid namespace; os.kill(0) would signal our own group
        print(f"ragls: the server of {folder} runs in another pid namespace (a container, or the host of this "
              "one): its pid cannot be named here; stop it where it runs", file=sys.stderr)
        return 1
    os.kill(pid, signal.SIGTERM)
    print(f"ragls: stopped the server (pid {pid}) of {folder}")
    return 0


def run_headless(path: str, idle_exit_min: float) -> int:
    """The background server's own process: serve PATH until idle for `idle_exit_min` minutes (with no indexing
    work left) or SIGTERM. Returns 0."""
    from ragls.core import heap
    from ragls.index import ownership
    from ragls.lsp.local_socket import LocalSocketServer
    from ragls.workspace.live import LiveWorkspace

    ownership.set_role(BACKGROUND_ROLE)  # not an editor's: `ragls index` beside it says how to stop it
    folder, _ = _folder_and_index(path)
    heap.limit_arenas()
    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    signal.signal(signal.SIGHUP, signal.SIG_IGN)  # the terminal that started it may close
    # the CLI asks it over this socket, also while another process (`ragls index`) writes the index
    live = LiveWorkspace([folder], socket_server=functools.partial(LocalSocketServer, readers=True)).start()
    log.info("ragls: background server (pid %d) for %s", os.getpid(), folder)
    try:
        live.get(timeout=None)
        idle_s = idle_exit_min * 60
        while not stopping.wait(min(5.0, max(idle_s / 4, 0.05))):
            sock = live.local_socket
            last = sock.last_used if sock is not None else time.monotonic()
            busy = live.worker is not None and live.worker.busy()
            if not busy and time.monotonic() - last > idle_s:
                log.info("ragls: no request for %g min: exiting", idle_exit_min)
                break
    except RequestFailed as exc:
        log.error("%s", exc)
        return 1
    finally:
        live.close()
    return 0
