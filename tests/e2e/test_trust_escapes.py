"""Ways out of an untrusted folder that the allow-list once missed, on real `ragls query` processes (issue 25).

A cloned folder's ragls.toml may declare `[rags.NAME]` tables whose sources stay inside the folder. Two spellings
used to reach a private folder beside it: a brace set whose expansion is `..` (`{..,.}/private/*.md`: no `..`
part before expansion, the resolver expands it), and a glob inside the folder that descends a symlinked directory
or matches a symlinked file pointing out (`docs/**/*.md` with `docs/more -> ../../private`). Neither may index
the private file: the first RAG is ignored with the trust notice, the second indexes only the folder's own files.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from lspkit import server_env

VAULT = "The vault combination is 4-8-15-16-23-42."


@pytest.fixture
def clone(tmp_path):
    """A cloned folder with a private folder beside it, reached by a brace set and by links."""
    private = tmp_path / "private"
    private.mkdir()
    (private / "vault.md").write_text(f"# Vault\n\n{VAULT}\n")
    folder = tmp_path / "clone"
    (folder / "docs").mkdir(parents=True)
    (folder / "docs" / "guide.md").write_text("# Deploying\n\nThe deploy command is `make ship`.\n")
    (folder / "docs" / "more").symlink_to(private, target_is_directory=True)  # a symlinked directory, out
    (folder / "notes.md").symlink_to(private / "vault.md")  # a symlinked file, out
    (folder / "ragls.toml").write_text('[rags.brace]\nsources = ["{..,.}/private/*.md"]\n\n'
                                       '[rags.globby]\nsources = ["docs/**/*.md", "*.md"]\n')
    return folder


def ragls(tmp_path, *args):
    proc = subprocess.run([sys.executable, "-m", "ragls", *map(str, args)], env=server_env(tmp_path / "cache"),
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL, check=False)
    return proc


def test_a_brace_set_expanding_to_dotdot_is_a_source_outside_the_folder(clone, tmp_path):
    out = ragls(tmp_path, "query", clone, "vault combination", "--rag", "brace", "--json")
    assert out.returncode == 2 and "unknown rag 'brace'" in out.stderr
    [notice] = [line for line in out.stderr.splitlines() if "so these settings were ignored" in line]
    assert "rags.brace (a source outside the folder)" in notice and "rags.globby" not in notice


def test_a_glob_does_not_follow_links_out_of_its_directory(clone, tmp_path):
    out = ragls(tmp_path, "query", clone, "vault combination", "--rag", "globby", "--json", "--top-k", "5")
    assert out.returncode == 0, out.stderr
    chunks = json.loads(out.stdout)["chunks"]
    assert [c["source"]["uri"].rsplit("/", 2)[-2:] for c in chunks] == [["docs", "guide.md"]]
    assert VAULT not in out.stdout
