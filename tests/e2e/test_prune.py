"""`ragls prune` and read-only `ragls status`: an index whose folder was deleted is listed as an orphan (dry run
removes nothing, --remove deletes exactly it); `status` on a never-indexed folder creates no index directory. In-process
(clikit), except the check of what a `ragls status` process imports."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from clikit import ragls as run
from lspkit import server_env


def ragls(env, *args):
    return run(env, *args).stdout


def _open_index(folder: Path, cache: Path) -> Path:
    """Open (and close) a folder's index as a writer, in-process, without loading the model: records its folder."""
    import os

    from ragls.config.trust_filter import load_settings
    from ragls.embedding.embed import Embedder
    from ragls.index.indexer import FolderIndex

    old = os.environ.get("RAGLS_CACHE_DIR")
    os.environ["RAGLS_CACHE_DIR"] = str(cache)
    try:
        settings, _ = load_settings(folder)
        idx = FolderIndex(folder, settings, Embedder(settings.embedding))
        assert idx.writer
        path = idx.index_dir
        idx.close()
        return path
    finally:
        if old is None:
            os.environ.pop("RAGLS_CACHE_DIR")
        else:
            os.environ["RAGLS_CACHE_DIR"] = old


def test_prune_lists_then_removes_exactly_the_orphan(tmp_path):
    cache = tmp_path / "cache"
    env = server_env(cache)
    env["RAGLS_CACHE_DIR"] = str(cache)
    kept, gone = tmp_path / "kept", tmp_path / "gone"
    for f in (kept, gone):
        f.mkdir()
        (f / "a.md").write_text("# A\n\nhello\n")
    kept_index = _open_index(kept, cache)
    gone_index = _open_index(gone, cache)
    shutil.rmtree(gone)

    listing = json.loads(ragls(env, "prune", "--dry-run", "--json"))
    states = {Path(e["indexPath"]): e["state"] for e in listing["indexes"]}
    assert states == {kept_index: "live", gone_index: "orphan"}
    assert listing["removed"] == []
    assert gone_index.is_dir()  # a dry run deletes nothing

    out = ragls(env, "prune", "--remove")
    assert "1 orphaned index removed" in out
    assert not gone_index.exists() and kept_index.is_dir()


def test_status_of_an_unindexed_folder_creates_nothing(tmp_path):
    cache = tmp_path / "cache"
    env = server_env(cache)
    env["RAGLS_CACHE_DIR"] = str(cache)
    folder = tmp_path / "never"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nhello\n")
    out = ragls(env, "status", folder)
    assert "not indexed yet" in out
    assert not (cache / "indexes").exists() or not any((cache / "indexes").iterdir())


def test_status_of_an_indexed_folder_loads_neither_model_nor_lancedb(tmp_path):
    cache = tmp_path / "cache"
    env = server_env(cache)
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nRetries back off exponentially up to a minute.\n")
    ragls(env, "index", folder)
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "ragls", "status", folder, "--json"], env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    imported = {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time")}
    assert not {"lancedb", "fastembed", "onnxruntime"} & imported
    status = json.loads(proc.stdout)
    folder_status = status["folders"][0]
    assert folder_status["files"] == 1 and folder_status["chunks"] == 1 and folder_status["pendingVectors"] == 0
    assert status["embeddingModel"] == "sentence-transformers/all-MiniLM-L6-v2"  # the model the index was built with


def test_prune_removes_an_unrecorded_index_only_when_asked(tmp_path):
    """An index that records no folder (an older ragls's, or a crash's) was listed "unknown" and never removable,
    with no word on what to do. It is listed with the command that removes it; `--remove --unknown` removes it
    unless it changed in the last 10 minutes (a server may be starting in it); a team-mode index (its folder
    recorded in `overlay/`) is live, not unknown."""
    import os
    import sqlite3

    cache = tmp_path / "cache"
    env = server_env(cache)
    old, team = tmp_path / "old", tmp_path / "team"
    for f in (old, team):
        f.mkdir()
        (f / "a.md").write_text("# A\n\nhello\n")
    old_index = _open_index(old, cache)
    conn = sqlite3.connect(old_index / "manifest.sqlite")
    conn.execute("DELETE FROM meta WHERE key='folder'")  # as an index made before the record
    conn.commit()
    conn.close()
    team_index = cache / "indexes" / "team-0123456789ab"
    team_index.mkdir()
    _open_index(team, cache).rename(team_index / "overlay")  # kb/team.py: <index>/overlay is the local FolderIndex
    fresh_index = cache / "indexes" / "fresh-ba9876543210"
    fresh_index.mkdir()
    (fresh_index / "serve.log").write_text("starting\n")  # `ragls index --background`, before its server locks it
    hour_ago = os.stat(old_index).st_mtime - 3600
    for p in (old_index, *old_index.iterdir()):
        os.utime(p, (hour_ago, hour_ago))

    out = ragls(env, "prune", "--remove")
    assert "0 orphaned indexes removed" in out
    assert "2 indexes record no folder" in out and "`ragls prune --remove --unknown`" in out, out
    listing = json.loads(ragls(env, "prune", "--json"))
    states = {Path(e["indexPath"]): e["state"] for e in listing["indexes"]}
    assert states == {old_index: "unknown", team_index: "live", fresh_index: "unknown"}

    out = ragls(env, "prune", "--remove", "--unknown")
    assert "1 orphaned or unknown index removed" in out, out
    assert not old_index.exists() and fresh_index.is_dir() and (team_index / "overlay" / "manifest.sqlite").is_file()
