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
from ragls.index.repo import head_commit, local_changes, repo_identity

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


@pytest.mark.parametrize("remote", ["local", "ssh", "ext"])
@pytest.mark.parametrize("staged", [True, False])
def test_a_partial_clone_fetches_nothing_for_a_commit_message(tmp_path, staged, remote):
    """A partial clone (`extensions.partialClone`) fetches an object it lacks from its promisor remote while git
    diffs: the remote's `uploadpack` (a local path), `core.sshCommand` (ssh) or an `ext::` URL is a program the
    folder's `.git/config` names (red team, session 53: `ragls commit-msg --all` ran it). No transport runs: the
    diff fails with git's reason, nothing runs."""
    repo, marks = hostile_repo(tmp_path)
    blob = git(repo, "rev-parse", "HEAD:notes.md").strip()
    (repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    url = {"local": str(repo), "ssh": "ssh://example.invalid/x.git",
           "ext": f"ext::sh -c touch% {marks / 'ext'}"}[remote]
    for key, value in (("core.repositoryformatversion", "1"), ("extensions.partialClone", "origin"),
                       ("remote.origin.url", url), ("remote.origin.promisor", "true"),
                       ("remote.origin.uploadpack", f"touch {marks / 'uploadpack'}; false"),
                       ("core.sshCommand", f"touch {marks / 'ssh'}; false"),
                       ("protocol.allow", "always"), ("protocol.ext.allow", "always")):
        git(repo, "config", key, value)
    with pytest.raises(RequestFailed, match="git diff failed"):
        generate_commit_message(repo, settings=settings_for(), staged=staged)
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


def other_repository(tmp_path):
    """The user's own repository next to the cloned folder: `private.md` committed, a line staged, an `origin`
    remote; returns its work tree."""
    other = tmp_path / "private-repo"
    other.mkdir()
    git(other, "init", "-q")
    git(other, "config", "user.name", "Test")
    git(other, "config", "user.email", "test@example.com")
    git(other, "remote", "add", "origin", "git@github.com:victim/private.git")
    write(other, "private.md", "salary list\n")
    git(other, "add", "private.md")
    git(other, "commit", "-q", "-m", "init")
    write(other, "private.md", "salary list\nstaged secret line\n")
    git(other, "add", "private.md")
    return other


def assert_not_described(clone, other):
    """Neither a commit message, the team index's local changes, the repository identity nor the commit comes
    from `other`'s repository."""
    for staged in (True, False):
        with pytest.raises(RequestFailed, match="another repository"):
            generate_commit_message(clone, settings=settings_for(), staged=staged)
    assert local_changes(clone, git(other, "rev-parse", "HEAD").strip()) is None
    assert head_commit(clone) is None
    assert "victim" not in repo_identity(clone)


def test_a_git_file_naming_another_repository_is_refused(tmp_path):
    """A folder's `.git` FILE (`gitdir: ../private-repo/.git`) would make git describe that repository: its staged
    change, its HEAD's text under the folder's file names, its remote."""
    other = other_repository(tmp_path)
    clone = tmp_path / "clone"
    clone.mkdir()
    write(clone, ".git", "gitdir: ../private-repo/.git\n")
    write(clone, "private.md", "\n")
    assert_not_described(clone, other)


def test_a_git_directory_sharing_another_repositorys_is_refused(tmp_path):
    """A `.git` directory whose `commondir` names another repository's (the layout of a linked worktree) reads that
    repository's objects, refs and remote."""
    other = other_repository(tmp_path)
    clone = tmp_path / "clone"
    write(clone, ".git/HEAD", "ref: refs/heads/master\n")
    write(clone, ".git/commondir", str(other / ".git") + "\n")
    write(clone, "private.md", "\n")
    assert_not_described(clone, other)


def test_a_git_file_naming_another_submodules_directory_is_refused(tmp_path):
    """A submodule's git directory sets core.worktree to the submodule's folder: a `.git` file naming it from
    another folder would describe that submodule."""
    other = other_repository(tmp_path)
    git(other, "commit", "-q", "-m", "staged")
    sup = tmp_path / "super"
    sup.mkdir()
    git(sup, "init", "-q")
    git(sup, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(other), "sub")
    write(sup / "sub", "private.md", "edited in the submodule\n")
    clone = tmp_path / "clone"
    clone.mkdir()
    write(clone, ".git", f"gitdir: {sup / '.git' / 'modules' / 'sub'}\n")
    assert_not_described(clone, other)
    msg = generate_commit_message(sup / "sub", settings=settings_for(), staged=False)  # the real one is read
    assert msg.files == ["private.md"]


def test_linked_worktrees_and_submodules_are_their_own_repositories(tmp_path):
    """A `git worktree add` checkout (its `.git` file names `<main>/.git/worktrees/NAME`, which names it back) and a
    submodule are read as before."""
    other = other_repository(tmp_path)
    tree = tmp_path / "linked"
    git(other, "worktree", "add", "-q", str(tree))
    write(tree, "private.md", "salary list\nworktree line\n")
    git(tree, "add", "private.md")
    assert generate_commit_message(tree, settings=settings_for(), staged=True).files == ["private.md"]
    head = git(tree, "rev-parse", "HEAD").strip()
    assert head_commit(tree) == head
    assert local_changes(tree, head).modified == ["private.md"]
    assert repo_identity(tree) == "github.com/victim/private"


@pytest.mark.parametrize("kind", ["link", "fifo"])
def test_a_merge_message_that_is_no_regular_file_is_not_read(tmp_path, kind):
    """git's prepared merge message (`.git/MERGE_MSG`, read while MERGE_HEAD exists) is the folder's input: a link
    there to a file outside (`~/.bash_history`) became the commit message (red team, session 48), and a FIFO would
    block the read. Only a regular file is read; otherwise the message is made as for any commit."""
    repo, _marks = hostile_repo(tmp_path)
    private = tmp_path / "private-history"
    private.write_text("mysql -u root -phunter2 production\n")
    git(repo, "rev-parse", "HEAD")
    write(repo, ".git/MERGE_HEAD", git(repo, "rev-parse", "HEAD"))
    if kind == "link":
        os.symlink(private, repo / ".git" / "MERGE_MSG")
    else:
        os.mkfifo(repo / ".git" / "MERGE_MSG")
    msg = generate_commit_message(repo, settings=settings_for(), staged=True)
    assert "hunter2" not in msg.message and msg.files == ["notes.md"]
    (repo / ".git" / "MERGE_MSG").unlink()
    write(repo, ".git/MERGE_MSG", "Merge branch 'topic'\n# Conflicts:\n")
    assert generate_commit_message(repo, settings=settings_for(), staged=True).message == "Merge branch 'topic'"
