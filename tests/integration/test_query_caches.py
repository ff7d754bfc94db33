"""What a query keeps between requests is never stale: a reader (a second process beside the writer, e.g. the MCP
server next to the language server) keeps its vector store's row count and index flag per table version, the
query's vector per query text, and the words and BM25 terms of the chunks it judged per chunk text. Real
LanceDB, tantivy, SQLite and the offline MiniLM model: after the writer indexes an edit, the reader's next query
sees it."""

from __future__ import annotations

import pytest
from ragls.config.settings import build_settings
from ragls.embedding.embed import OFFLINE_MODEL_NAME, Embedder, offline_model_dir
from ragls.index.indexer import FolderIndex
from ragls.retrieval.relevance import abstained
from ragls.retrieval.search import search

MODEL_DIR = offline_model_dir()
pytestmark = pytest.mark.skipif(MODEL_DIR is None, reason="needs ragls[offline]")


def test_a_reader_sees_the_writers_edits(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "deploy.md").write_text("# Deploy\n\nThe container image is pushed to the registry on tag.\n")
    (folder / "retries.md").write_text("# Retries\n\nFailed uploads are retried with exponential backoff.\n")
    s = build_settings({"embedding": {"model": OFFLINE_MODEL_NAME, "model_path": str(MODEL_DIR)},
                        "index": {"path": str(tmp_path / "index")}})[0]
    embedder = Embedder(s.embedding)
    writer = FolderIndex(folder, s, embedder)
    reader = FolderIndex(folder, s, embedder, read_only=True)
    try:
        writer.sync()
        assert reader.try_open_vectors()

        def query(text: str):
            reader.refresh()  # what RagWorkspace.retrieve does before each query of a reader
            return search([reader], embedder, text, settings=s.retrieval, top_k=3)

        first = query("gecko sticky toe pads")
        assert "gecko.md" not in {h.chunk.path for h in first.hits}
        assert reader.pending_count() == 0 and reader.vectors.chunk_count() == 2

        (folder / "gecko.md").write_text("# Geckos\n\nThe gecko climbs glass walls with its sticky toe pads.\n")
        writer.sync(["gecko.md"])
        second = query("gecko sticky toe pads")  # the same text: its vector is the one kept from the first query
        top = second.hits[0]
        assert top.chunk.path == "gecko.md" and {"vector", "bm25"} <= set(top.signals)
        assert reader.vectors.chunk_count() == 3 and reader.pending_count() == 0  # counted again: a new version

        # An edit that adds the query's missing word: the keyword rule judges the new text, not the one it split
        # for the previous query (the split is kept per text).
        words = "geckos lick eyes"
        assert abstained(query(words), floor=1.01)  # no chunk holds all three words yet
        (folder / "gecko.md").write_text("# Geckos\n\nThe gecko climbs glass walls with its sticky toe pads.\n"
                                         "Geckos lick eyes clean.\n")
        writer.sync(["gecko.md"])
        third = query(words)
        assert third.hits[0].chunk.path == "gecko.md" and "lick eyes" in third.hits[0].chunk.text
        assert not abstained(third, floor=1.01)  # only the keyword rule can answer at this floor: it saw the edit

        kept = embedder.embed_query(words)
        kept[:] = 0.0  # a caller's copy: the kept vector is not touched
        assert float(embedder.embed_query(words) @ embedder.embed_query(words)) == pytest.approx(1.0, abs=1e-3)
    finally:
        reader.close()
        writer.close()
