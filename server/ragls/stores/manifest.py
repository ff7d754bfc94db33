"""The manifest: SQLite file that is the source of truth of an index.

Tables: `files` (path, size, mtime_ns, content_hash, indexed_at), `chunks` (id, path, ordinal, text_hash, range,
title, text; `sentences` 1 once the chunk's answer sentences are in the embedding cache, NULL before: a chunk row
written again is pending again), `embeddings` (fingerprint, text_hash -> float32 vector blob: the content-addressed cache that makes a
rename, a revert or a branch switch re-embed nothing), `skipped` (path, reason, stamp), `journal` (paths being rewritten),
`vector_dirty` (paths whose vector rows may be stale: their chunks changed here and the vector store has not
dropped the old rows yet — it may not even be open), `labels` (path, label, title: a reST page's section labels,
`index.rest_labels`, written and dropped with its chunks) and `meta` (key/value: fingerprints, last indexed time).

The BM25 and vector stores are derived from this file. Write order (see index/indexer.py): journal the paths, write BM25,
then replace the files' rows here, clear their journal entries and mark them `vector_dirty` in one transaction, then
the vectors (their old rows deleted, then the dirty mark cleared). A crash at any point is repaired by
`indexer.reconcile` at start-up (journaled paths are re-indexed) and when the vector store opens (rows of dirty
paths and rows whose id is not here are deleted, chunks here without a vector are embedded).

Paths are index keys (`uris.path_key`): valid UTF-8 even for file names that are not.

SQLite runs in WAL mode with one connection per thread, so queries read while the indexer writes.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ragls.core.ir import Chunk, LineSpan
from ragls.core.uris import key_path, key_prefixes

if TYPE_CHECKING:
    import numpy as np

_SCHEMA = """
CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER, content_hash TEXT,
                                  indexed_at REAL);
CREATE TABLE IF NOT EXISTS chunks (id TEXT PRIMARY KEY, path TEXT NOT NULL, ordinal INTEGER, text_hash TEXT,
                                   start_line INTEGER, start_char INTEGER, end_line INTEGER, end_char INTEGER,
                                   title TEXT, text TEXT, page INTEGER, anchor TEXT,
                                   context TEXT, file TEXT, sentences INTEGER);
CREATE INDEX IF NOT EXISTS chunks_path ON chunks(path);
CREATE TABLE IF NOT EXISTS includes (path TEXT, included TEXT, resolved INTEGER, PRIMARY KEY (path, included));
CREATE INDEX IF NOT EXISTS includes_included ON includes(included);
CREATE TABLE IF NOT EXISTS embeddings (fingerprint TEXT, text_hash TEXT, vector BLOB,
                                       PRIMARY KEY (fingerprint, text_hash));
CREATE TABLE IF NOT EXISTS skipped (path TEXT PRIMARY KEY, reason TEXT, stamp TEXT);
CREATE TABLE IF NOT EXISTS journal (path TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS vector_dirty (path TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS labels (path TEXT, label TEXT, title TEXT, PRIMARY KEY (path, label));
CREATE INDEX IF NOT EXISTS labels_label ON labels(label);
"""


@dataclass(frozen=True)
class FileRecord:
    """What the manifest knows of an indexed file (size in bytes, mtime in ns, sha256 of the bytes)."""

    path: str
    size: int
    mtime_ns: int
    content_hash: str


class Manifest:
    """SQLite manifest at `path` (created if missing). Thread-safe: one connection per thread."""

    def __init__(self, path: Path, folder: str = "", shared_cache=None):
        self.path = Path(path)
        self.folder = folder
        # stores/embed_cache.EmbeddingCache shared by all indexes; None: this manifest's own `embeddings` table
        self.shared_cache = shared_cache
        self._local = threading.local()
        self._write_lock = threading.Lock()
        with self._write_lock:
            self.db.executescript(_SCHEMA)  # executescript manages its own transaction
            columns = {r[1] for r in self.db.execute("PRAGMA table_info(chunks)")}
            for name, sql_type in (("page", "INTEGER"), ("anchor", "TEXT"), ("context", "TEXT"), ("file", "TEXT"),
                                   ("sentences", "INTEGER")):  # manifests written before them
                if name not in columns:
                    self.db.execute(f"ALTER TABLE chunks ADD COLUMN {name} {sql_type}")
            if "stamp" not in {r[1] for r in self.db.execute("PRAGMA table_info(skipped)")}:
                self.db.execute("ALTER TABLE skipped ADD COLUMN stamp TEXT")

    @property
    def db(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            self._local.conn = conn
        return conn

    class _Tx:
        def __init__(self, manifest: Manifest):
            self.m = manifest

        def __enter__(self) -> sqlite3.Connection:
            self.m._write_lock.acquire()
            self.m.db.execute("BEGIN IMMEDIATE")
            return self.m.db

        def __exit__(self, exc_type, exc, tb):
            try:
                self.m.db.execute("ROLLBACK" if exc_type else "COMMIT")
            finally:
                self.m._write_lock.release()
            return False

    def _tx(self) -> Manifest._Tx:
        return Manifest._Tx(self)

    # -- meta ----------------------------------------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        with self._tx() as db:
            db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def _select_in(self, sql: str, values: Iterable, *params) -> list[tuple]:
        """Rows of `sql`, whose "{}" is an IN list filled with `values` in batches of 500 (SQLite's variable
        limit); `params` are bound before the list."""
        values = list(values)
        rows: list[tuple] = []
        for start in range(0, len(values), 500):
            part = values[start:start + 500]
            rows += self.db.execute(sql.format(",".join("?" * len(part))), [*params, *part]).fetchall()
        return rows

    # -- files and chunks ----------------------------------------------------------------------------------
    def files(self) -> dict[str, FileRecord]:
        rows = self.db.execute("SELECT path, size, mtime_ns, content_hash FROM files").fetchall()
        return {r[0]: FileRecord(*r) for r in rows}

    def file_records(self, paths: Iterable[str]) -> dict[str, FileRecord]:
        """Records of the given paths (absent when not indexed) — O(len(paths)), for watcher hints."""
        rows = self._select_in("SELECT path, size, mtime_ns, content_hash FROM files WHERE path IN ({})", paths)
        return {r[0]: FileRecord(*r) for r in rows}

    def has_files_under(self, rel_dir: str) -> bool:
        """True when some indexed file lies below the directory `rel_dir` (uses the primary-key index)."""
        for prefix in key_prefixes(key_path(rel_dir)):  # plain keys, and encoded ones (non-UTF-8 names below)
            upper = prefix[:-1] + chr(ord("/") + 1)
            if self.db.execute("SELECT 1 FROM files WHERE path >= ? AND path < ? LIMIT 1", (prefix, upper)).fetchone():
                return True
        return False

    def file_count(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM files").fetchone()[0]

    def has_suffix(self, suffixes: Iterable[str]) -> bool:
        """Whether an indexed file's path ends in one of `suffixes` (".py"), case-insensitively."""
        return any(self.db.execute("SELECT 1 FROM files WHERE lower(path) LIKE ? LIMIT 1", (f"%{s.lower()}",)).fetchone()
                   for s in suffixes)

    def chunk_count(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]

    def chunk_ids(self) -> set[str]:
        return {r[0] for r in self.db.execute("SELECT id FROM chunks")}

    def ordered_chunk_ids(self) -> list[str]:
        """Every chunk id, ordered by path and position."""
        return [r[0] for r in self.db.execute("SELECT id FROM chunks ORDER BY path, ordinal")]

    def chunk_lengths(self) -> dict[str, int]:
        """{chunk id: characters of its text}, every chunk (the vector phase's work estimate, index/vector_phase.py)."""
        return dict(self.db.execute("SELECT id, length(text) FROM chunks"))

    def chunk_ids_of(self, paths: Iterable[str]) -> list[str]:
        """Ids of the chunks of the given paths."""
        return [r[0] for r in self._select_in("SELECT id FROM chunks WHERE path IN ({})", paths)]

    def replace_files(self, records: Sequence[FileRecord], chunks: Sequence[Chunk], deleted: Iterable[str] = (),
                      includes: Mapping[str, Mapping[str, bool]] | None = None,
                      labels: Mapping[str, Mapping[str, str]] | None = None) -> None:
        """In one transaction: drop every row of `records`' paths and of `deleted`, insert the new file and chunk
        rows, the files each page of `records` includes (`includes`: {page: {included file: whether its text
        was read into the page}}, `sources.rest_include.expand`) and each reST page's section labels (`labels`:
        {page: {normalised label: section title}}, `index.rest_labels.document_labels`), clear those paths from the
        journal and the skipped list, and mark them `vector_dirty`."""
        now = time.time()
        paths = [r.path for r in records] + list(deleted)
        with self._tx() as db:
            _drop_rows(db, paths, (*_DOCUMENT_TABLES, "journal", "skipped"))
            db.executemany("INSERT OR IGNORE INTO vector_dirty VALUES (?)", [(p,) for p in paths])
            db.executemany("INSERT INTO files VALUES (?,?,?,?,?)",
                           [(r.path, r.size, r.mtime_ns, r.content_hash, now) for r in records])
            db.executemany("INSERT OR REPLACE INTO includes VALUES (?,?,?)",
                           [(page, key, int(read)) for page, found in (includes or {}).items()
                            for key, read in found.items()])
            db.executemany("INSERT OR REPLACE INTO labels VALUES (?,?,?)",
                           [(page, label, title) for page, found in (labels or {}).items()
                            for label, title in found.items()])
            db.executemany(
                "INSERT OR REPLACE INTO chunks (id, path, ordinal, text_hash, start_line, start_char, end_line, "
                "end_char, title, text, page, anchor, context, file) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                _chunk_rows(chunks),
            )

    def stage_chunks(self, chunks: Sequence[Chunk]) -> None:
        """Insert the chunk rows of files being re-indexed beside their old rows (one transaction), before BM25
        switches to the new chunks: a query between the BM25 commit and `replace_files` finds the ids of either
        version here, so a re-indexed file is never briefly missing from results (issue 29). `replace_files`
        (or, after a crash, `forget` of the journaled paths) leaves only the new rows."""
        with self._tx() as db:
            db.executemany(
                "INSERT OR REPLACE INTO chunks (id, path, ordinal, text_hash, start_line, start_char, end_line, "
                "end_char, title, text, page, anchor, context, file) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                _chunk_rows(chunks),
            )

    def includers(self, keys: Iterable[str] | None = None, *, read: bool = False) -> dict[str, set[str]]:
        """{included file: the pages that include it} (`replace_files`' `includes`) for the files `keys` (all when
        None); `read`: only where the file's text was read into the page (else also where it could not be read:
        missing, too large)."""
        sql = "SELECT included, path FROM includes" + (" WHERE resolved=1" if read else "")
        if keys is None:
            rows = self.db.execute(sql).fetchall()
        else:
            rows = self._select_in(sql + (" AND" if read else " WHERE") + " included IN ({})", keys)
        out: dict[str, set[str]] = {}
        for key, page in rows:
            out.setdefault(key, set()).add(page)
        return out

    def section_titles(self, labels: Iterable[str], path: str = "") -> dict[str, str]:
        """{label: the title of the section it stands above} of the normalised `labels` (`index.rest_labels.
        norm_label`) that an indexed reST page defines (`replace_files`' `labels`): the page `path`'s own
        definition first, else the first page's by path. Labels no page defines are absent."""
        out: dict[str, str] = {}
        rows = self._select_in("SELECT label, title, path<>? AS other FROM labels WHERE label IN ({}) "
                               "ORDER BY other, path", set(labels), path)
        for label, title, _ in rows:
            out.setdefault(label, title)
        return out

    def touch_file(self, record: FileRecord) -> None:
        """Update size/mtime of a file whose content hash did not change (nothing to re-index)."""
        with self._tx() as db:
            db.execute("UPDATE files SET size=?, mtime_ns=? WHERE path=?", (record.size, record.mtime_ns, record.path))

    def _row_to_chunk(self, r) -> Chunk:
        file = r[13] if len(r) > 13 else None  # a page's included text: `path` is the page's (Chunk.included_in)
        return Chunk(id=r[0], path=file or r[1], ordinal=r[2], text_hash=r[3], span=LineSpan(r[4], r[5], r[6], r[7]),
                     title=r[8] or "", text=r[9], folder=self.folder, page=r[10], anchor=r[11] or "",
                     context=(r[12] if len(r) > 12 else "") or "", included_in=r[1] if file else "")

    def get_chunks(self, ids: Sequence[str]) -> dict[str, Chunk]:
        """Chunks by id (missing ids are absent from the result)."""
        return {r[0]: self._row_to_chunk(r) for r in self._select_in("SELECT * FROM chunks WHERE id IN ({})", ids)}

    def chunks_of(self, path: str) -> list[Chunk]:
        rows = self.db.execute("SELECT * FROM chunks WHERE path=? ORDER BY ordinal", (path,)).fetchall()
        return [self._row_to_chunk(r) for r in rows]

    def iter_chunks(self, batch: int = 1000):
        """All chunks, ordered by path and ordinal, in batches (lists of Chunk)."""
        cur = self.db.execute("SELECT * FROM chunks ORDER BY path, ordinal")
        while rows := cur.fetchmany(batch):
            yield [self._row_to_chunk(r) for r in rows]

    def sentence_pending_ids(self) -> list[str]:
        """Ids of the chunks whose answer sentences the vector phase has not embedded (`sentences` NULL), ordered by
        path and position."""
        return [r[0] for r in self.db.execute("SELECT id FROM chunks WHERE sentences IS NULL ORDER BY path, ordinal")]

    def mark_sentences(self, ids: Iterable[str] | None) -> None:
        """Record that the answer sentences of the chunks `ids` are embedded; None: forget it for every chunk
        (another embedding model: the cached vectors are another model's)."""
        with self._tx() as db:
            if ids is None:
                db.execute("UPDATE chunks SET sentences=NULL")
            else:
                db.executemany("UPDATE chunks SET sentences=1 WHERE id=?", [(i,) for i in ids])

    # -- skipped files -------------------------------------------------------------------------------------
    def set_skipped(self, path: str, reason: str, stamp: str | None = None) -> None:
        """Record a skipped file (and drop any rows it had). `stamp`: what the reason was decided on (the file's size
        and mtime and the reading settings, `sources.convert.read_stamp`) when it follows from the file's bytes alone, so an
        unchanged file is not read again (`skip_stamps`); None when it may change without the file changing."""
        with self._tx() as db:
            _drop_rows(db, [path], _DOCUMENT_TABLES)
            db.execute("INSERT OR REPLACE INTO skipped VALUES (?, ?, ?)", (path, reason, stamp))

    def skip_stamps(self) -> dict[str, tuple[str, str]]:
        """{path: (reason, stamp)} of the skipped files recorded with a stamp (`set_skipped`)."""
        return {r[0]: (r[1], r[2]) for r in self.db.execute("SELECT path, reason, stamp FROM skipped WHERE stamp IS NOT NULL")}

    def clear_skipped(self, keep: set[str]) -> None:
        """Forget skipped entries whose path is not in `keep` (the file is gone or no longer included)."""
        with self._tx() as db:
            for (p,) in db.execute("SELECT path FROM skipped").fetchall():
                if p not in keep:
                    db.execute("DELETE FROM skipped WHERE path=?", (p,))

    def skipped(self, limit: int | None = None) -> list[tuple[str, str]]:
        """(path, reason) of the files the last scan left out, by path; the first `limit` of them when given (a
        folder of thousands of unreadable files: rag/status lists `status.SKIPPED_LISTED`)."""
        rows = self.db.execute("SELECT path, reason FROM skipped ORDER BY path LIMIT ?", (-1 if limit is None else limit,))
        return [tuple(r) for r in rows]  # SQLite: a negative LIMIT is none

    def skipped_count(self) -> int:
        """How many files the last scan left out (`skipped`)."""
        return self.db.execute("SELECT COUNT(*) FROM skipped").fetchone()[0]

    # -- journal -------------------------------------------------------------------------------------------
    def journal_add(self, paths: Iterable[str]) -> None:
        with self._tx() as db:
            db.executemany("INSERT OR IGNORE INTO journal VALUES (?)", [(p,) for p in paths])

    def journal(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT path FROM journal")]

    def forget(self, paths: Iterable[str]) -> None:
        """Drop files, chunks and journal entries of `paths` (marked `vector_dirty`) so the next sync indexes them
        afresh."""
        paths = list(paths)
        with self._tx() as db:
            db.executemany("INSERT OR IGNORE INTO vector_dirty VALUES (?)", [(p,) for p in paths])
            _drop_rows(db, paths, (*_DOCUMENT_TABLES, "journal"))

    # -- vector store bookkeeping --------------------------------------------------------------------------
    def vector_dirty(self) -> list[str]:
        """Paths whose vector rows the vector store still has to drop."""
        return [r[0] for r in self.db.execute("SELECT path FROM vector_dirty")]

    def clear_vector_dirty(self, paths: Iterable[str] | None = None) -> None:
        """Unmark `paths` (all when None) once the vector store dropped their old rows."""
        with self._tx() as db:
            if paths is None:
                db.execute("DELETE FROM vector_dirty")
            else:
                db.executemany("DELETE FROM vector_dirty WHERE path=?", [(p,) for p in paths])

    # -- embedding cache -----------------------------------------------------------------------------------
    def cached_vectors(self, fp: str, text_hashes: Iterable[str], touch: bool = True) -> dict[str, np.ndarray]:
        """Cached vectors for (fingerprint, text hash); missing hashes are absent. This index's own table first
        (indexes built before the shared cache), then the user's shared cache (`touch`: its hits become most
        recent, a write; False for a request's lookups, which never wait for another process's write)."""
        import numpy as np

        wanted = set(text_hashes)
        rows = self._select_in("SELECT text_hash, vector FROM embeddings WHERE fingerprint=? AND text_hash IN ({})",
                               wanted, fp)
        found = {h: np.frombuffer(blob, dtype=np.float32) for h, blob in rows}
        if self.shared_cache is not None and len(found) < len(wanted):
            found.update(self.shared_cache.get(fp, wanted - found.keys(), touch=touch))
        return found

    def cache_vectors(self, fp: str, vectors: dict[str, np.ndarray]) -> None:
        """Remember vectors by (fingerprint, text hash): in the shared cache when there is one, else here."""
        import numpy as np

        if self.shared_cache is not None:
            self.shared_cache.put(fp, vectors)
            return
        with self._tx() as db:
            db.executemany("INSERT OR REPLACE INTO embeddings VALUES (?,?,?)",
                           [(fp, h, np.asarray(v, dtype=np.float32).tobytes()) for h, v in vectors.items()])

    def prune_cache(self, fp: str) -> None:
        """Drop this index's own cached vectors of other fingerprints (after a model change). The shared cache keeps
        them for other indexes; its LRU bound ages them out."""
        with self._tx() as db:
            db.execute("DELETE FROM embeddings WHERE fingerprint<>?", (fp,))

    def clear(self) -> None:
        """Forget everything but the embedding cache (used by a rebuild)."""
        with self._tx() as db:
            for table in ("files", "chunks", "skipped", "journal", "vector_dirty", "includes", "labels"):
                db.execute(f"DELETE FROM {table}")

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None


def _chunk_rows(chunks: Sequence[Chunk]) -> list[tuple]:
    """The `chunks` table rows of `chunks`: `path` is the document that holds the chunk (`Chunk.document`: rows are
    replaced and deleted by it), `file` the file its text lives in when another (a page's included text)."""
    return [(c.id, c.document, c.ordinal, c.text_hash, c.span.start_line, c.span.start_char, c.span.end_line,
             c.span.end_char, c.title, c.text, c.page, c.anchor, c.context, c.path if c.included_in else None)
            for c in chunks]


# The tables holding a document's rows by its `path`: what it includes, its section labels, its chunks, its file
# record.
_DOCUMENT_TABLES = ("includes", "labels", "chunks", "files")


def _drop_rows(db: sqlite3.Connection, paths: Sequence[str], tables: Sequence[str]) -> None:
    """Delete the rows of `paths` from each of `tables` (all keyed by `path`), inside the caller's transaction."""
    for table in tables:
        db.executemany(f"DELETE FROM {table} WHERE path=?", [(p,) for p in paths])
