"""The vector store opens lazily (model load + LanceDB) after the text phase: real manifest, tantivy and LanceDB
stores in a temp dir, the real offline MiniLM model.

What must hold: BM25 answers without any embedding model; text written before the vector store opens leaves no
stale vector rows once it opens (the `vector_dirty` paths); an embedding-model change re-embeds (every old row
dropped); a missing model is a clear error that leaves keyword search working.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from ragls.config.settings import build_settings
from ragls.config.trust import trust as trust_folder
from ragls.core.errors import RequestFailed
from ragls.embedding.embed import OFFLINE_MODEL_NAME, Embedder, offline_model_dir
from ragls.index.indexer import FolderIndex
from ragls.index.windows import plan_windows
from ragls.workspace.rag_workspace import RagWorkspace

MODEL_DIR = offline_model_dir()
pytestmark = pytest.mark.skipif(MODEL_DIR is None, reason="needs ragls[offline]")


def settings(tmp_path: Path, **embedding):
    emb = {"model": OFFLINE_MODEL_NAME, "model_path": str(MODEL_DIR), **embedding}
    return build_settings({"embedding": emb, "index": {"path": str(tmp_path / "index")}})[0]


def write_docs(folder: Path) -> Path:
    folder.mkdir()
    (folder / "retries.md").write_text("# Retries\n\nFailed uploads are retried with exponential backoff.\n")
    (folder / "deploy.md").write_text("# Deploy\n\nThe container image is pushed to the registry on tag.\n")
    return folder


def vector_rows(idx: FolderIndex) -> Counter:
    """(chunk id, path) of each chunk's first-window row; no (chunk, window) row may be there twice."""
    rows = idx.vectors.table.to_arrow().select(["id", "path", "window"]).to_pylist()
    assert max(Counter((r["id"], r["window"]) for r in rows).values(), default=1) == 1
    return Counter((r["id"], r["path"]) for r in rows if r["window"] == 0)


def manifest_rows(idx: FolderIndex) -> Counter:
    return Counter((c.id, c.path) for batch in idx.manifest.iter_chunks() for c in batch)


def cached_count(idx: FolderIndex, fp: str) -> int:
    """Vectors cached for fingerprint `fp`: this index's own table plus the user's shared cache."""
    own = idx.manifest.db.execute("SELECT COUNT(*) FROM embeddings WHERE fingerprint=?", (fp,)).fetchone()[0]
    shared = idx.manifest.shared_cache
    if shared is None or not shared.path.exists():
        return own
    return own + shared._db(create=False).execute("SELECT COUNT(*) FROM embeddings WHERE fingerprint=?",
                                                  (fp,)).fetchone()[0]


def test_text_phase_needs_no_model(tmp_path):
    folder = write_docs(tmp_path / "docs")
    s = settings(tmp_path, model_path=str(tmp_path / "no-such-model"))
    idx = FolderIndex(folder, s, Embedder(s.embedding))
    try:
        report = idx.sync(embed=False)
        assert sorted(report.indexed) == ["deploy.md", "retries.md"]
        assert not idx.vectors_ready and idx.embedder.dim == 0  # nothing loaded the model
        top = idx.bm25.search("exponential backoff", 5)
        assert [idx.manifest.get_chunks([cid])[cid].path for cid, _ in top] == ["retries.md"]
        assert idx.pending_count() == idx.manifest.chunk_count() == 2
        with pytest.raises(RequestFailed, match="has no .onnx model file"):
            idx.open_vectors()
        assert "no-such-model" in idx.vectors_error and not idx.vectors_ready
        report = idx.sync()  # the vector phase cannot run: said in the report, not raised
        assert "has no .onnx model file" in report.vectors_error
    finally:
        idx.close()


def test_workspace_query_without_a_model_is_keyword_only(tmp_path):
    folder = write_docs(tmp_path / "docs")
    (folder / "ragls.toml").write_text(f'[embedding]\nmodel_path = "{(tmp_path / "empty").as_posix()}"\n'
                                       f'[index]\npath = "{(tmp_path / "index").as_posix()}"\n')
    trust_folder(folder)  # the user trusts this test's own folder (ragls/config/trust.py)
    ws = RagWorkspace([folder])
    try:
        assert ws.index()[0].vectors_error
        result = ws.query("container registry", top_k=2)
        assert result.hits[0].chunk.path == "deploy.md" and set(result.hits[0].signals) == {"bm25"}
        assert not result.abstained  # BM25 evidence counts while there is no vector evidence
        assert any("has no .onnx model file" in e["message"] for e in ws.status().errors)
    finally:
        ws.close()


SECTION = "Backoff doubles the wait after each failure. " * 30  # two sections -> two chunks


def test_edits_before_the_store_opens_leave_no_stale_rows(tmp_path):
    folder = write_docs(tmp_path / "docs")
    (folder / "ops.md").write_text(f"# Operations\n\n{SECTION}\n\n## Retries\n\n{SECTION}\n")
    s = settings(tmp_path)
    embedder = Embedder(s.embedding)
    idx = FolderIndex(folder, s, embedder)
    idx.sync()  # everything embedded
    assert vector_rows(idx) == manifest_rows(idx) and idx.manifest.vector_dirty() == []
    retries_id = next(c.id for c in idx.manifest.chunks_of("ops.md") if c.title == "Operations > Retries")
    idx.close()

    # A restart (store not open yet) sees, in its text phase: a renamed top heading — the "Retries" chunk keeps
    # its id and text but gets a new title, so its embedding input changed — an edit and a deletion.
    (folder / "ops.md").write_text(f"# Running\n\n{SECTION}\n\n## Retries\n\n{SECTION}\n")
    (folder / "retries.md").write_text("# Retries\n\nUploads are retried five times, then reported.\n")
    (folder / "deploy.md").unlink()
    idx = FolderIndex(folder, s, embedder)
    try:
        idx.sync(embed=False)
        assert not idx.vectors_ready
        assert sorted(idx.manifest.vector_dirty()) == ["deploy.md", "ops.md", "retries.md"]
        renamed = next(c for c in idx.manifest.chunks_of("ops.md") if c.id == retries_id)
        assert renamed.title == "Running > Retries"
        idx.open_vectors()  # drops the dirty paths' rows, including the same-id row of the renamed section
        assert idx.manifest.vector_dirty() == [] and vector_rows(idx) == Counter()
        assert idx.pending_count() == 3
        idx.sync()
        assert vector_rows(idx) == manifest_rows(idx) and idx.pending_count() == 0
        row = idx.vectors.table.search().where(f"id = '{retries_id}' AND window = 0").to_arrow().to_pylist()[0]
        first_window = plan_windows(renamed, embedder.tokenizer(), *idx.window)[0]
        assert first_window.text.startswith("Running > Retries\n\n")
        expected = embedder.embed_documents([first_window.text])[0]
        assert np.allclose(row["vector"], expected, atol=1e-6)  # the new title's vector, not the old one
    finally:
        idx.close()


def test_embedding_model_change_drops_every_vector_row(tmp_path):
    folder = write_docs(tmp_path / "docs")
    s = settings(tmp_path)
    idx = FolderIndex(folder, s, Embedder(s.embedding))
    idx.sync()
    fp_before = idx.embed_fp
    assert cached_count(idx, fp_before) == 2
    idx.close()

    # Same model file, other truncation length: a different embedding fingerprint, same text fingerprint.
    s2 = settings(tmp_path, max_length=128)
    idx = FolderIndex(folder, s2, Embedder(s2.embedding))
    try:
        assert idx.sync(embed=False).indexed == []  # the text stores are still valid: nothing re-chunked
        idx.open_vectors()
        assert idx.embed_fp != fp_before
        assert vector_rows(idx) == Counter() and idx.pending_count() == 2
        assert idx.embedder.texts_embedded == 0
        idx.sync()
        assert idx.embedder.texts_embedded == 2 and vector_rows(idx) == manifest_rows(idx)
        # The shared cache keeps the old model's vectors for other indexes (LRU-bounded); the new ones are added.
        assert cached_count(idx, fp_before) == 2 and cached_count(idx, idx.embed_fp) == 2
    finally:
        idx.close()


def test_partial_vectors_do_not_outrank_the_keyword_answer(tmp_path):
    """During a cold embedding the vector signal ranks only embedded chunks; its weight scales with the coverage,
    so a semantically close but wrong embedded chunk does not beat the chunk BM25 found first."""
    from ragls.retrieval.search import search

    folder = tmp_path / "docs"
    folder.mkdir()
    topics = ["network timeouts are set per request", "a slow connection is closed after 30 seconds",
              "the proxy drops idle sockets", "transfers resume after a dropped link"]
    for i, text in enumerate(topics):  # embedded first (pending order follows the path)
        (folder / f"a{i}.md").write_text(f"# Networking {i}\n\nFor a transfer, {text}.\n")
    (folder / "z-answer.md").write_text("# Uploads\n\nRetries: failed uploads are retried three times.\n")
    s = settings(tmp_path)
    idx = FolderIndex(folder, s, Embedder(s.embedding))
    try:
        idx.sync(embed=False)
        idx.open_vectors()
        assert idx.embed_pending_batch(batch=4) == 4 and idx.pending_ids() == [
            c.id for c in idx.manifest.chunks_of("z-answer.md")]
        question = "How do we configure retries for failed uploads?"
        hits = search([idx], idx.embedder, question, settings=s.retrieval, top_k=3)
        assert hits[0].chunk.path == "z-answer.md" and "vector" not in hits[0].signals
        idx.sync()  # fully embedded: full vector weight, the answer still first
        hits = search([idx], idx.embedder, question, settings=s.retrieval, top_k=3)
        assert hits[0].chunk.path == "z-answer.md" and "vector" in hits[0].signals
    finally:
        idx.close()


def test_status_while_the_embedding_model_loads_says_so(tmp_path):
    """A server whose model is still loading counts every chunk as without vectors (nothing is searchable by vector
    yet); its status says the model is loading and how many chunks are really left to embed (here none), instead of
    "2 of 2 chunks not embedded yet" on a fully embedded index."""
    from ragls.answer.agent_tools import index_progress, partial_note
    from ragls.cli.ops import vectors_phrase
    from ragls.lsp.wire import to_wire_status

    folder = write_docs(tmp_path / "docs")
    layer = {"embedding": {"model": OFFLINE_MODEL_NAME, "model_path": str(MODEL_DIR)},
             "index": {"path": str(tmp_path / "index")}}
    ws = RagWorkspace([folder], [layer])
    try:
        ws.index()  # every chunk embedded
    finally:
        ws.close()
    ws = RagWorkspace([folder], [layer])
    ws.progressive = True  # a server before its indexer thread opened the vector store
    try:
        (f,) = to_wire_status(ws.status())["folders"]
        assert (f["chunks"], f["pendingVectors"], f["embeddingLoading"], f["storedPendingVectors"]) == (2, 2, True, 0)
        assert vectors_phrase(f) == ("embedding model still loading (search uses keywords until it is ready, "
                                     "answers wait for it; every section is embedded)")
        progress = index_progress(ws)
        assert progress == {"files_queued": 0, "chunks": 2, "chunks_without_vectors": 2,
                            "embedding_model_loading": True, "chunks_not_embedded": 0}
        note = partial_note(progress)
        assert ("the embedding model is still loading, so search uses keywords until it is ready and answers wait "
                "for it") in note
        assert "not embedded yet" not in note
        ws.indexes[0].open_vectors()  # the model loaded
        (f,) = to_wire_status(ws.status())["folders"]
        assert (f["pendingVectors"], f["embeddingLoading"], f["storedPendingVectors"]) == (0, False, 0)
        assert vectors_phrase(f) == "without vectors: 0" and index_progress(ws) is None
    finally:
        ws.close()
