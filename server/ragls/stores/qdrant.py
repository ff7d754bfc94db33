"""Qdrant through the official `qdrant-client`: connections, and the chunk store of `index.backend = "qdrant"`.

Locations (`index.qdrant_location`, `[rags.NAME] qdrant.url`):
- `":memory:"` — an in-process collection (tests);
- a local directory — qdrant-client's embedded local mode (same API, no server; one process at a time);
- an `http(s)://` URL — a Qdrant server or cluster. The API key comes only from the environment variable named by
  `api_key_env`; it is handed to the client and never stored, logged or reported. A loopback, private-range,
  link-local or `.local` host is contacted directly even when HTTP_PROXY / HTTPS_PROXY are set (`trust_env` off);
  any other host honours the proxy variables (httpx's default).

`QdrantChunkStore` has the interface of `stores/vectors.py`'s LanceDB `VectorStore` (add, delete_ids,
delete_paths, delete_all, window_keys, ids, count, chunk_count, search_windows, search, refresh, compact), so
`indexer.FolderIndex` keeps its write order and crash-safety unchanged. One point per embedding window
(`ragls.index.windows`): id = UUID of sha256(vectors fingerprint — model + window settings —, chunk id, window index);
the chunk id hashes (relative path, ordinal, chunk text), so the id depends on the text and the model, never on an
absolute path, and identical text in two files stays two points (deleting one file never removes the other's
citation). Vectors = the unnamed dense embedding (cosine) + on window 0 the chunk's sparse `bm25` term vector
(`stores/term_vectors.py`, `modifier = idf`). Payload = `page_content` (the chunk text; LangChain's field, so other
tools can read a ragls collection), `metadata.source`, `path`, `start_line`/`end_line` (the chunk's, 0-based, end
exclusive, as LSP), `start_char`/`end_char`, `focus_lines` (the window's first and last file line, inclusive),
`title` (heading path), `content_hash` (sha256 of the chunk text), `text_hash` (of the window's embedding input),
`chunk_id`, `window`, `windows`, `ordinal`, `commit` (HEAD when written), `model`.
One reserved point (`META_POINT`) records what the collection was built from (`indexed_commit`, model, chunker).
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import ipaddress
import logging
import os
import shutil
import threading
import uuid
from collections.abc import Iterable, Sequence
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np

from ragls.core.errors import ConfigError, RequestFailed, StoreBusy
from ragls.core.hashing import text_hash
from ragls.core.ir import Chunk, LineSpan
from ragls.core.uris import display_url
from ragls.stores.term_vectors import doc_vector, query_vector

log = logging.getLogger(__name__)

SPARSE = "bm25"  # name of the sparse vector in collections ragls writes
META_POINT = str(uuid.uuid5(uuid.NAMESPACE_URL, "ragls:meta"))
PAGE_SIZE = 512

_local_clients: dict[str, object] = {}
_local_lock = threading.Lock()


def is_url(location: str) -> bool:
    """True for an http(s):// location (a Qdrant server), False for ":memory:" or a local path."""
    return location.startswith(("http://", "https://"))


def bypasses_proxy(url: str) -> bool:
    """True when `url`'s host is contacted directly whatever HTTP(S)_PROXY say: localhost, a loopback, private
    (RFC 1918 / RFC 4193), link-local address, or a `.local` (mDNS) name."""
    host = (urlsplit(url).hostname or "").lower().rstrip(".")
    if host in ("localhost",) or host.endswith((".local", ".localhost")):
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    return ip.is_loopback or ip.is_private or ip.is_link_local


def display_location(location: str) -> str:
    """A location as status and logs show it: a URL without user/password or query string (`uris.display_url`);
    a path as it is."""
    return display_url(location) if is_url(location) else location


def api_key_from_env(api_key_env: str | None) -> str | None:
    """The API key from the environment variable named `api_key_env` (None when no name is given). Raises
    ConfigError naming the variable — never its value — when it is named but unset or empty."""
    if not api_key_env:
        return None
    value = os.environ.get(api_key_env)
    if not value:
        raise ConfigError(f"the Qdrant API key variable {api_key_env} is not set in the environment")
    return value


def connect(location: str, api_key_env: str | None = None, timeout: float = 10.0, *, own_directory: bool = False):
    """A `QdrantClient` for `location` (":memory:", a local directory, or an http(s) URL). Local directories are
    opened once per process and shared (qdrant-client's local mode locks its directory). Raises ConfigError for a
    missing API key variable, RequestFailed when a local directory is open in another process or its files cannot
    be read (`_open_local`; with `own_directory`, ragls's own `<index dir>/qdrant`, such a directory is moved aside
    and an empty one opened: the vectors are derived data, re-added from the embedding cache)."""
    from qdrant_client import QdrantClient

    if location == ":memory:":
        return QdrantClient(location=":memory:")
    if is_url(location):
        key = api_key_from_env(api_key_env)
        return QdrantClient(url=location, api_key=key, timeout=int(timeout), prefer_grpc=False,
                            trust_env=not bypasses_proxy(location), check_compatibility=False)
    path = str(Path(location).expanduser().resolve())
    with _local_lock:
        client = _local_clients.get(path)
        if client is None:
            Path(path).mkdir(parents=True, exist_ok=True)
            try:
                client = _open_local(path)
            except _Damaged as exc:
                if not own_directory:
                    raise RequestFailed(f"{exc}; move that directory away (ragls fills a new one from its index "
                                        "and embedding cache) or set index.qdrant_location to another") from None
                aside = Path(f"{path}.damaged")
                shutil.rmtree(aside, ignore_errors=True)  # an older damaged copy: one is kept, for a bug report
                os.replace(path, aside)
                log.warning("%s; moved to %s and started an empty one: the vectors are added again from the "
                            "index and the embedding cache", exc, aside)
                Path(path).mkdir(parents=True, exist_ok=True)
                client = _open_local(path)
            _local_clients[path] = client
        return client


class _Damaged(Exception):
    """An embedded Qdrant directory whose files qdrant-client cannot load (and no process holds)."""


def _open_local(path: str):
    """QdrantClient(path=path). Raises StoreBusy when another process holds the directory (its lock, or portalocker's
    RuntimeError), _Damaged when its files cannot be loaded: qdrant-client writes `meta.json` in place (a crash or a
    full disk mid-write leaves it empty or cut) and each collection's `storage.sqlite` may be cut too; it loads both
    before it takes the lock, so a load error is checked against the lock (`_held`) before it counts as damage. An
    OSError of access (`_NO_ACCESS`: permission denied, a read-only file system) is no damage: RequestFailed."""
    from qdrant_client import QdrantClient

    busy = StoreBusy(f"the embedded Qdrant at {path} is open in another process (local mode allows one); run a "
                     "Qdrant server to share an index")
    if _held(Path(path) / ".lock"):  # before qdrant-client loads every point only to find the lock taken
        raise busy
    try:
        return QdrantClient(path=path)
    except RuntimeError:  # portalocker: another process took the directory meanwhile
        raise busy from None
    except Exception as exc:  # noqa: BLE001 - JSONDecodeError, KeyError, pydantic's, sqlite3.DatabaseError, ...
        if isinstance(exc, OSError) and exc.errno in _NO_ACCESS:
            # this user may not read or write its files (a permission, a read-only mount): nothing says they are
            # damaged, and moving them aside threw the vectors away (a meta.json made unreadable was "damaged")
            raise RequestFailed(f"the embedded Qdrant at {path} cannot be opened ({exc.strerror}: {exc.filename}); "
                                "its files were left as they are: give this user access to them") from None
        if _held(Path(path) / ".lock"):
            raise busy from None
        raise _Damaged(f"the embedded Qdrant at {path} cannot be read ({type(exc).__name__}: {exc}): its files "
                       "are damaged, e.g. by a crash or a full disk while it wrote") from exc


_NO_ACCESS = (errno.EACCES, errno.EPERM, errno.EROFS)  # an OSError of access, not of damage (`_open_local`)


def _held(lock_file: Path) -> bool:
    """Whether another process holds qdrant-client's lock on `lock_file` (an exclusive flock, as portalocker takes)."""
    import fcntl

    try:
        with open(lock_file, "rb") as f:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            fcntl.flock(f, fcntl.LOCK_UN)
    except OSError:
        return False
    return False


def close_local(location: str) -> None:
    """Close the shared client of a local directory (tests that reopen it as another process would)."""
    path = str(Path(location).expanduser().resolve())
    with _local_lock:
        client = _local_clients.pop(path, None)
    if client is not None:
        client.close()


@atexit.register
def _close_all_local() -> None:
    """Close the shared local-mode clients before interpreter shutdown (their __del__ fails once imports are
    gone)."""
    with _local_lock:
        clients = list(_local_clients.values())
        _local_clients.clear()
    for client in clients:
        with contextlib.suppress(Exception):
            client.close()


def point_id(chunk_id: str, model_fp: str) -> str:
    """UUID point id of a chunk under an embedding model: sha256(model fingerprint, chunk id), as a UUID."""
    import hashlib

    digest = hashlib.sha256(f"{model_fp}\0{chunk_id}".encode()).digest()
    return str(uuid.UUID(bytes=digest[:16]))


def chunk_from_payload(payload: dict, text_field: str = "page_content", fallback_id: str = "") -> Chunk:
    """A `Chunk` from a point payload: text from `text_field`; path from `path`, `source` or `metadata.source`
    (LangChain), but `file` for a page's included text (then `path` is the page: `Chunk.included_in`); lines from
    `start_line`/`end_line` (ragls, 0-based), else `metadata.start_line`/`line`/`page` (a page becomes
    `path#page=N` with no line range)."""

    meta = payload.get("metadata") if isinstance(payload.get("metadata"), dict) else {}
    text = payload.get(text_field)
    if not isinstance(text, str):
        text = meta.get(text_field) if isinstance(meta.get(text_field), str) else ""
    included_in = str(payload.get("path") or "") if payload.get("file") else ""  # the page holding the text
    path = payload.get("file") or payload.get("path") or payload.get("source") or meta.get("source") \
        or meta.get("path") or ""
    path = str(path)

    def num(*keys):
        for k in keys:
            for src in (payload, meta):
                v = src.get(k)
                if isinstance(v, (int, float)) and not isinstance(v, bool):
                    return int(v)
        return None

    start = num("start_line", "line", "line_start", "loc_start")
    end = num("end_line", "line_end")
    page = num("page", "page_number")
    if page is not None and start is None and path:
        path = f"{path}#page={page}"
    start = start or 0
    end = end if end is not None and end >= start else start + max(1, text.count("\n") + 1)
    span = LineSpan(start, int(payload.get("start_char") or 0), end, int(payload.get("end_char") or 0))
    title = payload.get("title") or meta.get("title") or ""
    return Chunk(id=str(payload.get("chunk_id") or fallback_id), path=path, text=text, span=span,
                 text_hash=str(payload.get("content_hash") or text_hash(text)),
                 ordinal=int(payload.get("ordinal") or 0), title=str(title), included_in=included_in)


class QdrantChunkStore:
    """The chunk collection `collection` of `client` for dense vectors of dimension `dim` under the embedding
    model `model_fp` (the collection name already contains the model: the indexer need not wipe on a model change,
    `keyed_by_model`). Creates the collection (unnamed cosine dense vector + sparse `bm25` with the IDF modifier)
    when absent. Raises ConfigError when an existing collection has another dense dimension, or is not one ragls
    made (named dense vectors, or no sparse `bm25`)."""

    keyed_by_model = True

    def __init__(self, client, collection: str, dim: int, model_fp: str, *, commit: str | None = None,
                 location: str = "", create: bool = True, replication_factor: int = 1,
                 shard_number: int | None = None):
        from qdrant_client import models

        self.client = client
        self.collection = collection
        self.dim = dim
        self.model_fp = model_fp
        self.commit = commit
        self.location = location
        self._m = models
        self._lock = threading.Lock()
        exists = client.collection_exists(collection)
        if not exists and not create:
            raise ConfigError(f"the shared Qdrant collection {collection!r} does not exist at "
                              f"{display_location(location)}; build it with `ragls index PATH --backend qdrant "
                              f"--url {display_location(location)}` (docs/deployment.md)")
        if not exists:
            cluster = {"replication_factor": replication_factor, "shard_number": shard_number} if is_url(location) \
                else {}  # local mode has no shards or replicas
            client.create_collection(
                collection, **cluster,
                vectors_config=models.VectorParams(size=dim, distance=models.Distance.COSINE),
                sparse_vectors_config={SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)},
            )
            for field in ("path", "chunk_id") if is_url(location) else ():  # no-ops in local mode
                try:
                    client.create_payload_index(collection, field, models.PayloadSchemaType.KEYWORD)
                except Exception as exc:  # noqa: BLE001 - payload indexes only speed up filters
                    log.debug("no payload index on %s: %s", field, exc)
        else:
            params = client.get_collection(collection).config.params
            size = getattr(params.vectors, "size", None)
            if isinstance(params.vectors, dict) or SPARSE not in (params.sparse_vectors or {}):
                # a collection another tool made: ragls's writes failed on it with qdrant-client's traceback
                # ("Not existing vector name error: bm25") at the first file indexed
                has = (f"named vectors ({', '.join(map(str, params.vectors))})" if isinstance(params.vectors, dict)
                       else "no sparse vector 'bm25'")
                raise ConfigError(f"Qdrant collection {collection!r} at {display_location(location)} was not made "
                                  f"by ragls: it has {has}, where ragls writes an unnamed dense vector and a sparse "
                                  f"vector 'bm25'; choose another index.qdrant_collection (to search a collection "
                                  f"another tool made, attach it: `ragls rag attach`)")
            if size != dim:
                raise ConfigError(f"Qdrant collection {collection!r} holds {size}-dimensional vectors, the "
                                  f"embedding model gives {dim}: choose another index.qdrant_collection")

    @classmethod
    def for_folder(cls, folder: Path, settings, index_dir: Path, dim: int, model_fp: str,
                   chunker_fp: str, *, create: bool = True) -> QdrantChunkStore:
        """The store of a workspace folder under `index.backend = "qdrant"`: location `index.qdrant_location`
        (default `<index_dir>/qdrant`, embedded), collection `index.qdrant_collection` or the name derived from
        the repository identity, model and chunker (`repo.collection_name`). Raises ConfigError."""
        from ragls.index.repo import collection_name, head_commit, repo_identity

        ix = settings.index
        location = ix.qdrant_location or str(Path(index_dir) / "qdrant")
        name = ix.qdrant_collection or collection_name(repo_identity(folder, ix.repo_id), model_fp, chunker_fp)
        client = connect(location, ix.qdrant_api_key_env, own_directory=not ix.qdrant_location)
        return cls(client, name, dim, model_fp, commit=head_commit(folder), location=location, create=create,
                   replication_factor=ix.qdrant_replication_factor, shard_number=ix.qdrant_shards)

    # -- writes --------------------------------------------------------------------------------------------
    def add(self, chunks: dict[str, Chunk], windows: Sequence, vectors: np.ndarray,
            text_hashes: Sequence[str]) -> None:
        """Upsert one point per embedding window (`ragls.index.windows.Window`; `chunks` maps each window's chunk id to
        its Chunk, `vectors` is float32 (len(windows), dim), `text_hashes` the windows' embedding-input hashes).
        Window 0 also carries the chunk's sparse BM25 vector (one keyword entry per chunk). Idempotent: a window
        written twice stays one point. Waits until the engine has applied the write."""
        if not windows:
            return
        m = self._m
        vectors = np.asarray(vectors, dtype=np.float32).reshape(len(windows), self.dim)
        points = []
        for w, v, th in zip(windows, vectors, text_hashes):
            c = chunks[w.chunk_id]
            vec: dict = {"": v.tolist()}
            if w.index == 0:
                # a contextual chunk's context (index/contextual.py) is keyword-searchable, as in tantivy
                idx, vals = doc_vector(f"{c.context}\n\n{c.text}" if c.context else c.text, c.title)
                if idx:
                    vec[SPARSE] = m.SparseVector(indices=idx, values=vals)
            payload = {
                "chunk_id": c.id, "window": w.index, "windows": w.count, "path": c.document, "page_content": c.text,
                "metadata": {"source": c.path}, "start_line": c.span.start_line, "end_line": c.span.end_line,
                "start_char": c.span.start_char, "end_char": c.span.end_char, "title": c.title,
                "content_hash": c.text_hash, "text_hash": th, "focus_lines": [w.start_line, w.end_line],
                "ordinal": c.ordinal, "commit": self.commit, "model": self.model_fp,
                # a page's included text (Chunk.included_in): `path` is the page, deleted with it; the text's file
                **({"file": c.path} if c.included_in else {}),
            }
            points.append(m.PointStruct(id=point_id(f"{c.id}#{w.index}", self.model_fp), vector=vec,
                                        payload=payload))
        with self._lock:
            for start in range(0, len(points), 256):
                self.client.upsert(self.collection, points=points[start:start + 256], wait=True)

    def delete_ids(self, ids: Iterable[str]) -> None:
        """Delete every point whose payload `chunk_id` is one of `ids` (all windows, duplicates included)."""
        self._delete_in("chunk_id", ids, 500)

    def delete_paths(self, paths: Iterable[str]) -> None:
        """Delete every point whose payload `path` is one of `paths` (relative paths)."""
        self._delete_in("path", paths, 200)

    def _delete_in(self, key: str, values: Iterable[str], batch: int) -> None:
        """Delete every point whose payload `key` is one of `values`, one filter per `batch` values."""
        m = self._m
        values = list(values)
        with self._lock:
            for start in range(0, len(values), batch):
                match = m.MatchAny(any=values[start:start + batch])
                flt = m.Filter(must=[m.FieldCondition(key=key, match=match)])
                self.client.delete(self.collection, points_selector=m.FilterSelector(filter=flt), wait=True)

    def delete_all(self) -> None:
        """Delete every chunk point (the collection, its configuration and the meta point stay)."""
        m = self._m
        flt = m.Filter(must=[m.IsEmptyCondition(is_empty=m.PayloadField(key="ragls_meta"))])
        with self._lock:
            self.client.delete(self.collection, points_selector=m.FilterSelector(filter=flt), wait=True)

    def set_meta(self, **values) -> None:
        """Record collection-level facts (e.g. `indexed_commit`) in the reserved meta point."""
        m = self._m
        vec = [0.0] * self.dim
        vec[0] = 1.0  # a cosine vector must not be zero; the point carries no chunk and is skipped by readers
        payload = {**self.meta(), **values, "ragls_meta": True}
        with self._lock:
            self.client.upsert(self.collection, points=[m.PointStruct(id=META_POINT, vector={"": vec},
                                                                      payload=payload)], wait=True)

    def meta(self) -> dict:
        """The meta point's payload ({} when none was written)."""
        got = self.client.retrieve(self.collection, [META_POINT], with_payload=True, with_vectors=False)
        return dict(got[0].payload or {}) if got else {}

    # -- reads ---------------------------------------------------------------------------------------------
    def window_keys(self) -> list[tuple[str, int, int]]:
        """Every window point's (chunk id, window index, window count), duplicates included — reconciliation."""
        out: list[tuple[str, int, int]] = []
        offset = None
        while True:
            points, offset = self.client.scroll(self.collection, limit=PAGE_SIZE, offset=offset,
                                                with_payload=["chunk_id", "window", "windows"], with_vectors=False)
            out += [(p.payload["chunk_id"], int(p.payload.get("window", 0)), int(p.payload.get("windows", 1)))
                    for p in points if p.payload and p.payload.get("chunk_id")]
            if offset is None:
                return out

    def ids(self) -> list[str]:
        """The chunk id of every window-0 point (one per chunk with a first vector; duplicates included)."""
        return [cid for cid, w, _ in self.window_keys() if w == 0]

    def count(self) -> int:
        """Window points (the meta point excluded)."""
        n = self.client.count(self.collection, exact=True).count
        return max(0, n - (1 if self.meta() else 0))

    def chunk_count(self) -> int:
        """Chunks with a first vector (window-0 points)."""
        m = self._m
        flt = m.Filter(must=[m.FieldCondition(key="window", match=m.MatchValue(value=0))])
        return self.client.count(self.collection, count_filter=flt, exact=True).count

    def search_windows(self, vector: np.ndarray, limit: int) -> list:
        """The best window of each of the top `limit` chunks, most similar first (`stores.vectors.WindowMatch`:
        cosine similarity, window index, its file lines, its vector)."""
        return [w for w, _ in self.window_points(vector, limit)]

    def window_points(self, vector: np.ndarray, limit: int, exclude_paths: Sequence[str] = ()) -> list:
        """[(WindowMatch, payload)] of the best window of each of the top `limit` chunks, most similar first;
        `exclude_paths` never returned."""
        from ragls.stores.vectors import ROWS_PER_CHUNK_SEARCHED

        return _windows(self._dense(vector, limit * ROWS_PER_CHUNK_SEARCHED, exclude_paths, with_vectors=True),
                        limit)

    def search(self, vector: np.ndarray, limit: int) -> list[tuple[str, float]]:
        """Top `limit` (chunk id, cosine similarity of its best window), most similar first."""
        return [(w.chunk_id, w.similarity) for w in self.search_windows(vector, limit)]

    def _filter(self, exclude_paths: Sequence[str]):
        """None without exclusions (the meta point, which has no `chunk_id`, is dropped client-side: a filter
        would cost a payload check per point in local mode); else `path` not in `exclude_paths`."""
        if not exclude_paths:
            return None
        m = self._m
        return m.Filter(must_not=[m.FieldCondition(key="path", match=m.MatchAny(any=list(exclude_paths)))])

    def _dense(self, vector: np.ndarray, limit: int, exclude_paths: Sequence[str], *, with_vectors=False) -> list:
        if limit <= 0:
            return []
        res = self.client.query_points(self.collection, query=np.asarray(vector, dtype=np.float32).tolist(),
                                       limit=limit + 1, with_payload=True,
                                       with_vectors=[""] if with_vectors else False,
                                       query_filter=self._filter(exclude_paths))
        return [(p, float(p.score)) for p in res.points if p.payload and p.payload.get("chunk_id")]

    def sparse_points(self, text: str, limit: int, exclude_paths: Sequence[str] = ()) -> list:
        """[(point, BM25 score)] of the sparse `bm25` search (IDF applied by Qdrant); [] for a query without
        words."""
        idx, vals = query_vector(text)
        if not idx or limit <= 0:
            return []
        m = self._m
        res = self.client.query_points(self.collection, query=m.SparseVector(indices=idx, values=vals), using=SPARSE,
                                       limit=limit, with_payload=True, query_filter=self._filter(exclude_paths))
        return [(p, float(p.score)) for p in res.points if p.payload and p.payload.get("chunk_id")]

    def hybrid_points(self, vector: np.ndarray, text: str, limit: int,
                      exclude_paths: Sequence[str] = ()) -> tuple[list, list]:
        """(dense, sparse) as `window_points` and `sparse_points` return them, in one request (one network round
        trip to a served Qdrant: `query_batch_points`)."""
        from ragls.stores.vectors import ROWS_PER_CHUNK_SEARCHED

        m = self._m
        flt = self._filter(exclude_paths)
        if limit <= 0:
            return [], []
        requests = [m.QueryRequest(query=np.asarray(vector, dtype=np.float32).tolist(),
                                   limit=limit * ROWS_PER_CHUNK_SEARCHED, with_payload=True, with_vector=[""],
                                   filter=flt)]
        idx, vals = query_vector(text)
        if idx:
            requests.append(m.QueryRequest(query=m.SparseVector(indices=idx, values=vals), using=SPARSE,
                                           limit=limit, with_payload=True, filter=flt))
        res = self.client.query_batch_points(self.collection, requests=requests)
        keep = [[(p, float(p.score)) for p in r.points if p.payload and p.payload.get("chunk_id")] for r in res]
        return _windows(keep[0], limit), (keep[1] if len(keep) > 1 else [])

    def has_ann(self) -> bool:
        """True: Qdrant builds its own approximate (HNSW) index on a served instance; local mode searches exactly.
        The indexer never builds one (`index.ann_threshold` is for LanceDB)."""
        return True

    def build_ann(self) -> None:
        """Nothing to do (see has_ann)."""

    def refresh(self) -> None:
        """Nothing to do: every Qdrant read sees the latest applied write."""

    def compact(self, keep_versions_s: float = 600.0) -> None:
        """Nothing to do: Qdrant's optimizers merge segments themselves."""


def _windows(scored: list, limit: int) -> list:
    """[(WindowMatch, payload)] of the first (best) window point of each chunk in `scored` ([(point with its
    vector, cosine)]), at most `limit` chunks, order kept."""
    from ragls.stores.vectors import WindowMatch

    out: dict = {}
    for p, score in scored:
        cid = p.payload["chunk_id"]
        if cid in out:
            continue
        focus = p.payload.get("focus_lines") or [p.payload.get("start_line", 0), p.payload.get("end_line", 0)]
        vec = p.vector.get("") if isinstance(p.vector, dict) else p.vector
        out[cid] = (WindowMatch(cid, score, int(p.payload.get("window", 0)), int(focus[0]), int(focus[1]),
                                np.asarray(vec, dtype=np.float32)), p.payload)
        if len(out) == limit:
            break
    return list(out.values())
