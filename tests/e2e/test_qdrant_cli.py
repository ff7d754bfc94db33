"""The CLI over Qdrant's embedded local mode: a CI job builds the shared index (`ragls index PATH --backend qdrant
--url DIR`), a developer queries it from another clone with local changes overlaid (`--team`); status names the
backend and never shows the API key. The CLI in-process (clikit), real git, the real offline model."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from clikit import ragls
from ragls.embedding.embed import offline_model_dir

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")


def run(*args: str, env: dict) -> subprocess.CompletedProcess:
    return ragls(env, *args, check=False)


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=ci@example.com", "-c", "user.name=ci", *args], cwd=cwd, check=True,
                   capture_output=True)


def test_ci_builds_shared_index_developer_queries_with_overlay(tmp_path):
    origin = tmp_path / "origin"
    (origin / "guide").mkdir(parents=True)
    (origin / "guide/retries.md").write_text("# Retries\n\nFailed uploads are retried five times.\n")
    (origin / "guide/deploy.md").write_text("# Deploy\n\nThe container image is pushed to the registry.\n")
    git(origin, "init", "-q", "-b", "main")
    git(origin, "add", "-A")
    git(origin, "commit", "-qm", "docs")
    ci, dev = tmp_path / "ci", tmp_path / "dev"
    git(tmp_path, "clone", "-q", str(origin), str(ci))
    git(tmp_path, "clone", "-q", str(origin), str(dev))
    secret = "qdrant-secret-value-123"
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "TEAM_KEY": secret}
    shared = str(tmp_path / "shared")

    built = run("index", str(ci), "--url", shared, "--index-path", str(tmp_path / "ci-index"), env=env)
    assert built.returncode == 0, built.stderr
    st = run("status", str(ci), "--url", shared, "--index-path", str(tmp_path / "ci-index"), "--api-key-env",
             "TEAM_KEY", "--json", env=env)
    assert st.returncode == 0, st.stderr
    assert json.loads(st.stdout)["store"].startswith("qdrant:ragls-")
    assert secret not in st.stdout + st.stderr + built.stdout + built.stderr

    (dev / "guide/retries.md").write_text("# Retries\n\nFailed uploads are retried twice, then dropped.\n")
    (dev / "guide/deploy.md").unlink()
    q = run("query", str(dev), "failed uploads retried", "--url", shared, "--team", "--json", env=env)
    assert q.returncode == 0, q.stderr
    chunks = json.loads(q.stdout)["chunks"]
    assert chunks[0]["source"]["path"] == "guide/retries.md" and "twice" in chunks[0]["text"]
    assert chunks[0]["source"]["uri"].startswith("file://") and "/dev/" in chunks[0]["source"]["uri"]
    q = run("query", str(dev), "container image registry", "--url", shared, "--team", "--json", env=env)
    assert "guide/deploy.md" not in [c["source"]["path"] for c in json.loads(q.stdout)["chunks"]]
