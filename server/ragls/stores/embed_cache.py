"""The user's one content-addressed embedding cache, shared by every index (issue 18).

Key: (embedding fingerprint = model name + dimension + max length, sha256 of the exact embedded text). Value: the
float32 vector. Because the key holds no path, a moved folder, a second clone or a git worktree of the same docs
re-embeds nothing; a model change simply misses (old entries age out).

Storage: SQLite (WAL, one connection per thread, safe across processes) at `<cache>/embeddings.sqlite`. Bounded by
`index.embedding_cache_mb` (default 1024 MiB; 0 turns the shared cache off): each hit refreshes `used_at`, and when
the vectors' bytes pass the bound the least recently used ~10% beyond it are deleted (LRU by access time, in one
statement). A 384-d float32 vector is 1.5 KiB, so 1 GiB holds ~680k windows.
"""

from __future__ import annotations

import logging
import math
import os
import sqlite3
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS embeddings (fingerprint TEXT, text_hash TEXT, vector BLOB, used_at REAL,
                                       PRIMARY KEY (fingerprint, text_hash));
CREATE INDEX IF NOT EXISTS embeddings_used ON embeddings(used_at);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER);
"""
_BATCH = 500  # SQLite variable limit per statement, with margin


class EmbeddingCache:
    """Shared cache at `path`, bounded to `limit_bytes`. Thread- and process-safe. The file is created on the
    first write, never by a read (read-only commands create nothing)."""

    _shared: ClassVar[dict[tuple[str, int], EmbeddingCache]] = {}
    _shared_lock = threading.Lock()

    def __init__(self, path: Path, limit_bytes: int):
        self.path = Path(path)
        self.limit_bytes = limit_bytes
        self._local = threading.local()
        self._write_lock = threading.Lock()
        self._since_check = 0
        self._unwritable = False  # `put` found the file's folder not writable: the cache is read, never written

    @classmethod
    def shared(cls, limit_mb: int) -> EmbeddingCache | None:
        """The process-wide cache, or None when `limit_mb` is 0. Its file is `$RAGLS_EMBEDDING_CACHE` when set (the
        tests give each test its own), else `<cache>/embeddings.sqlite` in the user cache dir."""
        if limit_mb <= 0:
            return None
        import os

        from ragls.index.paths import cache_root

        path = Path(os.environ.get("RAGLS_EMBEDDING_CACHE") or cache_root() / "embeddings.sqlite")
        key = (str(path), limit_mb)
        with cls._shared_lock:
            cache = cls._shared.get(key)
            if cache is None:
                cache = cls._shared[key] = cls(path, limit_mb * 1024 * 1024)
            return cache

    def _db(self, create: bool) -> sqlite3.Connection | None:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            if not create and not self.path.exists():
                return None
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.executescript(_SCHEMA)
            self._local.conn = conn
        return conn

    def get(self, fp: str, text_hashes: Iterable[str], touch: bool = True) -> dict[str, np.ndarray]:
        """Cached vectors by text hash for fingerprint `fp` (missing hashes are absent); hits become most recent
        (`touch`; False: a read only, which never waits for another process's write, for a request's lookups)."""
        import numpy as np

        db = self._db(create=False)
        hashes = list(set(text_hashes))
        if db is None or not hashes:
            return {}
        out: dict[str, np.ndarray] = {}
        for start in range(0, len(hashes), _BATCH):
            part = hashes[start:start + _BATCH]
            marks = ",".join("?" * len(part))
            for h, blob in db.execute(f"SELECT text_hash, vector FROM embeddings WHERE fingerprint=? AND "
                                      f"text_hash IN ({marks})", (fp, *part)):
                out[h] = np.frombuffer(blob, dtype=np.float32)
        if out and touch:
            now = time.time()
            try:
                with self._write_lock:
                    db.executemany("UPDATE embeddings SET used_at=? WHERE fingerprint=? AND text_hash=?",
                                   [(now, fp, h) for h in out])
            except sqlite3.OperationalError as exc:  # another process holds the write lock for long: LRU can wait
                log.debug("embedding cache: access times not refreshed: %s", exc)
        return out

    def put(self, fp: str, vectors: dict[str, np.ndarray]) -> None:
        """Store vectors by text hash; evicts least recently used entries past the bound. A cache whose folder the
        user cannot write (a read-only cache dir, with `index.path` elsewhere) stores nothing, said once in the log:
        every first index failed with "Permission denied" there. Other errors (a full disk) are raised."""
        import numpy as np

        if not vectors or self._unwritable:
            return
        try:
            db = self._db(create=True)
        except (OSError, sqlite3.OperationalError) as exc:
            if self._writable():
                raise
            self._unwritable = True
            log.info("the embedding cache %s cannot be written (%s): vectors are not kept across indexes",
                     self.path, exc)
            return
        now = time.time()
        rows = [(fp, h, np.asarray(v, dtype=np.float32).tobytes(), now) for h, v in vectors.items()]
        with self._write_lock:
            db.execute("BEGIN IMMEDIATE")
            try:
                db.executemany("INSERT OR REPLACE INTO embeddings VALUES (?,?,?,?)", rows)
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
            self._since_check += len(rows)
            if self._since_check >= 256 or len(rows) >= 256:
                self._since_check = 0
                self._evict(db)

    def _writable(self) -> bool:
        """Whether the cache file (or, before it exists, the nearest existing folder above it) may be written."""
        place = self.path
        while not place.exists() and place != place.parent:
            place = place.parent
        return os.access(place, os.W_OK)

    def _evict(self, db: sqlite3.Connection) -> None:
        """Delete the least recently used rows until the vectors take at most 90% of the bound."""
        total = db.execute("SELECT COALESCE(SUM(LENGTH(vector)), 0), COUNT(*) FROM embeddings").fetchone()
        size, count = total
        if size <= self.limit_bytes or count == 0:
            return
        per_row = size / count
        excess = math.ceil((size - 0.9 * self.limit_bytes) / per_row)
        db.execute("DELETE FROM embeddings WHERE rowid IN (SELECT rowid FROM embeddings ORDER BY used_at LIMIT ?)",
                   (excess,))
        log.info("embedding cache: evicted %d least recently used vectors (bound %.0f MiB)", excess,
                 self.limit_bytes / 2**20)

    def size_bytes(self) -> int:
        """Bytes of cached vectors (0 when the cache file does not exist)."""
        db = self._db(create=False)
        return 0 if db is None else db.execute("SELECT COALESCE(SUM(LENGTH(vector)), 0) FROM embeddings").fetchone()[0]

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None
