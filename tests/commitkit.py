"""Shared pieces of the commit-message tests (integration/test_commit, test_commit_robust): git isolated from the machine's
configuration, a file writer, settings for the loopback LLM server (tests/llm_server.py) and its API key."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from ragls.config.settings import Settings

KEY_ENV = "RAGLS_COMMIT_TEST_KEY"


@pytest.fixture
def isolated_git(tmp_path, monkeypatch):
    """Neither the system's nor the user's git config is read; git never walks above tmp_path. A plugin of
    tests/conftest.py: modules that need it write `pytestmark = pytest.mark.usefixtures("isolated_git")`."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    for var in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_CONFIG_GLOBAL", "GIT_OBJECT_DIRECTORY"):
        monkeypatch.delenv(var, raising=False)


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def write(repo: Path, rel: str, text: str | bytes) -> Path:
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def settings_for(server=None, **commit) -> Settings:
    data: dict = {"commit": commit}
    if server is not None:
        data["generation"] = {"backend": "openai", "base_url": server.openai_url, "api_key_env": KEY_ENV,
                              "model": "test-model", "max_retries": 0}
    else:
        data["generation"] = {"backend": "none"}
    return Settings.model_validate(data)


@pytest.fixture
def llm(llm_server, monkeypatch):
    """The loopback LLM server (`llm_server`) with the API key `settings_for(server)` names."""
    monkeypatch.setenv(KEY_ENV, "sk-test-commit")
    return llm_server
