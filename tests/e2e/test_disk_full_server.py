"""A language server whose cache disk fills up, for real: the index lives on a 12 MB tmpfs mounted in a private
mount namespace (held by a `sleep`, entered by each server with `nsenter`), filled to the last byte by this test
through `/proc/PID/root`. Issue 29: the server says "disk full" once (rag/status, one editor warning, no traceback
storm in its log), keeps answering from the index as it is, answers after a restart on the still-full disk, and
indexes the edits it could not write once space is freed."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from livekit import eventually
from lspkit import copy_docs, init_params, request, server_env, wait_indexed
from pytest_lsp import make_test_lsp_client

pytestmark = [
    pytest.mark.skipif(os.name != "posix" or not shutil.which("unshare") or not shutil.which("nsenter"),
                       reason="needs util-linux unshare and nsenter"),
    pytest.mark.skipif(os.name == "posix" and os.geteuid() != 0,
                       reason="entering the test's mount namespace (nsenter) needs root; CI runs as root"),
]

DISK_FULL = "disk full"


@contextlib.contextmanager
def small_disk(mount: Path):
    """A 12 MB tmpfs at `mount` in a private mount namespace, alive until the block ends. Yields the holder's pid
    (the namespace to enter)."""
    holder = subprocess.Popen(["unshare", "--mount", "--propagation", "private", "sh", "-c",
                               'mount -t tmpfs -o size=12m tmpfs "$1" && echo mounted && exec sleep 3600', "sh",
                               str(mount)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        if holder.stdout.readline().strip() != "mounted":
            pytest.fail(f"cannot mount a tmpfs in a private namespace here: {holder.stderr.read()}")
        yield holder.pid
    finally:
        holder.kill()
        holder.wait()


def fill(path: Path) -> None:
    """Write zeros to `path` until the file system refuses (ENOSPC)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError as exc:
        assert exc.errno == 28, exc
    finally:
        os.close(fd)


@contextlib.asynccontextmanager
async def server_in(ns_pid: int, folder: Path, cache: Path, log: Path):
    client = make_test_lsp_client()
    await client.start_io("nsenter", "-t", str(ns_pid), "-m", "sh", "-c", 'exec "$2" -m ragls serve 2>>"$1"', "sh",
                          str(log), sys.executable, env=server_env(cache))
    try:
        await client.initialize_session(init_params([folder], {"watch": {"debounceMs": 200}}))
        yield client
    finally:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(client.shutdown_session(), 30)
        await client.stop()


async def found(client, query: str) -> list[str]:
    result = await request(client, "rag/query", {"query": query, "topK": 3})
    return [c["source"]["path"] for c in result["chunks"]]


def disk_full_errors(status: dict) -> list[str]:
    return [e["message"] for e in status["errors"] if DISK_FULL in e["message"]]


@pytest.mark.asyncio
async def test_full_disk_is_reported_once_served_through_and_recovered(tmp_path):
    folder = copy_docs(tmp_path / "ws")
    mount = tmp_path / "small"
    mount.mkdir()
    with small_disk(mount) as ns:
        inside = Path(f"/proc/{ns}/root") / mount.relative_to("/")
        cache = mount / "cache"
        log1, log2 = tmp_path / "server1.log", tmp_path / "server2.log"
        async with server_in(ns, folder, cache, log1) as client:
            await wait_indexed(client, timeout=180)
            fill(inside / "filler")
            (folder / "guide" / "wombats.md").write_text("# Wombats\n\nThe wombat rota changes every Thursday.\n")
            status = await eventually(lambda: _status_with_disk_full(client), "rag/status to say disk full")
            assert len(disk_full_errors(status)) == 1, status["errors"]
            await asyncio.sleep(3)  # several back-off retries
            status = await request(client, "rag/status", {})
            assert len(disk_full_errors(status)) == 1, status["errors"]  # once, not once per retry
            assert "guide/deployment.md" in await found(client, "deploy to production")  # the index as it is
            warnings = [m.message for m in client.messages if DISK_FULL in m.message]
            assert len(warnings) == 1, warnings
        assert "Traceback" not in log1.read_text(), log1.read_text()[-3000:]

        # A restart on the still-full disk: every request answers (no -32603 ENOSPC), from the index as it is.
        fill(inside / "filler")  # whatever the first server's shutdown freed (its SQLite WAL) is taken again
        async with server_in(ns, folder, cache, log2) as client:
            status = await eventually(lambda: _status_with_disk_full(client), "the restarted server to say disk full")
            assert status["folders"][0]["files"] == 4
            assert "guide/deployment.md" in await found(client, "deploy to production")
            (folder / "guide" / "koalas.md").write_text("# Koalas\n\nThe koala rota changes every Friday.\n")
            await asyncio.sleep(2)
            assert "guide/koalas.md" not in await found(client, "koala rota")

            (inside / "filler").unlink()  # space returns: both edits get indexed, the error goes
            assert await eventually(lambda: _has(client, "koala rota", "guide/koalas.md"), "the koala edit")
            assert await eventually(lambda: _has(client, "wombat rota", "guide/wombats.md"), "the wombat edit")
            status = await wait_indexed(client, files=6, timeout=120)
            assert not disk_full_errors(status), status["errors"]
            assert [m for m in client.log_messages if "indexing resumed" in m.message]
        assert "Traceback" not in log2.read_text(), log2.read_text()[-3000:]
        leftovers = [p.name for p in (inside / "cache").rglob("*") if p.name.endswith(".tmp")]
        assert not leftovers, leftovers


async def _status_with_disk_full(client) -> dict | None:
    status = await request(client, "rag/status", {})
    return status if disk_full_errors(status) else None


async def _has(client, query: str, path: str) -> bool:
    return path in await found(client, query)
