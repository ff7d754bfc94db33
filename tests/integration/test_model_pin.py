"""No silent model switches: an index built with the offline all-MiniLM-L6-v2 (the default model could not be
downloaded) keeps it while `embedding.model` is not set explicitly — even when the default would be reachable — and
says how to switch; an explicit model or a rebuild workspace (pin_model=False) drops the pin."""

from __future__ import annotations

import pytest
from ragls.embedding import embed, model_source
from ragls.embedding.embed import OFFLINE_MODEL_NAME
from ragls.workspace.rag_workspace import RagWorkspace


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGLS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RAGLS_OFFLINE", "1")
    f = tmp_path / "docs"
    f.mkdir()
    (f / "a.md").write_text("# Retries\n\nThe client retries three times with exponential backoff.\n")
    return f


def test_index_keeps_its_model_when_the_default_becomes_reachable(folder, monkeypatch):
    ws = RagWorkspace([folder])
    ws.index()
    assert ws.embedder.model_name == OFFLINE_MODEL_NAME and ws.embedder.source == "offline-fallback"
    assert ws.indexes[0].manifest.get_meta("vectors_model") == OFFLINE_MODEL_NAME
    ws.close()

    # The network is back: a hub probe for the default model would now succeed and download it. The pinned index
    # must not even ask.
    def probe(name, timeout_s=3.0):
        raise AssertionError(f"probed the hub for {name}: the pinned index must not switch models")

    monkeypatch.setattr(embed, "hub_reachable", probe)  # the Embedder's probe
    monkeypatch.setattr(model_source, "hub_reachable", probe)  # expected_max_length's
    ws = RagWorkspace([folder])
    assert ws.embedder.pinned_model == OFFLINE_MODEL_NAME
    assert any("ragls rebuild" in n and OFFLINE_MODEL_NAME in n for n in ws.notices)
    # Before the model loads (MCP index_status, rag/status at start), status names the model it will load, not
    # the default the index does not use.
    ws.progressive = True  # as a server: status opens no vector store, so the model is not loaded yet
    assert ws.status().embedding_model == OFFLINE_MODEL_NAME and ws.embedder._model is None
    ws.progressive = False
    report = ws.index()[0]
    assert ws.embedder.model_name == OFFLINE_MODEL_NAME and ws.embedder.source == "pinned"
    assert ws.embedder.texts_embedded == 0 and report.unchanged == 1  # nothing re-embedded
    assert ws.query("how many times does the client retry").hits[0].chunk.path == "a.md"
    ws.close()


def test_explicit_model_or_rebuild_drops_the_pin(folder):
    ws = RagWorkspace([folder])
    ws.index()
    ws.close()
    explicit = RagWorkspace([folder], [{"embedding": {"model": "BAAI/bge-small-en-v1.5"}}])
    assert explicit.embedder.pinned_model is None and explicit.notices == []
    explicit.close()
    rebuild = RagWorkspace([folder], pin_model=False)
    assert rebuild.embedder.pinned_model is None
    rebuild.close()
