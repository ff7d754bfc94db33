"""A file whose name is not valid UTF-8 (`caf\\xe9.md`, Latin-1 bytes) is returned by a query and read back by
`read_passage` (rag/readPassage, MCP read_passage) from its uri and from the readable path the query shows."""

from __future__ import annotations

import os

import pytest
from ragls.lsp.wire import to_wire_source
from ragls.sources.passage import read_passage
from ragls.workspace.rag_workspace import RagWorkspace

pytestmark = pytest.mark.skipif(os.name != "posix", reason="byte file names")


def test_latin1_name_reads_back(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGLS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RAGLS_OFFLINE", "1")
    folder = tmp_path / "ws"
    folder.mkdir()
    try:
        with open(os.path.join(os.fsencode(folder), b"caf\xe9.md"), "w") as fh:
            fh.write("# Menu\n\nThe espresso costs two euros.\nThe croissant costs one euro.\n")
    except OSError:
        pytest.skip("this file system refuses non-UTF-8 names")
    ws = RagWorkspace([folder])
    try:
        ws.index()
        src = to_wire_source(ws.query("how much is the espresso", top_k=1).hits[0].chunk)
        assert src["path"] == "caf\ufffd.md" and src["uri"].endswith("/caf%E9.md")
        for asked in (src["uri"], src["path"], str(folder / "caf\ufffd.md")):
            passage = read_passage(ws.indexes, asked, 3, 3)
            assert passage.text == "The espresso costs two euros.", asked
            assert passage.path == "caf\ufffd.md" and passage.uri == src["uri"]
    finally:
        ws.close()


def test_a_file_the_include_globs_leave_out_is_refused_naming_them(tmp_path, monkeypatch):
    """`conf.py` beside the docs (code is opt-in) is no indexed file: the refusal names sources.include, the reason
    a reader of a documentation folder most often meets, beside ignored, excluded, secret or binary files."""
    from ragls.core.errors import InvalidParams

    monkeypatch.setenv("RAGLS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RAGLS_OFFLINE", "1")
    folder = tmp_path / "ws"
    folder.mkdir()
    (folder / "index.rst").write_text("Intro\n=====\n\nThe project documentation.\n")
    (folder / "conf.py").write_text("project = 'demo'\n")
    ws = RagWorkspace([folder])
    try:
        ws.index()
        assert read_passage(ws.indexes, "index.rst", 4, 4).text == "The project documentation."
        with pytest.raises(InvalidParams, match=r"'conf.py' is not an indexed file \(not present, or left out of "
                                                r"the index: not a type sources.include takes"):
            read_passage(ws.indexes, "conf.py", 1, 1)
    finally:
        ws.close()


def test_a_skipped_file_is_refused_with_the_reason_it_was_skipped(tmp_path, monkeypatch):
    """An empty file, a symlink loop or a file over `max_file_bytes` is listed as skipped with its reason by
    rag/status; reading it (rag/readPassage, MCP read_passage) said only "not present, or left out of the index: …
    ignored, excluded, secret or binary", none of which was the cause (found reading a symlink loop over LSP)."""
    from ragls.core.errors import InvalidParams

    monkeypatch.setenv("RAGLS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RAGLS_OFFLINE", "1")
    folder = tmp_path / "ws"
    folder.mkdir()
    (folder / "index.md").write_text("# Intro\n\nThe project documentation.\n")
    (folder / "empty.md").write_text("")
    os.symlink("loop2.md", folder / "loop1.md")
    os.symlink("loop1.md", folder / "loop2.md")
    ws = RagWorkspace([folder])
    try:
        ws.index()
        with pytest.raises(InvalidParams, match=r"^'empty.md' is not indexed: empty file$"):
            read_passage(ws.indexes, "empty.md", 1, 1)
        with pytest.raises(InvalidParams, match=r"/loop1.md' is not indexed: symlink that cannot be followed"):
            read_passage(ws.indexes, str(folder / "loop1.md"), 1, 1)
        with pytest.raises(InvalidParams, match=r"'nope.md' is not an indexed file \(not present"):
            read_passage(ws.indexes, "nope.md", 1, 1)
    finally:
        ws.close()
