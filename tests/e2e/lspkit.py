"""Helpers for end-to-end tests: a real LSP client (pytest-lsp) talking to `python -m ragls serve` over stdio."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import sys
from pathlib import Path

from lsprotocol import types
from pytest_lsp import make_test_lsp_client

FIXTURE_DOCS = Path(__file__).resolve().parents[1] / "fixtures" / "docs"
SERVER_COMMAND = [sys.executable, "-m", "ragls", "serve"]


def copy_docs(dest: Path) -> Path:
    """A private copy of the fixture docs (tests edit files)."""
    shutil.copytree(FIXTURE_DOCS, dest)
    return dest


def server_env(cache_dir: Path) -> dict[str, str]:
    """Environment for the server: its cache (indexes, offline model copy) in a temp dir, no network probes."""
    env = dict(os.environ)
    env.update({"RAGLS_CACHE_DIR": str(cache_dir), "RAGLS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"})
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        env.pop(key, None)
    return env


def init_params(folders: list[Path], options: dict | None = None,
                capabilities: types.ClientCapabilities | None = None,
                client_name: str | None = None) -> types.InitializeParams:
    from ragls.core.uris import path_to_uri

    return types.InitializeParams(
        capabilities=capabilities or types.ClientCapabilities(
            window=types.WindowClientCapabilities(work_done_progress=True),
            general=types.GeneralClientCapabilities(position_encodings=["utf-8", "utf-16"]),
        ),
        root_uri=path_to_uri(folders[0]),
        workspace_folders=[types.WorkspaceFolder(uri=path_to_uri(f), name=f.name) for f in folders],
        initialization_options=options or {},
        client_info=types.ClientInfo(name=client_name) if client_name else None,
    )


async def request(client, method: str, params: dict):
    """Send a custom request; returns the result as plain dicts/lists."""
    result = await client.protocol.send_request_async(method, params)
    return plain(result)


def plain(obj):
    if hasattr(obj, "_asdict"):
        return {k: plain(v) for k, v in obj._asdict().items()}
    if isinstance(obj, (list, tuple)):
        return [plain(v) for v in obj]
    return obj


async def wait_indexed(client, files: int | None = None, timeout: float = 240.0) -> dict:
    """Poll rag/status until nothing is queued, every chunk has its vector and (optionally) `files` are indexed."""
    deadline = asyncio.get_running_loop().time() + timeout
    status = {}
    while asyncio.get_running_loop().time() < deadline:
        status = await request(client, "rag/status", {})
        folders = status["folders"]
        done = all(f["pending"] == 0 and f["pendingVectors"] == 0 and f["lastIndexedAt"] for f in folders)
        if done and (files is None or sum(f["files"] for f in folders) == files):
            return status
        await asyncio.sleep(0.2)
    raise AssertionError(f"index not ready in {timeout} s: {status}")


@contextlib.asynccontextmanager
async def lsp_server(folder: Path | list[Path], env: dict[str, str], options: dict):
    """`ragls serve` started with the whole environment `env`, initialized on `folder` (or the workspace folders
    of a list) with `options` (initializationOptions); shut down (or killed) on exit."""
    client = make_test_lsp_client()
    await client.start_io(*SERVER_COMMAND, env=env)
    try:
        await client.initialize_session(init_params(folder if isinstance(folder, list) else [folder], options))
        yield client
    finally:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(client.shutdown_session(), 30)
        if client._server is not None and client._server.returncode is None:
            client._server.kill()
        await client.stop()
