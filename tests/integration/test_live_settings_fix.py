"""A workspace whose ragls.toml does not load opens once the file is fixed, also when the fix is reported while the
failing opening is still under way (VS Code: the user saves the fix while the server's start-up, or the reopen a
didChangeConfiguration asked for, is reading the broken file). Real LiveWorkspace and RagWorkspace; the settings
check is real too (`load_folder_settings`), held back by the test until the fix is on disk."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest
from ragls.config.trust_filter import load_folder_settings
from ragls.core.errors import NotReady
from ragls.workspace.live import LiveHooks, LiveWorkspace

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "docs"


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGLS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RAGLS_OFFLINE", "1")
    shutil.copytree(FIXTURES, tmp_path / "docs")
    return (tmp_path / "docs").resolve()


def test_a_fix_reported_while_the_broken_settings_are_read_opens_the_workspace(folder):
    toml = folder / "ragls.toml"
    toml.write_text("[retrieval\ntop_k = 1\n")
    read, go_on = threading.Event(), threading.Event()

    def settings(folders, overrides):
        try:
            for f in folders:
                load_folder_settings(f, *overrides)
        finally:
            read.set()
            go_on.wait(20)  # the broken file was read; the fix is saved and reported before the failure is known
        return overrides

    live = LiveWorkspace([folder], [{"generation": {"backend": "none"}}], hold_vectors=True, socket_server=None,
                         hooks=LiveHooks(), settings=settings)
    try:
        live.start()
        assert read.wait(20)
        toml.write_text("[retrieval]\ntop_k = 1\n")
        live.notify([toml])  # the editor's didSave, while the opening that read the broken file is under way
        go_on.set()
        ws = None
        for _ in range(100):
            try:
                ws = live.get(timeout=20)
                break
            except NotReady as exc:
                assert "Expected ']'" in str(exc) or "reopened" in str(exc), str(exc)
                threading.Event().wait(0.1)
        assert ws is not None, "the fixed ragls.toml never opened the workspace"
        assert ws.settings.retrieval.top_k == 1
    finally:
        go_on.set()
        live.close()
