"""Named RAGs: knowledge bases beyond the workspace, declared as `[rags.NAME]` tables in the workspace's
`ragls.toml` and in the user's `ragls.toml` (platformdirs config dir, e.g. ~/.config/ragls/ragls.toml; the
workspace's table wins on a name clash). `"workspace"` names the open workspace folders.

    [rags.flask]
    sources = ["https://flask.palletsprojects.com/en/stable/**", "~/notes/flask/**/*.{md,txt}"]
    chunk_size = 1200          # any setting, nested or by its flat/rag_* alias: per-RAG overrides
    top_k = 8
    embedding_model = "BAAI/bge-small-en-v1.5"

A RAG's backing store is chosen by its table (`BACKENDS`): `sources` (built in: its own index — manifest,
tantivy BM25, LanceDB vectors — with the same crash safety and incremental sync as a workspace folder, under
<cache>/rags/NAME-<hash>: `kb/sources_index.py`), or another registered backend key (`register_backend("qdrant", factory)` makes
`[rags.NAME] qdrant = {...}` a Qdrant collection). Every backend implements the `Rag` protocol.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

from ragls.config.settings import CONFIG_FILE, TABLES, Settings, build_settings, read_toml_file
from ragls.config.trust import user_config_file  # noqa: F401 - re-exported: cli/rags.py, tests
from ragls.config.trust_filter import folder_layer
from ragls.core.errors import ConfigError, InvalidParams, RequestFailed
from ragls.core.hashing import text_hash
from ragls.core.ir import RagInfo
from ragls.embedding.embed import Embedder
from ragls.index.indexer import SyncReport
from ragls.kb.sources_index import RagSpec, SourcesIndex
from ragls.retrieval.result import RetrievalResult
from ragls.retrieval.search import SIGNALS

log = logging.getLogger(__name__)

WORKSPACE = "workspace"
RESERVED = frozenset({WORKSPACE})
# Keys of a [rags.NAME] table that are not settings.
RAG_KEYS = frozenset({"sources", "description"})
# A RAG of local files only is re-scanned (size/mtime stat, then only changed files re-read) on use when its last
# sync is older than this: edits to its folders show up without a server restart, at most one scan per interval.
LOCAL_RESCAN_S = 2.0


def name_problem(name: str) -> str | None:
    """Why `name` cannot name a RAG, or None. A RAG's index lives at <cache>/rags/<name>-<hash> (`index_dir`), so a
    name is one plain file name: a `[rags."../../x"]` or an absolute `[rags."/srv/x"]` table of a cloned folder's
    ragls.toml made ragls create and write an index directory outside the cache (red team, session 49). Refused: a
    path separator, a drive colon, a control character, "." / "..", more than 100 characters."""
    if (not name or name in (".", "..") or len(name) > 100
            or any(c in "/\\:" or ord(c) < 32 or ord(c) == 127 for c in name)):
        return (f"invalid RAG name {name!r}: a name is one plain file name (no '/', '\\', ':', control characters, "
                "nor '.' / '..'; at most 100 characters)")
    return None


class Rag(Protocol):
    """What a RAG backend provides to the workspace (queries, rag/list, rag/rebuild)."""

    spec: RagSpec

    def retrieve(self, query: str, top_k: int | None, signals: Sequence[str] = SIGNALS) -> RetrievalResult: ...
    def sync(self) -> SyncReport: ...
    def rebuild(self) -> SyncReport: ...
    def ensure_indexed(self) -> None: ...
    def info(self) -> RagInfo: ...
    def close(self) -> None: ...


BackendFactory = Callable[[RagSpec, "RagRegistry"], Rag]
BACKENDS: dict[str, BackendFactory] = {}


def register_backend(key: str, factory: BackendFactory) -> None:
    """Make `[rags.NAME] <key> = {...}` tables open with `factory(spec, registry)`."""
    BACKENDS[key] = factory


class SourcesRag:
    """The built-in backend: a `SourcesIndex` plus the RAG's retrieval options (reranker, graph signal, LLM
    steps)."""

    takes_llm_steps = True  # retrieve() accepts generation= and expand= (RagWorkspace.retrieve)

    def __init__(self, spec: RagSpec, registry: RagRegistry):
        self.spec = spec
        self.registry = registry
        self.embedder = registry.embedder_for(spec.settings)
        self.index_dir = registry.index_dir(spec)
        # Deferred: another RAG of this process is open on the same index (one `reload` replaced while a request
        # still searches it, or the previous workspace's after a reopen): this one opens read-only — neither the
        # writer lock nor a rebuild for changed chunking settings (`FolderIndex._check_fingerprint` empties the
        # stores) may reach the index under that RAG's requests — until its registry reopens it as the writer
        # (`RagRegistry.get`, `alone`).
        with _OPEN_LOCK:
            others = _OPEN_INDEXES.setdefault(self.index_dir, [])
            self.deferred = not registry.read_only and bool(others)
            others.append(self)
        self._lock = threading.RLock()
        self._reranker = None
        self._synced_at = float("-inf")  # time.monotonic() of this process's last sync
        from ragls.index.graph_extract import GraphBuilder

        try:
            self.index = SourcesIndex(spec, self.embedder, self.index_dir,
                                      read_only=registry.read_only or self.deferred,
                                      should_stop=registry.closing.is_set)
            self.graph = GraphBuilder.attach(self.index, spec.settings)
        except BaseException:
            self._forget()
            raise

    def ensure_indexed(self) -> None:
        """Index the RAG now if it was never indexed (first use, or emptied by a rebuild for changed chunking
        settings: `FolderIndex._wipe`), its source list changed since its last sync, or its sources are all local
        and its last sync in this process is LOCAL_RESCAN_S old (a stat scan: only changed files are re-read) —
        waits for a sync already running. Not the writer because another process held the index's writer lock
        when this RAG opened: when it would sync, it first takes the lock over if that process has let go
        (`FolderIndex.try_become_writer`, which also rebuilds an index built with other chunking settings), so an
        index that process left emptied or stale is indexed here without a restart; while the lock stays taken
        it does nothing and searches what the writer commits. A deferred RAG (opened read-only) waits for its
        registry to reopen it as the writer (`RagRegistry.get`)."""
        with self._lock:
            m = self.index.manifest
            needed = not m.get_meta("last_indexed_at") or m.get_meta("sources") != self._sources_stamp()
            rescan = self._local_only() and time.monotonic() - self._synced_at >= LOCAL_RESCAN_S
            if not self.index.writer and (needed or rescan):
                self._synced_at = time.monotonic()  # a local-only RAG tries the lock at most once per interval
                needed = self.index.try_become_writer() or needed
            if needed or (rescan and self.index.writer):
                self.sync()

    def sync(self) -> SyncReport:
        """Incremental sync of the sources, then embedding; skipped entries are kept for rag/list. Not the
        writer: an empty report, nothing written."""
        with self._lock:
            report = self.index.sync(embed=False)
            self._synced_sources()
            self._embed(report)
            self._synced_at = time.monotonic()
            if self.graph is not None:
                self.graph.wait()
            return report

    def rebuild(self) -> SyncReport:
        """Wipe the index and index the sources again. Not the writer: first takes the writer lock if the process
        that held it has let go; still not the writer (another open workspace writes this index), raises
        RequestFailed saying who writes it and what to do — nothing is wiped or written."""
        with self._lock:
            if not self.index.writer and not self.index.try_become_writer():
                raise RequestFailed(self._not_writer_message())
            self.index._wipe()
            report = self.index.sync(embed=False)
            self._embed(report)
            self._synced_sources()
            if self.graph is not None:
                self.graph.catch_up()
                self.graph.wait()
            return report

    def _not_writer_message(self) -> str:
        """Why this RAG cannot write its index now and what the user can do (`rebuild`'s RequestFailed)."""
        name, where = self.spec.name, self.index_dir
        if self.deferred:
            return (f"rag {name!r}: its index ({where}) is being written by another open workspace of this server "
                    f"(a request there is still using it); nothing was rebuilt. Rebuild {name!r} again once that "
                    f"request has finished: this workspace then becomes the index's writer")
        if self.registry.read_only:
            return f"rag {name!r}: this process opened its index ({where}) read-only; nothing was rebuilt"
        return (f"rag {name!r}: its index ({where}) is being written by another open workspace — "
                f"{self.index.writer_holder()}; nothing was rebuilt. Rebuild {name!r} from that workspace, or "
                f"close that workspace and rebuild it here again (this one then becomes the index's writer)")

    def _synced_sources(self) -> None:
        """Writer, after a sync: record the source list it indexed (`ensure_indexed`, `needs_sync` compare it)."""
        if self.index.writer:
            self.index.manifest.set_meta("sources", self._sources_stamp())

    def _sources_stamp(self) -> str:
        """What the manifest records of the source list (`_synced_sources`): a digest of it, never the list — a
        source may hold a credential (`redact.credential_refusal` keeps such a URL from being fetched; the list still
        names it)."""
        return text_hash("\n".join(self.spec.sources))

    def _embed(self, report: SyncReport) -> None:
        """The vector phase, batch by batch, until done or the registry closes (the rest waits for next time)."""
        if not self.index.writer:
            return
        if not self.index.try_open_vectors():
            report.vectors_error = self.index.vectors_error
            return
        while not self.registry.closing.is_set() and self.index.embed_pending_batch():
            pass

    def needs_sync(self) -> bool:
        """True when never indexed, when its source list changed since the last sync, or when it has local files
        only (a cheap stat scan). Web RAGs re-crawl on `rag/rebuild`, `ragls index --rag NAME` or a list change."""
        last = self.index.manifest.get_meta("sources")
        if not self.index.manifest.get_meta("last_indexed_at") or last != self._sources_stamp():
            return True
        return self._local_only()

    def _local_only(self) -> bool:
        """True when every source is a local path or glob (no URL)."""
        return not any("://" in s for s in self.spec.sources)

    def retrieve(self, query: str, top_k: int | None, signals: Sequence[str] = SIGNALS, *,
                 generation=None, expand: bool | None = None) -> RetrievalResult:
        """Hybrid search of this RAG with its own retrieval settings; with `generation` (the workspace's backend)
        also its enabled LLM steps (`retrieval/assisted.py`; `expand` is the request's switch)."""
        idx = self.index
        if not idx.writer:
            idx.refresh()
        if "vector" in signals:
            idx.try_open_vectors()
        r = self.spec.settings.retrieval
        from ragls.retrieval.rerankers import RerankerSlot

        if self._reranker is None:
            self._reranker = RerankerSlot()

        def graph():
            if self.graph is None or not idx.vectors_ready:
                return None
            from ragls.retrieval.graph_signal import GraphSignal

            return GraphSignal([idx], [self.graph.store], self.embedder, r.graph_hops)

        options = self._reranker.options(self.spec.settings, graph=graph)
        from ragls.retrieval.assisted import assisted_search  # without generation or steps: `search` itself

        return assisted_search([idx], self.embedder, query, settings=r, generation=generation, expand=expand,
                               top_k=top_k, signals=signals,
                               max_context_chars=self.spec.settings.generation.max_context_chars, **options)

    def info(self) -> RagInfo:
        idx = self.index
        if not idx.writer:
            idx.refresh()
        last = idx.manifest.get_meta("last_indexed_at")
        if last and not idx.vectors_ready and not self.registry.read_only:
            # Until the vector store is open every chunk counts as pending (vector_phase.pending_count): open it
            # (the model is the workspace's, usually loaded) so `ragls rag list` counts what is really missing.
            idx.try_open_vectors()  # a failure is in idx.vectors_error, reported below
        errors = []
        if idx.missing_vectors:
            if idx.vectors_ready and idx.pending_count() == 0:
                idx.missing_vectors = None
            else:
                errors.append({"message": idx.missing_vectors})
        if idx.vectors_error:
            errors.append({"message": f"embedding model: {idx.vectors_error}"})
        for path, reason in json.loads(idx.manifest.get_meta("web_kept") or "[]"):
            errors.append({"path": path, "message": f"{path}: {reason}"})
        if self.graph is not None:
            errors += self.graph.errors()
        return RagInfo(name=self.spec.name, sources=self.spec.sources, files=idx.manifest.file_count(),
                       chunks=idx.manifest.chunk_count(), pending_vectors=idx.pending_count(),
                       last_indexed_at=float(last) if last else None, errors=errors, skipped=idx.manifest.skipped(),
                       kind="sources", origin=str(self.spec.origin), index_path=str(self.index_dir))

    def alone(self) -> bool:
        """True when no other RAG of this process is open on this one's index (a deferred RAG may then reopen as
        its writer)."""
        with _OPEN_LOCK:
            return all(r is self for r in _OPEN_INDEXES.get(self.index_dir, ()))

    def _forget(self) -> None:
        with _OPEN_LOCK:
            users = [r for r in _OPEN_INDEXES.get(self.index_dir, ()) if r is not self]
            if users:
                _OPEN_INDEXES[self.index_dir] = users
            else:
                _OPEN_INDEXES.pop(self.index_dir, None)

    def close(self) -> None:
        try:
            if self.graph is not None:
                self.graph.close()
            self.index.close()
        finally:
            self._forget()


# The sources RAGs open in this process, by index directory, over every registry (`SourcesRag.deferred`).
_OPEN_INDEXES: dict[Path, list[SourcesRag]] = {}
_OPEN_LOCK = threading.Lock()

register_backend("sources", SourcesRag)


def _qdrant_rag(spec: RagSpec, registry: RagRegistry) -> Rag:
    """`[rags.NAME] qdrant = {...}`: an attached Qdrant collection (kb/qdrant_attach.py), read-only."""
    from ragls.kb.qdrant_attach import QdrantRag

    return QdrantRag(spec, registry)


register_backend("qdrant", _qdrant_rag)


_HELD: contextvars.ContextVar[list | None] = contextvars.ContextVar("ragls_rags_held", default=None)


@contextlib.contextmanager
def request_scope() -> Iterator[None]:
    """The scope of one request (`workspace.live.LiveWorkspace.request` enters it for every front): each named RAG
    `RagRegistry.get` returns inside it — also in threads started with its context, e.g. `asyncio.to_thread` — is
    held until the scope ends, so a `reload` meanwhile does not close it under the request."""
    held: list[tuple[RagRegistry, Rag]] = []
    token = _HELD.set(held)
    try:
        yield
    finally:
        _HELD.reset(token)
        for registry, rag in held:
            registry._let_go(rag)


class RagRegistry:
    """The named RAGs visible from a workspace: the user config's `[rags.*]`, then the workspace's (which win).
    RAGs are opened on first use; `reload()` re-reads both files and reopens the RAGs whose table changed."""

    def __init__(self, workspace_folder: Path | None, overrides: Sequence[dict[str, Any] | None] = (),
                 base_embedder: Embedder | None = None, read_only: bool = False):
        self.workspace_folder = Path(workspace_folder) if workspace_folder else None
        self.overrides = list(overrides)
        self.base_embedder = base_embedder
        self.read_only = read_only
        self.specs: dict[str, RagSpec] = {}
        self.errors: list[dict[str, str]] = []
        self._open: dict[str, Rag] = {}
        self._embedders: dict[str, Embedder] = {}
        self._lock = threading.RLock()
        self.closing = threading.Event()  # set by close(): background syncs and crawls stop at the next page
        self._threads: list[threading.Thread] = []  # background syncs (`sync_in_background`)
        self._read_signature: tuple | None = None  # of the files the specs were read from (`_signature`)
        self._holds: dict[int, int] = {}  # id(rag) -> requests holding it (`request_scope`)
        self._retired: list[Rag] = []  # replaced while a request held them: closed when the last one lets go
        self.reload()

    # -- configuration ------------------------------------------------------------------------------------
    def config_files(self) -> list[tuple[Path, list[dict[str, Any] | None]]]:
        """(config file, settings layers below its tables), lowest priority first."""
        files: list[tuple[Path, list[dict[str, Any] | None]]] = [(user_config_file(), [])]
        if self.workspace_folder is not None:
            files.append((self.workspace_folder / CONFIG_FILE, self.overrides))
        return files

    def _signature(self) -> tuple:
        """What the specs depend on besides `overrides`: each config file's and the trust store's (mtime, size,
        inode); None for a missing one. Unchanged: `reload` has nothing to re-read."""
        from ragls.config import trust

        out = []
        for path in [*(p for p, _ in self.config_files()), trust.store_path()]:
            try:
                st = path.stat()
                out.append((str(path), st.st_mtime_ns, st.st_size, st.st_ino))
            except OSError:
                out.append((str(path), None))
        return tuple(out)

    def reload(self, force: bool = False) -> set[str]:
        """Re-read the config files when they (or the trust store) changed since the last read, or when `force`.
        Returns the names of the RAGs added, removed or changed. A changed or removed RAG is closed (reopened on
        next use) — at once when no request holds it, else when the last one that does ends (`request_scope`), so
        a request never loses a RAG it is searching; its successor on the same index opens deferred meanwhile
        (read-only: `SourcesRag.deferred`)."""
        signature = self._signature()
        if not force and signature == self._read_signature:
            return set()
        specs: dict[str, RagSpec] = {}
        errors: list[dict[str, str]] = []
        for path, layers in self.config_files():
            try:
                # The workspace's file through the trust filter (an untrusted folder's outside sources, loaders and
                # endpoints are left out); the user's own file as written.
                data = (folder_layer(self.workspace_folder, self.overrides).data
                        if path.parent == self.workspace_folder else read_toml_file(path))
            except ConfigError as exc:
                errors.append({"message": str(exc)})
                continue
            base = {k: v for k, v in data.items() if k not in TABLES or k == "document_loaders"}
            if isinstance(base.get("index"), dict):  # a RAG's index lives in the cache unless its own table says
                base["index"] = {k: v for k, v in base["index"].items() if k != "path"}
            for name, table in (data.get("rags") or {}).items():
                try:
                    specs[name] = self._spec(name, path, table, [base, *layers])
                except (ConfigError, InvalidParams) as exc:
                    errors.append({"message": f"[rags.{name}] in {path}: {exc}"})
        with self._lock:
            changed = {n for n in specs.keys() | self.specs.keys()
                       if n not in specs or n not in self.specs or specs[n].table != self.specs[n].table
                       or specs[n].origin != self.specs[n].origin}
            for name, rag in list(self._open.items()):
                if name not in specs or specs[name].table != rag.spec.table or specs[name].origin != rag.spec.origin:
                    del self._open[name]
                    if self._holds.get(id(rag)):
                        self._retired.append(rag)
                    else:
                        rag.close()
            self.specs, self.errors, self._read_signature = specs, errors, signature
        return changed

    def _let_go(self, rag: Rag) -> None:
        """A request that held `rag` ended (`request_scope`). The last one to let go of a RAG `reload` replaced
        closes it (under the registry's lock: its writer lock is free before another `get` reopens)."""
        with self._lock:
            left = self._holds.get(id(rag), 0) - 1
            if left > 0:
                self._holds[id(rag)] = left
                return
            self._holds.pop(id(rag), None)
            if any(r is rag for r in self._retired):
                self._retired = [r for r in self._retired if r is not rag]
                rag.close()

    def _spec(self, name: str, origin: Path, table: Any, layers: list) -> RagSpec:
        if name in RESERVED:
            raise InvalidParams(f"the name {name!r} is reserved for the workspace")
        if (problem := name_problem(name)) is not None:
            raise InvalidParams(problem)
        if not isinstance(table, dict):
            raise InvalidParams("must be a table")
        backend = next((k for k in table if k in BACKENDS and k != "sources"), "sources")
        if backend == "sources" and "sources" not in table:
            raise InvalidParams("needs sources = [...] (or a backend table such as qdrant = {...})")
        own = {k: v for k, v in table.items() if k not in RAG_KEYS and k not in BACKENDS}
        settings, _warnings = build_settings(*layers, own)
        return RagSpec(name, origin, dict(table), settings, backend)

    def names(self) -> list[str]:
        return sorted(self.specs)

    def index_dir(self, spec: RagSpec) -> Path:
        """<cache>/rags/<name>-<hash of the declaring config file>, or `index.path` when the RAG sets one."""
        if spec.settings.index.path:
            return Path(spec.settings.index.path).expanduser()
        from ragls.embedding.embed import cache_root

        return cache_root() / "rags" / f"{spec.name}-{text_hash(str(spec.origin.resolve()))[:10]}"

    def embedder_for(self, settings: Settings) -> Embedder:
        """The workspace's embedder when the RAG's embedding settings are the same, else one per distinct
        embedding configuration (shared between RAGs)."""
        key = settings.embedding.model_dump_json()
        if self.base_embedder is not None and key == self.base_embedder.settings.model_dump_json():
            return self.base_embedder
        if key not in self._embedders:
            self._embedders[key] = Embedder(settings.embedding)
        return self._embedders[key]

    # -- access -------------------------------------------------------------------------------------------
    def get(self, name: str) -> Rag:
        """The open RAG `name` (opened now if needed). A deferred RAG (`SourcesRag.deferred`) that no request holds
        and that is alone on its index now is reopened first, as the index's writer: when that writer rebuilds
        the index for changed chunking settings, `ensure_indexed` makes requests wait for its first sync. Raises
        InvalidParams for an unknown name."""
        with self._lock:
            rag = self._open.get(name)
            if (rag is not None and getattr(rag, "deferred", False) and not self._holds.get(id(rag))
                    and rag.alone()):
                del self._open[name]
                rag.close()
            if name not in self._open:
                spec = self.specs.get(name)
                if spec is None:
                    raise InvalidParams(f"unknown rag {name!r}; known: {', '.join([WORKSPACE, *self.names()])}")
                self._open[name] = BACKENDS[spec.backend](spec, self)
            rag = self._open[name]
            held = _HELD.get()
            if held is not None and not any(r is rag for _, r in held):
                held.append((self, rag))
                self._holds[id(rag)] = self._holds.get(id(rag), 0) + 1
            return rag

    def all(self) -> list[Rag]:
        return [self.get(n) for n in self.names()]

    def sync_in_background(self, names: Sequence[str] | None = None, only_needed: bool = True) -> threading.Thread:
        """Sync RAGs on a daemon thread (`needs_sync` ones when `only_needed`); errors go to `errors`. Each sync
        runs in a `request_scope`: a reload meanwhile does not close the RAG it is writing."""

        def run() -> None:
            for name in names or self.names():
                if self.closing.is_set():
                    return
                try:
                    with request_scope():
                        rag = self.get(name)
                        if not only_needed or getattr(rag, "needs_sync", lambda: True)():
                            t0 = time.perf_counter()
                            report = rag.sync()
                            log.info("rag %s: %d indexed, %d deleted, %d unchanged in %.1f s", name,
                                     len(report.indexed), len(report.deleted), report.unchanged,
                                     time.perf_counter() - t0)
                except Exception as exc:
                    log.exception("rag %s: sync failed", name)
                    self.errors.append({"message": f"rag {name}: {exc}"})

        thread = threading.Thread(target=run, name="ragls-rags", daemon=True)
        thread.start()
        with self._lock:
            self._threads = [t for t in self._threads if t.is_alive()] + [thread]
        return thread

    def close(self, timeout_s: float = 30.0) -> None:
        """Stop background syncs (a crawl stops before its next page) and close every open RAG."""
        self.closing.set()
        deadline = time.monotonic() + timeout_s
        for thread in list(self._threads):
            if thread is not threading.current_thread():
                thread.join(max(0.0, deadline - time.monotonic()))
        with self._lock:
            for rag in [*self._open.values(), *self._retired]:
                rag.close()
            self._open.clear()
            self._retired.clear()
