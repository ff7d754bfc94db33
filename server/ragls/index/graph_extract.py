"""Graph RAG at index time: LLM extraction of entities and relationships from chunks into `stores/graph.py`.

Enabled by `retrieval.extractor_model` (alias `rag_extractor_model`): a chat model of the configured generation
backend (`generation.backend`, `base_url`, `api_key_env`; the model name replaced). Each chunk is sent once with
`retrieval.extractor_prompt` (`__CHUNK__` replaced by the chunk text); the reply must be JSON
`{"entities":[{"name","type","description"}],"relationships":[{"from","to","type","weight"}]}` (a ```json fence
or text around the object is tolerated). A reply that is not such JSON: the chunk contributes nothing, the reason is
logged, cached (the chunk is not sent again) and counted in `rag/status` errors.

Flow: `FolderIndex.on_text_written(paths, chunks)` (the indexer's hook, called on its writer thread) drops the
mentions of `paths` and registers the new chunks; a background thread then sends the pending chunks to the model,
`retrieval.graph_concurrency` at a time (thread pool), each with up to `RETRY_ATTEMPTS` attempts and exponential
backoff (tenacity; the SDK's own retries of 429/5xx come on top). Results are keyed by (extractor model, prompt,
chunk text hash), so unchanged chunks are never re-sent. When a chunk still fails (LLM unreachable), the rest of
that batch is not sent; failed chunks stay pending and are retried on the next write or `catch_up()`.
`wait()` blocks until nothing is pending (the CLI and `RagWorkspace.index` call it).
"""

from __future__ import annotations

import json
import logging
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from ragls.core.errors import RaglsError, RequestFailed
from ragls.core.hashing import text_hash
from ragls.stores.graph import GraphStore, entity_key

if TYPE_CHECKING:
    from ragls.config.settings import Settings
    from ragls.core.ir import Chunk
    from ragls.index.indexer import FolderIndex

log = logging.getLogger(__name__)

RETRY_ATTEMPTS = 3
RETRY_WAIT_S = (0.5, 4.0)  # exponential backoff: first wait, maximum wait
SYSTEM = "You extract knowledge graphs from documents. Reply with one JSON object only."
ENTITY_TYPES = ("PERSON", "ORGANIZATION", "CONCEPT", "TECHNOLOGY", "LOCATION", "EVENT", "OTHER")
_FENCE = re.compile(r"^\s*```[a-zA-Z]*\s*\n?|\n?\s*```\s*$")


def extraction_key(model: str, prompt: str, chunk_text_hash: str) -> str:
    """Cache key of one chunk's extraction: sha256 of (extractor model, prompt template, chunk text hash)."""
    return text_hash(f"{model}\0{text_hash(prompt)}\0{chunk_text_hash}")


def parse_extraction(reply: str) -> dict:
    """Model reply -> {"entities": [{"name", "type", "description"}], "relationships": [{"from", "to", "type",
    "weight"}]}, or {"invalid": reason}.

    Tolerates a ```json fence and text around the outermost {...}. Entities without a name (no word characters)
    are dropped; unknown types become OTHER; relationship endpoints missing from the entities are added as OTHER;
    weights default to 1.0 and must be positive finite numbers (else 1.0); self-loops are dropped.
    """
    text = _FENCE.sub("", reply.strip())
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        return {"invalid": "no JSON object in the reply"}
    try:
        data = json.loads(text[start:end + 1])
    except ValueError as exc:
        return {"invalid": f"invalid JSON: {exc}"}
    if not isinstance(data, dict) or not isinstance(data.get("entities", []), list) \
            or not isinstance(data.get("relationships", []), list):
        return {"invalid": "JSON is not {entities: [...], relationships: [...]}"}
    entities: dict[str, dict] = {}
    for ent in data.get("entities", []):
        if not isinstance(ent, dict) or not isinstance(ent.get("name"), str) or not entity_key(ent["name"]):
            continue
        etype = str(ent.get("type") or "OTHER").upper()
        entities.setdefault(entity_key(ent["name"]), {
            "name": ent["name"].strip(), "type": etype if etype in ENTITY_TYPES else "OTHER",
            "description": str(ent.get("description") or "")[:500]})
    rels = []
    for rel in data.get("relationships", []):
        if not isinstance(rel, dict) or not isinstance(rel.get("from"), str) or not isinstance(rel.get("to"), str):
            continue
        a, b = entity_key(rel["from"]), entity_key(rel["to"])
        if not a or not b or a == b:
            continue
        for name, k in ((rel["from"], a), (rel["to"], b)):
            entities.setdefault(k, {"name": name.strip(), "type": "OTHER", "description": ""})
        try:
            weight = float(rel.get("weight", 1.0))
        except (TypeError, ValueError):
            weight = 1.0
        if not (0 < weight < float("inf")):
            weight = 1.0
        rels.append({"from": rel["from"].strip(), "to": rel["to"].strip(), "type": str(rel.get("type") or "RELATED_TO"),
                     "weight": weight})
    return {"entities": list(entities.values()), "relationships": rels}


class GraphBuilder:
    """Keeps one folder's `GraphStore` in step with its index (see module docstring).

    `chat` is a `ChatModel` (its `.model` is the extractor model), or None when the generation backend is "none"
    (then nothing is extracted and `errors()` says why). Counters: `sent` (requests that got a reply),
    `failed` (chunks whose extraction failed after retries, pending again).
    """

    def __init__(self, index: FolderIndex, settings: Settings, chat):
        self.index = index
        self.store = GraphStore(index.index_dir)
        self.chat = chat
        self.model = settings.retrieval.extractor_model or ""
        self.prompt = settings.retrieval.extractor_prompt
        self.concurrency = settings.retrieval.graph_concurrency
        self.sent = 0
        self.failed = 0
        self.last_error = ""
        self._cond = threading.Condition()
        self._busy = False
        self._wanted = False
        self._stop = False
        self._thread: threading.Thread | None = None
        self._caught_up = False

    @classmethod
    def attach(cls, index: FolderIndex, settings: Settings) -> GraphBuilder | None:
        """A builder hooked into `index` when `retrieval.extractor_model` is set, else None. The writer process
        drops mentions of chunks gone from the manifest and queues the chunks not yet extracted (catch-up)."""
        if not settings.retrieval.extractor_model:
            return None
        from ragls.llm.chat import make_chat_model

        gen = settings.generation.model_copy(update={"model": settings.retrieval.extractor_model})
        try:
            chat = make_chat_model(gen)
        except RaglsError as exc:
            log.warning("graph extraction disabled: %s", exc)
            chat = None
        builder = cls(index, settings, chat)
        index.on_text_written = builder.on_text_written  # only a writer calls it
        if index.writer:
            builder.catch_up()
        return builder

    # -- index-time hooks ----------------------------------------------------------------------------------
    def on_text_written(self, paths: list[str], chunks: list[Chunk]) -> None:
        """Indexer hook: forget `paths`' old chunks, register `chunks`, save, wake the extraction thread.
        Never raises (a failure here must not stop the index)."""
        if not self._caught_up:  # this process just became the writer (the other editor closed)
            self.catch_up()
        try:
            self.store.forget_paths(paths)
            for c in chunks:
                self.store.register(c.id, c.document, extraction_key(self.model, self.prompt, c.text_hash))
            self.store.save()
        except Exception:  # logged; indexing goes on
            log.exception("graph update failed for %d path(s)", len(paths))
            return
        self._kick()

    def catch_up(self) -> None:
        """Make the graph match the manifest: forget chunks no longer there, register those not yet known
        (e.g. extraction just enabled on an existing index, or after a rebuild), then extract what is pending."""
        self._caught_up = True
        live = self.index.manifest.chunk_ids()
        with self.store.lock:
            stale = [cid for cid in self.store.mentions if cid not in live]
            missing = [cid for cid in live if cid not in self.store.mentions]
        self.store.forget_chunks(stale)
        for start in range(0, len(missing), 500):
            for cid, c in self.index.manifest.get_chunks(missing[start:start + 500]).items():
                self.store.register(cid, c.document, extraction_key(self.model, self.prompt, c.text_hash))
        if stale or missing:
            self.store.save()
        self._kick()

    # -- background extraction ----------------------------------------------------------------------------
    def _kick(self) -> None:
        if self.chat is None:
            return
        with self._cond:
            self._wanted = True
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="ragls-graph", daemon=True)
                self._thread.start()
            self._cond.notify_all()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._wanted and not self._stop:
                    self._cond.wait()
                if self._stop:
                    return
                self._wanted = False
                self._busy = True
            try:
                self._extract_pending()
            except Exception:  # never kill the thread
                log.exception("graph extraction failed")
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()

    def _extract_pending(self) -> None:
        pending = self.store.pending()
        if not pending:
            return
        by_key: dict[str, str] = {}
        for cid, key in pending.items():
            by_key.setdefault(key, cid)
        texts = {key: c.text for key, cid in by_key.items()
                 if (c := self.index.manifest.get_chunks([cid]).get(cid)) is not None}
        give_up = threading.Event()

        def work(key: str) -> dict | None:
            if give_up.is_set() or self._stop:
                with self._cond:
                    self.failed += 1
                return None
            try:
                reply = self._ask(texts[key])
            except RaglsError as exc:
                give_up.set()  # the model is unreachable or refuses: do not hammer it with the rest
                with self._cond:
                    self.failed += 1
                    self.last_error = str(exc)
                log.warning("graph extraction failed: %s", exc)
                return None
            result = parse_extraction(reply)
            with self._cond:
                self.sent += 1
            if "invalid" in result:
                log.warning("graph extraction: chunk %s gave %s", by_key[key], result["invalid"])
            return result

        keys = list(texts)
        with ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="ragls-extract") as pool:
            # Applied in chunk order as the replies come in (map yields in input order), not in reply order: an
            # entity's name is its first spelling applied (stores/graph.py), which must not depend on which reply
            # of the concurrent requests came back first.
            for key, result in zip(keys, pool.map(work, keys)):
                if result is not None:
                    self.store.set_result(key, result)
        self.store.save()

    def _ask(self, chunk_text: str) -> str:
        from tenacity import (
            retry,
            retry_if_exception_type,
            stop_after_attempt,
            wait_exponential,
        )

        prompt = self.prompt.replace("__CHUNK__", chunk_text)
        call = retry(stop=stop_after_attempt(RETRY_ATTEMPTS), reraise=True,
                     wait=wait_exponential(multiplier=RETRY_WAIT_S[0], max=RETRY_WAIT_S[1]),
                     retry=retry_if_exception_type(RequestFailed))(self.chat.complete)
        return call(prompt, system=SYSTEM)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until no extraction is running or requested. Returns False on timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._busy and not self._wanted, timeout)

    def close(self) -> None:
        """Stop the extraction thread after the chunk batch in flight."""
        with self._cond:
            self._stop = True
            self._cond.notify_all()
        if self.index.on_text_written == self.on_text_written:
            self.index.on_text_written = None

    # -- status --------------------------------------------------------------------------------------------
    def errors(self) -> list[dict[str, str]]:
        """rag/status `errors` entries: invalid JSON count, failed extractions, missing backend."""
        out = []
        if self.chat is None:
            out.append({"message": "graph extraction: retrieval.extractor_model is set but generation.backend is "
                                   "none; set a generation backend (and its API key) to build the graph"})
        invalid = self.store.invalid_count()
        if invalid:
            out.append({"message": f"graph extraction: {invalid} chunk{'s' if invalid != 1 else ''} gave invalid "
                                   "JSON (see the server log)"})
        pending = len(self.store.pending())
        if self.failed and pending:
            out.append({"message": f"graph extraction: {pending} chunk{'s' if pending != 1 else ''} not extracted "
                                   f"yet; last error: {self.last_error}"})
        return out
