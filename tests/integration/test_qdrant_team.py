"""Team mode: a CI clone builds the shared index of the default branch into Qdrant (embedded local mode), a
developer's clone at another path queries it with its local changes overlaid (real git, real LanceDB/tantivy
overlay, real offline MiniLM model).

What must hold: a locally edited file answers with its new text only; a locally deleted file never surfaces; a
new local file is found; unchanged files come from the shared index, cited as files of the developer's folder;
the shared collection is never written by the developer.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from ragls.config.settings import build_settings
from ragls.core.errors import ConfigError
from ragls.embedding.embed import OFFLINE_MODEL_NAME, Embedder, offline_model_dir
from ragls.index.indexer import FolderIndex
from ragls.kb.team import TeamIndex

MODEL_DIR = offline_model_dir()
pytestmark = pytest.mark.skipif(MODEL_DIR is None, reason="needs ragls[offline]")

FILES = {
    "guide/retries.md": "# Retries\n\nFailed uploads are retried five times with exponential backoff.\n",
    "guide/deploy.md": "# Deploy\n\nThe container image is pushed to the registry on every release tag.\n",
    "guide/auth.md": "# Auth\n\nAccess tokens expire after 24 hours; refresh them with login --refresh.\n",
    "faq.md": "# FAQ\n\nThe cache directory follows XDG_CACHE_HOME on Linux.\n",
}


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.email=ci@example.com", "-c", "user.name=ci", *args], cwd=cwd,
                          check=True, capture_output=True, text=True).stdout.strip()


def settings(tmp_path: Path, name: str, **index):
    return build_settings({
        "embedding": {"model": OFFLINE_MODEL_NAME, "model_path": str(MODEL_DIR)},
        "index": {"path": str(tmp_path / name), "backend": "qdrant", "qdrant_location": str(tmp_path / "shared"),
                  **index},
    })[0]


def paths(hits):
    return [h.chunk.path for h in hits]


def test_overlay_shows_local_edits_and_hides_local_deletes(tmp_path):
    origin = tmp_path / "origin"
    for rel, text in FILES.items():
        (origin / rel).parent.mkdir(parents=True, exist_ok=True)
        (origin / rel).write_text(text)
    git(origin, "init", "-q", "-b", "main")
    git(origin, "add", "-A")
    git(origin, "commit", "-qm", "docs")
    ci, dev = tmp_path / "ci/checkout", tmp_path / "home/dev/docs"
    for clone in (ci, dev):
        clone.parent.mkdir(parents=True)
        git(tmp_path, "clone", "-q", str(origin), str(clone))
        git(clone, "remote", "set-url", "origin", "git@example.com:acme/docs.git")

    ci_settings = settings(tmp_path, "ci-index")
    emb = Embedder(ci_settings.embedding)
    ci_index = FolderIndex(ci, ci_settings, emb)
    ci_index.sync()
    shared = ci_index.vectors
    assert shared.meta()["indexed_commit"] == git(origin, "rev-parse", "HEAD")
    ci_index.close()

    (dev / "guide/retries.md").write_text("# Retries\n\nFailed uploads are retried twice, then moved to a "
                                          "dead-letter queue.\n")
    (dev / "guide/deploy.md").unlink()
    (dev / "guide/sso.md").write_text("# Single sign-on\n\nSSO uses SAML with the corporate identity provider.\n")
    dev_settings = settings(tmp_path, "dev-index", team=True)
    team = TeamIndex(dev, dev_settings, emb)
    try:
        assert team.shared.collection == shared.collection  # same repository, other path: same collection
        before = shared.count()
        ch = team.changes()
        assert (ch.modified, ch.added, ch.deleted) == (["guide/retries.md"], ["guide/sso.md"], ["guide/deploy.md"])
        team.sync()
        assert sorted(team.overlay.manifest.files()) == ["guide/retries.md", "guide/sso.md"]
        r = dev_settings.retrieval

        hits = team.search("how many times are failed uploads retried?", settings=r, top_k=5)
        retries = [h for h in hits if h.chunk.path == "guide/retries.md"]
        assert len(retries) == 1 and "dead-letter" in retries[0].chunk.text
        assert hits[0].chunk.path == "guide/retries.md"
        assert not any("five times" in h.chunk.text for h in hits)

        for q in ("container image pushed to the registry", "release tag deploy"):
            assert "guide/deploy.md" not in paths(team.search(q, settings=r, top_k=10))

        assert team.search("SAML single sign-on", settings=r)[0].chunk.path == "guide/sso.md"
        top = team.search("when do access tokens expire", settings=r)[0]
        assert top.chunk.path == "guide/auth.md" and top.chunk.folder == str(dev)  # shared, cited locally
        assert top.signals.get("vector") == 1
        assert shared.count() == before  # the developer never writes the shared collection

        # the edit is reverted, the file restored: both come from the shared index again
        git(dev, "checkout", "--", "guide/retries.md", "guide/deploy.md")
        team.sync()
        assert sorted(team.overlay.manifest.files()) == ["guide/sso.md"]
        hits = team.search("container image pushed to the registry", settings=r, top_k=3)
        assert hits[0].chunk.path == "guide/deploy.md"
        assert team.status()["deleted"] == 0 and team.status()["added"] == 1
    finally:
        team.close()


def test_missing_shared_collection_says_how_to_build_it(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\ntext\n")
    s = settings(tmp_path, "ix", team=True, repo_id="example.com/acme/none")
    with pytest.raises(ConfigError, match=r"does not exist .*ragls index PATH --backend qdrant --url"):
        TeamIndex(folder, s, Embedder(s.embedding))
