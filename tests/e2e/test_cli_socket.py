"""The CLI answers through a running `ragls serve` (its local socket in the index directory): the same chunks as
in-process, `--verbose` says which process answered, a server file owned by another user is refused (the CLI then
answers in-process), and the socket is gone after shutdown."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest
from clikit import ragls_batch, ragls_process
from lspkit import SERVER_COMMAND, copy_docs, init_params, request, server_env, wait_indexed
from pytest_lsp import ClientServerConfig

SHARED_EMBEDDING_CACHE = True  # tests/conftest.py `_run_embedding_cache`: nothing here counts what the model embedded

pytestmark = pytest.mark.asyncio


def ragls(env, *args):
    """A real `ragls` process: the hand-off to the server's socket is what these tests check."""
    return ragls_process(env, *args)


def server_info(index_dir: str) -> dict:
    """The running server's server.json ({pid, socket}); raises OSError / ValueError while it is absent or partial."""
    return json.loads(Path(index_dir, "server.json").read_text())


async def test_cli_uses_the_running_server_and_gets_the_same_result(tmp_path):
    env = server_env(tmp_path / "cache")
    ws = copy_docs(tmp_path / "docs")
    client = await ClientServerConfig(server_command=SERVER_COMMAND, server_env=env).start()
    await client.initialize_session(init_params([ws]))
    try:
        status = await wait_indexed(client)
        index_dir = status["folders"][0]["indexPath"]
        info = server_info(index_dir)
        assert os.stat(info["socket"]).st_mode & 0o777 == 0o600

        question = "how long is the retry backoff ceiling"
        # Four commands of one CLI process (clikit.ragls_batch: one interpreter start instead of four); each call
        # decides afresh whether the server answers, as the assertions on --verbose's line show.
        served, local, status_out, asked = ragls_batch(
            env, ["--verbose", "query", ws, question, "--json"], ["query", ws, question, "--json", "--no-server"],
            ["--verbose", "status", ws], ["ask", ws, "What is the retry backoff ceiling?"])
        assert all(p.returncode == 0 for p in (served, local, status_out, asked)), [p.stderr for p in (served, local)]
        assert f"answered by the running server (pid {info['pid']}" in served.stderr
        # --no-server on an index another process writes: a read-only in-process open of the same index
        assert "answered by the running server" not in local.stderr
        ids = [c["id"] for c in json.loads(served.stdout)["chunks"]]
        assert ids and ids == [c["id"] for c in json.loads(local.stdout)["chunks"]]

        assert "answered by the running server" in status_out.stderr and f"folder:      {ws}" in status_out.stdout

        assert "Sources:" in asked.stdout and "retries.md" in asked.stdout

        # A server file that belongs to another user is never used (changing its owner needs root).
        if os.geteuid() != 0:
            return
        os.chown(os.path.join(index_dir, "server.json"), 54321, 54321)
        refused = ragls(env, "--verbose", "query", ws, question, "--json")
        assert "belongs to another user" in refused.stderr
        assert "answered by the running server" not in refused.stderr
        assert [c["id"] for c in json.loads(refused.stdout)["chunks"]] == ids
        os.chown(os.path.join(index_dir, "server.json"), os.getuid(), os.getgid())
        assert (await request(client, "rag/status", {}))["folders"][0]["writer"] is True
    finally:
        await client.shutdown_session()
    assert not os.path.exists(info["socket"]) and not os.path.exists(os.path.join(index_dir, "server.json"))


async def test_the_server_that_takes_over_the_index_answers_the_cli(tmp_path):
    """Two editors on one folder: the second only reads. When the first exits, the second takes the writer lock
    (watch.TAKEOVER_INTERVAL_S) and from then on the CLI answers through it."""
    env = server_env(tmp_path / "cache")
    ws = copy_docs(tmp_path / "docs")
    first = await ClientServerConfig(server_command=SERVER_COMMAND, server_env=env).start()
    await first.initialize_session(init_params([ws]))
    second = None
    try:
        status = await wait_indexed(first)
        index_dir = status["folders"][0]["indexPath"]
        first_pid = server_info(index_dir)["pid"]
        second = await ClientServerConfig(server_command=SERVER_COMMAND, server_env=env).start()
        await second.initialize_session(init_params([ws]))
        assert (await request(second, "rag/status", {}))["folders"][0]["writer"] is False
        served = ragls(env, "--verbose", "query", ws, "retry backoff ceiling", "--json")
        assert f"answered by the running server (pid {first_pid}" in served.stderr
    finally:
        await first.shutdown_session()
    try:
        for _ in range(600):  # the takeover retries every 2 s; wait for the state, not for a time
            if (await request(second, "rag/status", {}))["folders"][0]["writer"]:
                break
            await asyncio.sleep(0.1)
        else:
            pytest.fail("the second server never took the writer lock over")
        for _ in range(100):  # server.json is written right after the lock is taken, on the indexer thread
            try:
                info = server_info(index_dir)
            except (OSError, ValueError):
                info = {}
            if info.get("pid") not in (None, first_pid):
                break
            await asyncio.sleep(0.1)
        assert info.get("pid") not in (None, first_pid), info
        served = ragls(env, "--verbose", "query", ws, "retry backoff ceiling", "--json")
        assert f"answered by the running server (pid {info['pid']}" in served.stderr
        assert json.loads(served.stdout)["chunks"]
    finally:
        await second.shutdown_session()
    assert not os.path.exists(os.path.join(index_dir, "server.json"))
