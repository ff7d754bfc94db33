"""The request handlers (lsp/handlers.py) are imported on the first request or by the opening thread; a request that
comes while another thread is still importing them must wait for the whole module, not take the half-run one from
sys.modules (CI, session 54: "partially initialized module 'ragls.lsp.handlers' has no attribute 'rag_status'")."""

from __future__ import annotations

import asyncio
import importlib.machinery
import sys
import types
from types import SimpleNamespace

from ragls.lsp import server


def _half_imported() -> types.ModuleType:
    """A module as another thread's import leaves it in sys.modules while it runs: no handlers yet, its spec marked
    `_initializing` (importlib._bootstrap sets it for the duration of the module's code)."""
    module = types.ModuleType("ragls.lsp.handlers")
    module.__spec__ = importlib.machinery.ModuleSpec("ragls.lsp.handlers", None)
    module.__spec__._initializing = True
    return module


def test_a_request_during_another_threads_import_gets_the_whole_module(monkeypatch):
    whole = importlib.import_module("ragls.lsp.handlers")
    imported = []

    def import_handlers(ls):  # the worker-thread import: Python's module lock makes it wait for the other thread
        imported.append(ls)
        return whole

    monkeypatch.setitem(sys.modules, "ragls.lsp.handlers", _half_imported())
    monkeypatch.setattr(server, "_import_handlers", import_handlers)
    ls = SimpleNamespace(progress_sender=None, live=None)
    got = asyncio.run(server._handlers_module(ls))
    assert got is whole and callable(got.rag_status)
    assert imported == [ls]


def test_a_finished_import_is_taken_from_sys_modules(monkeypatch):
    whole = importlib.import_module("ragls.lsp.handlers")
    monkeypatch.setattr(server, "_import_handlers", lambda ls: (_ for _ in ()).throw(AssertionError("imported again")))
    assert asyncio.run(server._handlers_module(SimpleNamespace(progress_sender=None, live=None))) is whole
