"""A `ragls serve --background` that reads an index while another process writes it, then takes the index over when
that process exits (a `ragls index` beside it finishing): the vector rows the writer added since the server last
looked must count as there. Real components: the writer is a RagWorkspace in this process (as `ragls index` is),
the server a real child process; real LanceDB, tantivy and the offline all-MiniLM-L6-v2."""

from __future__ import annotations

import json
import os
import time
from collections import Counter

import pytest
from offline_index import embed_first_vectors, write_long_pages
from ragls.cli import app as cli
from ragls.embedding.embed import offline_model_dir

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")



def status(capsys, folder) -> dict:
    capsys.readouterr()
    assert cli.main(["status", str(folder), "--json"]) == 0
    return json.loads(capsys.readouterr().out)["folders"][0]


def test_a_background_server_taking_over_from_a_finished_writer_adds_no_row_twice(tmp_path, capsys, monkeypatch):
    """The server opened its vector store as a reader (for its first search) before the writer embedded the rest of
    each chunk's windows. When it took the index over it reconciled against the table as it last read it: every
    window added since counted as missing (`rag/status` "windows" fell back, as 415 of Meson's 816 chunks did after
    `ragls index` had finished), and the server embedded them again (from the cache) and added each row a second
    time. It now reads the writer's last commit first: nothing is missing, and each window has one row."""
    from ragls.index.ownership import WriterLock
    from ragls.workspace.rag_workspace import RagWorkspace

    monkeypatch.setenv("RAGLS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RAGLS_OFFLINE", "1")
    docs = tmp_path / "docs"
    write_long_pages(docs)
    writer = RagWorkspace([docs])
    idx = writer.indexes[0]
    try:
        assert idx.writer
        embed_first_vectors(idx)
        assert idx.pending_windows_count() == idx.manifest.chunk_count() >= 3
        assert cli.main(["serve", "--background", str(docs), "--idle-exit", "2"]) == 0  # bounded if the test fails
        pid = json.loads((idx.index_dir / "server.json").read_text())["pid"]
        while status(capsys, docs)["embeddingLoading"]:  # the reader's vector store opens (bounded by the run)
            time.sleep(0.2)
        while idx.pending_windows_count():  # the writer's window pass, unseen by the reader (no request)
            idx.embed_pending_batch()
        rows = idx.vectors.count()
    finally:
        writer.close()
    # The server takes the index over within watch.TAKEOVER_INTERVAL_S; no request meanwhile (a reader's request
    # reloads its stores, so the server would see the writer's last rows anyway).
    while WriterLock(idx.index_dir).holder().get("pid") != pid:
        time.sleep(0.1)
    while (folder := status(capsys, docs))["pendingWindows"] != 0:  # it has nothing left to embed
        assert folder["pendingWindows"] is None, folder  # nothing counted as missing, not even for a moment
        time.sleep(0.2)
    assert cli.main(["serve", "--stop", str(docs)]) == 0
    _, code = os.waitpid(pid, 0)
    assert os.WIFEXITED(code) and os.WEXITSTATUS(code) == 0
    from ragls.stores.vectors import VectorStore

    keys = VectorStore(idx.index_dir / "vectors", 384).window_keys()
    assert len(keys) == rows, (len(keys), rows)
    assert max(Counter((cid, w) for cid, w, _ in keys).values()) == 1
