"""An error of a request that names a setting a file set says which file (config/setting_names.py, lsp/handlers.py
`for_editor`): rag/query with `retrieval.rerank_backend = "llm"` and `generation.backend = "none"` in the user's own
ragls.toml said "generation.backend in ragls.toml or settings.generation.backend in require("ragls").setup()", so
the user searched the folder for a ragls.toml it did not have (session 68's LLM-down error was named so; the others
were not). Real components: the server over stdio, a real index, the user's file through `RAGLS_CONFIG_DIR`."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
import pytest_lsp
from lspkit import SERVER_COMMAND, copy_docs, init_params, request, server_env, wait_indexed
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient

ROOT = Path(tempfile.mkdtemp(prefix="ragls-e2e-names-file-"))
CONFIG = ROOT / "config"
ENV = {**server_env(ROOT / "cache"), "RAGLS_CONFIG_DIR": str(CONFIG), "RAGLS_DATA_DIR": str(ROOT / "data")}
CONFIG.mkdir()
(CONFIG / "ragls.toml").write_text('[generation]\nbackend = "none"\n[retrieval]\nrerank_backend = "llm"\n')
USER_FILE = str(CONFIG / "ragls.toml")


@pytest_lsp.fixture(scope="module", loop_scope="module",
                    config=ClientServerConfig(server_command=SERVER_COMMAND, server_env=ENV))
async def client(lsp_client: LanguageClient, tmp_path_factory):
    docs = copy_docs(tmp_path_factory.mktemp("names") / "docs")
    await lsp_client.initialize_session(init_params([docs], {}, client_name="Neovim"))
    await wait_indexed(lsp_client)
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio(loop_scope="module")
async def test_a_query_error_names_the_file_that_set_the_setting(client):
    with pytest.raises(JsonRpcException) as err:
        await request(client, "rag/query", {"query": "How do I disable retries?"})
    message = str(err.value)
    assert err.value.code == -32803, message
    assert f'needs a generation backend (generation.backend in {USER_FILE} and its API key)' in message, message
    assert "ragls.toml or" not in message and "setup()" not in message
