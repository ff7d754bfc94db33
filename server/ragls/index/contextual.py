"""Contextual retrieval at index time (`retrieval.contextual`): an LLM-written context for every chunk.

Anthropic's "Contextual Retrieval" (2024): before a chunk is embedded and BM25-indexed, one LLM call is given the
whole document and the chunk (`retrieval.contextual_prompt`, `__DOCUMENT__` and `__CHUNK__` replaced) and answers
with one or two sentences situating the chunk in its document ("This section of the Flask tutorial configures the
test client…"). The reply becomes `Chunk.context`, which `windows.embedding_input` / `plan_windows` and
`Bm25Store.add` put before the chunk's text; `Chunk.text` and `Chunk.span` stay the file's own, so citations are
checked against, and point at, the original lines.

Cost and caching:
- one call per chunk whose (chunk text, document content hash, model, prompt) was never answered before — the
  cache (`contexts.sqlite` beside the manifest) survives rebuilds and setting changes, so unchanged chunks never
  pay twice; a changed document re-contextualises its chunks (their document changed);
- calls run `retrieval.ingest_concurrency` at a time (thread pool), each counted in
  `llm.costs.COUNTER["contextual"]` (failures too);
- a failed call (provider error, empty reply) leaves that chunk without a context — stored plain, with a warning;
  indexing never fails for it. After `GIVE_UP_AFTER` failures in a row in one batch the rest of the batch is not
  sent (an unreachable provider must not cost a timeout per chunk). Failures are not cached: the chunk is tried
  again the next time its file is indexed.

Toggling `retrieval.contextual`, or changing its model or prompt, changes the index fingerprint (`identity()`), so
contextualised and plain chunks never mix in one index. `ragls index` calls `planned_calls` first to print the
number of calls it will make (and asks on a terminal when there are more than `CONFIRM_ABOVE`).
"""

from __future__ import annotations

import logging
import re
import sqlite3
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from ragls.core.errors import RaglsError
from ragls.core.hashing import text_hash

if TYPE_CHECKING:
    from ragls.config.settings import Settings
    from ragls.core.ir import Chunk, Document

log = logging.getLogger(__name__)

CACHE_FILE = "contexts.sqlite"
DOC_WINDOW_CHARS = 24_000  # a longer document is sent as this many characters around the chunk
MAX_CONTEXT_CHARS = 600  # a reply is cut here (1-2 sentences are ~150-300 characters)
GIVE_UP_AFTER = 3  # failed calls in a row after which the rest of a batch is stored plain
CONFIRM_ABOVE = 1000  # `ragls index` asks on a terminal before more calls than this
SYSTEM = "You write short contexts that situate a chunk of a document within the whole document."
_SPACE = re.compile(r"\s+")


def context_key(chunk_text_hash: str, document_hash: str, model: str, prompt: str) -> str:
    """Cache key of one chunk's context: sha256 of (chunk text hash, document content hash, model, prompt hash)."""
    return text_hash(f"{chunk_text_hash}\0{document_hash}\0{model}\0{text_hash(prompt)}")


def document_excerpt(doc_text: str, chunk_text: str, limit: int = DOC_WINDOW_CHARS) -> str:
    """The document text the model sees: all of it up to `limit` characters, else `limit` characters centred on
    the chunk (found by its first 200 characters; the start of the document when not found)."""
    if len(doc_text) <= limit:
        return doc_text
    at = doc_text.find(chunk_text[:200])
    centre = at + len(chunk_text) // 2 if at >= 0 else 0
    start = max(0, min(centre - limit // 2, len(doc_text) - limit))
    return doc_text[start:start + limit]


def clean_context(reply: str) -> str:
    """The model's reply as a context: whitespace collapsed, a leading "Context:" label dropped, cut to
    MAX_CONTEXT_CHARS at a word boundary."""
    text = _SPACE.sub(" ", reply or "").strip()
    text = re.sub(r"^(?:context|situating context)\s*:\s*", "", text, flags=re.IGNORECASE)
    if len(text) > MAX_CONTEXT_CHARS:
        text = text[:MAX_CONTEXT_CHARS].rsplit(" ", 1)[0]
    return text


class ContextCache:
    """Contexts on disk (SQLite, `contexts.sqlite` in the index directory): key -> context. Thread-safe. The file
    is opened (and created) on first use, so a read-only process that never indexes writes nothing."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None

    @property
    def _db(self) -> sqlite3.Connection:  # callers hold _lock
        if self._conn is None:
            self._conn = sqlite3.connect(str(self.path), check_same_thread=False, timeout=30)
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("CREATE TABLE IF NOT EXISTS contexts (key TEXT PRIMARY KEY, context TEXT, "
                               "created REAL)")
            self._conn.commit()
        return self._conn

    def get_many(self, keys) -> dict[str, str]:
        """{key: context} for the keys that are cached."""
        keys = list(dict.fromkeys(keys))
        out: dict[str, str] = {}
        with self._lock:
            for start in range(0, len(keys), 500):
                part = keys[start:start + 500]
                rows = self._db.execute(f"SELECT key, context FROM contexts WHERE key IN ({','.join('?' * len(part))})",
                                        part).fetchall()
                out.update(rows)
        return out

    def put(self, key: str, context: str) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO contexts VALUES (?,?,?)", (key, context, time.time()))
            self._db.commit()

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


class Contextualizer:
    """Writes the contexts of one index's chunks (see module docstring).

    `chat` is a `ChatModel` (None when generation.backend is "none": every chunk is stored plain, with one
    warning). Counters of this process: `calls` (LLM calls made), `failed` (of those, failed), `reused` (contexts
    taken from the cache), `plain` (chunks stored without a context because their call failed or was not sent).
    """

    def __init__(self, settings: Settings, index_dir: Path, chat):
        r = settings.retrieval
        self.chat = chat
        self.model = r.contextual_model or settings.generation.model or (chat.model if chat is not None else "") \
            or settings.generation.resolved_backend()
        self.prompt = r.contextual_prompt
        self.concurrency = r.ingest_concurrency
        self.cache = ContextCache(Path(index_dir) / CACHE_FILE)
        self.calls = 0
        self.failed = 0
        self.reused = 0
        self.plain = 0
        self.last_error = ""
        self._lock = threading.Lock()
        self._warned_no_backend = False

    @classmethod
    def from_settings(cls, settings: Settings, index_dir: Path) -> Contextualizer | None:
        """A Contextualizer when `retrieval.contextual` is on, else None. The chat model is the generation
        backend's with `retrieval.contextual_model` (when set) as the model."""
        if not settings.retrieval.contextual:
            return None
        from ragls.llm.chat import make_chat_model

        gen = settings.generation
        if settings.retrieval.contextual_model:
            gen = gen.model_copy(update={"model": settings.retrieval.contextual_model})
        try:
            chat = make_chat_model(gen)
        except RaglsError as exc:
            log.warning("contextual retrieval: no chat model (%s); chunks are indexed without contexts", exc)
            chat = None
        return cls(settings, index_dir, chat)

    def identity(self) -> dict[str, str]:
        """What the index fingerprint adds for contextual chunks: the model and the prompt's hash."""
        return {"contextual": self.model, "contextual_prompt": text_hash(self.prompt)}

    def _keys(self, docs: list[Document], chunks: list[Chunk]) -> dict[str, str]:
        """{chunk id: cache key}."""
        doc_hash = {d.path: d.content_hash for d in docs}
        return {c.id: context_key(c.text_hash, doc_hash.get(c.document, ""), self.model, self.prompt) for c in chunks}

    def missing(self, docs: list[Document], chunks: list[Chunk]) -> int:
        """How many LLM calls `apply(docs, chunks)` would make: distinct keys not in the cache."""
        keys = set(self._keys(docs, chunks).values())
        return len(keys - set(self.cache.get_many(keys)))

    def apply(self, docs: list[Document], chunks: list[Chunk]) -> list[Chunk]:
        """`chunks` (of `docs`) with their `context` set: from the cache, else by one LLM call per distinct
        (chunk text, document) pair, `ingest_concurrency` at a time. Never raises: a chunk whose call failed
        keeps an empty context (a warning is logged). Returns new Chunk objects in the input order."""
        if not chunks:
            return chunks
        keys = self._keys(docs, chunks)
        found = self.cache.get_many(keys.values())
        todo: dict[str, Chunk] = {}
        for c in chunks:
            if keys[c.id] not in found:
                todo.setdefault(keys[c.id], c)
        self.reused += sum(1 for c in chunks if keys[c.id] in found)
        if todo:
            found.update(self._ask_all(todo, {d.path: d for d in docs}))
        out = []
        for c in chunks:
            ctx = found.get(keys[c.id], "")
            if not ctx:
                self.plain += 1
            out.append(replace(c, context=ctx) if ctx else c)
        return out

    def _ask_all(self, todo: dict[str, Chunk], docs: dict[str, Document]) -> dict[str, str]:
        """{key: context} of the calls that succeeded; failures are counted and logged."""
        from ragls.llm.costs import COUNTER

        if self.chat is None:
            if not self._warned_no_backend:
                self._warned_no_backend = True
                log.warning("contextual retrieval is on but generation.backend is none: %d chunk(s) indexed "
                            "without contexts (set a generation backend and its API key)", len(todo))
            return {}
        results: dict[str, str] = {}
        state = {"in_a_row": 0, "skipped": 0}
        give_up = threading.Event()

        def work(key: str) -> None:
            if give_up.is_set():
                with self._lock:
                    state["skipped"] += 1
                return
            chunk = todo[key]
            doc = docs.get(chunk.document)
            prompt = self.prompt.replace("__DOCUMENT__", document_excerpt(doc.text if doc else chunk.text, chunk.text))
            prompt = prompt.replace("__CHUNK__", chunk.text)
            error = ""
            try:
                context = clean_context(self.chat.complete(prompt, system=SYSTEM))
                if not context:
                    error = "the model answered with an empty context"
            except RaglsError as exc:
                context, error = "", str(exc)
            with self._lock:
                self.calls += 1
                if error:
                    self.failed += 1
                    self.last_error = error
                    state["in_a_row"] += 1
                    if state["in_a_row"] >= GIVE_UP_AFTER:
                        give_up.set()
                else:
                    state["in_a_row"] = 0
            COUNTER.add("contextual", 1, 1 if error else 0)
            if error:
                log.warning("contextual retrieval: no context for %s (chunk %d): %s; indexed without it",
                            chunk.path, chunk.ordinal, error)
                return
            self.cache.put(key, context)
            results[key] = context

        with ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="ragls-context") as pool:
            list(pool.map(work, list(todo)))
        if state["skipped"]:
            log.warning("contextual retrieval: %d chunk(s) indexed without contexts after %d failed calls in a row "
                        "(last error: %s)", state["skipped"], GIVE_UP_AFTER, self.last_error)
        return results

    def errors(self) -> list[dict[str, str]]:
        """rag/status `errors` entries: chunks stored without a context in this process, and why."""
        if not self.plain or not (self.failed or self.chat is None):
            return []
        why = self.last_error or "generation.backend is none"
        return [{"message": f"contextual retrieval: {self.plain} chunk{'s' if self.plain != 1 else ''} indexed "
                            f"without a context (last error: {why}); they get one when their file changes or on "
                            "rebuild"}]

    def close(self) -> None:
        self.cache.close()


def planned_calls(index, rebuild: bool = False) -> int:
    """LLM calls a sync (or, with `rebuild`, a rebuild) of `index` (a FolderIndex) would make for contexts: the
    chunks of new or changed files (every file for a rebuild) whose context is not cached. 0 when contextual
    retrieval is off or this process is not the index's writer. Reads the changed files once (not the model)."""
    ctx = getattr(index, "contextualizer", None)
    if ctx is None or not index.writer:
        return 0
    from ragls.index.chunking import chunk_document, no_text_reason
    from ragls.sources.convert import load_source
    from ragls.sources.walk import FileFilter, walk_with

    s = index.settings
    known = {} if rebuild else index.manifest.files()
    total = 0
    for rel in walk_with(FileFilter(index.folder, s.sources, index.index_dir)):
        loaded = load_source(index.folder, rel, s.sources.max_file_bytes, s.document_loaders,
                             timeout_s=s.sources.loader_timeout_s)
        if not hasattr(loaded, "text") or no_text_reason(loaded.text) is not None:
            continue
        rec = known.get(rel)
        if rec is not None and rec.content_hash == loaded.content_hash:
            continue
        total += ctx.missing([loaded], chunk_document(loaded, s.chunking.chunk_size, s.chunking.overlap))
    return total


def confirm_calls(indexes, rebuild: bool = False, assume_yes: bool = False, out=None, ask=input) -> bool:
    """`ragls index` / `ragls rebuild`: print how many contextual-retrieval LLM calls the run will make and, when
    they are more than CONFIRM_ABOVE, on a terminal (stdin and stderr are TTYs) and without `assume_yes`, ask
    whether to go on. Returns False when the user declined. Prints nothing when contextual retrieval is off."""
    out = out or sys.stderr
    active = [idx for idx in indexes if getattr(idx, "contextualizer", None) is not None and idx.writer]
    if not active:
        return True
    calls = sum(planned_calls(idx, rebuild) for idx in active)
    model = active[0].contextualizer.model
    print(f"ragls: contextual retrieval will make {calls} LLM call{'s' if calls != 1 else ''} ({model}), one per "
          "new or changed chunk", file=out, flush=True)
    if calls <= CONFIRM_ABOVE or assume_yes or not (sys.stdin.isatty() and out.isatty()):
        return True
    print(f"Make {calls} LLM calls? [y/N] ", end="", file=out, flush=True)
    try:
        answer = ask()
    except EOFError:
        answer = ""
    return answer.strip().lower() in ("y", "yes")
