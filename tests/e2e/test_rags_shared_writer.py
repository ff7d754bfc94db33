"""One named RAG, two open workspaces (two editor windows: two ragls servers sharing the user config and the cache):
the first to use the RAG writes its index. `rag/rebuild {rag}` in the other one is a -32803 RequestFailed saying
who writes the index and what to do — never an empty report that looks like a rebuild; once the writer's editor
closes, the other workspace takes the index over and rebuilds it."""

from __future__ import annotations

import contextlib

import pytest
from livekit import running_server
from lspkit import request, wait_indexed
from pygls.exceptions import JsonRpcException

SHARED_EMBEDDING_CACHE = True  # tests/conftest.py `_run_embedding_cache`: nothing here counts what the model embedded

pytestmark = pytest.mark.asyncio(loop_scope="function")


async def test_rebuild_of_a_rag_another_workspace_writes_says_so(tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "garden.md").write_text("# Garden\n\nTomatoes need six hours of sun every day.\n")
    (notes / "bread.md").write_text("# Bread\n\nSourdough rises overnight in a cool kitchen.\n")
    config = tmp_path / "config"
    config.mkdir()
    (config / "ragls.toml").write_text(f'[rags.notes]\nsources = ["{notes.as_posix()}"]\n')
    env = {"RAGLS_CONFIG_DIR": str(config)}
    first, second = tmp_path / "first", tmp_path / "second"
    for ws in (first, second):
        ws.mkdir()
        (ws / "readme.md").write_text(f"# {ws.name}\n\nA project folder.\n")
    cache = tmp_path / "cache"
    async with contextlib.AsyncExitStack() as stack:
        a = await stack.enter_async_context(running_server(first, cache, env))
        await wait_indexed(a, files=1)
        rebuilt = await request(a, "rag/rebuild", {"rag": "notes"})  # the first to use it: its writer
        assert (rebuilt["rag"], rebuilt["files"], rebuilt["chunks"]) == ("notes", 2, 2)
        async with running_server(second, cache, env) as b:
            await wait_indexed(b, files=1)
            hits = await request(b, "rag/query", {"query": "sourdough overnight", "rag": "notes", "topK": 1})
            assert hits["chunks"][0]["source"]["path"].endswith("bread.md")  # it reads what the writer indexed
            with pytest.raises(JsonRpcException) as err:
                await request(b, "rag/rebuild", {"rag": "notes"})
            assert err.value.code == -32803
            message = str(err.value)
            assert "rag 'notes': its index (" in message
            assert "is being written by another open workspace — an editor's ragls server (pid " in message
            assert "nothing was rebuilt. Rebuild 'notes' from that workspace, or close that workspace" in message
            listed = {e["name"]: e for e in await request(b, "rag/list", {})}
            assert (listed["notes"]["files"], listed["notes"]["chunks"]) == (2, 2)  # nothing was wiped
            await stack.aclose()  # the writer's editor closes: the next rebuild here takes the index over
            rebuilt = await request(b, "rag/rebuild", {"rag": "notes"})
            assert (rebuilt["rag"], rebuilt["files"], rebuilt["chunks"]) == ("notes", 2, 2)
