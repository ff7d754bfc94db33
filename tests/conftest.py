"""Shared pytest fixtures. Keep each fixture small; add yours below."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from llm_server import LLMServer

# Fixtures shared by several test modules (none autouse): the rag/ask tests' key, the commit tests' git isolation.
pytest_plugins = ["askkit", "commitkit"]


def _compile_ragls() -> None:
    """Under PYTHONDONTWRITEBYTECODE no Python process writes `__pycache__`, so each of the hundreds of ragls
    processes the tests start (servers, CLI commands, the editors' servers) compiled every ragls module it imports
    from source again: ~0.45 CPU-s for all of server/ragls, most of it in every server start. The run compiles the
    package once instead (what Python does by itself without the variable; `__pycache__` is git-ignored): seconds
    the first time, a stat per module after. Processes still read nothing but valid bytecode (a changed source's
    timestamp no longer matches its .pyc, which Python then ignores)."""
    import compileall
    import importlib.util

    spec = importlib.util.find_spec("ragls")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        if os.access(folder, os.W_OK):
            compileall.compile_dir(folder, quiet=2)


def pytest_configure(config):
    """One folder of derived model files (the offline model copy, the memory-lean ONNX copy) for every cache dir
    the tests create, in this process and the servers it starts: a fresh RAGLS_CACHE_DIR would otherwise copy the
    model and rewrite it again (~1 CPU-s each). Its contents are keyed by the source model (index_paths.models_root),
    so runs and xdist workers share it safely."""
    if sys.dont_write_bytecode and not os.environ.get("PYTEST_XDIST_WORKER"):  # once, before the workers start
        _compile_ragls()
    os.environ.setdefault("RAGLS_MODELS_DIR", str(Path(tempfile.gettempdir()) / f"ragls-test-models-{os.getuid()}"))
    # The run's one embedding cache (`_run_embedding_cache`): made by the first process (the controller, before the
    # xdist workers start, which inherit the variable) and removed by it at the end.
    if not os.environ.get("RAGLS_TEST_RUN_EMBEDDING_CACHE"):
        config._ragls_run_cache_dir = tempfile.mkdtemp(prefix="ragls-test-embeddings-")
        os.environ["RAGLS_TEST_RUN_EMBEDDING_CACHE"] = str(Path(config._ragls_run_cache_dir) / "cache.sqlite")
    # Folder trust (ragls/config/trust.py) reads and writes the run's own store, never the user's: a test that needs a
    # folder's loaders, endpoints or outside sources trusts it with `ragls.config.trust.trust(folder)` (or `ragls trust`)
    # after writing its ragls.toml. Set before test modules are imported, so environments built at import time
    # (`server_env(...)` in a fixture's config) inherit it too.
    config._ragls_data_dir = tempfile.mkdtemp(prefix="ragls-test-data-")
    os.environ["RAGLS_DATA_DIR"] = config._ragls_data_dir
    # Nor the user's own ragls.toml (`~/.config/ragls/ragls.toml`, config/trust.user_config_file): since session 54 its
    # settings are the lowest layer of every folder's, so a developer's backend or include globs there would change
    # what the tests see. An empty folder of the run's own; a test that needs a user file writes one in its own
    # RAGLS_CONFIG_DIR (tests/integration/test_user_config.py).
    config._ragls_config_dir = tempfile.mkdtemp(prefix="ragls-test-config-")
    os.environ["RAGLS_CONFIG_DIR"] = config._ragls_config_dir


def pytest_addoption(parser):
    """Without pytest-xdist (a venv made before it joined the dev extra), pyproject's `-n auto --dist loadfile
    --no-loadscope-reorder` still parse, and the tests run in this one process; the report header says so."""
    try:
        import xdist  # noqa: F401
    except ImportError:
        group = parser.getgroup("xdist")
        group._addoption("-n", "--numprocesses", dest="numprocesses", default=None, help="ignored: no pytest-xdist")
        group._addoption("--dist", dest="dist", default="no", help="ignored: no pytest-xdist")
        group._addoption("--no-loadscope-reorder", dest="loadscopereorder", action="store_false", default=True,
                         help="ignored: no pytest-xdist")


def pytest_report_header(config):
    try:
        import xdist  # noqa: F401
    except ImportError:
        return "pytest-xdist is not installed: the tests run in one process (pip install -e '.[dev,offline]')"
    return None


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config):
    """`-n auto` (pyproject addopts): one worker more than the CPUs this process may use, at most 3 (1 on 1 CPU).
    The tests wait on servers, editors, browsers and loopback models as much as they compute: with 2 workers on
    2 cores, CI used 153 % CPU (session 52, quiet machine), so a third worker runs while the other two wait
    (docs/benchmarks.md, session 53). Each worker starts its own servers, editors and browsers (about 1-2 GB at
    most); `-n N` asks for N explicitly."""
    cpus = len(os.sched_getaffinity(0))
    return 1 if cpus < 2 else min(3, cpus + 1)


def pytest_unconfigure(config):
    for name in ("_ragls_data_dir", "_ragls_config_dir", "_ragls_run_cache_dir"):
        if folder := getattr(config, name, None):
            shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def llm_server():
    """A running loopback OpenAI- and Anthropic-compatible server (see tests/llm_server.py); stopped afterwards."""
    with LLMServer() as server:
        yield server


def _run_embedding_cache(request) -> str | None:
    """The run's one embedding cache file when the test's module sets `SHARED_EMBEDDING_CACHE = True`, else None.

    The offline MiniLM took ~0.1 CPU-s per 128-token text on the CI machine (2 cores, loaded; bench/history/
    session-59.md), and many end-to-end tests index the same small corpora (tests/fixtures/docs, the Neovim specs'
    workspace) in servers of their own. A module whose tests count nothing the model embedded ("embedded N",
    "from cache", model totals) and need no embedding to take time (a kill or Ctrl-C while it runs) may share this
    file with every other such module, in every xdist worker and every server they start (SQLite in WAL mode: safe
    across processes), so each text is embedded once per run. Its vectors are the model's own, bit for bit. Servers
    whose environment a module builds at import time (a `ClientServerConfig`) keep the cache of their cache dir."""
    if not getattr(request.module, "SHARED_EMBEDDING_CACHE", False):
        return None
    return os.environ["RAGLS_TEST_RUN_EMBEDDING_CACHE"]


@pytest.fixture(scope="module", autouse=True)
def _module_embedding_cache(tmp_path_factory, request):
    """Module-scoped fixtures (servers, workspaces) get a shared embedding cache of their own module (or the run's:
    `_run_embedding_cache`)."""
    path = _run_embedding_cache(request) or str(tmp_path_factory.mktemp("embedding-cache") / "cache.sqlite")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RAGLS_EMBEDDING_CACHE", path)
        yield


@pytest.fixture(autouse=True)
def _own_embedding_cache(tmp_path, monkeypatch, request):
    """Each test gets its own shared embedding cache file (stores/embed_cache.py), so one test's vectors never turn
    another's "embedded N texts" into cache hits (unless its module shares the run's: `_run_embedding_cache`).
    Servers started by a test inherit it through the environment."""
    monkeypatch.setenv("RAGLS_EMBEDDING_CACHE",
                       _run_embedding_cache(request) or str(tmp_path / "embedding-cache.sqlite"))


@pytest.fixture(scope="module")
def offline_embedder():
    """The real offline all-MiniLM-L6-v2 (`ragls[offline]`), one per module; skips without the extra."""
    from ragls.config.settings import EmbeddingSettings
    from ragls.embedding.embed import Embedder, offline_model_dir

    path = offline_model_dir()
    if path is None:
        pytest.skip("needs ragls[offline]")
    return Embedder(EmbeddingSettings(model="sentence-transformers/all-MiniLM-L6-v2", model_path=str(path)))
