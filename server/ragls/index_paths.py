"""Where indexes live, importable without the heavy stores (the CLI's fast path and `ragls prune` use it).

`cache_root()` is the user cache dir; `default_index_dir(folder)` a folder's index under it; `resolve_index_dir`
applies `index.path`. Pure functions: nothing here creates a directory.
"""

from __future__ import annotations

import os
from pathlib import Path

from ragls.hashing import text_hash


def cache_root() -> Path:
    """The user's ragls cache dir (platformdirs), e.g. ~/.cache/ragls; `RAGLS_CACHE_DIR` overrides it."""
    env = os.environ.get("RAGLS_CACHE_DIR")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_cache_dir("ragls", appauthor=False))


def default_index_dir(folder: Path) -> Path:
    """Per-workspace index folder in the user's cache dir: <cache>/indexes/<name>-<hash of the folder path>."""
    resolved = str(Path(folder).resolve())
    return cache_root() / "indexes" / f"{Path(folder).name or 'root'}-{text_hash(resolved)[:12]}"


def resolve_index_dir(folder: Path, settings, index_dir: Path | None = None) -> Path:
    """Where the index of `folder` lives: `index_dir`, else `settings.index.path` (relative = inside the folder),
    else `default_index_dir(folder)`. Pure: creates nothing."""
    folder = Path(folder).resolve()
    path = Path(index_dir or settings.index.path or default_index_dir(folder)).expanduser()
    return path if path.is_absolute() else folder / path
