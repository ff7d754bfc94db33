"""The recorded capability sets of real clients (pytest-lsp's Neovim and VS Code): the server pins the position
encoding to UTF-16 (docs/protocol.md) even when the client prefers UTF-8, and answers rag/query with UTF-16 columns."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from lspkit import SERVER_COMMAND, init_params, request, server_env, wait_indexed
from lsprotocol import types
from pytest_lsp import ClientServerConfig, client_capabilities

SHARED_EMBEDDING_CACHE = True  # tests/conftest.py `_run_embedding_cache`: nothing here counts what the model embedded

pytestmark = pytest.mark.asyncio

CACHE_DIR = Path(tempfile.mkdtemp(prefix="ragls-e2e-caps-"))

# "🦀" is one code point but two UTF-16 code units (and four UTF-8 bytes): the chunk's end column tells which.
TEXT = "# Crabs\n\nThe 🦀 mascot of the gondola project is called Ferris.\n"


@pytest.mark.parametrize("client_name", ["neovim", "visual_studio_code"])
async def test_utf16_positions_whatever_the_client_prefers(client_name, tmp_path):
    (tmp_path / "crab.md").write_text(TEXT, encoding="utf-8")
    client = await ClientServerConfig(server_command=SERVER_COMMAND, server_env=server_env(CACHE_DIR)).start()
    try:
        result = await client.initialize_session(init_params([tmp_path], capabilities=client_capabilities(client_name)))
        assert result.capabilities.position_encoding in (None, types.PositionEncodingKind.Utf16)
        await wait_indexed(client, files=1)
        res = await request(client, "rag/query", {"query": "gondola mascot Ferris", "topK": 1})
        rng = res["chunks"][0]["source"]["range"]
        last_line = TEXT.splitlines()[-1]
        assert rng["end"] == {"line": 2, "character": len(last_line.encode("utf-16-le")) // 2}
        assert rng["end"]["character"] == len(last_line) + 1  # the crab counts twice in UTF-16
    finally:
        await client.shutdown_session()
