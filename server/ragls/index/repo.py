"""Git facts a shared (team) index depends on: the repository's identity, the commit, what differs locally.

Identity (`repo_identity`) is what teammates and CI have in common — never an absolute path (a peer tool named
its collections by path, so worktrees and teammates could not share an index):
1. `index.repo_id` when configured;
2. else the `origin` remote (or the first remote), normalised so every spelling of one repository agrees:
   `git@github.com:Acme/Docs.git`, `https://user:token@github.com/acme/docs` and `ssh://git@github.com/acme/docs/`
   all give `github.com/acme/docs` (credentials, scheme, port-less ssh user, `.git` and case dropped);
3. else the repository's root commit (`root:<sha>`; equal in every clone);
4. else the folder's name (`name:<folder name>`), with a warning — only when the folder is not a git repository.
A workspace folder below the repository root adds its path inside the repository (`github.com/acme/docs//docs`).

`collection_name` = `ragls-<repo slug>-<12 hex of sha256(identity, embedding model fingerprint, chunker
fingerprint)>`, so one repository indexed with one model and one chunker is one collection everywhere.
`local_changes` lists what the working tree changed since a commit: modified, added (untracked, not ignored)
and deleted relative paths, renames counted as a deletion plus an addition.

Every git command ragls runs on a folder goes through `run_git`: a repository's own `.git/config` is the folder's
input (docs/security.md), and git runs programs it names while reading the index or the work tree
(`core.fsmonitor`, a filter driver's `clean` / `smudge` / `process` that `.gitattributes` selects): they are switched
off for each run (`neutral_config`). No transport runs either (`_NO_PROTOCOL`): a partial clone
(`extensions.partialClone`) fetches an object it lacks from its promisor remote while git diffs, running the
remote's `uploadpack` or `core.sshCommand`. A diff of the work tree compares submodules by the commit the
superproject records (`--ignore-submodules=dirty`): asking whether a submodule's work tree is dirty runs git status
there, under the submodule's own config (filters this repository's settings never named).
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger(__name__)

GIT_TIMEOUT_S = 20


#: What a repository's config can make git run while it diffs, hashes or lists files, with the value that turns it
#: off: the file-system monitor hook and hooks (no command ragls runs has one, kept off all the same).
_NEUTRAL = (("core.fsmonitor", "false"), ("core.hooksPath", os.devnull))
#: No transport at all (GIT_ALLOW_PROTOCOL lists the allowed ones, over any `protocol.*.allow` of the repository):
#: ragls never fetches, but git fetches an object a partial clone lacks from its promisor remote while it diffs or
#: lists commits, running the remote's `uploadpack`, `core.sshCommand`, an `ext::` command or a credential helper
#: and reaching the remote's URL. GIT_NO_LAZY_FETCH (git 2.44+) skips even the attempt.
_NO_PROTOCOL = "none"
_FILTER_KEY = re.compile(r"^filter\..*\.(?:clean|smudge|process|required)$", re.DOTALL)


def _git_env(extra: list[tuple[str, str]] = ()) -> dict[str, str]:
    """The environment of a git run: English messages, no optional index locks, no credential prompt, no transport
    (`_NO_PROTOCOL`: no lazy fetch of a partial clone's missing objects), and the `extra` settings as command-line
    configuration (GIT_CONFIG_COUNT: key and value apart, so a filter driver named "a=b" is still one key), after
    any the user set."""
    env = {**os.environ, "LC_ALL": "C", "LANGUAGE": "", "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0",
           "GIT_ALLOW_PROTOCOL": _NO_PROTOCOL, "GIT_NO_LAZY_FETCH": "1"}
    try:
        base = int(env.get("GIT_CONFIG_COUNT") or 0)
    except ValueError:
        base = 0
    for i, (key, value) in enumerate(extra, base):
        env[f"GIT_CONFIG_KEY_{i}"], env[f"GIT_CONFIG_VALUE_{i}"] = key, value
    if extra:
        env["GIT_CONFIG_COUNT"] = str(base + len(extra))
    return env


def neutral_config(folder: Path) -> list[tuple[str, str]]:
    """(key, value) settings that switch off every program the configuration git reads in `folder` (the
    repository's own `.git/config` and what it includes) could run: `_NEUTRAL`, and each filter driver's
    `clean`, `smudge` and `process` set empty, `required` false (Git LFS's filter too: a file the work tree changed
    is then compared as it is on disk). Listing the settings runs nothing."""
    try:
        res = subprocess.run(["git", "-C", str(folder), "config", "-z", "--name-only", "--get-regexp", r"^filter\."],
                             env=_git_env(list(_NEUTRAL)), stdin=subprocess.DEVNULL, capture_output=True,
                             timeout=GIT_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired):
        names: list[str] = []
    else:
        names = [os.fsdecode(n) for n in res.stdout.split(b"\0") if n]
    drivers = {name.rsplit(".", 1)[0] for name in names if _FILTER_KEY.match(name)}
    return [*_NEUTRAL, *((f"{d}.{k}", "false" if k == "required" else "")
                         for d in sorted(drivers) for k in ("clean", "smudge", "process", "required"))]


def run_git(folder: Path, args: list[str], stdin: bytes | None = None,
            timeout: float = GIT_TIMEOUT_S) -> subprocess.CompletedProcess[bytes]:
    """`git -C folder ARGS` (an argument list, no shell) with `neutral_config(folder)`, stdout and stderr as bytes,
    stdin `stdin` or closed; the completed process whatever its exit code. Raises OSError when git cannot be run
    (FileNotFoundError: not installed), subprocess.TimeoutExpired after `timeout` seconds."""
    env = _git_env(neutral_config(folder))
    return subprocess.run(["git", "-C", str(folder), *args], env=env, input=stdin, capture_output=True,
                          stdin=None if stdin is not None else subprocess.DEVNULL, timeout=timeout, check=False)


def git(folder: Path, *args: str) -> str | None:
    """stdout of `git -C folder args...` (`run_git`) stripped, or None when git fails or is missing (never
    raises)."""
    try:
        res = run_git(Path(folder), list(args))
    except (OSError, subprocess.TimeoutExpired):
        return None
    return os.fsdecode(res.stdout).strip() if res.returncode == 0 else None


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _names_back(git_dir: str, top: str) -> bool:
    """True when `git_dir`, outside the work tree `top`, was made for it by git: a linked worktree's directory
    (`<main>/.git/worktrees/NAME`, whose `gitdir` file names `top/.git`) or a submodule's (`core.worktree` in its
    own config, the folder git then reports as `top`)."""
    try:
        back = Path(git_dir, "gitdir").read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        back = ""
    if back and os.path.realpath(os.path.join(git_dir, back)) == os.path.join(top, ".git"):
        return True
    try:
        res = subprocess.run(["git", "config", "--file", os.path.join(git_dir, "config"), "--get", "core.worktree"],
                             env=_git_env(), stdin=subprocess.DEVNULL, capture_output=True, timeout=GIT_TIMEOUT_S,
                             check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    tree = os.fsdecode(res.stdout).strip()
    return res.returncode == 0 and bool(tree) and os.path.realpath(os.path.join(git_dir, tree)) == top


def _absolute_git_dir(folder: Path) -> str | None:
    """The real path of the git directory git finds from `folder`, None when it finds none."""
    try:
        res = run_git(folder, ["rev-parse", "--absolute-git-dir"])
    except (OSError, subprocess.TimeoutExpired):
        return None
    return os.path.realpath(os.fsdecode(res.stdout).strip()) if res.returncode == 0 else None


def foreign_repository(folder: Path) -> str | None:
    """Why the repository git finds from `folder` is not one the folder may speak for, or None (it is, or there is
    none: callers see that themselves). A folder's `.git` is its input (docs/security.md): a `.git` file
    (`gitdir: ../private/.git`), a `.git` directory whose `commondir` names another repository's, a `core.worktree`
    moving the work tree out, or a `.git` file naming another checkout's submodule directory would make git describe
    another repository of the user's — its staged changes, its files' text under the folder's names, its remote.
    Accepted: git directories inside the work tree, and linked worktrees and submodules (`_names_back`), with the
    folder inside the work tree git reports."""
    try:
        res = run_git(Path(folder), ["rev-parse", "--path-format=absolute", "--show-toplevel", "--absolute-git-dir",
                                     "--git-common-dir"])
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = os.fsdecode(res.stdout).splitlines()
    if res.returncode != 0 or len(lines) != 3:
        return None
    top, git_dir, common = (os.path.realpath(p) for p in lines)
    if not _inside(os.path.realpath(folder), top) or _absolute_git_dir(Path(top)) != git_dir:
        return (f"the repository of {folder} names another repository's folder as its work tree (core.worktree = "
                f"{top}): not read")
    own = _inside(git_dir, top) or _names_back(git_dir, top)
    if not own:
        return f"the .git of {folder} names another repository's git directory ({git_dir}): not read"
    linked = os.path.dirname(git_dir) == os.path.join(common, "worktrees") and _names_back(git_dir, top)
    if common != git_dir and not _inside(common, top) and not linked:
        return f"the git directory of {folder} shares another repository's (commondir {common}): not read"
    return None


def normalize_remote(url: str) -> str:
    """A remote URL reduced to `host/owner/name` in lower case (module docstring). Local paths keep their path
    (lower-cased, `.git` dropped)."""
    u = url.strip()
    m = re.match(r"^(?:[\w.+-]+://)?(?:[^@/]+@)?([^/:]+)(?::\d+)?[:/](.+)$", u)
    if m and not u.startswith(("/", ".", "file:")):
        host, path = m.group(1), m.group(2)
    else:
        host, path = "", re.sub(r"^file://", "", u)
    path = re.sub(r"\.git/?$", "", path.strip("/")).strip("/")
    return (f"{host}/{path}" if host else path).lower()


def repo_identity(folder: Path, configured: str | None = None) -> str:
    """The identity of the repository holding `folder` (module docstring). Never an absolute path of this
    machine unless the only remote is one."""
    folder = Path(folder)
    if configured:
        return configured.strip()
    foreign = foreign_repository(folder)
    if foreign:
        log.warning("%s; the shared index is named after the folder name", foreign)
        return f"name:{folder.resolve().name}"
    prefix = (git(folder, "rev-parse", "--show-prefix") or "").strip("/")
    suffix = f"//{prefix}" if prefix else ""
    remotes = (git(folder, "remote") or "").split()
    if remotes:
        name = "origin" if "origin" in remotes else remotes[0]
        url = git(folder, "remote", "get-url", name)
        if url:
            return normalize_remote(url) + suffix
    roots = git(folder, "rev-list", "--max-parents=0", "HEAD")
    if roots:
        return f"root:{min(roots.split())}{suffix}"
    log.warning("%s is not a git repository with a commit: the shared index is named after the folder name; set "
                "index.repo_id so teammates share it", folder.name)
    return f"name:{folder.resolve().name}"


def collection_name(identity: str, model_fp: str, chunker_fp: str) -> str:
    """Qdrant collection name for (repository identity, embedding model fingerprint, chunker fingerprint)."""
    base = identity.split("//")[0].rstrip("/")
    slug = re.sub(r"[^a-z0-9]+", "-", base.rsplit("/", 1)[-1].split(":")[-1].lower()).strip("-")[:40] or "repo"
    digest = hashlib.sha256(f"{identity}\0{model_fp}\0{chunker_fp}".encode()).hexdigest()[:12]
    return f"ragls-{slug}-{digest}"


def head_commit(folder: Path) -> str | None:
    """The full sha of HEAD, None outside a git repository, before the first commit, or when the folder's `.git`
    names another repository (`foreign_repository`)."""
    return None if foreign_repository(Path(folder)) else git(Path(folder), "rev-parse", "HEAD")


@dataclass
class LocalChanges:
    """What the working tree of a folder changed since `commit`, as folder-relative paths."""

    commit: str
    modified: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)

    @property
    def changed(self) -> list[str]:
        """Paths whose local text replaces the shared index's (modified + added)."""
        return sorted(set(self.modified) | set(self.added))

    @property
    def hidden(self) -> list[str]:
        """Paths the shared index must never return (changed or deleted)."""
        return sorted(set(self.modified) | set(self.added) | set(self.deleted))


def local_changes(folder: Path, commit: str) -> LocalChanges | None:
    """Files of `folder` that differ from `commit` in the working tree (staged or not) plus untracked files not
    ignored. None when git cannot answer (not a repository, commit unknown locally: fetch it) or the folder's
    `.git` names another repository (`foreign_repository`)."""
    folder = Path(folder)
    if foreign_repository(folder):
        return None
    diff = git(folder, "diff", "--name-status", "--no-renames", "--relative", "-z", "--ignore-submodules=dirty",
               commit, "--", ".")
    if diff is None:
        return None
    out = LocalChanges(commit)
    parts = [p for p in diff.split("\0") if p]
    for status, path in zip(parts[0::2], parts[1::2]):
        if status.startswith("D"):
            out.deleted.append(path)
        elif status.startswith("A"):
            out.added.append(path)
        else:
            out.modified.append(path)
    untracked = git(folder, "ls-files", "--others", "--exclude-standard", "-z", "--", ".")
    out.added += [p for p in (untracked or "").split("\0") if p]
    return out
