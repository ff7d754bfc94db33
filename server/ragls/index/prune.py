"""`ragls prune`: find the indexes in the user cache dir whose workspace folder no longer exists, and remove them.

Each index directory under `<cache>/indexes/` records the folder it indexes in its manifest (`meta.folder`, written
when a writer opens it). An index is an orphan when that folder is gone. Indexes that predate the record (no
`meta.folder`) are listed as "unknown" and never removed automatically. An index whose writer lock is held by a
running process is never removed. Dry run by default: the caller passes `remove=True` to delete.
"""

from __future__ import annotations

import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock, Timeout


@dataclass(frozen=True)
class IndexEntry:
    """One index directory: where it is, the folder it indexes (None: not recorded), its size in bytes and state.

    `state` is "live" (folder exists), "orphan" (folder gone: removable), "unknown" (no folder recorded) or
    "in-use" (folder gone but a process holds the index lock)."""

    index_dir: Path
    folder: Path | None
    size_bytes: int
    state: str


def indexes_root() -> Path:
    """`<cache>/indexes`, where every default index directory lives (see `indexer.default_index_dir`)."""
    from ragls.index.paths import cache_root

    return cache_root() / "indexes"


def _recorded_folder(index_dir: Path) -> Path | None:
    """The folder recorded in the index's manifest, read without creating or modifying anything (SQLite read-only
    URI). None when the manifest is missing, unreadable or predates the record."""
    manifest = index_dir / "manifest.sqlite"
    if not manifest.is_file():
        return None
    try:
        conn = sqlite3.connect(f"{manifest.as_uri()}?mode=ro", uri=True, timeout=5)
        try:
            row = conn.execute("SELECT value FROM meta WHERE key='folder'").fetchone()
        finally:
            conn.close()
    except sqlite3.Error:
        return None
    return Path(row[0]) if row and row[0] else None


def _size(path: Path) -> int:
    total = 0
    for p in path.rglob("*"):
        try:
            if p.is_file() and not p.is_symlink():
                total += p.stat().st_size
        except OSError:
            continue
    return total


def _locked(index_dir: Path) -> bool:
    """True when another process holds the index's writer lock (an editor's server is using it)."""
    lock_file = index_dir / "index.lock"
    if not lock_file.exists():
        return False
    lock = FileLock(str(lock_file), thread_local=False)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        return True
    lock.release()
    return False


def scan(root: Path | None = None) -> list[IndexEntry]:
    """Every index directory under `root` (default `indexes_root()`), sorted by path. Reads only."""
    root = root or indexes_root()
    if not root.is_dir():
        return []
    entries = []
    for index_dir in sorted(p for p in root.iterdir() if p.is_dir()):
        folder = _recorded_folder(index_dir)
        if folder is None:
            state = "unknown"
        elif folder.is_dir():
            state = "live"
        else:
            state = "in-use" if _locked(index_dir) else "orphan"
        entries.append(IndexEntry(index_dir, folder, _size(index_dir), state))
    return entries


def prune(root: Path | None = None, remove: bool = False) -> list[IndexEntry]:
    """The orphaned indexes under `root`; with `remove=True` they are deleted (each re-checked just before).
    Returns the orphans found (removed or not). Raises OSError only for a removal that fails."""
    orphans = [e for e in scan(root) if e.state == "orphan"]
    if remove:
        for e in orphans:
            if e.folder is not None and not e.folder.is_dir() and not _locked(e.index_dir):
                shutil.rmtree(e.index_dir)
    return orphans
