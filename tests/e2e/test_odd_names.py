"""Odd file and folder names over LSP: the real server over stdio, the real watcher, tantivy, LanceDB and the
offline model. A file whose name is not valid UTF-8 (latin-1 bytes) sits next to normal files; a workspace folder
has a 250-byte name."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from livekit import eventually, running_server
from lspkit import request, wait_indexed
from lsprotocol import types

SHARED_EMBEDDING_CACHE = True  # tests/conftest.py `_run_embedding_cache`: nothing here counts what the model embedded

pytestmark = pytest.mark.asyncio(loop_scope="function")

OPTIONS = {"watch": {"debounceMs": 200}}


def write_bytes_name(folder: Path, name: bytes, data: bytes) -> None:
    with open(os.path.join(os.fsencode(folder), name), "wb") as fh:
        fh.write(data)


async def top(client, text: str) -> dict | None:
    result = await request(client, "rag/query", {"query": text, "topK": 3})
    return result["chunks"][0] if result["chunks"] else None


async def test_latin1_file_name_indexes_answers_and_watcher_survives(tmp_path):
    folder = tmp_path / "ws"
    folder.mkdir()
    (folder / "guide.md").write_text("# Guide\n\nThe lighthouse keeper polishes the brass lantern nightly.\n")
    (folder / "notes.txt").write_text("Notes\n\nThe greenhouse tomatoes ripen in late August.\n")
    write_bytes_name(folder, b"caf\xe9-menu.md", b"# Menu\n\nThe cafe serves cardamom buns with espresso.\n")
    async with running_server(folder, tmp_path / "cache", options=OPTIONS) as client:
        status = await wait_indexed(client, files=3)
        assert status["folders"][0]["skipped"] == []
        assert status["errors"] == []
        assert (await top(client, "lighthouse brass lantern"))["source"]["path"] == "guide.md"
        odd = await top(client, "cardamom buns espresso")
        assert odd["source"]["path"] == "caf\ufffd-menu.md"
        assert odd["source"]["uri"].endswith("/ws/caf%E9-menu.md")  # the raw byte, as LSP clients encode it
        rebuilt = await request(client, "rag/rebuild", {})
        assert rebuilt["files"] == 3 and rebuilt["skipped"] == []

        # events on non-UTF-8 paths (an ignored image, then an edit of the odd file) keep the watcher alive
        write_bytes_name(folder, b"ph\xf6to.jpg", b"\xff\xd8\xff\xe0 not really a jpeg")
        write_bytes_name(folder, b"caf\xe9-menu.md", b"# Menu\n\nThe cafe now serves saffron waffles.\n")

        async def odd_updated():
            hit = await top(client, "saffron waffles")
            return hit if hit and hit["source"]["path"] == "caf\ufffd-menu.md" else None

        await eventually(odd_updated, "the edit of the latin-1-named file")
        (folder / "guide.md").write_text("# Guide\n\nThe lighthouse keeper now repairs the foghorn.\n")

        async def guide_updated():
            hit = await top(client, "foghorn repairs")
            return hit if hit and hit["source"]["path"] == "guide.md" else None

        await eventually(guide_updated, "the edit of a normal file after the odd events")
        # a didSave naming the odd file by its percent-encoded URI is accepted too
        client.text_document_did_save(types.DidSaveTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=odd["source"]["uri"])))
        status = await request(client, "rag/status", {})
        assert status["errors"] == []


async def test_250_byte_folder_name_answers(tmp_path):
    name = "数据" * 41 + "x"  # 82 CJK characters (246 bytes) + 1 = 247 bytes; the hash suffix used to overflow
    name = name + "abc"  # 250 bytes
    assert len(name.encode()) == 250
    folder = tmp_path / name
    folder.mkdir()
    (folder / "readme.md").write_text("# Readme\n\nThe observatory dome opens at dusk.\n")
    async with running_server(folder, tmp_path / "cache", options=OPTIONS) as client:
        status = await wait_indexed(client, files=1)
        index_name = Path(status["folders"][0]["indexPath"]).name
        assert len(index_name.encode()) <= 60 and index_name.startswith("数据")
        hit = await top(client, "observatory dome")
        assert hit is not None and hit["source"]["path"] == "readme.md"
