"""`ragls prune`: find the indexes in the user cache dir whose workspace folder no longer exists, and remove them.

Each index directory under `<cache>/indexes/` records the folder it indexes in its manifest (`meta.folder`, written
when a writer opens it; a team-mode index, kb/team.py, in its `overlay/` manifest). An index is an orphan when that
folder is gone. An index that records no folder ("unknown": made by a ragls before the record, or left by a crash
before its first writer opened it) is listed with how to remove it, and removed only when the caller also passes
`unknown=True`: its folder may still exist (it records it when next opened). An index whose writer lock is held by a
running process is never removed, nor an unknown one changed in the last UNKNOWN_MIN_AGE_S seconds (a server may be
starting in it). Dry run by default: the caller passes `remove=True` to delete.
"""

from __future__ import annotations

import shutil
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock, Timeout


@dataclass(frozen=True)
class IndexEntry:
    """One index directory: where it is, the folder it indexes (None: not recorded), its size in bytes and state.

    `state` is "live" (folder exists), "orphan" (folder gone: removable), "unknown" (no folder recorded: removable
    with `prune(unknown=True)`) or "in-use" (folder gone or not recorded, but a process holds the index lock)."""

    index_dir: Path
    folder: Path | None
    size_bytes: int
    state: str


def indexes_root() -> Path:
    """`<cache>/indexes`, where every default index directory lives (see `indexer.default_index_dir`)."""
    from ragls.index.paths import cache_root

    return cache_root() / "indexes"


UNKNOWN_MIN_AGE_S = 600  # an unknown index changed more recently may be a server starting in it: kept


def _recorded_folder(index_dir: Path) -> Path | None:
    """The folder recorded in the index's manifest (a team-mode index's: in `overlay/`), read without creating or
    modifying anything (SQLite read-only URI). None when the manifest is missing, unreadable or predates the
    record."""
    manifest = index_dir / "manifest.sqlite"
    if not manifest.is_file():
        manifest = index_dir / "overlay" / "manifest.sqlite"  # kb/team.py: the local overlay's FolderIndex
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
    """True when another process holds the index's writer lock (an editor's server is using it), or a team-mode
    index's overlay lock."""
    for lock_file in (index_dir / "index.lock", index_dir / "overlay" / "index.lock"):
        if not lock_file.exists():
            continue
        lock = FileLock(str(lock_file), thread_local=False)
        try:
            lock.acquire(timeout=0)
        except Timeout:
            return True
        lock.release()
    return False


def _recent(index_dir: Path, now: float) -> bool:
    """True when an entry directly in the directory (the directory itself when it is empty) changed less than
    UNKNOWN_MIN_AGE_S seconds ago. The lock file and SQLite's -wal/-shm files do not count: reading the manifest
    or testing the lock (`scan`) touches them."""
    try:
        times = [p.stat().st_mtime for p in index_dir.iterdir()
                 if p.name != "index.lock" and not p.name.endswith(("-wal", "-shm"))] or [index_dir.stat().st_mtime]
    except OSError:
        return True  # changing under us: not ours to delete now
    return now - max(times) < UNKNOWN_MIN_AGE_S


def scan(root: Path | None = None) -> list[IndexEntry]:
    """Every index directory under `root` (default `indexes_root()`), sorted by path. Reads only."""
    root = root or indexes_root()
    if not root.is_dir():
        return []
    entries = []
    for index_dir in sorted(p for p in root.iterdir() if p.is_dir()):
        folder = _recorded_folder(index_dir)
        if folder is None:
            state = "in-use" if _locked(index_dir) else "unknown"
        elif folder.is_dir():
            state = "live"
        else:
            state = "in-use" if _locked(index_dir) else "orphan"
        entries.append(IndexEntry(index_dir, folder, _size(index_dir), state))
    return entries


def prune(root: Path | None = None, remove: bool = False, unknown: bool = False) -> list[IndexEntry]:
    """The removable indexes under `root`: the orphans, and with `unknown=True` the unknown ones too (not changed in
    the last UNKNOWN_MIN_AGE_S seconds). With `remove=True` they are deleted, each re-checked just before (folder
    still gone or still unrecorded, no lock held). Returns those found (removed or not). Raises OSError only for a
    removal that fails."""
    now = time.time()
    found = [e for e in scan(root)
             if e.state == "orphan" or (unknown and e.state == "unknown" and not _recent(e.index_dir, now))]
    if remove:
        for e in found:
            folder = _recorded_folder(e.index_dir)
            gone = folder == e.folder and (folder is None or not folder.is_dir())
            if gone and not _locked(e.index_dir):
                shutil.rmtree(e.index_dir)
    return found
