"""Shared pytest fixtures. Keep each fixture small; add yours below."""

from __future__ import annotations

import pytest
from llm_server import LLMServer


@pytest.fixture
def llm_server():
    """A running loopback OpenAI- and Anthropic-compatible server (see tests/llm_server.py); stopped afterwards."""
    with LLMServer() as server:
        yield server


@pytest.fixture(scope="session", autouse=True)
def _own_trust_store(tmp_path_factory):
    """Folder trust (ragls/trust.py) reads and writes the session's own store, never the user's: a test that needs
    a folder's loaders, endpoints or outside sources trusts it with `ragls.trust.trust(folder)` (or `ragls trust`)
    after writing its ragls.toml. Servers started by a test inherit the store through the environment."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RAGLS_DATA_DIR", str(tmp_path_factory.mktemp("ragls-data")))
        yield


@pytest.fixture(scope="module", autouse=True)
def _module_embedding_cache(tmp_path_factory):
    """Module-scoped fixtures (servers, workspaces) get a shared embedding cache of their own module."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RAGLS_EMBEDDING_CACHE", str(tmp_path_factory.mktemp("embedding-cache") / "cache.sqlite"))
        yield


@pytest.fixture(autouse=True)
def _own_embedding_cache(tmp_path, monkeypatch):
    """Each test gets its own shared embedding cache file (stores/embed_cache.py), so one test's vectors never turn
    another's "embedded N texts" into cache hits. Servers started by a test inherit it through the environment."""
    monkeypatch.setenv("RAGLS_EMBEDDING_CACHE", str(tmp_path / "embedding-cache.sqlite"))
