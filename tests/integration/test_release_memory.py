"""The embedding model's run memory given back after a burst of work (`Embedder.release_memory`,
ragls/embedding/sessions.py): real offline model and ONNX Runtime session, real RagWorkspace and IndexWorker."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest
from ragls.embedding.embed import OFFLINE_MODEL_NAME, Embedder, offline_model_dir
from ragls.embedding.sessions import CPU_ARENA, SHRINK_KEY, ReleasableSession
from ragls.workspace.rag_workspace import RagWorkspace
from ragls.workspace.watch import IndexWorker

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

MODEL = {"embedding": {"model": OFFLINE_MODEL_NAME, "model_path": str(offline_model_dir())}}


class _Runs:
    """An ONNX Runtime session that records the arena-shrinking run option of each run (None when not set)."""

    def __init__(self, session):
        self.session, self.shrink = session, []

    def __getattr__(self, name):
        return getattr(self.session, name)

    def run(self, names, feed, options=None):
        self.shrink.append(options.get_run_config_entry(SHRINK_KEY) if options is not None else None)
        return self.session.run(names, feed, options)


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def test_release_memory_shrinks_the_arena_in_one_run_and_keeps_the_vectors():
    from ragls.config.settings import build_settings

    embedder = Embedder(build_settings({"embedding": MODEL["embedding"] | {"batch_size": 2}})[0].embedding)
    texts = [f"Section {i}: " + "a borrowed reference must not outlive the value it points to, " * 30
             for i in range(4)]  # 256-token windows, two batches of two side by side: ~95 MB of activations in the arena
    expected = embedder.embed_documents(texts)
    session = embedder.ensure_loaded().model.model
    assert isinstance(session, ReleasableSession)
    runs = session.session = _Runs(session.session)
    before = _rss_mb()
    embedder.release_memory()
    released = before - _rss_mb()
    assert runs.shrink == [CPU_ARENA]  # one run, with the option
    again = embedder.embed_documents(texts[:2])
    assert runs.shrink[1:] and set(runs.shrink[1:]) == {None}  # later runs keep their chunks
    assert np.array_equal(again, expected[:2])  # the same vectors, bit for bit
    if Path("/proc/self/status").is_file():
        assert released > 20, released  # most of the activations given back (Linux, glibc)


def test_the_indexer_releases_the_model_memory_once_everything_is_embedded(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    for i in range(3):
        (folder / f"page{i}.md").write_text(f"# Page {i}\n\nThe walrus number {i} eats clams at low tide.\n")
    ws = RagWorkspace([folder], [MODEL | {"index": {"path": str(tmp_path / "index")}}])
    calls = []
    release = ws.embedder.release_memory
    ws.embedder.release_memory = lambda: calls.append(ws.indexes[0].vector_work()) or release()
    worker = IndexWorker(ws, debounce_ms=50)
    try:
        worker.start()
        worker.request_sync()
        deadline = time.monotonic() + 120
        while not calls and time.monotonic() < deadline:
            time.sleep(0.05)
        assert calls == [False]  # once, after the last vectors
        time.sleep(0.5)
        assert len(calls) == 1  # idle: not again
        (folder / "page1.md").write_text("# Page 1\n\nThe walrus now eats mussels.\n")
        worker.notify([folder / "page1.md"])
        while len(calls) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert calls == [False, False]  # the edit's vectors, then the release
    finally:
        worker.stop()
        ws.close()


def test_the_run_memory_of_requests_goes_back_once_they_stop(tmp_path, monkeypatch):
    from ragls.workspace import watch

    monkeypatch.setattr(watch, "RELEASE_AFTER_S", 0.3)
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "page.md").write_text("# Page\n\nThe walrus eats clams at low tide.\n")
    ws = RagWorkspace([folder], [MODEL | {"index": {"path": str(tmp_path / "index")}}])
    released = []
    release = ws.embedder.release_memory
    ws.embedder.release_memory = lambda: released.append(time.monotonic()) or release()
    worker = IndexWorker(ws, debounce_ms=50)
    try:
        worker.start()
        worker.request_sync()
        deadline = time.monotonic() + 120
        while not released and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(released) == 1 and ws.embedder.unreleased_since is None  # the indexer's burst given back
        ws.embedder.embed_documents(["What does the walrus eat?"])  # as rag/ask's sentences, on a request thread
        ran = ws.embedder.unreleased_since
        assert ran is not None
        while len(released) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(released) == 2 and released[1] - ran >= 0.3  # once the runs stopped for RELEASE_AFTER_S
        assert ws.embedder.unreleased_since is None
        time.sleep(0.8)
        assert len(released) == 2  # nothing ran since: not again
    finally:
        worker.stop()
        ws.close()
