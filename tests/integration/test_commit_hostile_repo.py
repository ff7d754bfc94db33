"""A folder's own `.git/config` is untrusted input (docs/security.md): a repository that arrives with its `.git` (an
archive, a shared drive, a copied checkout) can name programs git runs while it reads the index or the work tree
(`core.fsmonitor`, a filter driver's `clean` / `process` with `.gitattributes` selecting it) or move the work tree
out of the folder (`core.worktree`). Commit messages (`rag/commitMessage`, `ragls commit-msg`) and the team index's
local changes (`index.repo.local_changes`) run git there: nothing it names may run, and no file outside is read."""

from __future__ import annotations

import os

import pytest
from commitkit import git, settings_for, write
from ragls.commit.message import generate_commit_message
from ragls.core.errors import RequestFailed
from ragls.index.repo import local_changes

pytestmark = pytest.mark.usefixtures("isolated_git")


def hostile_repo(tmp_path):
    """A repository with one commit, `notes.md` staged with a new line and edited again in the work tree (and
    `other.txt` edited), whose `.git/config` names a program for every hook git offers the commands ragls runs;
    returns (repo, the folder the programs would create their marker files in)."""
    repo, marks = tmp_path / "clone", tmp_path / "marks"
    repo.mkdir()
    marks.mkdir()
    git(repo, "init", "-q")
    git(repo, "config", "user.name", "Test")
    git(repo, "config", "user.email", "test@example.com")
    write(repo, "notes.md", "# Notes\n\nFirst line.\n")
    write(repo, "other.txt", "text\n")
    git(repo, "add", "notes.md", "other.txt")
    git(repo, "commit", "-q", "-m", "init")
    write(repo, "notes.md", "# Notes\n\nFirst line.\nSecond line.\n")
    git(repo, "add", "notes.md")
    write(repo, "notes.md", "# Notes\n\nFirst line.\nSecond line.\nThird line.\n")
    for key, name in (("core.fsmonitor", "fsmonitor"), ("filter.evil.clean", "clean"),
                      ("filter.a=b.clean", "clean-eq"), ("filter.proc.process", "process"),
                      ("core.hooksPath", None)):
        value = (f"touch {marks / name}" + ("" if key.endswith(".process") else "; cat")) if name else str(marks)
        git(repo, "config", key, value)
    git(repo, "config", "filter.evil.required", "true")
    write(repo, ".gitattributes", "*.md filter=evil\nnotes.* filter=a=b\n*.txt filter=proc\n")
    write(repo, "other.txt", "more text\n")
    return repo, marks


@pytest.mark.parametrize("staged", [True, False])
def test_a_repositorys_own_config_runs_nothing_for_a_commit_message(tmp_path, staged):
    repo, marks = hostile_repo(tmp_path)
    msg = generate_commit_message(repo, settings=settings_for(), staged=staged)
    assert "notes.md" in msg.files
    assert sorted(p.name for p in marks.iterdir()) == []


def test_a_repositorys_own_config_runs_nothing_for_local_changes(tmp_path):
    repo, marks = hostile_repo(tmp_path)
    changes = local_changes(repo, git(repo, "rev-parse", "HEAD").strip())
    assert changes is not None and "notes.md" in changes.modified
    assert sorted(p.name for p in marks.iterdir()) == []


def test_a_work_tree_moved_out_of_the_folder_is_refused(tmp_path):
    """core.worktree naming another repository (the user's home under version control) would describe that
    repository's changes; the folder's git directory must be the one of the work tree git reports."""
    home = tmp_path / "home-repo"
    home.mkdir()
    git(home, "init", "-q")
    write(home, "diary.md", "private\n")
    git(home, "add", "diary.md")
    clone = home / "src" / "clone"
    clone.mkdir(parents=True)
    git(clone, "init", "-q")
    write(clone, "README.md", "hello\n")
    git(clone, "add", "README.md")
    git(clone, "config", "core.worktree", str(home))
    with pytest.raises(RequestFailed, match="core.worktree"):
        generate_commit_message(clone, settings=settings_for(), staged=True)


def test_a_submodules_own_config_runs_nothing_either(tmp_path):
    """git diff HEAD asks each submodule whether its work tree is dirty by running git status there, which reads the
    submodule's own config (filters the repository's settings never named): submodules are compared by the commit
    the superproject records (--ignore-submodules=dirty)."""
    repo, marks = tmp_path / "clone", tmp_path / "marks"
    sub = repo / "vendor"
    sub.mkdir(parents=True)
    marks.mkdir()
    for where in (repo, sub):
        git(where, "init", "-q")
        git(where, "config", "user.name", "Test")
        git(where, "config", "user.email", "test@example.com")
    write(sub, "lib.md", "library\n")
    git(sub, "add", "lib.md")
    git(sub, "commit", "-q", "-m", "lib")
    write(repo, "notes.md", "# Notes\n")
    git(repo, "add", "notes.md", "vendor")
    git(repo, "commit", "-q", "-m", "init")
    write(repo, "notes.md", "# Notes\n\nMore.\n")
    git(sub, "config", "filter.sub.clean", f"touch {marks / 'clean'}; cat")
    git(sub, "config", "core.fsmonitor", f"touch {marks / 'fsmonitor'}; echo")
    write(sub, ".gitattributes", "*.md filter=sub\n")
    os.utime(sub / "lib.md", (1, 1))  # same size, new time: git status hashes the file through its filter
    for staged in (False, True):
        if staged:
            git(repo, "add", "notes.md")
        msg = generate_commit_message(repo, settings=settings_for(), staged=staged)
        assert msg.files == ["notes.md"]
    assert local_changes(repo, git(repo, "rev-parse", "HEAD").strip()) is not None
    assert sorted(p.name for p in marks.iterdir()) == []
