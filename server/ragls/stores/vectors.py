"""Vector store: a LanceDB table of embedded chunk windows on local disk.

One row per embedding window (`ragls.index.windows`): chunk id, window index and the chunk's window count, folder,
path, text_hash (of the window's embedding input), the window's file lines (0-based, inclusive) and `vector`
(fixed-size float32 list of the embedding dimension). A chunk's window 0 is written by the first vector pass, its
other windows by the background window pass; chunks still waiting are simply absent, so vector search answers from
what is embedded while BM25 already covers everything. A chunk scores by its best window.
Search is exact (brute force) cosine distance until the table passes `index.ann_threshold` rows; then an IVF_PQ
index (built in the background by the indexer thread, `build_ann`) answers with `ANN_NPROBES` partitions probed and
the best `ANN_REFINE` x limit candidates re-ranked by exact distance; rows added after the build are searched
exactly alongside it until the next `compact` folds them in. LanceDB's `_distance` is 1 - cosine similarity.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import sys
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

os.environ.setdefault("LANCE_LOG", "error")  # lance's Rust logger warns on routine operations

import numpy as np  # noqa: E402
import pyarrow as pa  # noqa: E402

from ragls.core.ir import Chunk  # noqa: E402
from ragls.core.telemetry import traced  # noqa: E402
from ragls.index.windows import Window  # noqa: E402

TABLE = "windows"
OLD_TABLES = ("chunks",)  # one row per chunk (before multi-window vectors): dropped when found
ROWS_PER_CHUNK_SEARCHED = 4  # window rows fetched per wanted chunk before taking each chunk's best window
# IVF_PQ search parameters: partitions probed and exact re-ranking factor. Measured by bench/scale.py (recall@10
# against exact search >= 0.95 at 100k rows, bench/history/early-speed-and-operations.md, "Approximate vector index").
ANN_NPROBES = 32
ANN_REFINE = 10
ANN_MIN_ROWS = 256  # PQ trains 256 centroids per sub-vector: fewer rows cannot build the index


@dataclass(frozen=True)
class WindowMatch:
    """A chunk's best window for a query: cosine `similarity`, its window `index` and file lines (inclusive),
    and its `vector` (float32, for near-duplicate removal). `first_similarity` is the cosine of the chunk's
    window 0 when the search saw it (equal to `similarity` when window 0 is the best), else None."""

    chunk_id: str
    similarity: float
    index: int
    start_line: int
    end_line: int
    vector: np.ndarray
    first_similarity: float | None = None


def _schema(dim: int) -> pa.Schema:
    return pa.schema([
        pa.field("id", pa.string()),
        pa.field("window", pa.int32()),
        pa.field("windows", pa.int32()),
        pa.field("folder", pa.string()),
        pa.field("path", pa.string()),
        pa.field("text_hash", pa.string()),
        pa.field("start_line", pa.int32()),
        pa.field("end_line", pa.int32()),
        pa.field("vector", pa.list_(pa.float32(), dim)),
    ])


# lancedb/db.py imports lance_namespace, which re-exports the request/response models of this package; importing any
# of its submodules runs the package's __init__ first, and that imports its nine REST API modules (366 functions under
# pydantic's validate_call, each building its schema): ~1.2 of the ~2.2 CPU-s of `import lancedb`, for a REST client
# a local LanceDB directory never calls (bench/history/session-55.md, "The test suite's time").
LANCE_REST_CLIENT = "lance_namespace_urllib3_client"
_IMPORT_LOCK = threading.Lock()  # `import_lancedb`


def import_lancedb():
    """`import lancedb`, with the package `LANCE_REST_CLIENT` deferred (the first import in this process only): its
    submodules (the models lance_namespace re-exports) import as they are, and the package's own `__init__` (the REST
    API classes and clients) runs at the first read of a name the package does not have yet, so code that does use the
    REST client gets the complete package. Without that package installed (another lance-namespace), a plain import.
    Returns the lancedb module."""
    with _IMPORT_LOCK:  # two threads opening their first vector stores install one deferred package, not two
        if LANCE_REST_CLIENT not in sys.modules and "lancedb" not in sys.modules:
            spec = importlib.util.find_spec(LANCE_REST_CLIENT)
            if spec is not None and spec.loader is not None and spec.submodule_search_locations is not None:
                sys.modules[LANCE_REST_CLIENT] = _deferred_package(spec)
        with _override_as_marker(), _rest_models_built_on_first_use():
            import lancedb

    return lancedb


def _marked_override(method):
    """What `typing.override` (Python 3.12+) does: mark `method` as overriding (`__override__ = True`)."""
    method.__override__ = True
    return method


@contextlib.contextmanager
def _override_as_marker():
    """While lancedb imports on Python < 3.12, the `overrides` package's `override` is the marker lancedb itself uses
    on 3.12+ (`typing.override`, `_marked_override`). That decorator disassembles the whole bytecode of the defining
    module for each of the ~100 methods lancedb marks, to find the base classes and compare signatures: ~0.3 of the
    ~1 CPU-s of `import lancedb` in every process that opens vectors, checking lancedb's own code, which its tests do.
    `EnforceOverrides` still checks every overriding method carries the mark. A no-op on 3.12+ or without the
    package."""
    overrides = None
    if sys.version_info < (3, 12) and "lancedb" not in sys.modules:
        try:
            import overrides
        except ImportError:
            overrides = None
    if overrides is None:
        yield
        return
    saved = overrides.override
    overrides.override = _marked_override
    try:
        yield
    finally:
        overrides.override = saved


@contextlib.contextmanager
def _rest_models_built_on_first_use():
    """While lancedb imports, the pydantic models of `LANCE_REST_CLIENT` (the ~150 request/response classes
    lance_namespace re-exports) get `defer_build=True`: pydantic builds a model's schema, validator and serializer
    at its first validation instead of at class creation — ~0.15 of the ~0.65 CPU-s of `import lancedb` in every
    process that opens vectors, for models a local LanceDB directory never validates. The models are the same
    classes with the same fields and behaviour (the first use pays their build). Only a `ConfigDict(...)` called
    from that package's modules changes (the generated models spell `model_config = ConfigDict(...)`); pydantic's
    own `ConfigDict` is back afterwards. A no-op once lancedb is imported."""
    import pydantic

    if "lancedb" in sys.modules:
        yield
        return
    config_dict = pydantic.ConfigDict

    def deferred(*args, **kwargs):
        caller = sys._getframe(1).f_globals.get("__name__", "")
        if caller == LANCE_REST_CLIENT or caller.startswith(LANCE_REST_CLIENT + "."):
            kwargs.setdefault("defer_build", True)
        return config_dict(*args, **kwargs)

    pydantic.ConfigDict = deferred
    try:
        yield
    finally:
        pydantic.ConfigDict = config_dict


def _deferred_package(spec):
    """A package module made from `spec` whose `__init__` has not run: `__path__` is set, so its submodules import;
    a module-level `__getattr__` (PEP 562) runs the `__init__` once, on the first missing name, then answers it."""
    package = importlib.util.module_from_spec(spec)
    lock = threading.Lock()

    def __getattr__(name: str):
        with lock:
            if package.__dict__.get("__getattr__") is __getattr__:
                del package.__getattr__
                spec.loader.exec_module(package)
        return getattr(package, name)

    package.__getattr__ = __getattr__
    return package


def _quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


class VectorStore:
    """LanceDB table `chunks` under `directory` for vectors of dimension `dim`.

    If the existing table has another dimension it is dropped (the index fingerprint changed anyway).
    """

    def __init__(self, directory: Path, dim: int):
        self.directory = Path(directory)
        self.dim = dim
        lancedb = import_lancedb()  # imported on first use: ~1 s of imports the text phase (BM25) does not need
        self.db = lancedb.connect(str(self.directory))
        self._lock = threading.Lock()
        self.table = self._open()
        # Per table version (`_version`): whether it has a vector index and its window-0 row count (None = not
        # checked yet). A reader's `refresh` drops them when another process committed a new version; this
        # process's own writes drop them too (`_changed`).
        self._ann: bool | None = None
        self._first_rows: int | None = None
        self._version: int | None = None
        self._writes = 0  # this process's writes so far: a count taken across one is not kept

    def _table_names(self) -> list[str]:
        if hasattr(self.db, "list_tables"):  # lancedb >= 0.23; table_names() is deprecated
            return list(self.db.list_tables().tables)
        return list(self.db.table_names())

    def _open(self):
        for old in OLD_TABLES:
            if old in self._table_names():
                self.db.drop_table(old)
        if TABLE in self._table_names():
            table = self.db.open_table(TABLE)
            field = table.schema.field("vector")
            if getattr(field.type, "list_size", None) == self.dim:
                return table
            self.db.drop_table(TABLE)
        return self.db.create_table(TABLE, schema=_schema(self.dim))

    def add(self, chunks: dict[str, Chunk], windows: Sequence[Window], vectors: np.ndarray,
            text_hashes: Sequence[str]) -> None:
        """Append one row per window in one write (atomic: a crash leaves all of them or none). `chunks` maps
        each window's chunk id to its Chunk; `vectors` is float32 (len(windows), dim); `text_hashes` are the
        windows' embedding-input hashes."""
        if not windows:
            return
        vectors = np.asarray(vectors, dtype=np.float32).reshape(len(windows), self.dim)
        owners = [chunks[w.chunk_id] for w in windows]
        data = pa.table({
            "id": [w.chunk_id for w in windows],
            "window": pa.array([w.index for w in windows], pa.int32()),
            "windows": pa.array([w.count for w in windows], pa.int32()),
            "folder": [c.folder for c in owners],
            "path": [c.document for c in owners],  # deleted by the document that holds them
            "text_hash": list(text_hashes),
            "start_line": pa.array([w.start_line for w in windows], pa.int32()),
            "end_line": pa.array([w.end_line for w in windows], pa.int32()),
            "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel(), pa.float32()), self.dim),
        }, schema=_schema(self.dim))
        with self._lock:
            self.table.add(data)
            self._changed()

    def _changed(self) -> None:
        """Forget what is cached per table version (this process wrote)."""
        self._writes += 1
        self._first_rows = None
        self._version = None

    def delete_ids(self, ids: Iterable[str]) -> None:
        """Delete the rows of the chunks `ids` (every window)."""
        self._delete_in("id", ids, 500)

    def delete_paths(self, paths: Iterable[str]) -> None:
        """Delete the rows of the files `paths` (index keys)."""
        self._delete_in("path", paths, 200)

    def _delete_in(self, column: str, values: Iterable[str], batch: int) -> None:
        """Delete the rows whose `column` is one of `values`: one `column IN (...)` filter per `batch` values, so a
        filter's length stays bounded (paths are longer than ids: smaller batches)."""
        values = list(values)
        with self._lock:
            for start in range(0, len(values), batch):
                part = values[start:start + batch]
                self.table.delete(f"{column} IN ({','.join(_quote(v) for v in part)})")
            self._changed()

    def delete_all(self) -> None:
        with self._lock:
            self.table.delete("true")
            self._changed()

    def window_keys(self) -> list[tuple[str, int, int]]:
        """Every row's (chunk id, window index, window count), duplicates included — for reconciliation."""
        with self._lock:
            n = self.table.count_rows()
            if not n:
                return []
            t = self.table.search().select(["id", "window", "windows"]).limit(n).to_arrow()
            return list(zip(t.column("id").to_pylist(), t.column("window").to_pylist(),
                            t.column("windows").to_pylist()))

    def ids(self) -> list[str]:
        """The chunk id of every window-0 row (one per chunk with a first vector; duplicates included)."""
        return [cid for cid, w, _ in self.window_keys() if w == 0]

    def count(self) -> int:
        """Window rows."""
        return self.table.count_rows()

    def chunk_count(self) -> int:
        """Chunks with a first vector (window-0 rows); counted once per table version (a reader asks on every
        query, `pending_count`)."""
        n = self._first_rows
        if n is None:
            writes = self._writes
            n = self.table.count_rows("window = 0")
            if writes == self._writes:
                self._first_rows = n
        return n

    @traced("vector.search")
    def search_windows(self, vector: np.ndarray, limit: int) -> list[WindowMatch]:
        """The best window of each of the top `limit` chunks (max cosine over a chunk's windows), most similar
        first. Fetches `ROWS_PER_CHUNK_SEARCHED` x `limit` window rows, so a chunk whose windows all rank below
        that many rows is missed (it would not have made the top `limit` anyway unless many chunks have many
        close windows)."""
        if limit <= 0:
            return []
        rows = self._nearest_rows(np.asarray(vector, dtype=np.float32), limit * ROWS_PER_CHUNK_SEARCHED)
        out: dict[str, WindowMatch] = {}
        first: dict[str, float] = {}  # window-0 cosines seen among the rows
        ids = rows.column("id").to_pylist()
        dist = rows.column("_distance").to_numpy()
        win = rows.column("window").to_pylist()
        l0 = rows.column("start_line").to_pylist()
        l1 = rows.column("end_line").to_pylist()
        vecs = rows.column("vector")
        for j, cid in enumerate(ids):  # rows come most similar first: the first row of a chunk is its best
            if win[j] == 0:
                first.setdefault(cid, 1.0 - float(dist[j]))
            if cid in out or len(out) == limit:
                continue
            out[cid] = WindowMatch(cid, 1.0 - float(dist[j]), win[j], l0[j], l1[j],
                                   np.asarray(vecs[j].values.to_numpy(zero_copy_only=False), dtype=np.float32))
        return [replace(m, first_similarity=first.get(m.chunk_id)) for m in out.values()]

    def _nearest_rows(self, vector: np.ndarray, n: int) -> pa.Table:
        """The `n` window rows nearest `vector` by cosine distance, nearest first: id, window, start_line, end_line,
        vector, _distance. An exact search goes to LanceDB's asynchronous table (the one behind the synchronous
        `LanceTable`) as one request: the synchronous query builder makes six round trips to LanceDB's event-loop
        thread (the schema three times), ~1.5 ms of CPU more per query for the same rows (bench/history/early-speed-and-operations.md, "Warm query latency: third round"). With
        an approximate index, or when that table is not there (another lancedb), the synchronous builder."""
        columns = ["id", "window", "start_line", "end_line", "vector", "_distance"]
        if not self.has_ann():
            inner = getattr(self.table, "_table", None)
            if inner is not None and hasattr(inner, "query"):
                from lancedb.background_loop import LOOP

                return LOOP.run(inner.query().nearest_to(vector).distance_type("cosine").select(columns)
                                .limit(n).to_arrow())
            return self.table.search(vector).distance_type("cosine").select(columns).limit(n).to_arrow()
        return (self.table.search(vector).distance_type("cosine").nprobes(ANN_NPROBES).refine_factor(ANN_REFINE)
                .select(columns).limit(n).to_arrow())

    def first_window_similarities(self, vector: np.ndarray, ids: Sequence[str]) -> dict[str, float]:
        """{chunk id: cosine similarity of its window 0 to `vector`} for `ids` (chunks without a window-0 row are
        absent); one filtered scan."""
        ids = list(dict.fromkeys(ids))
        if not ids:
            return {}
        q = np.asarray(vector, dtype=np.float32)
        q = q / (np.linalg.norm(q) or 1.0)
        out: dict[str, float] = {}
        for start in range(0, len(ids), 500):
            part = ids[start:start + 500]
            t = (self.table.search().where(f"window = 0 AND id IN ({','.join(_quote(i) for i in part)})")
                 .select(["id", "vector"]).limit(len(part) * 2).to_arrow())
            if not t.num_rows:
                continue
            mat = t.column("vector").combine_chunks().flatten().to_numpy(zero_copy_only=False)
            mat = np.asarray(mat, dtype=np.float32).reshape(t.num_rows, self.dim)
            norms = np.linalg.norm(mat, axis=1)
            sims = np.einsum("ij,j->i", mat, q) / np.where(norms > 0, norms, 1.0)
            for cid, sim in zip(t.column("id").to_pylist(), sims.tolist()):
                out.setdefault(cid, float(sim))
        return out

    def search(self, vector: np.ndarray, limit: int) -> list[tuple[str, float]]:
        """Top `limit` (chunk id, cosine similarity of its best window), most similar first."""
        return [(m.chunk_id, m.similarity) for m in self.search_windows(vector, limit)]

    def has_ann(self) -> bool:
        """True when the table has an approximate (IVF_PQ) vector index."""
        if self._ann is None:
            try:
                self._ann = any("vector" in getattr(i, "columns", []) for i in self.table.list_indices())
            except Exception:  # noqa: BLE001 - an older table API: treat as exact
                self._ann = False
        return self._ann

    def build_ann(self) -> None:
        """Build the IVF_PQ index over the current rows (seconds to a minute at 100k rows on 2 cores; queries keep
        answering exactly meanwhile). Partitions: about sqrt(rows) (LanceDB's guidance), sub-vectors: dim / 4
        (96 for 384-d: 96 bytes of codes per row), so the codes stay small and the exact re-rank restores precision."""
        import math

        n = self.table.count_rows()
        sub = next((d for d in (self.dim // 4, self.dim // 2, 1) if d and self.dim % d == 0), 1)
        with self._lock:
            from lancedb.index import IvfPq

            self.table.create_index("vector", replace=True, config=IvfPq(  # new API: the column comes first
                distance_type="cosine", num_partitions=max(2, int(math.sqrt(n))), num_sub_vectors=sub))
            self._ann = True

    def refresh(self) -> None:
        """See writes made by other processes (a reader calls it before each query). What is cached per table
        version (`has_ann`, `chunk_count`) is kept while the version stays the same."""
        try:
            self.table.checkout_latest()
            version = self.table.version
        except Exception:  # noqa: BLE001 - older tables without versions; reopening is equivalent
            self.table = self.db.open_table(TABLE)
            version = None
        if version is None or version != self._version:
            self._ann = None
            self._first_rows = None
        self._version = version

    def compact(self, keep_versions_s: float = 600.0) -> None:
        """Merge small fragments left by many small writes and drop versions older than `keep_versions_s`
        seconds (a reader process re-reads the latest version before each query)."""
        from datetime import timedelta

        with self._lock:
            try:
                self.table.optimize(cleanup_older_than=timedelta(seconds=keep_versions_s))
            except Exception:  # noqa: BLE001, S110 - compaction is an optimisation, never fatal
                pass
