"""The CLI answers through a running `ragls serve` (its local socket in the index directory): the same chunks as
in-process, `--verbose` says which process answered, a server file owned by another user is refused (the CLI then
answers in-process), and the socket is gone after shutdown."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from lspkit import SERVER_COMMAND, copy_docs, init_params, request, server_env, wait_indexed
from pytest_lsp import ClientServerConfig

pytestmark = pytest.mark.asyncio


def ragls(env, *args):
    proc = subprocess.run([sys.executable, "-m", "ragls", *map(str, args)], env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, f"ragls {args} exited {proc.returncode}: {proc.stderr}"
    return proc


async def test_cli_uses_the_running_server_and_gets_the_same_result(tmp_path):
    env = server_env(tmp_path / "cache")
    ws = copy_docs(tmp_path / "docs")
    client = await ClientServerConfig(server_command=SERVER_COMMAND, server_env=env).start()
    await client.initialize_session(init_params([ws]))
    try:
        status = await wait_indexed(client)
        index_dir = status["folders"][0]["indexPath"]
        info = json.loads(open(os.path.join(index_dir, "server.json")).read())
        assert os.stat(info["socket"]).st_mode & 0o777 == 0o600

        question = "how long is the retry backoff ceiling"
        served = ragls(env, "--verbose", "query", ws, question, "--json")
        assert f"answered by the running server (pid {info['pid']}" in served.stderr
        local = ragls(env, "query", ws, question, "--json", "--no-server")
        # --no-server on an index another process writes: a read-only in-process open of the same index
        ids = [c["id"] for c in json.loads(served.stdout)["chunks"]]
        assert ids and ids == [c["id"] for c in json.loads(local.stdout)["chunks"]]

        status_out = ragls(env, "--verbose", "status", ws)
        assert "answered by the running server" in status_out.stderr and f"folder:      {ws}" in status_out.stdout

        asked = ragls(env, "ask", ws, "What is the retry backoff ceiling?")
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
