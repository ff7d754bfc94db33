"""Which folder is "the project": root markers, and the folders never indexed without being asked.

Shared by the language server (workspace folders from the editor) and `ragls mcp` (folders from the command line,
else the project around the current directory). The markers and their order are the Neovim client's
`root_markers` default (clients/neovim/lua/ragls/config.lua): `ragls.toml` first, so a ragls.toml wins over an
enclosing `.git`.

A marker another user owns is no marker (`own_marker`): a `ragls.toml` or `.git` planted in a shared, world-writable
parent (`/tmp/ragls.toml`) would make that whole directory the project of everyone working below it, so `ragls mcp`
or `ragls ask "..."` in `/tmp/clone` indexed and served all of /tmp, other checkouts and notes included. Git refuses
such a repository the same way ("dubious ownership", CVE-2022-24765).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from pathlib import Path

from ragls.config.trust import CONFIG_FILE

ROOT_MARKERS = (CONFIG_FILE, ".git")
log = logging.getLogger(__name__)


def is_too_broad(folder: Path) -> bool:
    """True for the filesystem root or the user's home directory, unless a ragls.toml there asks for it: an
    editor or agent started in a stray place must not start embedding a whole disk."""
    try:
        resolved = folder.resolve()
        broad = resolved == Path(resolved.anchor) or resolved == Path.home().resolve()
    except (OSError, RuntimeError):
        return False
    return broad and not (resolved / CONFIG_FILE).is_file()


def find_root(start: Path, markers: Sequence[str] = ROOT_MARKERS) -> Path | None:
    """The nearest directory at or above `start` holding a marker; markers are tried one at a time (the first
    marker found anywhere above wins over a nearer later one). A directory that `is_too_broad` (a dotfiles
    `.git` in the home directory), or whose marker another user owns (`own_marker`), is never returned. None when
    no marker is found."""
    start = start.resolve()
    here = start if start.is_dir() else start.parent
    for marker in markers:
        for d in (here, *here.parents):
            if (d / marker).exists() and not is_too_broad(d) and own_marker(d / marker):
                return d
    return None


def own_marker(path: Path) -> bool:
    """Whether the root marker `path` (which exists) may make its directory the project: it is owned by the current
    user or by root (the module docstring says why). A marker of another user is logged as a warning naming it
    and its owner's user id. True where the platform has no user ids (Windows)."""
    getuid = getattr(os, "getuid", None)
    if getuid is None:
        return True
    try:
        owner = path.lstat().st_uid
    except OSError:
        return False
    if owner in (getuid(), 0):
        return True
    log.warning("%s belongs to another user (uid %d), so %s is not taken for the project; give the folder to use it",
                path, owner, path.parent)
    return False


def project_root(cwd: Path) -> Path:
    """The project folder for a process started in `cwd`: the nearest root-marker directory, else `cwd` itself.
    Raises ValueError when that is the filesystem root or the home directory (see `is_too_broad`)."""
    root = find_root(cwd) or cwd.resolve()
    if is_too_broad(root):
        raise ValueError(f"not indexing {root} (the filesystem root or your home directory): start in a project "
                         f"folder, pass the folder to index, or add a {CONFIG_FILE} there to index it anyway")
    return root


def serve_folders(paths: Sequence[str], cwd: Path) -> list[Path]:
    """The folders a server started with `paths` in `cwd` serves: each path (resolved), else the project around
    `cwd` (`project_root`). Raises ValueError for a path that is not a folder, or one that `is_too_broad`."""
    if not paths:
        return [project_root(cwd)]
    folders = []
    for raw in paths:
        folder = (cwd / Path(raw).expanduser()).resolve()
        if not folder.is_dir():
            raise ValueError(f"not a folder: {raw}")
        if is_too_broad(folder):
            raise ValueError(f"not indexing {folder} (the filesystem root or your home directory); add a "
                             f"{CONFIG_FILE} there to index it anyway")
        folders.append(folder)
    return folders
