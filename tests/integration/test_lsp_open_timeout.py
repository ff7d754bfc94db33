"""An LSP request waits for the workspace to open at most `live.OPEN_TIMEOUT_S`, as MCP and HTTP requests do: an
opening that never ends (a bug, a hung disk) answers "still opening ... try again" instead of holding every request
for ever. Real RaglsServer.get_workspace on a real LiveWorkspace whose opening blocks."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest
from ragls.core.errors import NotReady
from ragls.lsp.server import RaglsServer
from ragls.workspace import live as live_module
from ragls.workspace.live import LiveHooks, LiveWorkspace


def test_a_request_during_an_opening_that_never_ends_answers_still_opening(monkeypatch):
    release = threading.Event()

    def factory(folders, overrides, on_status):
        release.wait(30)
        raise RuntimeError("released by the test")

    monkeypatch.setattr(live_module, "OPEN_TIMEOUT_S", 0.3)
    ls = RaglsServer()
    ls.live = LiveWorkspace([Path.cwd()], socket_server=None, factory=factory, hooks=LiveHooks()).start()
    try:
        with pytest.raises(NotReady) as caught:
            asyncio.run(asyncio.wait_for(ls.get_workspace(), timeout=20))
        assert "still opening after 0.3 s" in str(caught.value)
    finally:
        release.set()
        ls.live.close()
