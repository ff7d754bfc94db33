"""The ignore files a folder's walk applies (`walk.FileFilter`): reading one (`read_ignore_file`, failing closed when
it is too large or holds too many patterns to match, every problem said), and where the user's own lives
(`user_ignore_file`)."""

from __future__ import annotations

import functools
import logging
import os
import re
import subprocess
from pathlib import Path

from pathspec import GitIgnoreSpec

from ragls.config.globs import kept_out
from ragls.core.errors import Skipped
from ragls.sources.load import read_bytes
from ragls.sources.redact import mask_secrets

log = logging.getLogger(__name__)

MAX_IGNORE_FILE_BYTES = 5_000_000  # a monorepo's .gitignore is tens of kilobytes
# Patterns an ignore file may hold: pathspec compiles each into a regular expression and matches a path against
# every one (20,000 lines: 3.7 CPU-s to compile, 15 ms per path, session 59); real ones hold a few hundred.
MAX_IGNORE_PATTERNS = 5_000


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


def read_ignore_file(path: Path, everything: str = "*", problems: list[str] | None = None) -> GitIgnoreSpec | None:
    """The parsed ignore file at `path`, or None when it is missing, unreadable, no regular file (a FIFO would
    block the walk, a link to /dev/zero never end: `load.read_bytes`) or malformed. A line with too many
    wildcards (`globs.glob_problem`) fails closed (`globs.kept_out`). A file larger than MAX_IGNORE_FILE_BYTES or of
    more than MAX_IGNORE_PATTERNS patterns fails closed too: it becomes the one pattern `everything` (all below its
    directory; an ignore file above the folder gives "/<folder>/?*": all in the folder, not the folder itself, which
    would drop the rules above it: `FileFilter._outer_ignores_folder`). Each such problem is logged and appended to
    `problems` (when given) as a sentence for rag/status: "ignore file of 5,001 patterns (more than 5,000, each
    matched against every path): everything below its folder is left out"."""
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
