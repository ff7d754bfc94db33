"""Graph RAG and the reranker over LSP: the real server over stdio indexes a folder whose ragls.toml points graph
extraction at the loopback LLM server (fixed extraction JSON per chunk, tests/graph_fixture.py); rag/query shows
the graph signal, rag/status counts the invalid-JSON chunk, and didChangeConfiguration to a reranker turns the
graph signal off in favour of `signals.rerank`."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

import pytest
import pytest_lsp
from graph_fixture import QUESTION, extraction_handler, write_folder
from llm_server import LLMServer
from lspkit import SERVER_COMMAND, init_params, request, server_env, wait_indexed
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient
from tiny_cross_encoder import make_cross_encoder_dir

pytestmark = pytest.mark.asyncio(loop_scope="module")

CACHE_DIR = Path(tempfile.mkdtemp(prefix="ragls-e2e-graph-"))


@pytest.fixture(scope="module")
def llm():
    with LLMServer(extraction_handler) as srv:
        yield srv


@pytest.fixture(scope="module")
def workspace(llm, tmp_path_factory):
    return write_folder(tmp_path_factory.mktemp("ws") / "docs", llm)


@pytest_lsp.fixture(scope="module", loop_scope="module",
                    config=ClientServerConfig(server_command=SERVER_COMMAND, server_env=server_env(CACHE_DIR)))
async def client(lsp_client: LanguageClient, workspace):
    await lsp_client.initialize_session(init_params([workspace]))
    await wait_indexed(lsp_client)
    yield
    await lsp_client.shutdown_session()


async def graph_query(client, timeout: float = 240.0) -> dict:
    """rag/query with explain, polled until the background extraction (an LLM call per chunk, then the graph build)
    has produced the graph signal; returns at once when it has, so the budget is for a loaded machine."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        res = await request(client, "rag/query", {"query": QUESTION, "topK": 3, "explain": True})
        if any("graph" in c["signals"] for c in res["chunks"]) or asyncio.get_running_loop().time() > deadline:
            return res
        await asyncio.sleep(0.3)


async def test_graph_signal_over_lsp(client, llm):
    res = await graph_query(client)
    by_path = {c["source"]["path"]: c["signals"] for c in res["chunks"]}
    assert by_path["ferris.md"]["graph"] == 1
    assert by_path["zorblax.md"]["graph"] == 2  # linked via one hop, shares no word with the question
    assert all(m.model == "extractor-test" for m in llm.requests)


async def test_status_counts_invalid_json(client):
    status = await request(client, "rag/status", {})
    messages = [e["message"] for e in status["errors"]]
    assert "graph extraction: 1 chunk gave invalid JSON (see the server log)" in messages
    required = {"folders", "embeddingModel", "store", "fingerprint", "generation", "errors", "llmCalls"}
    optional = {"notices", "noticeLevels", "embeddingMaxLength", "embeddingSource", "embeddingRequested"}
    assert required <= set(status) <= required | optional  # docs/protocol.md rag/status
    assert status["llmCalls"] == {"steps": {}}  # graph extraction is not a retrieval step; no query LLM step is on


async def test_reranker_replaces_graph_signal(client, tmp_path_factory):
    model_dir = make_cross_encoder_dir(tmp_path_factory.mktemp("xenc"), "cold")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"ragls": {"rag_reranker_model_path": str(model_dir)}}))
    deadline = asyncio.get_running_loop().time() + 120
    while True:
        # Requests wait for the reopened workspace (LspServer.get_workspace); it answers from BM25 alone until its
        # vector store is open again. Any error answer fails the test.
        status = await request(client, "rag/status", {})
        if not any(f["pendingVectors"] for f in status["folders"]):
            res = await request(client, "rag/query", {"query": QUESTION, "topK": 3, "explain": True})
            if res["chunks"] and "rerank" in res["chunks"][0]["signals"]:
                break
        assert asyncio.get_running_loop().time() < deadline, "reranker never took effect"
        await asyncio.sleep(0.3)
    top = res["chunks"][0]
    assert top["source"]["path"] == "zorblax.md" and top["signals"]["rerank"] == 1.0  # the only "cold" chunk
    assert all("graph" not in c["signals"] for c in res["chunks"])
