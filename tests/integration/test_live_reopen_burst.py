"""A burst of reopens (an editor sends one didChangeConfiguration per setting it changes: choosing an LLM writes
backend, base URL and model in turn) leaves one open workspace that answers. Each reopen has its own opening thread;
`threading.Lock` is not fair, so the newest may take the opening lock before older ones. When an opening thread
waited there for the previous generation to open, such a burst deadlocked every later request (the VS Code suite's
"Choose How Answers Are Written" hung CI twice). And a reopen for a setting that changes no embedding
(`retrieval.top_k`) keeps the loaded embedding model (`Embedder.adopt`, `LiveWorkspace._keep_model`): it loaded the
model again on the new indexer thread, after its start-up scan, and for those seconds every query answered from
BM25 alone (the VS Code suite's Search Docs right after a topK change listed the keyword hits only, session 64).
Real LiveWorkspace, real RagWorkspace (tantivy + SQLite, BM25 while no model is loaded; the offline MiniLM)."""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path

import pytest
from ragls.core.errors import NotReady
from ragls.workspace.live import LiveHooks, LiveWorkspace

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "docs"


def test_a_burst_of_reopens_never_deadlocks_the_opening():
    """Openings that fail fast (the race window is the same for any factory): after 7 reopens in a row the newest
    generation's outcome arrives within seconds, every time. Before the fix, about 1 burst in 11 hung here."""

    def factory(folders, overrides, on_status):
        time.sleep(0.005)
        raise RuntimeError("this folder cannot be opened")

    for _ in range(60):
        live = LiveWorkspace([Path.cwd()], socket_server=None, factory=factory, hooks=LiveHooks())
        live.start()
        for _ in range(6):
            live.reopen()
        with pytest.raises(NotReady) as caught:
            live.get(timeout=10)
        assert "cannot be opened" in str(caught.value), str(caught.value)  # not "still opening after 10 s"
        live.close()


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGLS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RAGLS_OFFLINE", "1")
    shutil.copytree(FIXTURES, tmp_path / "docs")
    return tmp_path / "docs"


def test_a_burst_of_reopens_leaves_one_workspace_that_answers(folder):
    """Eight reopens while the first is still opening: the newest workspace answers a query, and once closed no
    indexer thread of any generation is left running (each one opened was retired)."""
    before = {t for t in threading.enumerate() if t.name == "ragls-indexer"}
    live = LiveWorkspace([folder], [{"generation": {"backend": "none"}}], hold_vectors=True,
                         socket_server=None).start()
    try:
        for top_k in range(1, 9):
            live.reopen(overrides=[{"generation": {"backend": "none"}, "retrieval": {"top_k": top_k}}])
        ws = live.get_indexed(timeout=60)
        assert ws.settings.retrieval.top_k == 8  # the newest settings opened
        hits = list(ws.query("exponential backoff retries").hits)
        assert hits and hits[0].chunk.path == "guide/retries.md", hits
    finally:
        live.close()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        left = {t for t in threading.enumerate() if t.name == "ragls-indexer" and t.is_alive()} - before
        if not left:
            break
        time.sleep(0.1)
    assert not left, left


def test_a_shutdown_while_the_indexer_is_busy_is_no_error(folder, caplog):
    """The editor's `shutdown` waits a few seconds for the indexer (lsp/server.SHUTDOWN_STOP_S); a model load or a
    batch on a busy machine takes longer. That logged "ERROR the indexer thread did not stop; keeping the index
    lock until the process exits" at every such shutdown: now one INFO line says what goes on and that nothing is
    lost, and the thread is kept for the exit to wait on. The real worker runs a unit of work that outlasts the
    wait (a rebuild-like job), as the model load does."""
    import logging

    live = LiveWorkspace([folder], [{"generation": {"backend": "none"}}], hold_vectors=True,
                         socket_server=None).start()
    release = threading.Event()
    try:
        live.get_indexed(timeout=60)
        live.worker.submit(lambda: release.wait(30), "a long batch")
        time.sleep(0.2)  # the worker has taken the job
        with caplog.at_level(logging.INFO, logger="ragls.workspace.live"):
            live.close(timeout=0.1)
        assert live.lingering is not None
    finally:
        release.set()
        live.close()
    records = [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "ragls.workspace.live"]
    assert not [m for level, m in records if level in ("ERROR", "WARNING")], records
    assert [m for level, m in records if level == "INFO" and m.startswith("shutting down: the indexer is still")
            and "nothing is lost" in m], records
    assert live.lingering.stop(10)


NONE = {"generation": {"backend": "none"}}


def _model_loaded(ws, timeout: float = 120.0):
    """`ws`'s embedding model once every folder has loaded it (its vector store open)."""
    deadline = time.monotonic() + timeout
    while any(idx.embedding_loading for idx in ws.indexes):
        assert time.monotonic() < deadline, "the embedding model did not load"
        time.sleep(0.05)
    return ws.embedder._model


def test_a_retrieval_setting_keeps_the_model_and_vector_search_answers_at_once(folder):
    live = LiveWorkspace([folder], [NONE], socket_server=None).start()
    try:
        ws = live.get_indexed(timeout=120)
        model = _model_loaded(ws)
        assert model is not None

        live.reopen(overrides=[{**NONE, "retrieval": {"top_k": 7}}])
        reopened = live.get(timeout=60)
        assert reopened is not ws and reopened.settings.retrieval.top_k == 7  # the new settings opened
        # the model of the generation before, and vector search from the first query on
        assert reopened.embedder._model is model
        assert [idx.embedding_loading for idx in reopened.indexes] == [False]
        hits = list(reopened.query("how do I retry with backoff").hits)
        assert hits and hits[0].chunk.path == "guide/retries.md", hits
        assert any("vector" in h.signals for h in hits), [(h.chunk.path, h.signals) for h in hits]

        # an embedding setting loads the model again, as its settings say
        live.reopen(overrides=[{**NONE, "embedding": {"batch_size": 2}}])
        other = live.get(timeout=60)
        assert other.settings.embedding.batch_size == 2
        assert _model_loaded(other) is not model
    finally:
        live.close()
