"""Named RAGs over a real LSP stdio session: a RAG declared in the user config (outside the workspace) answers
rag/query {rag: NAME}; rag/list reports it; editing its sources re-indexes exactly what changed; an unknown name
is -32602 listing the known ones; rag/rebuild {rag}."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
import pytest_lsp
from lspkit import SERVER_COMMAND, init_params, request, server_env, wait_indexed
from pygls.exceptions import JsonRpcInvalidParams
from pytest_lsp import ClientServerConfig, LanguageClient

pytestmark = pytest.mark.asyncio(loop_scope="module")

ROOT = Path(tempfile.mkdtemp(prefix="ragls-e2e-rags-"))
CONFIG = ROOT / "config"
NOTES = ROOT / "notes"
PROJECT = ROOT / "project"


def _setup() -> dict[str, str]:
    CONFIG.mkdir()
    NOTES.mkdir()
    PROJECT.mkdir()
    (PROJECT / "readme.md").write_text("# Project\n\nThe project builds with make and ships a container.\n")
    (NOTES / "garden.md").write_text("# Garden\n\nTomatoes need six hours of sun every day.\n")
    (NOTES / "bread.md").write_text("# Bread\n\nSourdough rises overnight in a cool kitchen.\n")
    (NOTES / "bees.md").write_text("# Bees\n\nBees visit the lavender in the morning.\n")
    (CONFIG / "ragls.toml").write_text(f'[rags.notes]\nsources = ["{NOTES}/garden.md;{NOTES}/bread.md"]\n')
    env = server_env(ROOT / "cache")
    env["RAGLS_CONFIG_DIR"] = str(CONFIG)
    return env


ENV = _setup()


@pytest_lsp.fixture(scope="module", loop_scope="module",
                    config=ClientServerConfig(server_command=SERVER_COMMAND, server_env=ENV))
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(init_params([PROJECT]))
    await wait_indexed(lsp_client)
    yield
    await lsp_client.shutdown_session()


async def test_named_rag_answers_and_lists(client):
    res = await request(client, "rag/query", {"query": "how much sun do tomatoes need", "rag": "notes", "topK": 1})
    [chunk] = res["chunks"]
    assert chunk["source"]["path"] == f"{NOTES}/garden.md"
    assert chunk["source"]["uri"] == (NOTES / "garden.md").as_uri()
    assert not res["abstained"]

    default = await request(client, "rag/query", {"query": "how much sun do tomatoes need"})
    assert {c["source"]["path"] for c in default["chunks"]} == {"readme.md"}  # "workspace" is the default

    rags = await request(client, "rag/list", {})
    assert [r["name"] for r in rags] == ["workspace", "notes"]
    notes = rags[1]
    assert (notes["files"], notes["chunks"], notes["errors"]) == (2, 2, [])
    assert notes["sources"] == [f"{NOTES}/garden.md;{NOTES}/bread.md"]
    assert notes["lastIndexedAt"] and "pendingVectors" in notes


async def test_editing_sources_reindexes_exactly_what_changed(client):
    (CONFIG / "ragls.toml").write_text(f'[rags.notes]\nsources = ["{NOTES}/bread.md", "{NOTES}/bees.md"]\n')
    res = await request(client, "rag/query", {"query": "when do bees visit the lavender", "rag": ["notes"],
                                              "topK": 5})
    paths = [c["source"]["path"] for c in res["chunks"]]
    assert paths[0] == f"{NOTES}/bees.md" and f"{NOTES}/garden.md" not in paths
    [notes] = [r for r in await request(client, "rag/list", {}) if r["name"] == "notes"]
    assert notes["files"] == 2


async def test_unknown_rag_is_invalid_params(client):
    with pytest.raises(JsonRpcInvalidParams, match="unknown rag 'nope'; known: workspace, notes"):
        await request(client, "rag/query", {"query": "bread", "rag": "nope"})
    with pytest.raises(JsonRpcInvalidParams, match="unknown rag 'nope'"):
        await request(client, "rag/rebuild", {"rag": "nope"})


async def test_rebuild_named_rag(client):
    res = await request(client, "rag/rebuild", {"rag": "notes"})
    assert (res["rag"], res["files"], res["skipped"]) == ("notes", 2, [])
