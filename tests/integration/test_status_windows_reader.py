"""The "windows" count of rag/status in a process that reads an index another process writes (a `ragls serve
--background` beside a running `ragls index`): the writer's FolderIndex and a second FolderIndex on the same folder in
this process (the index lock is held by the first), real LanceDB, tantivy and the offline all-MiniLM-L6-v2."""

from __future__ import annotations

import pytest
from offline_index import embed_first_vectors, write_long_pages
from ragls.config.settings import build_settings
from ragls.embedding.embed import OFFLINE_MODEL_NAME, Embedder, offline_model_dir
from ragls.index.indexer import FolderIndex

MODEL_DIR = offline_model_dir()
pytestmark = pytest.mark.skipif(MODEL_DIR is None, reason="needs ragls[offline]")

# Sections of ~1,500 characters: more than the model's 256 wordpieces, so each chunk has windows after its first.


def test_a_reader_reports_the_windows_the_writer_has_left(tmp_path):
    """`ragls status` through a background server that reads while `ragls index` still embedded windows printed no
    "windows: N/M chunks fully embedded" line (pendingWindows null: only the writer tracks windows), while `ragls
    status` without a server (read-only) printed it from the count the writer records. A reader now reports that
    recorded count too, whether or not its own vector store is open."""
    docs = tmp_path / "docs"
    write_long_pages(docs)
    s = build_settings({"embedding": {"model": OFFLINE_MODEL_NAME, "model_path": str(MODEL_DIR)},
                        "index": {"path": str(tmp_path / "index")}})[0]
    writer = FolderIndex(docs, s, Embedder(s.embedding))
    reader = None
    try:
        assert writer.writer
        embed_first_vectors(writer)
        left = writer.pending_windows_count()
        assert left == writer.manifest.chunk_count() >= 3  # every chunk still has windows to embed
        reader = FolderIndex(docs, s, Embedder(s.embedding))
        assert not reader.writer
        assert reader.pending_windows_count() == left  # before its vector store opens
        reader.open_vectors()
        assert reader.pending_windows_count() == left  # and after (a serving reader opens it for its first search)
        while writer.pending_windows_count():
            writer.embed_pending_batch()
        assert reader.pending_windows_count() == 0
    finally:
        if reader is not None:
            reader.close()
        writer.close()
