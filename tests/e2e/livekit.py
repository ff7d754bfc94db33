"""Helpers of the live-index tests over LSP (test_live, test_live_churn, test_mcp, test_rags_live): a workspace of
small files, a started server (`python -m ragls serve` through pytest-lsp), awaiting a condition, and the three
stores read from disk to compare with a clean rebuild (the `rebuild_clean` fixture is in tests/e2e/conftest.py)."""

from __future__ import annotations

import asyncio
import contextlib
import re
import sqlite3
from collections import Counter
from pathlib import Path

from lspkit import SERVER_COMMAND, init_params, request, server_env
from pytest_lsp import make_test_lsp_client

OPTIONS = {"chunking": {"chunkSize": 300}, "watch": {"debounceMs": 200}}
# A first index (the model load, 36 files in test_live) or a watcher-driven re-index on a loaded machine: waits return
# as soon as the state is reached, so only a failure costs the full budget (lspkit.wait_indexed: 240 s too).
TIMEOUT = 240.0

PARA = (" It is written long enough that two sections never share one chunk of 300 characters, so an edit to"
        " one section leaves the chunks of the others as they were.")
FILES = {
    "guide/retries.md": "# Retries\n\nA request is retried three times with exponential backoff." + PARA
                        + "\n\n## Budget\n\nThe retry budget caps retries at ten percent of traffic." + PARA + "\n",
    "guide/deploy.md": "# Deploy\n\nThe service is deployed with blue green rollouts." + PARA + "\n",
    "notes.txt": "Team notes\n\nThe on-call rotation changes every Monday.\n",
    "api/auth.rst": "Authentication\n==============\n\nAccess tokens expire after one hour.\n",
}


# -- helpers -------------------------------------------------------------------------------------------------
def make_workspace(root: Path, files: dict[str, str] = FILES) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


@contextlib.asynccontextmanager
async def running_server(folder: Path, cache: Path, extra_env: dict[str, str] | None = None,
                         options: dict | None = None, command: list[str] | None = None):
    """A started and initialized server (`command`: the argv that runs it, default SERVER_COMMAND); shut down (or
    reaped, if it died) on exit."""
    client = make_test_lsp_client()
    env = server_env(cache)
    env.update(extra_env or {})
    await client.start_io(*(command or SERVER_COMMAND), env=env)
    try:
        await client.initialize_session(init_params([folder], options or OPTIONS))
        yield client
    finally:
        proc = client._server
        if proc is not None and proc.returncode is None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(client.shutdown_session(), 30)
        if proc is not None and proc.returncode is None:
            proc.kill()
        await client.stop()


async def eventually(check, what: str, timeout: float = TIMEOUT):
    """Await `check()` until it returns a truthy value; returns it. Fails with `what` after `timeout` s."""
    deadline = asyncio.get_running_loop().time() + timeout
    last = None
    while asyncio.get_running_loop().time() < deadline:
        last = await check()
        if last:
            return last
        await asyncio.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}; last: {last!r}")


async def paths_for(client, query: str, top_k: int = 10) -> list[str]:
    res = await request(client, "rag/query", {"query": query, "topK": top_k})
    return [c["source"]["path"] for c in res["chunks"] if query.split()[0] in c["text"]]


async def index_dir_of(client) -> Path:
    status = await request(client, "rag/status", {})
    return Path(status["folders"][0]["indexPath"])


def log_lines(client, pattern: str) -> list[re.Match]:
    rx = re.compile(pattern)
    return [m for msg in client.log_messages if (m := rx.search(msg.message))]


def model_total(client) -> int:
    """Chunks the server's model has embedded so far (0 before its first embedding batch)."""
    found = log_lines(client, r"total computed by the model: (\d+)")
    return int(found[-1].group(1)) if found else 0


def index_state(index_dir: Path) -> dict:
    """Everything the three stores hold, read from disk by this (reader) process."""
    import lancedb
    from ragls.stores.bm25 import Bm25Store

    db = sqlite3.connect(f"file:{index_dir / 'manifest.sqlite'}?mode=ro", uri=True)
    rows = db.execute("SELECT id, path, start_line, start_char, end_line, end_char, title, text FROM chunks").fetchall()
    files = {r[0] for r in db.execute("SELECT path FROM files")}
    journal = db.execute("SELECT COUNT(*) FROM journal").fetchone()[0]
    db.close()
    bm25 = Bm25Store(index_dir / "bm25", writable=False)
    db = lancedb.connect(str(index_dir / "vectors"))
    # An index synced with embed=False never opened its vector store: no table, no rows. (stores/vectors.py)
    vec = []
    if "windows" in db.list_tables().tables:  # one row per embedding window; window 0 = the chunk's first vector
        rows_ = db.open_table("windows").to_arrow().select(["id", "path", "window"]).to_pylist()
        vec = [v for v in rows_ if v["window"] == 0]
    return {
        "chunks": {r[1:] for r in rows}, "ids": {r[0]: r[1] for r in rows}, "files": files, "journal": journal,
        "bm25_ids": Counter(bm25.ids()), "vector_rows": Counter((v["id"], v["path"]) for v in vec),
    }


def assert_consistent(state: dict) -> None:
    """BM25 and vectors agree one-to-one with the manifest; no journal left."""
    ids = state["ids"]
    assert state["journal"] == 0
    assert state["bm25_ids"] == Counter(list(ids)), "BM25 documents differ from the manifest's chunks"
    assert state["vector_rows"] == Counter(ids.items()), "vector rows differ from the manifest's chunks"


def assert_equals_clean(state: dict, clean: dict) -> None:
    assert_consistent(state)
    assert state["files"] == clean["files"]
    assert state["chunks"] == clean["chunks"]


# -- one server for the editing tests ------------------------------------------------------------------------


async def _not(coro):
    return not await coro
