"""The sentence pass (index/vector_phase.py `_sentence_batch`): indexing puts the vectors of the extractive answer's
candidate sentences into the embedding cache, so a first `rag/ask` in a fresh process runs no model on them, and
answers exactly as without it. Real LanceDB, tantivy, SQLite and the offline MiniLM model."""

from __future__ import annotations

import numpy as np
import pytest
from ragls.answer.extractive import answer_sentences
from ragls.embedding.embed import offline_model_dir
from ragls.workspace.rag_workspace import RagWorkspace

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

RETRIES = """# Retries

Failed uploads are retried with exponential backoff. The client waits one second before the first retry and
doubles the wait after each failure, up to a minute.

Set `max_retries=0` to turn retries off. A request that still fails raises `UploadError` with the last
response attached.
"""
DEPLOY = """# Deploy

The container image is pushed to the registry when a tag is created. Staging pulls the image every ten minutes,
production only after a manual approval in the release channel.
"""
QUESTION = "How do I turn off retries for failed uploads?"


def folder_with_docs(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "retries.md").write_text(RETRIES)
    (folder / "deploy.md").write_text(DEPLOY)
    return folder


def first_ask(folder, **index):
    """(answer text, texts the model embedded for it) of a first ask in a fresh workspace (no memo)."""
    ws = RagWorkspace([folder], [{"index": index}] if index else ())
    try:
        ws.index()
        before = ws.embedder.texts_embedded
        text = ws.ask(QUESTION).text
        return text, ws.embedder.texts_embedded - before
    finally:
        ws.close()


def test_a_first_answer_reads_the_sentence_vectors_indexing_cached(tmp_path, monkeypatch):
    folder = folder_with_docs(tmp_path)
    ws = RagWorkspace([folder])
    try:
        ws.index()
        idx = ws.indexes[0]
        assert idx.pending_sentences_count() == 0 and idx.vector_work() == 0
        assert idx.manifest.sentence_pending_ids() == []  # recorded: a restart does not read the chunks again
        chunks = [c for path in ("retries.md", "deploy.md") for c in idx.manifest.chunks_of(path)]
        sentences = [t for c in chunks for t in answer_sentences(c, {str(idx.folder): idx.filter})]
        assert any("max_retries=0" in t for t in sentences)
        # the cached vectors are the model's for the same texts, bit for bit
        computed = ws.embedder.embed_documents(sentences)
        from ragls.core.hashing import text_hash

        cached = idx.manifest.cached_vectors(ws.embedder.fingerprint, [text_hash(t) for t in sentences])
        assert np.array_equal(np.stack([cached[text_hash(t)] for t in sentences]), computed)
    finally:
        ws.close()
    text, embedded = first_ask(folder)
    assert "max_retries=0" in text and embedded == 0  # no sentence went through the model
    # without the pass (an embedding cache of its own: nothing cached) the same answer, its sentences embedded
    # while answering
    monkeypatch.setenv("RAGLS_EMBEDDING_CACHE", str(tmp_path / "other-cache.sqlite"))
    plain, embedded = first_ask(folder, sentence_vectors=False, path=str(tmp_path / "other-index"))
    assert embedded > 0 and plain == text


def test_an_edited_file_gets_its_new_sentences_embedded(tmp_path):
    folder = folder_with_docs(tmp_path)
    first_ask(folder)
    (folder / "retries.md").write_text(RETRIES.replace("`max_retries=0`", "`retry_limit=0`"))
    text, embedded = first_ask(folder)
    assert "retry_limit=0" in text and embedded == 0


def test_no_sentence_pass_when_it_is_off(tmp_path):
    folder = folder_with_docs(tmp_path)
    ws = RagWorkspace([folder], [{"index": {"sentence_vectors": False}}])
    try:
        ws.index()
        idx = ws.indexes[0]
        assert idx.pending_sentences_count() == 0 and idx.vector_work() == 0
        assert len(idx.manifest.sentence_pending_ids()) == idx.manifest.chunk_count() > 0  # left for a later pass
        before = ws.embedder.texts_embedded
        assert "max_retries=0" in ws.ask(QUESTION).text
        assert ws.embedder.texts_embedded > before
    finally:
        ws.close()


def test_the_manifest_forgets_what_a_rewritten_row_or_another_model_needs(tmp_path):
    from ragls.core.ir import Chunk, LineSpan
    from ragls.stores.manifest import FileRecord, Manifest

    m = Manifest(tmp_path / "manifest.sqlite", folder=str(tmp_path))
    try:
        chunks = [Chunk(id=f"c{n}", path="a.md", text=f"Text {n}.", span=LineSpan(n, 0, n, 8), text_hash=f"h{n}",
                        ordinal=n) for n in range(3)]
        m.replace_files([FileRecord("a.md", 1, 1, "x")], chunks)
        assert m.sentence_pending_ids() == ["c0", "c1", "c2"]  # a new row: its sentences are not embedded
        m.mark_sentences(["c0", "c2"])
        assert m.sentence_pending_ids() == ["c1"]
        m.replace_files([FileRecord("a.md", 1, 2, "y")], chunks[:1])  # the file indexed again
        assert m.sentence_pending_ids() == ["c0"]
        m.mark_sentences(["c0"])
        m.mark_sentences(None)  # another embedding model
        assert m.sentence_pending_ids() == ["c0"]
    finally:
        m.close()


def test_other_passage_code_checks_every_chunk_again(tmp_path, monkeypatch):
    # a chunk's `sentences` mark says its answer sentences were embedded by the code that read its passages then; a
    # ragls that reads them differently (another `sentences_version`) checks every chunk again: the sentences that
    # stayed the same are in the embedding cache, so the check runs no model on them
    from ragls.answer import extractive

    folder = folder_with_docs(tmp_path)
    first_ask(folder)
    monkeypatch.setattr(extractive, "sentences_version", lambda: "passages read another way")
    ws = RagWorkspace([folder])
    try:
        idx = ws.indexes[0]
        idx.open_vectors()
        assert idx.pending_sentences_count() == idx.manifest.chunk_count() > 0
        before = ws.embedder.texts_embedded
        ws.index()
        assert idx.pending_sentences_count() == 0 and idx.manifest.sentence_pending_ids() == []
        assert ws.embedder.texts_embedded == before
    finally:
        ws.close()
    ws = RagWorkspace([folder])  # the same code again: nothing to check
    try:
        ws.indexes[0].open_vectors()
        assert ws.indexes[0].pending_sentences_count() == 0
    finally:
        ws.close()
