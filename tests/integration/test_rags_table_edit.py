"""An edit of only a folder's `[rags.*]` tables in a running workspace (`LiveWorkspace`, real watcher, stores and
offline model) reopens only the named RAGs: the workspace — its indexes, watcher and loaded embedding model — stays,
and the edited RAG is re-synced in the background. An edit of any other setting still reopens the workspace."""

from __future__ import annotations

import time

from ragls.config.trust import trust
from ragls.kb.rags import request_scope
from ragls.workspace.live import LiveHooks, LiveWorkspace


def eventually(check, what: str, timeout: float = 120.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := check():
            return value
        time.sleep(0.1)
    raise AssertionError(f"not reached in {timeout} s: {what}")


def edit_trusted(folder, text: str) -> None:
    """The user edits ragls.toml and trusts what they wrote (the trust store first: the watcher may fire at once)."""
    trust(folder, text.encode())
    (folder / "ragls.toml").write_text(text)


def test_editing_a_rag_table_reopens_only_that_rag(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGLS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RAGLS_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("RAGLS_OFFLINE", "1")
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "bread.md").write_text("# Bread\n\nSourdough rises overnight in a cool kitchen.\n")
    (notes / "garden.md").write_text("# Garden\n\nTomatoes need six hours of sun every day.\n")
    project = tmp_path / "project"
    project.mkdir()
    (project / "readme.md").write_text("# Project\n\nThe project builds with make.\n")
    edit_trusted(project, f'[rags.notes]\nsources = ["{notes.as_posix()}/bread.md"]\n')
    said: list[str] = []
    hooks = LiveHooks(info=said.append, act=said.append)
    live = LiveWorkspace([project], [{"watch": {"debounce_ms": 100}}], socket_server=None, hooks=hooks).start()
    try:
        with live.request():
            ws = live.get()
            ws.embedder.ensure_loaded()
            model = ws.embedder._model
            assert [h.chunk.path.rsplit("/", 1)[-1] for h in ws.query("sourdough", rag="notes").hits] == ["bread.md"]

        edit_trusted(project, f'[rags.notes]\nsources = ["{notes.as_posix()}/bread.md", '
                              f'"{notes.as_posix()}/garden.md"]\n')
        eventually(lambda: "ragls: ragls.toml changed the named RAGs notes" in said, "the RAG table applied")
        assert not any("reopening the workspace" in line for line in said), said
        assert live.get() is ws and ws.embedder._model is model  # the workspace and its loaded model stayed

        def garden_found():
            with live.request(), request_scope():
                hits = live.get().query("tomatoes sun", rag="notes").hits
                return [h.chunk.path.rsplit("/", 1)[-1] for h in hits][:1] == ["garden.md"]

        eventually(garden_found, "the edited RAG's new source, synced in the background")

        edit_trusted(project, (project / "ragls.toml").read_text() + "\n[retrieval]\ntop_k = 2\n")
        eventually(lambda: "ragls: ragls.toml changed: reopening the workspace with the new settings" in said,
                   "a setting beyond the RAG tables reopens the workspace")
        eventually(lambda: live.ready() and live.ws is not ws, "the reopened workspace")
        assert live.ws.settings.retrieval.top_k == 2
    finally:
        live.close()
