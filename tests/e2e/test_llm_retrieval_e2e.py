"""LLM-assisted retrieval over LSP: the real server over stdio with the loopback LLM as generation backend
(initializationOptions); `expand: true` on rag/query runs multi-query expansion for that request only, the result
carries `llmCalls` and (explained) each chunk's `transforms`; a non-boolean `expand` is -32602; rag/status
counts the server's calls."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
import pytest_lsp
from llm_server import LLMServer, route
from lspkit import SERVER_COMMAND, init_params, request, server_env, wait_indexed
from pytest_lsp import ClientServerConfig, LanguageClient

pytestmark = pytest.mark.asyncio(loop_scope="module")

CACHE_DIR = Path(tempfile.mkdtemp(prefix="ragls-e2e-llmq-"))
LLM = LLMServer(route({"rephrasings": "spawn a thread and join it\nchannels between threads"})).start()
DOCS = {
    "threads.md": "# Threads\n\nSpawn a thread with `thread::spawn` and wait for it with `join`. Channels send "
                  "values between threads.\n",
    "cargo.md": "# Cargo\n\nCargo builds your package, downloads its dependencies and runs the tests.\n",
    "traits.md": "# Traits\n\nA trait defines shared behaviour; generic functions take trait bounds.\n",
    "errors.md": "# Errors\n\nFunctions that can fail return `Result`; the `?` operator propagates the error.\n",
}
QUESTION = "how do I run two computations at once"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ws") / "docs"
    folder.mkdir()
    for name, text in DOCS.items():
        (folder / name).write_text(text)
    return folder


@pytest_lsp.fixture(scope="module", loop_scope="module",
                    config=ClientServerConfig(server_command=SERVER_COMMAND, server_env=server_env(CACHE_DIR)))
async def client(lsp_client: LanguageClient, workspace):
    options = {"generation": {"backend": "openai", "base_url": LLM.openai_url, "model": "test-model"}}
    await lsp_client.initialize_session(init_params([workspace], options))
    await wait_indexed(lsp_client)
    yield
    await lsp_client.shutdown_session()


async def test_expand_true_runs_expansion_for_that_request(client):
    plain = await request(client, "rag/query", {"query": QUESTION, "topK": 3})
    assert "llmCalls" not in plain and LLM.requests == []  # no step configured, none asked for
    res = await request(client, "rag/query", {"query": QUESTION, "topK": 3, "expand": True, "explain": True})
    assert len(LLM.requests) == 1 and "Write 3 different rephrasings" in LLM.requests[0].last_user_text()
    assert res["llmCalls"]["steps"] == {"expand": {"calls": 1, "failures": 0}}
    assert res["llmCalls"]["queries"]["expand"] == ["spawn a thread and join it", "channels between threads"]
    first = res["chunks"][0]
    assert first["source"]["path"] == "threads.md" and first["transforms"] == ["expand"]
    assert first["signals"].get("expand1_bm25") == 1, first["signals"]
    status = await request(client, "rag/status", {})
    assert status["llmCalls"]["steps"]["expand"]["calls"] == 1


async def test_a_non_boolean_expand_is_invalid_params(client):
    with pytest.raises(Exception) as info:
        await request(client, "rag/query", {"query": QUESTION, "expand": "yes"})
    assert getattr(info.value, "code", None) == -32602
