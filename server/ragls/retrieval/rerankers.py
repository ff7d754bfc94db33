"""Reranker backends (`retrieval.rerank_backend`) and the time budget they run under.

Backends, each with `name` and `rerank(query, chunks) -> [(chunk, score)]` best first (`chunks` are `ir.Chunk`s
in fused order):
- `"cross-encoder"`: fastembed `TextCrossEncoder` (cross_encoder.py, `retrieval.reranker_model[_path]`); also what an
  unset backend means when `retrieval.reranker_model` is set (the behaviour before this setting existed);
- `"colbert"`: fastembed `LateInteractionTextEmbedding`, MaxSim (colbert.py, `retrieval.colbert_model[_path]`);
- `"llm"`: one listwise call to the generation model over the best `retrieval.rerank_llm_candidates` (llm_rerank.py);
- `"package.module:ClassName"`: a user class, constructed as `ClassName(model_name=retrieval.reranker_model)`,
  whose `rerank(query, chunks)` returns the chunks best first — `Chunk`s, or `(Chunk, score)` pairs (bare chunks
  score 1/rank). The module must be importable (installed, or on PYTHONPATH);
- `"none"`: no reranking even when `retrieval.reranker_model` is set.
Scores are the backend's own (logits, MaxSim sums, 1/rank): `retrieval.relevance_floor` is not comparable across
backends.

Time budget (`retrieval.rerank_timeout_ms`, 0 = none): the backend runs on its own daemon thread; when the budget
passes first, `rerank_fused` returns None with `report["timedOut"]` and search returns the fused (RRF) order — a
CPU cross-encoder can take tens of seconds on long chunks. The late run finishes in the background and its result
is dropped (an LLM call ends within `generation.timeout_s`). A backend failure at query time (LLM down, a custom class raising) is
reported the same way (`report["error"]`); a model that cannot be loaded raises RequestFailed as before.
"""

from __future__ import annotations

import importlib
import inspect
import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ragls.core.errors import RaglsError, RequestFailed
from ragls.core.ir import Hit
from ragls.core.telemetry import traced

if TYPE_CHECKING:
    from ragls.config.settings import Settings

log = logging.getLogger(__name__)


class CustomReranker:
    """A user reranker class named by an import path "package.module:ClassName" (see module docstring)."""

    def __init__(self, path: str, model_name: str | None):
        self.name = path
        module_name, _, class_name = path.partition(":")
        try:
            module = importlib.import_module(module_name)
        except Exception as exc:  # noqa: BLE001 - ImportError or an error inside the module: one clear message
            raise RequestFailed(f"retrieval.rerank_backend {path!r}: cannot import {module_name}: {exc}") from None
        cls = getattr(module, class_name, None)
        if cls is None or not inspect.isclass(cls):
            raise RequestFailed(f"retrieval.rerank_backend {path!r}: {module_name} has no class {class_name}")
        try:
            self.impl = cls(model_name=model_name)
        except Exception as exc:  # noqa: BLE001
            raise RequestFailed(f"retrieval.rerank_backend {path!r}: {class_name}(model_name=...) failed: {exc}") \
                from None
        if not callable(getattr(self.impl, "rerank", None)):
            raise RequestFailed(f"retrieval.rerank_backend {path!r}: {class_name} has no rerank(query, chunks) method")

    def rerank(self, query: str, chunks) -> list[tuple]:
        """The class's order as [(chunk, score)]; items it returns that are not among `chunks` are ignored."""
        by_id = {id(c): c for c in chunks}
        out = []
        for rank, item in enumerate(self.impl.rerank(query, list(chunks)), 1):
            chunk, score = (item if isinstance(item, tuple) else (item, 1.0 / rank))
            if id(chunk) in by_id:
                out.append((chunk, float(score)))
        return out


def make_reranker(settings: Settings, threads: int | None = None) -> Any | None:
    """The reranker `settings.retrieval` asks for (see module docstring), or None for no reranking. Loads no
    model (the ONNX ones load on first use). Raises RequestFailed for a custom class that cannot be imported or
    constructed, or `"llm"` without a generation backend."""
    r = settings.retrieval
    backend = r.rerank_backend
    if backend is None:
        backend = "cross-encoder" if (r.reranker_model or r.reranker_model_path) else "none"
    if backend == "none":
        return None
    if backend == "cross-encoder":
        from ragls.retrieval.cross_encoder import Reranker

        return Reranker(r.reranker_model, r.reranker_model_path, threads, r.rerank_provider)
    if backend == "colbert":
        from ragls.retrieval.colbert import ColbertReranker

        return ColbertReranker.from_settings(r, threads)
    if backend == "llm":
        from ragls.retrieval.llm_rerank import LLMReranker

        return LLMReranker.from_settings(settings)
    return CustomReranker(backend, r.reranker_model)


class RerankerSlot:
    """The reranker of one settings holder, made again when the settings it depends on change (a
    didChangeConfiguration, a test editing `settings.retrieval`)."""

    def __init__(self) -> None:
        self._key: tuple | None = None
        self._reranker: Any | None = None
        self._lock = threading.Lock()

    def get(self, settings: Settings, threads: int | None = None) -> Any | None:
        """`make_reranker(settings, threads)`, cached while the reranker settings stay the same."""
        r, g = settings.retrieval, settings.generation
        key = (r.rerank_backend, r.reranker_model, r.reranker_model_path, r.colbert_model, r.colbert_model_path,
               r.rerank_provider, r.rerank_llm_candidates, g.backend, g.model, g.base_url, g.api_key_env, threads)
        with self._lock:
            if key != self._key:
                self._reranker = make_reranker(settings, threads)
                self._key = key
            return self._reranker

    def options(self, settings: Settings, graph: Callable[[], Any] | None = None) -> dict[str, Any]:
        """`search.search` keyword arguments for the optional stages under `settings` (a workspace's, a named RAG's
        own): {"reranker": ...} when one is configured (`get`, with `embedding.threads`), else {"extra": {"graph":
        signal}} when `graph()` gives a signal (None: no graph), else {}. Raises RequestFailed when the reranker
        cannot be made."""
        reranker = self.get(settings, settings.embedding.threads)
        if reranker is not None:
            return {"reranker": reranker}
        signal = graph() if graph is not None else None
        return {"extra": {"graph": signal}} if signal is not None else {}


def _run_with_budget(reranker, query: str, chunks: list, timeout_ms: int) -> tuple[list | None, bool]:
    """(reranker.rerank(query, chunks), False), or (None, True) when `timeout_ms` (> 0) passed first. Exceptions of
    the backend propagate."""
    if timeout_ms <= 0:
        return reranker.rerank(query, chunks), False
    box: dict[str, Any] = {}
    done = threading.Event()

    def run() -> None:
        try:
            box["result"] = reranker.rerank(query, chunks)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=run, name="ragls-rerank", daemon=True).start()
    if not done.wait(timeout_ms / 1000):
        return None, True
    if "error" in box:
        raise box["error"]
    return box["result"], False


@traced("rerank")
def rerank_fused(fetch, reranker, query: str, order: list, rankings: dict[str, list], similarity: dict,
                 top_k: int, timeout_ms: int = 0) -> tuple[list | None, dict]:
    """Rerank the fused candidates: (the best `top_k` as `Hit`s, report), or (None, report) when the budget
    passed or the backend failed at query time — the caller then keeps the fused order.

    `fetch(keys) -> {key: Chunk}` looks chunks up (`search.ChunkLookup`); `order` holds the (source position,
    chunk id) keys in fused order; `rankings[signal]` the per-signal keys best
    first (each hit keeps its 1-based ranks in `signals`, plus `signals["rerank"]` = its score = `Hit.score`);
    `similarity` maps keys to cosine similarity. Chunks deleted since ranking are dropped; identical texts appear
    once. `report`: {"backend", "elapsedMs", "candidates"} plus "timedOut": True or "error": message, and "llmCalls": n
    for an LLM reranker that called its model.
    Raises RequestFailed when the backend's model cannot be loaded.
    """
    ranks: dict[tuple[int, str], dict[str, int]] = {}
    for name, keys in rankings.items():
        for rank, key in enumerate(keys, 1):
            ranks.setdefault(key, {}).setdefault(name, rank)
    found = fetch(order)
    keys, chunks, seen = [], [], set()
    for key in order:
        chunk = found.get(key)
        if chunk is not None and chunk.text_hash not in seen:
            seen.add(chunk.text_hash)
            keys.append(key)
            chunks.append(chunk)
    report: dict[str, Any] = {"backend": reranker.name, "candidates": len(chunks)}
    if hasattr(reranker, "ensure_loaded"):
        reranker.ensure_loaded()  # a model that cannot be loaded is the user's to fix: RequestFailed
    t0 = time.perf_counter()
    try:
        ranked, timed_out = _run_with_budget(reranker, query, chunks, timeout_ms)
    except RaglsError as exc:
        ranked, timed_out = None, False
        report["error"] = str(exc)
    except Exception as exc:  # noqa: BLE001 - a custom class's bug must not fail the query
        log.warning("reranker %s failed: %r", reranker.name, exc)
        ranked, timed_out = None, False
        report["error"] = f"{type(exc).__name__}: {exc}"
    report["elapsedMs"] = round((time.perf_counter() - t0) * 1000, 1)
    if (calls := getattr(reranker, "llm_calls_for", None)) is not None and calls(len(chunks)):
        report["llmCalls"] = calls(len(chunks))  # made even when the budget passed first (it ends in the background)
    if timed_out:
        report["timedOut"] = True
        log.warning("reranker %s took longer than retrieval.rerank_timeout_ms (%d ms): fused order returned",
                    reranker.name, timeout_ms)
    if ranked is None:
        return None, report
    key_of = {id(c): k for k, c in zip(keys, chunks)}
    hits = []
    for chunk, score in ranked[:top_k]:
        k = key_of[id(chunk)]
        hits.append(Hit(chunk=chunk, score=score, signals={**{n: float(r) for n, r in ranks.get(k, {}).items()},
                                                           "rerank": score}, similarity=similarity.get(k)))
    return hits, report


def describe_report(report: dict | None, explain: bool = False) -> str | None:
    """The CLI's line about the reranker (`ragls query`): always when it timed out or failed (the fused order is
    shown), else only with --explain; None when there is nothing to say."""
    if not report:
        return None
    if report.get("timedOut"):
        return (f"(reranker {report['backend']} passed retrieval.rerank_timeout_ms after {report['elapsedMs']:.0f} ms: "
                "fused order shown)")
    if report.get("error"):
        return f"(reranker {report['backend']} failed: {report['error']}; fused order shown)"
    if explain:
        return f"(reranked by {report['backend']}: {report['candidates']} candidates in {report['elapsedMs']:.0f} ms)"
    return None
