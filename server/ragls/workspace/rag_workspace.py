"""`RagWorkspace`: the state of one client's workspace folders (multi-root) and its operations.

query / ask / rebuild / status / commit_message are plain synchronous methods returning IR objects; the LSP layer
(`lsp/`) runs them off the event loop and converts results to the wire, and the CLI calls them directly.
Settings: the first folder's settings drive retrieval and generation; each folder keeps its own sources and
chunking settings (its own ragls.toml). Which folders and named RAGs a request's `rag` selects, and a named RAG's
own settings: workspace/rag_selection.py.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

from ragls.config.aliases import OldName
from ragls.config.globs import glob_warnings
from ragls.config.settings import Settings
from ragls.config.trust_filter import load_folder_settings
from ragls.core.errors import InvalidParams, RaglsError, RequestFailed
from ragls.core.ir import Answer, Chunk, Hit
from ragls.core.telemetry import traced
from ragls.core.uris import folder_uri_path
from ragls.embedding.embed import Embedder, pinned_model_note
from ragls.index.indexer import FolderIndex, ProgressFn, SyncReport
from ragls.index.paths import workspace_index_dirs
from ragls.kb.rags import WORKSPACE, RagInfo, RagRegistry
from ragls.retrieval.assisted import assisted_search
from ragls.retrieval.fuse import relevance_shares
from ragls.retrieval.query import analyse
from ragls.retrieval.relevance import abstained
from ragls.retrieval.result import RetrievalResult
from ragls.retrieval.search import SIGNALS, search
from ragls.retrieval.source import FolderSource
from ragls.workspace.rag_selection import folder_position, present, request_settings, selected
from ragls.workspace.request_input import check_text, check_top_k, user_text
from ragls.workspace.status import Status, workspace_status

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class QueryResult:
    """rag/query result: the stripped query, the retrieval (`hits`: a `RetrievalResult`, best first, with its
    evidence, truncation flag, reranker report and LLM trace), the abstention flag, wall time in ms."""

    query: str
    hits: RetrievalResult
    abstained: bool
    elapsed_ms: float

    @property
    def truncated(self) -> bool:
        """The embedding model read only the query's end (retrieval/query_fit.py)."""
        return self.hits.truncated

    @property
    def rerank(self) -> dict | None:
        """The reranker's report (retrieval/rerankers.py): backend, elapsedMs, candidates, timedOut / error."""
        return self.hits.rerank

    @property
    def llm(self):
        """LLM-assisted retrieval's trace (retrieval/llm_steps.LLMTrace), None when no step is on."""
        return self.hits.llm

    def relevances(self) -> list[float | None]:
        """Each hit's relevance as shown (rag/query's `Chunk.relevance`, the search tools'): its score's share of the
        best hit's (`fuse.relevance_shares`, 0..1); None for every hit when no share means anything or the result
        abstained (the best weak match, 100% of itself, read "relevance 100%" under "nothing relevant enough")."""
        shares = None if self.abstained else relevance_shares([h.score for h in self.hits])
        return list(shares) if shares else [None] * len(self.hits)


class RagWorkspace:
    """All workspace folders of one client. Opening opens each folder's text index (SQLite + BM25); the embedding
    model and the vector stores load on first use (`FolderIndex.open_vectors`).

    `overrides` are settings layers applied over each folder's ragls.toml (initializationOptions, then
    didChangeConfiguration); `read_only` opens the indexes without ever writing (`ragls status`). Raises
    ConfigError for invalid settings.
    """

    def __init__(self, folders: Sequence[Path | str], overrides: Sequence[dict[str, Any] | None] = (),
                 on_progress: ProgressFn | None = None, on_status: Callable[[str], None] | None = None,
                 read_only: bool = False, pin_model: bool = True):
        if not folders:
            raise InvalidParams("no workspace folder")
        self.folders = [Path(f).resolve() for f in folders]
        self.overrides = list(overrides)
        self.warnings: list[str] = []
        # The warnings that no rag/status error entry says (an unknown key, a named RAG's problem), which `ragls
        # status` prints apart from its error lines; the others (an untrusted file's notice, a glob left out) are.
        self.log_only_warnings: list[str] = []
        self.folder_settings: list[Settings] = []
        # One line per untrusted folder whose ragls.toml asked for more than retrieval tuning (config/trust_filter.py):
        # in `warnings` for the logs and stderr, and in rag/status errors (with the file as `path` and severity
        # "warning": nothing failed, the user decides whether to trust it; docs/protocol.md rag/status).
        self.trust_errors: list[dict[str, str]] = []
        # Per folder: why its ragls.toml's LLM is not used (untrusted), for an answer given without one.
        self.ignored_llm: list[str | None] = []
        # Which file set each setting of the first folder's (`settings`), for errors that name a setting: "check
        # generation.base_url in ~/.config/ragls/ragls.toml" (config/setting_names.py).
        self.setting_files: dict[str, Path] = {}
        # An include/exclude glob pointing outside its folder matches nothing (or one too costly to match, matched
        # wider or left out): said in the logs and rag/status, severity "warning" — nothing failed, the user fixes a
        # glob — as `ragls index` and `query` print it ("ragls: warning: ...") and `ragls status` ("warning:").
        glob_errors: list[dict[str, str]] = []
        old_names: list[str] = []  # old setting names used (config.RENAMED): notices naming the setting to use
        for folder in self.folders:
            s, warns, layer = load_folder_settings(folder, *self.overrides)
            self.folder_settings.append(s)
            self.warnings += [w for w in warns if not isinstance(w, OldName)]
            self.log_only_warnings += [w for w in warns if not isinstance(w, OldName) and w != layer.notice]
            old_names += [w for w in warns if isinstance(w, OldName) and w not in old_names]
            if layer.notice:
                error = {"path": str(layer.path), "message": layer.notice, "severity": "warning"}
                if layer.how and layer.notice.endswith(layer.how):  # the message's own how-to, for a client to
                    error["trustHow"] = layer.how  # say its way (docs/protocol.md: Neovim's :RagTrust)
                self.trust_errors.append(error)
            self.ignored_llm.append(layer.ignored_llm())
            if folder == self.folders[0]:
                self.setting_files = layer.setting_files
            for warning in glob_warnings(s.sources.include, s.sources.exclude, folder):
                self.warnings.append(f"{folder}: {warning}")
                glob_errors.append({"path": str(layer.path or folder), "message": warning, "severity": "warning"})
        self.settings = self.folder_settings[0]
        from ragls.core import telemetry

        telemetry.configure(self.settings.observability.otel_endpoint)  # no-op when unset
        # Loaded with the vector store, on first use (FolderIndex.open_vectors): the text phase does not need it.
        self.embedder = Embedder(self.settings.embedding, on_status=on_status)
        # True (the server): queries answer from what is ready — BM25 alone while the model loads. False (CLI,
        # benchmarks): a query first opens the vector stores, loading the model.
        self.progressive = False
        self.errors: list[dict[str, str]] = list(self.trust_errors) + glob_errors
        self.queued: dict[int, int] = {}  # folder index -> files waiting for the indexer (watch.IndexWorker)
        self.syncing: dict[int, int] = {}  # folder index -> files of the sync in progress, estimated (IndexWorker)
        self._history_lock = threading.Lock()
        self.read_only = read_only
        # Team mode (index.team): the folder's FolderIndex is the local overlay of a shared Qdrant index (kb/team.py).
        self.teams: list[Any] = [None] * len(self.folders)
        self.indexes = []
        index_dirs = workspace_index_dirs(self.folders, self.folder_settings)  # one directory per folder
        for i, (f, s, d) in enumerate(zip(self.folders, self.folder_settings, index_dirs)):
            if s.index.team:
                from ragls.kb.team import TeamIndex

                self.teams[i] = TeamIndex(f, s, self.embedder, index_dir=d)
                self.teams[i].overlay.on_progress = on_progress or self.teams[i].overlay.on_progress
                self.indexes.append(self.teams[i].overlay)
            else:
                self.indexes.append(FolderIndex(f, s, self.embedder, index_dir=d, on_progress=on_progress,
                                                read_only=read_only))
                if s.index.sentence_vectors:  # the sentence pass (index/vector_phase.py): what answers embed
                    from ragls.answer.extractive import answer_sentences, sentences_version

                    self.indexes[-1].answer_sentences = partial(answer_sentences, files={str(f): self.indexes[-1].filter})
                    self.indexes[-1].sentences_version = sentences_version
        # a first rag/ask reads the answer sentences' vectors the sentence pass cached (Embedder.embed_memoised)
        self.embedder.stored = self._stored_vectors
        self.notices: list[str] = list(old_names)  # informational lines for status / doctor (not errors)
        if pin_model:
            self._pin_index_model()
        from ragls.index.graph_extract import GraphBuilder

        # Graph RAG per folder (None: retrieval.extractor_model unset); the reranker is loaded on first query.
        self.graphs = [GraphBuilder.attach(idx, s) for idx, s in zip(self.indexes, self.folder_settings)]
        from ragls.retrieval.rerankers import RerankerSlot

        self._reranker = RerankerSlot()  # made on first query (rerankers.py)
        from ragls.answer.cache import AnswerCache
        from ragls.answer.conversation import SummaryMemo

        self.answer_cache = AnswerCache()  # used when generation.cache is on
        self.summary_memo = SummaryMemo()  # rolling conversation summaries, keyed on the turns they cover
        self._graph_signals: dict[tuple[int, ...], Any] = {}  # per target set; caches entity-name vectors
        # Named RAGs ([rags.*] of the user config and the first folder's ragls.toml), opened on first use.
        self.rags = RagRegistry(self.folders[0], self.overrides, self.embedder, read_only=read_only)
        self.warnings += [e["message"] for e in self.rags.errors]
        self.log_only_warnings += [e["message"] for e in self.rags.errors]

    def files_queued(self) -> dict[int, int]:
        """Folder index -> files still to index: those waiting for the indexer, plus the sync in progress's — the
        changed files its scan found and it has not written yet (`FolderIndex.sync_left`), the indexer's estimate
        before the scan has found them. Folders with none are absent."""
        counts = dict(self.queued)
        for i, estimate in self.syncing.items():
            left = self.indexes[i].sync_left
            counts[i] = counts.get(i, 0) + (estimate if left is None else left)
        return {i: n for i, n in counts.items() if n}

    def _pin_index_model(self) -> None:
        """No silent model switches: while `embedding.model` / `model_path` are not set explicitly, keep the model
        the first folder's index was built with (`meta.vectors_model`), e.g. the offline all-MiniLM-L6-v2 after the
        default model could not be downloaded. The notice says how to switch (`ragls rebuild`, or set the model)."""
        emb = self.settings.embedding
        if "model" in emb.model_fields_set or emb.model_path:
            return
        built_with = self.indexes[0].manifest.get_meta("vectors_model")
        if built_with and built_with != emb.model:
            self.embedder.pinned_model = built_with
            self.notices.append(pinned_model_note(built_with, emb.model))

    # -- indexing ------------------------------------------------------------------------------------------
    def index(self, folder: int | None = None, only: Sequence[str] | None = None, embed: bool = True) -> list[SyncReport]:
        """Sync one folder (by position) or all; `only` limits to relative paths. Returns one report per folder."""
        targets = range(len(self.indexes)) if folder is None else [folder]
        reports = [self.indexes[i].sync(only, embed=embed) for i in targets]
        for i in targets:
            if embed:
                # The server's indexer thread does both when idle. Without the compaction an index built here (the
                # CLI) keeps one vector-table fragment per embedding batch: the Rust book's 114 fragments made a
                # warm query ~10x slower (bench/history/early-speed-and-operations.md, "Warm rag/query at top_k 10").
                self.indexes[i].compact()
                if self.indexes[i].ann_due():
                    self.indexes[i].build_ann()
        self.wait_graphs()
        return reports

    def rebuild(self, folder: int | None = None) -> list[SyncReport]:
        """Drop and re-create the index of one folder or all (the embedding cache is kept)."""
        targets = range(len(self.indexes)) if folder is None else [folder]
        reports = [self.indexes[i].rebuild() for i in targets]
        for i in targets:
            if self.graphs[i] is not None:
                self.graphs[i].catch_up()  # drops the mentions of files deleted before the rebuild
        self.wait_graphs()
        return reports

    def wait_graphs(self, timeout: float | None = None) -> None:
        """Block until the graph extraction of every folder is idle (no-op without graph RAG)."""
        for g in self.graphs:
            if g is not None:
                g.wait(timeout)

    def folder_index(self, uri_or_path: str) -> int:
        """Position of a workspace folder given as file:// URI, path or folder name (`rag_selection.
        folder_position`). Raises InvalidParams."""
        return folder_position(self.folders, uri_or_path)

    # -- retrieval -----------------------------------------------------------------------------------------
    def _targets(self, rag: Any) -> tuple[list[FolderIndex], list[Any]]:
        """(workspace folder indexes, named RAGs) that `rag` selects (`rag_selection.selected`). Raises
        InvalidParams for another type or an unknown name, listing the known ones."""
        return selected(rag, self.folders, self.indexes, self.rags)

    def _search_options(self, targets: Sequence[FolderIndex]) -> dict[str, Any]:
        """search() arguments for the optional stages (`RerankerSlot.options`): the reranker
        (`retrieval.rerank_backend`, or the cross-encoder of `retrieval.reranker_model`; rerankers.py), else the
        graph signal of `targets` (`retrieval.extractor_model`). Raises RequestFailed when the reranker cannot be
        made."""
        return self._reranker.options(self.settings, graph=lambda: self._graph_signal(targets))

    def _graph_signal(self, targets: Sequence[FolderIndex]):
        """The graph signal over `targets` (keys: their positions), cached per target set; None when none of them
        has a graph or some vector store is not open yet (entity names are matched by embedding)."""
        positions = tuple(self.indexes.index(t) for t in targets)
        if not any(self.graphs[i] for i in positions) or not all(t.vectors_ready for t in targets):
            return None
        from ragls.retrieval.graph_signal import GraphSignal

        r = self.settings.retrieval
        signal = self._graph_signals.get(positions)
        if signal is None:
            stores = [self.graphs[i].store if self.graphs[i] else None for i in positions]
            signal = self._graph_signals[positions] = GraphSignal(targets, stores, self.embedder, r.graph_hops)
        signal.hops = r.graph_hops
        return signal

    def retrieve(self, text: str, top_k: int | None = None, rag: Any = None,
                 signals: Sequence[str] = SIGNALS, expand: bool | None = None) -> RetrievalResult:
        """Hybrid search over the selected folders and named RAGs (`_targets`); the results of several knowledge
        bases are merged by score, their abstention evidence combined (`RetrievalResult.merge`). Raises InvalidParams for an empty query or unknown rag.
        Not `progressive`: opens the vector stores first; without an embedding model the search is BM25 alone
        and the reason is in each index's `vectors_error`. A named RAG never indexed is indexed first.
        Workspace folders (team folders included), sources RAGs and attached Qdrant collections get the enabled LLM
        steps
        (`retrieval/assisted.py`; `expand` is the request's switch; a RAG's own `[retrieval]` settings decide for
        it); every kind of source goes through the one retrieval pipeline (`retrieval/search.py`)."""
        for idx in self.indexes:
            if not idx.writer:
                idx.refresh()
        folders, rags = self._targets(rag)
        folders = present(folders, rags)  # a folder moved or deleted while open is not searched
        groups = []
        if folders:
            if "vector" in signals and not self.progressive:
                for idx in folders:
                    idx.try_open_vectors()  # without a model keyword search still answers; vectors_error says why
            # One retrieval over every selected folder; a team folder is its shared collection and its overlay
            # (kb/team.py). Plain folders come first, in order: the graph signal's keys are their positions.
            plain = [t for t in folders if self._team_of(t) is None]
            sources = [*(FolderSource(t, has_graph=self.graphs[self.indexes.index(t)] is not None) for t in plain),
                       *(s for t in folders if (team := self._team_of(t)) for s in team.sources())]
            groups.append(assisted_search(sources, self.embedder, text, settings=self.settings.retrieval,
                                          generation=self.settings.generation, expand=expand, top_k=top_k,
                                          signals=signals,
                                          max_context_chars=self.settings.generation.max_context_chars,
                                          **self._search_options(plain)))
        for r in rags:
            r.ensure_indexed()
            if getattr(r, "takes_llm_steps", False):  # a sources RAG: its own LLM-step settings apply too
                groups.append(r.retrieve(text, top_k, signals, generation=self.settings.generation, expand=expand))
            else:
                groups.append(r.retrieve(text, top_k, signals))
        result = groups[0] if len(groups) == 1 else RetrievalResult.merge(
            groups, top_k or request_settings(self.settings, folders, rags).retrieval.top_k)
        verdicts: dict[tuple[str, str], bool] = {}  # one check per file: hits of one file share the verdict
        for h in result:
            if (key := (h.chunk.folder, h.chunk.path)) not in verdicts:
                verdicts[key] = self.servable(h.chunk)
        servable = tuple(h for h in result if verdicts[(h.chunk.folder, h.chunk.path)])
        return result if len(servable) == len(result) else result.with_(hits=servable)

    def servable(self, chunk: Chunk) -> bool:
        """The chunk's file may be handed out under its workspace folder's current source rules (`FileFilter.
        reason`: excluded, ignored, secret, a symlink out of the folder — `walk.inside_folder`), so an index
        built before a rule, or before a file became excluded or a link, never serves it; every surface's hits
        pass here (`retrieve`). The verdict is remembered a few seconds and forgotten at the file watcher's next
        event in the folder (`FileFilter.served`). Chunks of named RAGs (`[rags.*]`) pass: their sources were
        filtered by their own index."""
        for idx in self.indexes:
            if str(idx.folder) == chunk.folder or not chunk.folder:
                return idx.filter.served(chunk.path)
        return True

    def _team_of(self, idx: FolderIndex):
        """The TeamIndex whose overlay `idx` is, else None."""
        return next((t for t in self.teams if t is not None and t.overlay is idx), None)

    @traced("rag/query")
    def query(self, text: Any, top_k: Any = None, rag: Any = None, expand: bool | None = None) -> QueryResult:
        """rag/query (`expand`: multi-query expansion for this request, None = `retrieval.expand_n`): at most
        `top_k` hits, best first, those a user is shown (`RetrievalResult.shown`: not the hits no signal found,
        as rag/ask's sources). The abstention decision is taken on the hits before that cut, as `ragls eval`
        judges it. Raises InvalidParams for an empty query, one longer than MAX_QUERY_CHARS, a bad top_k or an
        unknown rag."""
        t0 = time.perf_counter()
        query = analyse(check_text(text, "query", self.settings.sources.exclude_secrets))
        top_k = check_top_k(top_k)
        settings = request_settings(self.settings, *self._targets(rag))
        hits = self.retrieve(query, top_k, rag, expand=expand)
        abstains = self.abstains(query, hits, settings)
        return QueryResult(query.text, hits.shown(), abstains, (time.perf_counter() - t0) * 1000)

    def abstains(self, query: Any, hits: RetrievalResult, settings: Settings | None = None) -> bool:
        """The abstention decision for `hits` retrieved for `query` (text or analysed Query): retrieval.search.
        abstained with the floors of `settings` (default the workspace's; a named RAG may override them);
        `ragls eval` uses it to judge the same rule rag/query applies."""
        r = (settings or self.settings).retrieval
        return abstained(hits, r.abstention_floor, query, min_probability=r.abstention_probability)

    # -- answers -------------------------------------------------------------------------------------------
    @traced("rag/ask")
    def ask(self, question: Any, *, top_k: Any = None, rag: str | None = None, documents: Sequence[str] | None = None,
            history: list[dict] | None = None, on_delta: Callable[[str], None] | None = None,
            cancel: threading.Event | None = None, expand: bool | None = None) -> Answer:
        """rag/ask: retrieve, generate with the configured backend (or extractively), check citations.
        Raises InvalidParams (an empty question or one longer than MAX_QUERY_CHARS, a bad top_k, an unknown rag) /
        RequestFailed / Cancelled."""
        from ragls.answer.ask import ask
        from ragls.answer.extractive_label import extractive_label
        from ragls.llm.chat import make_chat_model
        from ragls.workspace.status import empty_folder_notices

        top_k = check_top_k(top_k)
        mask = self.settings.sources.exclude_secrets
        question = check_text(question, "question", mask)
        if history:
            history = [{**m, "content": user_text(m.get("content"), mask)} if isinstance(m, dict) else m
                       for m in history]
        extra_hits: Sequence[Hit] = ()
        if documents:
            extra_hits, doc_prompt = self.retrieve_documents(documents, question, history, top_k)
            if not (isinstance(question, str) and question.strip()):
                question = doc_prompt
        if not isinstance(question, str) or not question.strip():
            raise InvalidParams("question must be a non-empty string")
        folders, rags = self._targets(rag)  # validates rag before any work
        settings = request_settings(self.settings, folders, rags)
        chat = make_chat_model(settings.generation)
        for idx in folders:  # an answer waits for the embedding model (extractive answers need it too)
            idx.open_vectors()
        for r in rags:
            r.ensure_indexed()

        from ragls.llm.costs import LLMCallCounter

        llm_calls = LLMCallCounter()  # this answer's retrieval LLM calls, over every retrieval it makes

        def retrieve(q, k: int) -> RetrievalResult:  # q: text or an analysed Query (a follow-up)
            result = self.retrieve(q, k, rag, expand=expand)
            if result.llm is not None:
                llm_calls.merge(result.llm.counter)
            return result

        ignored = next((self.ignored_llm[n] for n, i in enumerate(self.indexes) if i in folders
                        and n < len(self.ignored_llm) and self.ignored_llm[n]), None)
        answer = ask(question, settings=settings, retrieve=retrieve, top_k=top_k, history=history,
                     extra_hits=extra_hits, chat=chat, on_delta=on_delta, cancel=cancel,
                     embed=self.embedder.embed_memoised, embed_query=self.embedder.embed_query_memoised,
                     memo=self.summary_memo, answer_cache=self.answer_cache, label=extractive_label(ignored),
                     unindexed=None if rags else lambda: empty_folder_notices(folders),
                     files={str(idx.folder): idx.filter for idx in folders})  # what a page's literalinclude shows
        if answer.error:  # the LLM failed: the setting to check named with the file that set it
            from ragls.config.setting_names import name_setting_files

            answer = replace(answer, error=name_setting_files(answer.error, self.setting_files))
        return replace(answer, llm_calls=llm_calls) if llm_calls.snapshot() else answer

    def retrieve_documents(self, specs: Sequence[str], question: Any, history, top_k: int | None):
        """(the retrieval over `documents`, chunked and embedded in memory — never written to the index — for the
        question (or, without one, the documents-only prompt), the documents-only prompt). The documents are one
        more source of the retrieval pipeline (`retrieval/memory.DocumentsSource`): BM25 and vectors fused,
        deduplicated, focused, with the workspace's reranker and abstention evidence."""
        from ragls.index.chunking import chunk_document
        from ragls.retrieval.memory import DocumentsSource
        from ragls.sources.ephemeral import documents_only_prompt, load_documents

        sources = self.settings.sources
        docs = load_documents(list(specs), self.folders[0], history, max_file_bytes=sources.max_file_bytes,
                              loaders=self.settings.document_loaders)
        if sources.exclude_secrets:
            from ragls.sources.redact import mask_document

            docs = [mask_document(d) for d in docs]
        prompt = documents_only_prompt(docs)
        q = question if isinstance(question, str) and question.strip() else prompt
        chunks = [c for d in docs for c in chunk_document(d, self.settings.chunking.chunk_size,
                                                              self.settings.chunking.overlap)]
        if not chunks:
            return RetrievalResult(), prompt
        source = DocumentsSource(chunks, self.embedder.embed_documents([c.text for c in chunks]))
        try:
            return search([source], self.embedder, q, settings=self.settings.retrieval, top_k=top_k,
                          max_context_chars=self.settings.generation.max_context_chars,
                          **self._reranker.options(self.settings)), prompt
        finally:
            source.close()

    def commit_message(self, repository: str | None = None, staged: bool = True, style: str | None = None):
        """rag/commitMessage for the repository containing the first folder (or `repository`, a folder's file://
        URI, checked as a workspace folder's is: `core.uris.folder_uri_path`). InvalidParams naming the value and
        the problem for anything else: "repository: '/etc': not a file:// URI" (`/etc` was an internal error with
        a traceback; `file://server/share` read as /share). Raises RequestFailed (not a git repository, the LLM
        failed: a setting it names is named with the file that set it, `setting_names.name_setting_files`)."""
        from ragls.commit.message import generate_commit_message
        from ragls.llm.chat import make_chat_model

        try:
            repo = Path(folder_uri_path(repository)) if repository else self.folders[0]
        except ValueError as exc:
            raise InvalidParams(f"repository: {repository!r}: {exc}") from None

        def conventions(query: str) -> str | None:
            try:
                hits = self.retrieve(query, 1)
            except RaglsError:
                return None
            good = [h for h in hits if "contribut" in h.chunk.path.lower() or "commit" in h.chunk.text.lower()]
            return good[0].chunk.text if good else None

        try:
            return generate_commit_message(repo, settings=self.settings, staged=staged, style=style,
                                           chat=make_chat_model(self.settings.generation), conventions=conventions)
        except RequestFailed as exc:  # the LLM failed: the setting to check named with the file that set it
            from ragls.config.setting_names import name_setting_files

            exc.args = (name_setting_files(str(exc), self.setting_files),)
            raise

    # -- status --------------------------------------------------------------------------------------------
    def status(self) -> Status:
        """rag/status (`workspace.status.workspace_status`)."""
        return workspace_status(self)

    # -- named RAGs ---------------------------------------------------------------------------------------
    def rag_list(self) -> list[RagInfo]:
        """rag/list: the workspace (all folders together) first, then each named RAG (config re-read first)."""
        self.rags.reload()
        st = self.status()
        last = [f.last_indexed_at for f in st.folders if f.last_indexed_at]
        ws = RagInfo(name=WORKSPACE, sources=[str(f) for f in self.folders], files=sum(f.files for f in st.folders),
                     chunks=sum(f.chunks for f in st.folders),
                     pending_vectors=sum(f.pending_vectors for f in st.folders),
                     last_indexed_at=max(last) if last else None, errors=st.errors,
                     skipped=[s for f in st.folders for s in f.skipped], kind=WORKSPACE)
        out = [ws]
        for name in self.rags.names():
            try:
                out.append(self.rags.get(name).info())
            except Exception as exc:  # noqa: BLE001 - one broken RAG is listed with its error
                spec = self.rags.specs[name]
                out.append(RagInfo(name=name, sources=spec.sources, files=0, chunks=0, pending_vectors=0,
                                   last_indexed_at=None, errors=[{"message": str(exc)}], origin=str(spec.origin)))
        return out

    def rebuild_rag(self, name: str) -> tuple[SyncReport, RagInfo]:
        """rag/rebuild {rag}: "workspace" rebuilds every folder; a named RAG is wiped and re-indexed from its
        sources. Raises InvalidParams for an unknown name."""
        self.rags.reload()
        if name == WORKSPACE:
            reports = self.rebuild()
            merged = SyncReport(indexed=[p for r in reports for p in r.indexed],
                                skipped=[s for r in reports for s in r.skipped])
            return merged, self.rag_list()[0]
        folders, rags = self._targets(name)
        if folders:
            reports = self.rebuild(self.indexes.index(folders[0]))
            return reports[0], self.rag_list()[0]
        report = rags[0].rebuild()
        return report, rags[0].info()

    def index_rag(self, name: str) -> SyncReport:
        """Incremental sync of one named RAG (`ragls index --rag NAME`; a web crawl sends conditional requests)."""
        self.rags.reload()
        folders, rags = self._targets(name)
        if folders:
            return self.index(self.indexes.index(folders[0]))[0]
        return rags[0].sync()

    def _stored_vectors(self, hashes: list[str]) -> dict:
        """{text hash: vector} of the embedding model's vectors the folders' embedding caches hold for `hashes`
        (`Manifest.cached_vectors` under the model's fingerprint; missing hashes absent): `Embedder.stored`."""
        found: dict = {}
        fp = self.embedder.fingerprint
        for idx in self.indexes:
            left = [h for h in hashes if h not in found]
            if not left:
                break
            found.update(idx.manifest.cached_vectors(fp, left, touch=False))  # an answer never waits for a write
        return found

    def close(self) -> None:
        self.rags.close()
        for g in self.graphs:
            if g is not None:
                g.close()
        for idx in self.indexes:  # a team folder's index is its overlay: closing it closes the TeamIndex
            idx.close()
        self.embedder.close()  # worker processes of embedding.parallel
