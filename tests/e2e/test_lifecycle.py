"""Server lifecycle edge cases over LSP: no workspace folder, the home directory as the root, invalid settings
from the editor (fall back, say so once, keep serving)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from lsprotocol import types
from lspkit import SERVER_COMMAND, copy_docs, init_params, request, server_env, wait_indexed
from pytest_lsp import ClientServerConfig

pytestmark = pytest.mark.asyncio

HOME = Path(tempfile.mkdtemp(prefix="ragls-e2e-home-"))
ENV = {**server_env(HOME / ".cache" / "ragls"), "HOME": str(HOME)}


async def start(params: types.InitializeParams):
    client = await ClientServerConfig(server_command=SERVER_COMMAND, server_env=ENV).start()
    await client.initialize_session(params)
    return client


async def test_no_workspace_folder_indexes_nothing_and_says_so():
    client = await start(types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=None))
    try:
        for method, params in (("rag/status", {}), ("rag/query", {"query": "retries"})):
            with pytest.raises(Exception) as info:
                await request(client, method, params)
            assert getattr(info.value, "code", None) == -32803
            assert "no workspace folder" in str(info.value)
        assert client.messages == []  # no pop-up for an empty window
    finally:
        await client.shutdown_session()


async def test_home_directory_is_not_indexed_without_ragls_toml():
    (HOME / "notes.md").write_text("# Notes\n\nThe home directory must not be indexed by accident.\n")
    client = await start(init_params([HOME]))
    try:
        with pytest.raises(Exception) as info:
            await request(client, "rag/status", {})
        assert getattr(info.value, "code", None) == -32803
        assert any("not indexing" in m.message and "home directory" in m.message for m in client.messages)
    finally:
        await client.shutdown_session()


async def test_invalid_editor_settings_fall_back_and_keep_serving(tmp_path):
    ws = copy_docs(tmp_path / "docs")
    client = await start(init_params([ws], {"retrieval": {"topK": "lots"}, "chunking": {"chunkSize": 300}}))
    try:
        status = await wait_indexed(client)
        assert any("ignoring the editor's settings" in e["message"] and "retrieval.top_k" in e["message"]
                   for e in status["errors"])
        warnings = [m for m in client.messages if "ignoring the editor's settings" in m.message]
        assert len(warnings) == 1
        # The invalid layer is dropped as a whole: default chunk size 2000, so each small doc is one chunk.
        assert status["folders"][0]["chunks"] == 4
        res = await request(client, "rag/query", {"query": "how long do tokens last"})
        assert res["chunks"][0]["source"]["path"] == "api/authentication.rst"
    finally:
        await client.shutdown_session()
