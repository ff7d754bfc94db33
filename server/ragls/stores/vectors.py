"""Vector store: a LanceDB table of embedded chunks on local disk.

One row per chunk that has a vector: id, folder, path, text_hash, range (start/end line and UTF-16 char), title,
text and `vector` (fixed-size float32 list of the embedding dimension). Chunks still waiting for their embedding
are simply absent, so vector search answers from what is embedded while BM25 already covers everything.
Search is exact (brute force) cosine distance; LanceDB's `_distance` is 1 - cosine similarity.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path

os.environ.setdefault("LANCE_LOG", "error")  # lance's Rust logger warns on routine operations

import numpy as np  # noqa: E402
import pyarrow as pa  # noqa: E402

from ragls.ir import Chunk  # noqa: E402

TABLE = "chunks"


def _schema(dim: int) -> pa.Schema:
    return pa.schema([
        pa.field("id", pa.string()),
        pa.field("folder", pa.string()),
        pa.field("path", pa.string()),
        pa.field("text_hash", pa.string()),
        pa.field("start_line", pa.int32()),
        pa.field("start_char", pa.int32()),
        pa.field("end_line", pa.int32()),
        pa.field("end_char", pa.int32()),
        pa.field("title", pa.string()),
        pa.field("text", pa.string()),
        pa.field("vector", pa.list_(pa.float32(), dim)),
    ])


def _quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


class VectorStore:
    """LanceDB table `chunks` under `directory` for vectors of dimension `dim`.

    If the existing table has another dimension it is dropped (the index fingerprint changed anyway).
    """

    def __init__(self, directory: Path, dim: int):
        self.directory = Path(directory)
        self.dim = dim
        import lancedb  # imported on first use: ~1 s of imports the text phase (BM25) does not need

        self.db = lancedb.connect(str(self.directory))
        self._lock = threading.Lock()
        self.table = self._open()

    def _table_names(self) -> list[str]:
        if hasattr(self.db, "list_tables"):  # lancedb >= 0.23; table_names() is deprecated
            return list(self.db.list_tables().tables)
        return list(self.db.table_names())

    def _open(self):
        if TABLE in self._table_names():
            table = self.db.open_table(TABLE)
            field = table.schema.field("vector")
            if getattr(field.type, "list_size", None) == self.dim:
                return table
            self.db.drop_table(TABLE)
        return self.db.create_table(TABLE, schema=_schema(self.dim))

    def add(self, chunks: Sequence[Chunk], vectors: np.ndarray) -> None:
        """Append rows; `vectors` is float32 (len(chunks), dim)."""
        if not chunks:
            return
        vectors = np.asarray(vectors, dtype=np.float32).reshape(len(chunks), self.dim)
        data = pa.table({
            "id": [c.id for c in chunks],
            "folder": [c.folder for c in chunks],
            "path": [c.path for c in chunks],
            "text_hash": [c.text_hash for c in chunks],
            "start_line": pa.array([c.span.start_line for c in chunks], pa.int32()),
            "start_char": pa.array([c.span.start_char for c in chunks], pa.int32()),
            "end_line": pa.array([c.span.end_line for c in chunks], pa.int32()),
            "end_char": pa.array([c.span.end_char for c in chunks], pa.int32()),
            "title": [c.title for c in chunks],
            "text": [c.text for c in chunks],
            "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel(), pa.float32()), self.dim),
        }, schema=_schema(self.dim))
        with self._lock:
            self.table.add(data)

    def delete_ids(self, ids: Iterable[str]) -> None:
        ids = list(ids)
        with self._lock:
            for start in range(0, len(ids), 500):
                part = ids[start:start + 500]
                self.table.delete(f"id IN ({','.join(_quote(i) for i in part)})")

    def delete_paths(self, paths: Iterable[str]) -> None:
        paths = list(paths)
        with self._lock:
            for start in range(0, len(paths), 200):
                part = paths[start:start + 200]
                self.table.delete(f"path IN ({','.join(_quote(p) for p in part)})")

    def delete_all(self) -> None:
        with self._lock:
            self.table.delete("true")

    def ids(self) -> list[str]:
        """Every row's id (duplicates included) — for start-up reconciliation."""
        with self._lock:
            n = self.table.count_rows()
            if not n:
                return []
            return self.table.search().select(["id"]).limit(n).to_arrow().column("id").to_pylist()

    def count(self) -> int:
        return self.table.count_rows()

    def search(self, vector: np.ndarray, limit: int) -> list[tuple[str, float]]:
        """Top `limit` (chunk id, cosine similarity), most similar first."""
        if limit <= 0 or self.table.count_rows() == 0:
            return []
        rows = (self.table.search(np.asarray(vector, dtype=np.float32)).distance_type("cosine")
                .select(["id", "_distance"]).limit(limit).to_list())
        return [(r["id"], 1.0 - float(r["_distance"])) for r in rows]

    def refresh(self) -> None:
        """See writes made by other processes."""
        try:
            self.table.checkout_latest()
        except Exception:  # noqa: BLE001 - older tables without versions; reopening is equivalent
            self.table = self.db.open_table(TABLE)

    def compact(self, keep_versions_s: float = 600.0) -> None:
        """Merge small fragments left by many small writes and drop versions older than `keep_versions_s`
        seconds (a reader process re-reads the latest version before each query)."""
        from datetime import timedelta

        with self._lock:
            try:
                self.table.optimize(cleanup_older_than=timedelta(seconds=keep_versions_s))
            except Exception:  # noqa: BLE001 - compaction is an optimisation, never fatal
                pass
