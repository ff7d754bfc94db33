"""One live workspace behind every front (`ragls.workspace.live.LiveWorkspace`): the same scenario observed from `ragls serve`
(a real LSP client over stdio), `ragls mcp` (the MCP SDK's client) and `ragls http` (httpx), each a real process
with real stores (BM25 answers; the model loads in the background):

- an edit of a trusted folder's `ragls.toml` that changes a setting reopens the workspace (`retrieval.top_k`
  applies) and the `[rags.handbook]` it adds is synced in the background, before any request names it (read from
  disk by a read-only registry, as `ragls rag list` reads it);
- requests sent while the workspace reopens, and requests naming the RAG while an edit of its table replaces it,
  all answer (a RAG in use is never closed under a request);
- an untrusted edit reopens with only what an untrusted file may set (its outside RAG source is left out), and
  naming the RAG is then the same error everywhere (-32602, `errors.error_kind`).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import sys
from pathlib import Path

import httpx
import pytest
from livekit import FILES, eventually, make_workspace, running_server
from lspkit import request, server_env
from mcpkit import McpProcess
from ragls.config.trust import trust as trust_folder

SHARED_EMBEDDING_CACHE = True  # tests/conftest.py `_run_embedding_cache`: nothing here counts what the model embedded

pytestmark = pytest.mark.asyncio(loop_scope="function")

BASE = "[chunking]\nchunk_size = 300\n"
WITH_RAG = BASE + '[retrieval]\ntop_k = 2\n[rags.handbook]\nsources = ["../handbook"]\n'
QUERY = "retried budget deployed rotation tokens"  # BM25 finds a chunk of every file


class Lsp:
    def __init__(self, client):
        self.client = client

    async def error(self, text: str, rag: str) -> dict:
        with pytest.raises(Exception) as failed:
            await request(self.client, "rag/query", {"query": text, "rag": rag})
        return {"code": failed.value.code, "message": failed.value.message}

    async def query(self, text: str, rag: str | None = None) -> list[str]:
        res = await request(self.client, "rag/query", {"query": text, **({"rag": rag} if rag else {})})
        return [Path(c["source"]["path"]).name for c in res["chunks"]]


class Mcp:
    def __init__(self, proc: McpProcess):
        self.proc = proc

    async def error(self, text: str, rag: str) -> dict:
        result = await self.proc.call("search_docs", {"query": text, "rag": rag})
        assert result.is_error and result.content[0].text == result.structured_content["error"]["message"]
        return result.structured_content["error"]

    async def query(self, text: str, rag: str | None = None) -> list[str]:
        data = await self.proc.data("search_docs", {"query": text, **({"rag": rag} if rag else {})})
        return [Path(r["path"]).name for r in data["results"]]


class Http:
    def __init__(self, base: str):
        self.base = base

    async def error(self, text: str, rag: str) -> dict:
        async with httpx.AsyncClient(timeout=120) as client:
            r = await client.post(f"{self.base}/retrieve", json={"query": text, "rag": rag})
        assert r.status_code == 400 and r.headers["content-type"] == "application/json"
        return r.json()["error"]

    async def query(self, text: str, rag: str | None = None) -> list[str]:
        async with httpx.AsyncClient(timeout=120) as client:
            r = await client.post(f"{self.base}/retrieve", json={"query": text, **({"rag": rag} if rag else {})})
        assert r.status_code == 200, r.text
        return [Path(c["source"]["path"]).name for c in r.json()["chunks"]]


@pytest.fixture
def folders(tmp_path, monkeypatch):
    """(workspace folder, server environment): the folder trusted with BASE, a handbook folder beside it."""
    handbook = tmp_path / "handbook"
    handbook.mkdir()
    (handbook / "frob.md").write_text("# Frob\n\nThe frobnicator is off by default.\n")
    ws = make_workspace(tmp_path / "ws", FILES)
    (ws / "ragls.toml").write_text(BASE)
    trust_folder(ws)
    env = {**server_env(tmp_path / "cache"), "RAGLS_CONFIG_DIR": str(tmp_path / "config")}
    for key in ("RAGLS_CACHE_DIR", "RAGLS_CONFIG_DIR"):  # the read-only registry of `rag_files` reads the same
        monkeypatch.setenv(key, env[key])
    return ws, env


def rag_files(ws: Path, name: str) -> int:
    """Files the named RAG's index holds, read from disk without writing (the way `ragls rag list` reads)."""
    from ragls.kb.rags import RagRegistry

    registry = RagRegistry(ws, read_only=True)
    try:
        return registry.get(name).info().files if name in registry.specs else 0
    except Exception:  # noqa: BLE001 - not created yet
        return 0
    finally:
        registry.close()


def edit_trusted(ws: Path, text: str) -> None:
    """The user edits ragls.toml and trusts what they wrote (the trust store first: the watcher may fire at once)."""
    trust_folder(ws, text.encode())
    (ws / "ragls.toml").write_text(text)


async def scenario(front, ws: Path) -> None:
    first = await eventually(lambda: front.query(QUERY), "the first answer")
    assert len(first) > 2  # the default top_k (5)

    during = [asyncio.create_task(front.query(QUERY)) for _ in range(3)]
    edit_trusted(ws, WITH_RAG)
    during += [asyncio.create_task(front.query(QUERY)) for _ in range(3)]
    assert all(await asyncio.gather(*during))  # requests during the reopen answer

    async def top_k_applied():
        return len(await front.query(QUERY)) == 2

    await eventually(top_k_applied, "the reopened workspace's retrieval.top_k = 2", timeout=120)

    async def synced():
        return await asyncio.to_thread(rag_files, ws, "handbook") == 1

    await eventually(synced, "the background sync of the added named RAG", timeout=120)
    assert await front.query("frobnicator default", rag="handbook") == ["frob.md"]

    # An edit of the RAG's own table replaces it while requests are searching it: every one answers.
    using = [asyncio.create_task(front.query("frobnicator default", rag="handbook")) for _ in range(4)]
    edit_trusted(ws, WITH_RAG + "chunk_size = 200\n")
    for _ in range(4):
        await asyncio.sleep(0.1)
        using.append(asyncio.create_task(front.query("frobnicator default", rag="handbook")))
    assert await asyncio.gather(*using) == [["frob.md"]] * 8

    # An edit nobody trusted: the reopened workspace takes only what an untrusted file may set — retrieval.top_k
    # applies, the RAG's source outside the folder is left out (folder trust, config/trust_filter.py).
    (ws / "ragls.toml").write_text(WITH_RAG.replace("top_k = 2", "top_k = 3"))

    async def untrusted_applied():
        return len(await front.query(QUERY)) == 3

    await eventually(untrusted_applied, "the untrusted file's retrieval.top_k = 3", timeout=120)
    error = await front.error("frobnicator default", "handbook")
    assert error["code"] == -32602 and "unknown rag 'handbook'" in error["message"]


async def test_serve(folders):
    ws, env = folders
    async with running_server(ws, Path(env["RAGLS_CACHE_DIR"]), env) as client:
        await scenario(Lsp(client), ws)


async def test_mcp(folders):
    ws, env = folders
    proc = await McpProcess([ws], Path(env["RAGLS_CACHE_DIR"]), extra_env=env).start()
    try:
        await scenario(Mcp(proc), ws)
    finally:
        await proc.stop()


@contextlib.asynccontextmanager
async def http_server(ws: Path, env: dict):
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "ragls", "http", str(ws), "--port", "0",
                                                env=env, stdout=asyncio.subprocess.DEVNULL,
                                                stderr=asyncio.subprocess.PIPE)
    drain = None
    try:
        seen = []
        while line := (await asyncio.wait_for(proc.stderr.readline(), 120)).decode():
            seen.append(line)
            if found := re.search(r"HTTP API on http://127\.0\.0\.1:(\d+) ", line):
                break
        assert found, f"ragls http exited: {''.join(seen)}"
        drain = asyncio.create_task(proc.stderr.read())  # the pipe must never fill up
        yield f"http://127.0.0.1:{found.group(1)}"
    finally:
        proc.terminate()
        await asyncio.wait_for(proc.wait(), 30)
        if drain is not None:
            with contextlib.suppress(Exception):
                await drain


async def test_http(folders):
    ws, env = folders
    async with http_server(ws, env) as base:
        await scenario(Http(base), ws)
