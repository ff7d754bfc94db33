"""The ignore files a folder's walk applies (`walk.FileFilter`): reading one (`read_ignore_file`, failing closed when
it is too large or holds too many patterns to match, every problem said), where the user's own lives
(`user_ignore_file`), and which of them ignores a path, as git decides it (`GitIgnores`: the folder's `.gitignore`
files and those of the git repository around it)."""

from __future__ import annotations

import functools
import logging
import os
import re
import subprocess
import threading
from collections import deque
from collections.abc import Callable
from pathlib import Path

from pathspec import GitIgnoreSpec

from ragls.config.globs import globbed, kept_out
from ragls.core.errors import Skipped
from ragls.core.uris import path_key
from ragls.sources.load import inside_folder, read_bytes
from ragls.sources.redact import mask_secrets

log = logging.getLogger(__name__)

MAX_IGNORE_FILE_BYTES = 5_000_000  # a monorepo's .gitignore is tens of kilobytes
# Patterns an ignore file may hold: pathspec compiles each into a regular expression and matches a path against
# every one (20,000 lines: 3.7 CPU-s to compile, 15 ms per path, session 59); real ones hold a few hundred.
MAX_IGNORE_PATTERNS = 5_000
# Patterns the .gitignore files inside one folder may hold together (`GitIgnores`): a path is matched against those
# of every .gitignore above it, so 40 nested ones of 5,000 lines each (2.6 MB) cost 20-30 CPU-s at every command
# (`ragls query` too); real repositories hold a few hundred in all.
MAX_FOLDER_IGNORE_PATTERNS = 2 * MAX_IGNORE_PATTERNS
GITIGNORE = ".gitignore"


def user_ignore_file() -> Path:
    """The user's own ignore file, which git applies to every repository at the lowest priority: `core.excludesFile`
    of the user's global git config (`git config --global`: the user's files only, never a repository's), else
    `$XDG_CONFIG_HOME/git/ignore` (`~/.config/git/ignore`). A clone's `.gitignore` is its author's; this one lists
    what the user keeps out of every repository (their notes, their editor's files)."""
    home, xdg = os.environ.get("HOME"), os.environ.get("XDG_CONFIG_HOME")
    configs = [os.environ.get("GIT_CONFIG_GLOBAL") or os.path.join(home or "~", ".gitconfig"),
               os.path.join(xdg or os.path.join(home or "~", ".config"), "git", "config")]
    stamps = []
    for config in configs:
        try:
            stamps.append(os.stat(os.path.expanduser(config)).st_mtime_ns)
        except OSError:
            stamps.append(None)
    return _user_ignore_file(home, xdg, tuple(configs), tuple(stamps))


@functools.lru_cache(maxsize=4)
def _user_ignore_file(home: str | None, xdg: str | None, _configs: tuple, _stamps: tuple) -> Path:
    """`user_ignore_file` for one environment and one version of the user's git config files (the key)."""
    try:
        res = subprocess.run(["git", "config", "--global", "--type=path", "--get", "core.excludesFile"],
                             capture_output=True, stdin=subprocess.DEVNULL, timeout=10, check=False,
                             cwd=home or None)
        named = os.fsdecode(res.stdout).strip() if res.returncode == 0 else ""
    except (OSError, subprocess.TimeoutExpired):
        named = ""
    if named:
        return Path(named).expanduser()
    return Path(xdg or Path(home or "~").expanduser() / ".config") / "git" / "ignore"


def read_ignore_file(path: Path, everything: str = "*", problems: list[str] | None = None,
                     max_patterns: int = MAX_IGNORE_PATTERNS) -> GitIgnoreSpec | None:
    """The parsed ignore file at `path`, or None when it is missing, unreadable, no regular file (a FIFO would
    block the walk, a link to /dev/zero never end: `load.read_bytes`) or malformed. A line with too many
    wildcards (`globs.glob_problem`) fails closed (`globs.kept_out`). A file larger than MAX_IGNORE_FILE_BYTES or of
    more than MAX_IGNORE_PATTERNS patterns fails closed too: it becomes the one pattern `everything` (all below its
    directory; an ignore file above the folder gives "/<folder>/?*": all in the folder, not the folder itself, which
    would drop the rules above it: `GitIgnores._outer_ignores_folder`). Each such problem is logged and appended to
    `problems` (when given) as a sentence for rag/status: "ignore file of 5,001 patterns (more than 5,000, each
    matched against every path): everything below its folder is left out". `max_patterns`: fewer than
    MAX_IGNORE_PATTERNS when the file's folder has other ignore files (`GitIgnores`: what they left of
    MAX_FOLDER_IGNORE_PATTERNS), said as such."""
    def problem(message: str) -> None:
        message = mask_secrets(message)[0]  # it may quote a line of the file
        log.warning("%s: %s", path, message)
        if problems is not None:
            problems.append(message)

    below = "everything below its folder is left out" if everything == "*" else "every file of the folder is left out"
    raw = read_bytes(path, path.name, MAX_IGNORE_FILE_BYTES)
    if isinstance(raw, Skipped):
        if raw.reason.startswith("too large"):
            problem(f"ignore file larger than {MAX_IGNORE_FILE_BYTES:,} bytes: {below}")
            return GitIgnoreSpec.from_lines([everything])
        if not raw.reason.startswith("vanished"):
            problem(f"ignore file not read ({raw.reason}): its rules are not applied")
        return None
    text = raw[0].decode("utf-8", errors="replace")
    patterns = sum(1 for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#"))
    if patterns > MAX_IGNORE_PATTERNS:
        problem(f"ignore file of {patterns:,} patterns (more than {MAX_IGNORE_PATTERNS:,}, each matched against every "
                f"path): {below}")
        return GitIgnoreSpec.from_lines([everything])
    if patterns > max_patterns:
        problem(f"ignore file of {patterns:,} patterns, past the {MAX_FOLDER_IGNORE_PATTERNS:,} the folder's .gitignore "
                f"files may hold together (each is matched against every path below it): {below}")
        return GitIgnoreSpec.from_lines([everything])
    # gitignore has no brace sets, but its wildcards cost what an include glob's do (`globs.glob_problem`): a line
    # that keeps files out is matched by a wider glob, a "!" line that lets some back in is left out
    kept, messages = kept_out(text.splitlines(), excluding=True, braces=False)
    for message in messages:
        problem(f"the line {message}")
    try:
        return GitIgnoreSpec.from_lines(kept)
    except ValueError as exc:  # a malformed pattern must not stop indexing
        problem(f"malformed ignore file ({exc}): its rules are not applied")
        return None


def escaped(path: str) -> str:
    """`path` as a gitignore pattern that matches it literally (`*`, `?`, `[` and backslashes escaped)."""
    return re.sub(r"([\\*?\[])", r"\\\1", path)


class GitIgnores:
    """The git ignore rules of one folder (`walk.FileFilter` with `sources.respect_gitignore`): its `.gitignore`
    files (root and nested, each relative to its own directory), and, when the folder lies inside a git repository,
    the user's own ignore file, the repository's `.git/info/exclude` and the `.gitignore` files above the folder.
    Each file is read once (`read_ignore_file`); `clear()` forgets them (after a `.gitignore` changed). The
    folder's own .gitignore files hold at most MAX_FOLDER_IGNORE_PATTERNS patterns together: one past what the
    others left fails closed, as a file past MAX_IGNORE_PATTERNS does. Which one that is must not depend on who
    asks first (the walk's filter read its files in its own order, the watcher's and rag/query's the chain of the
    path they were given, so a folder past the budget indexed a file at an event that the next scan dropped): the
    first match reads every .gitignore of the directories the walk enters, shallow first and by name
    (`walk_dirs` with `walked`), and the budget is spent in that order for every filter of the folder. A
    .gitignore of a directory the walk does not enter (out of `sources.include`'s reach, or made since: its event
    clears the filter) is read when asked, with what that reading left.

    `settings`: the folder's `[sources]` settings (`follow_outside_links` read at each use). `walked(rel_dir)`:
    whether the walk enters the directory (`walk.FileFilter.dir_walked`; it may call `match` for the directory,
    which then uses the files above it, read already). `problems`: the ignore files whose rules could not be
    applied as written, as index keys (one above the folder: its absolute path) -> why, filled as they are read."""

    def __init__(self, folder: Path, settings, walked: Callable[[str], bool]) -> None:
        self.folder = Path(folder)
        self._settings = settings
        self._walked = walked
        self._specs: dict[str, GitIgnoreSpec | None] = {}
        self._outer: list[tuple[str, GitIgnoreSpec, str]] | None = None
        self.problems: dict[str, str] = {}
        self._patterns_left = MAX_FOLDER_IGNORE_PATTERNS  # what the .gitignore files read so far left
        self._walked_dirs: list[str] | None = None  # `read_all`'s directories ([] while it runs)
        # `read_all` and `clear` one at a time: the watcher's thread asks while the indexer's reads them ahead
        # (`walk.FileFilter.read_ignore_files`); a match made by the reading thread itself goes on (re-entrant)
        self._lock = threading.RLock()

    def clear(self) -> None:
        """Forget the ignore files read and their problems: the next match reads them again."""
        with self._lock:
            self._specs.clear()
            self.problems.clear()
            self._outer = None
            self._patterns_left = MAX_FOLDER_IGNORE_PATTERNS
            self._walked_dirs = None

    def read_all(self) -> list[str]:
        """Read the .gitignore of every directory the walk enters, shallow first and by name (`walk_dirs`), once
        per `clear()`; return those directories ("/"-separated, relative to the folder, "" for it: what
        `walk.walked_dirs` lists, without walking them again)."""
        with self._lock:
            if self._walked_dirs is None:
                self._walked_dirs = []  # a match made while they are read uses the files above it, read already
                self._walked_dirs = walk_dirs(self.folder, self._walked, self._spec)
            return self._walked_dirs

    def match(self, rel: str, is_dir: bool) -> str | None:
        """The .gitignore (relative path) whose rules ignore `rel`, or None. Deeper files override shallower ones,
        and within a file the last matching rule wins, as in git. When the folder lies inside a git repository,
        the repository's `.git/info/exclude` and the `.gitignore` files above the folder apply first."""
        self.read_all()
        parts = rel.split("/")
        verdict: bool | None = None
        source = None
        suffix = "/" if is_dir else ""
        for prefix, spec, label in self._outer_specs():
            result = spec.check_file(globbed(f"{prefix}/{rel}{suffix}" if prefix else rel + suffix))
            if result.include is not None:
                verdict, source = result.include, label
        for depth in range(len(parts)):
            base = "/".join(parts[:depth])
            spec = self._spec(base)
            if spec is None:
                continue
            sub = "/".join(parts[depth:]) + ("/" if is_dir else "")
            result = spec.check_file(globbed(sub))
            if result.include is not None:
                verdict = result.include
                source = f"{base}/{GITIGNORE}" if base else GITIGNORE
        return source if verdict else None

    def _spec(self, rel_dir: str) -> GitIgnoreSpec | None:
        """The parsed `.gitignore` of the folder's directory `rel_dir` ("" for the root; None when it has none or it
        is not read: `read_ignore_file`, or a link out of the folder), read once."""
        if rel_dir not in self._specs:
            path = self.folder / rel_dir / GITIGNORE if rel_dir else self.folder / GITIGNORE
            problems: list[str] = []
            if (os.path.lexists(path) and inside_folder(self.folder, path) is None
                    and not getattr(self._settings, "follow_outside_links", False)):
                # a folder's .gitignore linked to a file out of it (~/.bash_history) is not read: its lines would be
                # read as patterns and quoted in warnings (a folder is untrusted input)
                problems.append("ignore file is a link out of the folder: not read, its rules are not applied")
                log.warning("%s: %s", path, problems[-1])
                self._specs[rel_dir] = None
            else:
                spec = read_ignore_file(path, problems=problems, max_patterns=self._patterns_left)
                self._patterns_left -= len(spec.patterns) if spec is not None else 0
                self._specs[rel_dir] = spec
            if problems:
                self.problems[path_key(f"{rel_dir}/{GITIGNORE}" if rel_dir else GITIGNORE)] = "; ".join(problems)
        return self._specs[rel_dir]

    def _outer_specs(self) -> list[tuple[str, GitIgnoreSpec, str]]:
        """(folder path relative to the spec's directory, spec, label) for the ignore files of the enclosing git
        repository that lie outside the folder, lowest priority first: the user's own (`user_ignore_file`), the
        repository's `.git/info/exclude`, the `.gitignore` files above the folder. [] when the folder is not in a
        repo. In a git worktree or submodule `.git` is a file (`gitdir: …`): it has no `info/exclude` there, and
        the one of the git dir it names, outside the folder, is not read (reading it said "ignore file not read
        (unreadable: Not a directory)" in rag/status and a pop-up at every start, session 61)."""
        if self._outer is None:
            self._outer = []
            root = Path(os.path.realpath(self.folder))
            if (root / ".git").exists():
                repo: Path | None = root
            else:
                repo = next((p for p in root.parents if (p / ".git").exists()), None)
            if repo is not None:
                chain = [repo, *[p for p in reversed(root.parents) if repo in p.parents]]
                candidates = [(repo, user_ignore_file())]
                if (repo / ".git").is_dir():  # a worktree's or submodule's `.git` is a file naming its git dir
                    candidates.append((repo, repo / ".git" / "info" / "exclude"))
                candidates += [(d, d / GITIGNORE) for d in chain if d != root]
                for base, path in candidates:
                    prefix = root.relative_to(base).as_posix()
                    problems: list[str] = []
                    spec = read_ignore_file(path, f"/{escaped(prefix)}/?*" if prefix != "." else "*", problems)
                    if problems:
                        self.problems[str(path)] = "; ".join(problems)
                    if spec is not None:
                        self._outer.append(("" if prefix == "." else prefix, spec, str(path)))
            if (ignored_by := self._outer_ignores_folder()) is not None:
                # The user asked for this folder by name (`ragls index node_modules/pkg`, a workspace folder under
                # an ignored `vendor/`): the rules that ignore the whole folder are not applied to its files, or
                # nothing would ever be indexed and nothing said why. Its own .gitignore files still apply.
                log.info("%s is itself ignored by %s; indexing it as asked, without the ignore files above it",
                         self.folder, ignored_by)
                self._outer = []
        return self._outer

    def _outer_ignores_folder(self) -> str | None:
        """The ignore file above the folder whose rules ignore the folder itself, or None (last match wins)."""
        verdict, source = None, None
        for prefix, spec, label in self._outer:
            if prefix:
                result = spec.check_file(prefix + "/")
                if result.include is not None:
                    verdict, source = result.include, label
        return source if verdict else None


def walk_dirs(root: Path, entered: Callable[[str], bool], visit: Callable[[str], object] | None = None) -> list[str]:
    """The directories of `root` a walk enters, as "/"-separated paths relative to it ("" for `root`), shallow first
    and by name at each level (breadth first: the same order on every machine and at every call): `root`, then
    each directory below an entered one that is no symlink (never followed) and that `entered(rel_dir)` takes.
    A directory that cannot be listed, or whose names cannot be reached (`reach`), is left out with all below it
    (`walk.walk_with` lists it as unreadable). `visit(rel_dir)` is called for each directory taken, before its
    subdirectories are tested (`GitIgnores` reads its .gitignore there)."""
    found: list[str] = []
    queue = deque([""])
    while queue:
        rel_dir = queue.popleft()
        directory = os.path.join(root, rel_dir) if rel_dir else str(root)
        try:
            with os.scandir(directory) as it:
                entries = sorted(it, key=lambda entry: entry.name)
            if entries:
                reach(os.path.join(directory, GITIGNORE))
        except OSError as exc:
            log.debug("cannot list %s: %s", directory, exc)
            continue
        found.append(rel_dir)
        if visit is not None:
            visit(rel_dir)
        for entry in entries:
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            try:
                if entry.is_dir(follow_symlinks=False) and entered(rel):
                    queue.append(rel)
            except OSError as exc:
                log.debug("cannot stat %s: %s", entry.path, exc)
    return found


def reach(path: str) -> None:
    """Raise the OSError of reaching `path`, a name in a folder the walk listed, unless it merely does not exist:
    EACCES for a folder without search permission, ENAMETOOLONG for one so deep that the names in it exceed the
    OS's path limit (4,096 bytes on Linux) although the folder itself was listed. With its ignore file as `path`,
    such a folder is one skipped entry ("unreadable folder: File name too long"), not also a warning for its
    ignore file, which could not be read and whose rules could not be applied."""
    try:
        os.lstat(path)
    except FileNotFoundError:
        pass
