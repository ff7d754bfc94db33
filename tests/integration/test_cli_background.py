"""`ragls serve --background`: a real detached server process that `ragls query / ask / status` answer through (its
local socket), which exits by itself after `--idle-exit` minutes without a request, or on `ragls serve --stop`.
The CLI runs in this process (`ragls.cli.app.main`); the server is a real child process (waited for, never slept on).
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import time
from pathlib import Path

import pytest
from ragls.cli import app as cli

FIXTURE_DOCS = Path(__file__).resolve().parents[1] / "fixtures" / "docs"


@pytest.fixture
def ws(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGLS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RAGLS_OFFLINE", "1")
    return shutil.copytree(FIXTURE_DOCS, tmp_path / "docs")


def server_info(capsys, folder) -> tuple[int, Path]:
    capsys.readouterr()
    assert cli.main(["status", str(folder), "--json"]) == 0
    index_dir = Path(json.loads(capsys.readouterr().out)["folders"][0]["indexPath"])
    info = json.loads((index_dir / "server.json").read_text())
    return info["pid"], index_dir


def test_background_server_answers_the_cli_then_exits_when_idle(ws, capsys, caplog):
    assert cli.main(["serve", "--background", str(ws), "--idle-exit", "0.02"]) == 0
    out = capsys.readouterr().out
    assert "background server (pid" in out and "ragls query/ask/status" in out
    pid, index_dir = server_info(capsys, ws)
    with caplog.at_level(logging.DEBUG, logger="ragls.cli.app"):
        assert cli.main(["query", str(ws), "retry backoff ceiling", "--json"]) == 0
    assert f"answered by the running server (pid {pid}" in caplog.text
    assert json.loads(capsys.readouterr().out)["chunks"][0]["source"]["path"] == "guide/retries.md"
    # a second start finds it
    assert cli.main(["serve", "--background", str(ws)]) == 0
    assert f"a server (pid {pid}) already serves" in capsys.readouterr().out
    # idle for 1.2 s with nothing left to index: it exits by itself and cleans up
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    assert not (index_dir / "server.json").exists()
    assert "no request for" in (index_dir / "serve.log").read_text()


def test_stop(ws, capsys):
    assert cli.main(["serve", "--background", str(ws), "--idle-exit", "2"]) == 0  # bounded if the test fails
    pid, index_dir = server_info(capsys, ws)
    capsys.readouterr()
    # `ragls index` beside it names it as what it is (it said "an editor's ragls server ... use the editor's
    # rebuild command"), and a rebuild how to stop it
    assert cli.main(["status", str(ws), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["folders"][0]["writerProcess"] == {
        "pid": pid, "role": "ragls serve --background"}
    assert cli.main(["index", str(ws)]) == 1
    err = capsys.readouterr().err
    assert (f"ragls: the background server `ragls serve --background` (pid {pid}) holds this index; nothing was "
            "indexed — it indexes every change by itself") in err and "editor" not in err, err
    assert cli.main(["rebuild", str(ws), "--yes"]) == 1
    assert f"stop it (`ragls serve --stop {ws}`), then run again" in capsys.readouterr().err
    assert cli.main(["serve", "--stop", str(ws)]) == 0
    assert f"stopped the server (pid {pid})" in capsys.readouterr().out
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    assert not (index_dir / "server.json").exists()
    capsys.readouterr()
    assert cli.main(["serve", "--stop", str(ws)]) == 0  # stopped already: said, not an error
    assert f"no server running for {ws}" in capsys.readouterr().out


def test_stop_when_no_server_runs_says_so_and_succeeds(ws, tmp_path):
    """`ragls serve --stop PATH` with no server for PATH exits 0 with a message (like `systemctl stop` of a stopped
    unit); a PATH that does not exist is a usage error, exit 2. No server is started."""
    from clikit import ragls

    out = ragls(None, "serve", "--stop", ws)
    assert out.returncode == 0 and out.stdout == f"ragls: no server running for {ws}\n", out
    missing = ragls(None, "serve", "--stop", tmp_path / "nope", check=False)
    assert missing.returncode == 2 and "nope" in missing.stderr, missing


def test_a_query_the_server_answers_while_it_builds_the_index_says_so(ws, capsys):
    """A server still building the index (here its embedding model held back, as a `ragls serve --background` on a
    fresh folder is until the model loads) answers `ragls query` from keywords alone: the CLI says so on stderr, as
    its in-process first answer says what it used; once every chunk is embedded it says nothing. The real
    LiveWorkspace with its local socket, in this process."""
    from ragls.lsp.local_socket import LocalSocketServer
    from ragls.workspace.live import LiveWorkspace

    live = LiveWorkspace([ws], hold_vectors=True, socket_server=LocalSocketServer).start()
    try:
        live.get_indexed()
        assert cli.main(["query", str(ws), "retry backoff ceiling", "--top-k", "1"]) == 0
        out, err = capsys.readouterr()
        assert "guide/retries.md" in out
        assert (f"is still building the index of {ws}: its embedding model is still loading, so search uses "
                "keywords (BM25) alone until it is ready; results may be incomplete") in err
        live.release_vectors()
        while True:  # the indexer embeds every chunk (bounded by the test run's timeout)
            assert cli.main(["status", str(ws), "--json"]) == 0
            folder = json.loads(capsys.readouterr().out)["folders"][0]
            if not folder.get("embeddingLoading") and folder["pendingVectors"] == 0 and folder["pending"] == 0:
                break
            time.sleep(0.2)
        assert cli.main(["query", str(ws), "retry backoff ceiling", "--top-k", "1"]) == 0
        out, err = capsys.readouterr()
        assert "guide/retries.md" in out and "still building" not in err
    finally:
        live.close()
    # a server started again on the complete index builds nothing: only its model loads (it said "still building")
    live = LiveWorkspace([ws], hold_vectors=True, socket_server=LocalSocketServer).start()
    try:
        live.get_indexed()
        assert cli.main(["query", str(ws), "retry backoff ceiling", "--top-k", "1"]) == 0
        out, err = capsys.readouterr()
        assert "guide/retries.md" in out and "still building" not in err
        assert (f"is still loading its embedding model (the index of {ws} is complete): search uses keywords (BM25) "
                "alone until it is ready; results may be incomplete") in err, err
    finally:
        live.close()


def test_a_query_the_server_answers_on_a_folder_of_code_only_says_why_nothing_was_found(tmp_path, capsys, caplog):
    """`ragls query` answered by a running server on a folder whose index holds no file prints, under "(nothing
    found)", the server's rag/status notice for that folder (the one wording, workspace/status.empty_folder_notice)."""
    from ragls.lsp.local_socket import LocalSocketServer
    from ragls.workspace.live import LiveWorkspace

    app = tmp_path / "app"
    app.mkdir()
    (app / "main.py").write_text("print('hello')\n")
    live = LiveWorkspace([app], socket_server=LocalSocketServer).start()
    try:
        ws = live.get_indexed()
        # Nothing to embed: the model is not "loading" (clients said "loading model" for good).
        assert [f.embedding_loading for f in ws.status().folders] == [False]
        answer = ws.ask("How do I say hello?")  # an answer says why too (LSP, MCP, HTTP and `ragls ask`)
        assert answer.abstained and answer.text.startswith(
            f"Not in your docs: no passage matched the question, and nothing is indexed in {app.resolve()}: no file "
            "here matches sources.include "), answer.text
        # The answer is markdown: each include glob is a code span, so `**/*.{md,...}` keeps its stars when rendered.
        assert "sources.include `**/*.{md," in answer.text, answer.text
        with caplog.at_level(logging.DEBUG, logger="ragls.cli.app"):
            assert cli.main(["query", str(app), "hello"]) == 0
        assert "answered by the running server" in caplog.text
        out = capsys.readouterr().out.splitlines()
        assert out[0] == "(nothing found)", out
        assert len(out) == 2 and out[1].startswith(f"note: {app.resolve()}: no file here matches sources.include "), out
        assert "add their globs to sources.include" in out[1], out
    finally:
        live.close()


def test_the_local_socket_answers_unreadable_requests_with_clear_errors_and_serves_on(ws):
    """What the CLI never sends but a broken client may: each gets one JSON error naming what is wrong (not a
    Python message such as "'list' object has no attribute 'get'", nor "unknown method 'rag/query'" for a string
    params), and the next request is answered."""
    import socket

    from ragls.core.errors import INVALID_PARAMS, INVALID_REQUEST
    from ragls.index.paths import configured_index_dir
    from ragls.lsp.local_socket import LocalSocketServer, find_server, request
    from ragls.workspace.live import LiveWorkspace

    def send(raw: bytes) -> dict:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.connect(str(sock))
            s.sendall(raw)
            s.shutdown(socket.SHUT_WR)
            with s.makefile("rb") as f:
                return json.loads(f.readline())

    live = LiveWorkspace([ws], hold_vectors=True, socket_server=LocalSocketServer).start()
    try:
        live.get_indexed()
        _, sock = find_server(configured_index_dir(ws, None))
        not_object = {"error": {"code": INVALID_REQUEST, "message": 'invalid request: not a JSON object (one line of '
                                'UTF-8 JSON, {"method": ..., "params": {...}})'}}
        deep = b"[" * 100_000 + b"]" * 100_000 + b"\n"  # valid JSON: its RecursionError closed the socket unanswered
        for raw in (b"not json\n", b"[1, 2]\n", b"\xff\xfe\n", b"", b'"rag/query"\n', deep):
            assert send(raw) == not_object, raw
        assert send(b'{"method": "rag/nope"}\n')["error"] == {
            "code": INVALID_REQUEST, "message": "invalid request: unknown method 'rag/nope'; known: rag/query, "
                                                "rag/ask, rag/status"}
        for params in (b'"retries"', b"[1]", b"5"):
            assert send(b'{"method": "rag/query", "params": ' + params + b"}\n")["error"] == {
                "code": INVALID_PARAMS, "message": "params must be an object"}, params
        assert send(b'{"method": "rag/query", "params": {"query": 5}}\n')["error"]["message"].startswith("query:")
        [msg] = request(sock, "rag/query", {"query": "retry backoff ceiling", "topK": 1})
        assert msg["result"]["chunks"][0]["source"]["path"] == "guide/retries.md"
    finally:
        live.close()


def test_a_background_server_started_while_another_process_indexes_the_folder_answers_the_cli(ws, capsys, caplog):
    """`ragls index` in one terminal (a first index of a large docs tree takes minutes), `ragls serve --background`
    in another: the new server reads the index the other process writes, and still answers the CLI over its socket
    (it used to bind one only for an index it writes: the start waited 120 s, printed "the background server did not
    start" and killed it), and keeps answering once the writer is gone. The writer here is a LiveWorkspace without a
    socket in this process, as `ragls index` is (its embedding held back: the reader answers from keywords)."""
    from ragls.workspace.live import LiveWorkspace

    writer = LiveWorkspace([ws], hold_vectors=True, socket_server=None).start()
    try:
        writer.get_indexed()
        assert cli.main(["serve", "--background", str(ws), "--idle-exit", "2"]) == 0  # bounded if the test fails
        out = capsys.readouterr().out
        assert "background server (pid" in out, out
        pid, index_dir = server_info(capsys, ws)
        with caplog.at_level(logging.DEBUG, logger="ragls.cli.app"):
            assert cli.main(["query", str(ws), "retry backoff ceiling", "--json"]) == 0
        assert f"answered by the running server (pid {pid}" in caplog.text
        assert json.loads(capsys.readouterr().out)["chunks"][0]["source"]["path"] == "guide/retries.md"
    finally:
        writer.close()
    # the writer is gone: the background server still answers (it takes the index over once the lock is free)
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="ragls.cli.app"):
        assert cli.main(["query", str(ws), "retry backoff ceiling", "--json"]) == 0
    assert f"answered by the running server (pid {pid}" in caplog.text
    capsys.readouterr()
    assert cli.main(["serve", "--stop", str(ws)]) == 0
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    assert not (index_dir / "server.json").exists()


def test_a_takeover_that_ends_after_the_socket_stopped_leaves_no_server_file(ws, monkeypatch):
    """A server closing while its indexer thread takes the index over (the writer process exited a moment before):
    the takeover's "the writer changed" callback ran after the socket had stopped and bound it again, so the server
    exited leaving `server.json` and its socket behind (`ragls serve --stop` of a background server, seen once in a
    full CI run of the test above). The order is forced here: the takeover waits until the socket has stopped.
    Real LiveWorkspaces (the writer without a socket, as `ragls index` is) in this process."""
    import functools
    import threading

    from ragls.index.indexer import FolderIndex
    from ragls.lsp.local_socket import SERVER_FILE, LocalSocketServer, find_server
    from ragls.workspace.live import LiveWorkspace

    taking_over, socket_stopped = threading.Event(), threading.Event()

    class Socket(LocalSocketServer):
        def stop(self):
            super().stop()
            socket_stopped.set()

    def try_become_writer(idx):
        taking_over.set()
        assert socket_stopped.wait(60)  # the reader's close has stopped its socket (bounded if the test fails)
        return take_over(idx)

    take_over = FolderIndex.try_become_writer
    monkeypatch.setattr(FolderIndex, "try_become_writer", try_become_writer)
    writer = LiveWorkspace([ws], hold_vectors=True, socket_server=None).start()
    try:
        index_dir = writer.get_indexed().indexes[0].index_dir
        reader = LiveWorkspace([ws], hold_vectors=True, socket_server=functools.partial(Socket, readers=True)).start()
        reader.get()
        assert find_server(index_dir)[0] == os.getpid()  # the reader serves the index no process serves
    finally:
        writer.close()
    assert taking_over.wait(60)  # the reader's indexer thread found the lock free
    reader.close()
    assert not (index_dir / SERVER_FILE).exists()
    assert find_server(index_dir) is None


def test_without_so_peercred_the_server_file_names_the_server(ws, capsys, monkeypatch):
    """`find_server` asks the kernel for the listener's pid (SO_PEERCRED, Linux only): where the socket module has no
    SO_PEERCRED (macOS, the BSDs) it raised AttributeError, so `ragls query/ask/status` and `serve --stop` failed with
    a traceback whenever a server ran; there the listener is unknown and `server.json`'s pid, if alive, names it (as
    before 9f08e802). A real background server; the platform's missing constant removed from `socket`."""
    import socket

    from ragls.lsp.local_socket import find_server

    assert cli.main(["serve", "--background", str(ws), "--idle-exit", "2"]) == 0  # bounded if the test fails
    pid, index_dir = server_info(capsys, ws)
    try:
        with monkeypatch.context() as m:
            m.delattr(socket, "SO_PEERCRED")
            found = find_server(index_dir)
        assert found is not None and found[0] == pid, found
    finally:
        assert cli.main(["serve", "--stop", str(ws)]) == 0
        os.waitpid(pid, 0)
    assert f"stopped the server (pid {pid})" in capsys.readouterr().out


def test_the_background_server_runs_this_ragls_never_the_folders_nor_another(ws, tmp_path, capsys, monkeypatch):
    """The server process imports the ragls the CLI runs. A folder is untrusted: one holding a `ragls/` package at
    its root had that package run instead of ragls (`python -m ragls` started in the folder imports from there
    first) — here it would leave a marker file and exit, and the start failed. And a relative PYTHONPATH entry (a
    `PYTHONPATH=server` given to the CLI) is the same directory for the server: it was read against the server's
    own working directory, so the server ran another ragls (the installed one) beside the CLI; here the entry holds
    a `sitecustomize` that leaves a marker when the server imports it."""
    planted = ws / "ragls"
    planted.mkdir()
    (planted / "__init__.py").write_text("")
    (planted / "__main__.py").write_text(f"open({str(tmp_path / 'planted-ran')!r}, 'w').write('ran')\n")
    probe = tmp_path / "shell" / "probe"
    probe.mkdir(parents=True)
    (probe / "sitecustomize.py").write_text(f"open({str(tmp_path / 'probe-imported')!r}, 'w').write('imported')\n")
    monkeypatch.chdir(tmp_path / "shell")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(["probe", *filter(None, [os.environ.get("PYTHONPATH")])]))
    assert cli.main(["serve", "--background", str(ws), "--idle-exit", "2"]) == 0  # bounded if the test fails
    assert "background server (pid" in capsys.readouterr().out
    pid, _ = server_info(capsys, ws)
    assert not (tmp_path / "planted-ran").exists()
    assert (tmp_path / "probe-imported").read_text() == "imported"
    assert cli.main(["serve", "--stop", str(ws)]) == 0
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def test_a_background_server_whose_folder_and_index_were_deleted_still_exits_when_idle(ws, tmp_path, capsys):
    """The folder and its index directory deleted under a running background server: every sync failed (tantivy
    could not take its lock in the vanished directory) and was retried after a back-off, and the failed work, queued
    again, counted as work to do, so the server never exited (one was found still running 32 minutes after its
    2-minute idle exit). A failure that repeats no longer keeps it alive: it exits after `--idle-exit` as usual."""
    assert cli.main(["serve", "--background", str(ws), "--idle-exit", "0.05"]) == 0  # 3 s
    pid, index_dir = server_info(capsys, ws)
    shutil.rmtree(ws)
    shutil.rmtree(index_dir)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
            return
        time.sleep(0.2)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    raise AssertionError("the background server did not exit within 60 s of idling")


def test_two_starts_at_once_leave_one_server_and_both_succeed(ws, capsys, monkeypatch):
    """Two `ragls serve --background` at once (two terminals, a shell profile): both find no server, both start
    one; the second to bind only reads beside the first and never binds, so its start waited START_TIMEOUT_S
    (120 s) and said "the background server did not start" (exit 1) while a server served the folder. The race is
    made certain: a real served workspace binds the folder's socket right after this start looked for one."""
    from ragls.cli import background
    from ragls.lsp.local_socket import LocalSocketServer
    from ragls.workspace.live import LiveWorkspace

    real_running, other = background._running, []

    def running_after_the_check(index_dir):
        if not other:  # the check found nothing; the other start's server comes up now
            other.append(LiveWorkspace([ws], socket_server=LocalSocketServer).start())
            other[0].get_indexed()
            return None
        return real_running(index_dir)

    monkeypatch.setattr(background, "_running", running_after_the_check)
    try:
        assert cli.main(["serve", "--background", str(ws), "--idle-exit", "2"]) == 0
        assert f"a server (pid {os.getpid()}) already serves {ws}" in capsys.readouterr().out
        monkeypatch.setattr(background, "_running", real_running)
        assert background._running(server_info(capsys, ws)[1]) == os.getpid()  # the other one serves on
    finally:
        for live in other:
            live.close()
