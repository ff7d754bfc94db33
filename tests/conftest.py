"""Shared pytest fixtures. Keep each fixture small; add yours below."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest
from llm_server import LLMServer


@pytest.fixture
def llm_server():
    """A running loopback OpenAI- and Anthropic-compatible server (see tests/llm_server.py); stopped afterwards."""
    with LLMServer() as server:
        yield server


def pytest_configure(config):
    """Folder trust (ragls/trust.py) reads and writes the run's own store, never the user's: a test that needs a
    folder's loaders, endpoints or outside sources trusts it with `ragls.trust.trust(folder)` (or `ragls trust`)
    after writing its ragls.toml. Set before test modules are imported, so servers and environments built at
    import time (`server_env(...)` in a fixture's config) inherit it too."""
    config._ragls_data_dir = tempfile.mkdtemp(prefix="ragls-test-data-")
    os.environ["RAGLS_DATA_DIR"] = config._ragls_data_dir


def pytest_unconfigure(config):
    data_dir = getattr(config, "_ragls_data_dir", None)
    if data_dir:
        shutil.rmtree(data_dir, ignore_errors=True)


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
