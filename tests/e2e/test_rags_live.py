"""A named RAG of local files in a running server (real server over stdio, real stores, offline MiniLM): edits,
additions and deletions in its folder reach `rag/query {rag}` without a restart."""

from __future__ import annotations

import pytest
from livekit import eventually, running_server
from lspkit import request, wait_indexed
from ragls.config.trust import trust as trust_folder

SHARED_EMBEDDING_CACHE = True  # tests/conftest.py `_run_embedding_cache`: nothing here counts what the model embedded

pytestmark = pytest.mark.asyncio(loop_scope="function")


async def rag_texts(client, query: str) -> list[tuple[str, str]]:
    res = await request(client, "rag/query", {"query": query, "rag": "handbook", "topK": 10})
    return sorted((c["source"]["path"].rsplit("/", 1)[-1], c["text"]) for c in res["chunks"])


async def test_local_rag_sees_edits_without_restart(tmp_path):
    hb = tmp_path / "handbook"
    hb.mkdir()
    (hb / "frob.md").write_text("# Frob\n\nThe frobnicator is off by default.\n")
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "readme.md").write_text("# Readme\n\nNothing about anything.\n")
    (ws / "ragls.toml").write_text('[rags.handbook]\nsources = ["../handbook"]\n')
    trust_folder(ws)  # the user trusts this test's own folder (ragls/config/trust.py)
    async with running_server(ws, tmp_path / "cache", {"RAGLS_CONFIG_DIR": str(tmp_path / "config")}) as c:
        await wait_indexed(c, files=1)
        assert await rag_texts(c, "frobnicator default") == [
            ("frob.md", "# Frob\n\nThe frobnicator is off by default.")]
        (hb / "frob.md").write_text("# Frob\n\nThe frobnicator is on by default since 2.0.\n")
        (hb / "zebra.md").write_text("# Zebra\n\nThe zebra page mentions the frobnicator default too.\n")
        expected = [("frob.md", "# Frob\n\nThe frobnicator is on by default since 2.0."),
                    ("zebra.md", "# Zebra\n\nThe zebra page mentions the frobnicator default too.")]
        await eventually(lambda: _is(rag_texts(c, "frobnicator default"), expected), "the RAG folder's edits")
        (hb / "zebra.md").unlink()
        await eventually(lambda: _is(rag_texts(c, "frobnicator default"), expected[:1]), "the deleted RAG file")
        listed = {e["name"]: e for e in await request(c, "rag/list", {})}
        assert (listed["handbook"]["files"], listed["handbook"]["chunks"]) == (1, 1)


async def _is(coro, expected):
    return await coro == expected
