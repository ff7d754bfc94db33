"""An ignore file ragls cannot apply as written (more than MAX_IGNORE_PATTERNS patterns or MAX_IGNORE_FILE_BYTES:
all below it is left out, failing closed) is said where the user looks — rag/status `errors` (severity "warning",
the ignore file as `path`), `ragls index` — not only in a log line: before, a folder whose root .gitignore was too
long showed an empty index and no reason. Real folders, a real index (SQLite + tantivy), the real CLI."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from clikit import ragls
from offline_index import offline_toml
from ragls.config.trust import trust as trust_folder
from ragls.embedding.embed import offline_model_dir
from ragls.sources import walk as walk_mod
from ragls.workspace.rag_workspace import RagWorkspace

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

MANY = "".join(f"build-{i}/\n" for i in range(walk_mod.MAX_IGNORE_PATTERNS + 1))
TOO_MANY = f"ignore file of {walk_mod.MAX_IGNORE_PATTERNS + 1:,} patterns (more than {walk_mod.MAX_IGNORE_PATTERNS:,}"


def make(folder: Path, index: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)
    (folder / "ragls.toml").write_text(offline_toml(index, sentence_pass=True))
    trust_folder(folder)
    return folder


def status_of(folder: Path):
    ws = RagWorkspace([folder], read_only=True)  # what `ragls status` reads: the manifest, no model
    try:
        return ws.status()
    finally:
        ws.close()


def test_a_too_long_root_gitignore_is_a_status_warning_not_an_empty_index_without_reason(tmp_path):
    folder = make(tmp_path / "ws", tmp_path / "index", {".gitignore": MANY, "guide.md": "# Guide\n\nThe walrus.\n"})
    ws = RagWorkspace([folder])
    try:
        [report] = ws.index(embed=False)
    finally:
        ws.close()
    assert report.indexed == []
    status = status_of(folder)
    assert status.folders[0].files == 0
    [warning] = [e for e in status.errors if e.get("severity") == "warning"]
    assert warning["path"] == str(folder / ".gitignore")
    assert TOO_MANY in warning["message"] and "everything below its folder is left out" in warning["message"]
    # not the misleading "no file here matches sources.include" notice
    assert not [n for n in status.notices if "sources.include" in n]


def test_a_nested_one_leaves_out_its_folder_says_so_and_the_warning_goes_when_it_is_fixed(tmp_path):
    folder = make(tmp_path / "ws", tmp_path / "index", {
        "a.md": "# A\n\nThe narwhal.\n", "gen/.gitignore": "# generated\n" + MANY, "gen/b.md": "# B\n\nThe heron.\n"})
    env = {**os.environ, "RAGLS_CACHE_DIR": str(tmp_path / "cache"), "RAGLS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
    proc = ragls(env, "index", folder, "--no-server")
    assert f"warning: {folder / 'gen' / '.gitignore'}: {TOO_MANY}" in proc.stdout
    status = json.loads(ragls(env, "status", folder, "--json").stdout)
    assert status["folders"][0]["files"] == 1
    assert [(e["path"], e["severity"]) for e in status["errors"]] == [(str(folder / "gen" / ".gitignore"), "warning")]
    assert f"warning:     {folder / 'gen' / '.gitignore'}: {TOO_MANY}" in ragls(env, "status", folder).stdout
    (folder / "gen" / ".gitignore").write_text("build-1/\n")
    proc = ragls(env, "index", folder, "--no-server")
    assert "warning" not in proc.stdout, proc.stdout
    status = json.loads(ragls(env, "status", folder, "--json").stdout)
    assert status["folders"][0]["files"] == 2 and status["errors"] == []


def test_an_ignore_file_linked_out_of_the_folder_is_not_read_and_no_line_reaches_status(tmp_path):
    """A folder is untrusted input: its .gitignore linked to a file out of it (the user's shell history) is not read
    — its lines would be patterns, and a line too costly to match is quoted in the warning — and says so; a line
    quoted from an ignore file of the folder passes the secret masker first."""
    secret = "Zr8wq3Lp9x"
    (tmp_path / "history").write_text(f"curl -u admin:{secret}*a*b*c*d https://x\nguide.md\n")
    folder = make(tmp_path / "ws", tmp_path / "index", {
        "guide.md": "# Guide\n\nThe walrus.\n", "sub/.gitignore": f"password={secret}*a*b*c*d\n",
        "sub/page.md": "# Page\n\nThe heron.\n"})
    (folder / ".gitignore").symlink_to(tmp_path / "history")
    ws = RagWorkspace([folder])
    try:
        [report] = ws.index(embed=False)
    finally:
        ws.close()
    assert sorted(report.indexed) == ["guide.md", "sub/page.md"]  # the linked file's "guide.md" line is no rule
    warnings = {e["path"]: e["message"] for e in status_of(folder).errors if e.get("severity") == "warning"}
    assert warnings[str(folder / ".gitignore")].endswith(
        "ignore file is a link out of the folder: not read, its rules are not applied")
    assert "has more than 3 wildcards" in warnings[str(folder / "sub" / ".gitignore")]
    assert not [m for m in warnings.values() if secret in m]
