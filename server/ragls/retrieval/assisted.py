"""LLM-assisted retrieval of one question: the skip rule, the query transforms (`transforms.py`) fused into one
search, then corrective retrieval (`corrective.py`). `RagWorkspace.retrieve` calls `assisted_search` instead of
`search.search`; with every step off it is exactly `search.search`.

Order for a question with some step enabled:
1. no generation backend ("none") → plain search, `trace.skipped` says why;
2. the skip rule (`transforms.strong_signal`): BM25's top hit strong and clearly ahead → plain search;
3. the enabled transforms' LLM calls run concurrently; their texts' lists join the question's in one weighted
   RRF (`search(..., variants=...)`); a failed call leaves its transform out;
4. `retrieval.corrective`: grade, and after an INSUFFICIENT grade a second round (the rewrite searched plainly,
   merged by RRF, graded again); a final INSUFFICIENT makes `relevance.abstained` abstain.
The returned `RetrievalResult` carries `llm` (an `LLMTrace`: calls per step, failures, the model's texts, skip reason, grade).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ragls.retrieval.llm_steps import LLMTrace, StepLLM
from ragls.retrieval.query import analyse
from ragls.retrieval.result import RetrievalResult
from ragls.retrieval.search import search
from ragls.retrieval.source import as_sources
from ragls.retrieval.transforms import expansions_wanted, strong_signal, write_variants

if TYPE_CHECKING:
    from ragls.config.settings import GenerationSettings, RetrievalSettings
    from ragls.embedding.embed import Embedder
    from ragls.index.indexer import FolderIndex


def llm_steps_enabled(settings: RetrievalSettings, expand: bool | None = None) -> bool:
    """True when a query-time LLM step is on: hyde, step_back, expansion (settings or the request's `expand`),
    corrective."""
    return bool(settings.hyde or settings.step_back or settings.corrective or expansions_wanted(settings, expand))


def assisted_search(indexes: Sequence[FolderIndex], embedder: Embedder, query: Any, *, settings: RetrievalSettings,
                    generation: GenerationSettings | None, expand: bool | None = None, top_k: int | None = None,
                    **search_kwargs: Any) -> RetrievalResult:
    """`search.search(indexes, embedder, query, settings=settings, top_k=top_k, **search_kwargs)` with the
    enabled LLM steps (module docstring); `expand` is the request's multi-query switch (None: `expand_n`).
    Without `generation` (no backend to ask) it is `search` itself. Never raises for an LLM failure (the step is
    left out and counted); raises what `search` raises."""
    if generation is None or not llm_steps_enabled(settings, expand):
        return search(indexes, embedder, query, settings=settings, top_k=top_k, **search_kwargs)
    indexes = as_sources(indexes)
    q = analyse(query)
    if not q.searchable:  # nothing to search, nothing to ask an LLM about: `search` returns no hits
        return search(indexes, embedder, q, settings=settings, top_k=top_k, **search_kwargs)
    trace = LLMTrace()
    llm = StepLLM.for_settings(generation, settings)

    def plain() -> RetrievalResult:
        return _adopt(search(indexes, embedder, q, settings=settings, top_k=top_k, **search_kwargs), trace)

    if llm is None:
        trace.skipped = "no generation backend (generation.backend is none): plain retrieval"
        return plain()
    skip, top, gap = strong_signal(indexes, q, settings)
    if skip:
        trace.skipped = (f"BM25's top hit is strong and clearly ahead (normalised score {top:.2f} >= "
                         f"{settings.strong_signal_score:g}, gap {gap:.2f} >= {settings.strong_signal_gap:g})")
        return plain()
    ready = "vector" in search_kwargs.get("signals", ("vector",)) and any(src.vectors_ready for src in indexes)
    variants = write_variants(q.text, llm, trace, hyde=settings.hyde and ready, step_back=settings.step_back,
                              expand_n=expansions_wanted(settings, expand))
    hits = _adopt(search(indexes, embedder, q, settings=settings, top_k=top_k, variants=variants, **search_kwargs),
                  trace)
    if settings.corrective:
        hits = _corrective(indexes, embedder, q, hits, llm, trace, settings, top_k, search_kwargs)
    return hits


def _corrective(indexes, embedder, q, result: RetrievalResult, llm: StepLLM, trace: LLMTrace, settings, top_k,
                search_kwargs) -> RetrievalResult:
    """Run `corrective.correct` on `result`; a second round gives new hits (same query, best similarity,
    truncation and rerank report; evidence gathered again over the merged hits); `corrective` is the final
    grade either way."""
    from ragls.retrieval.abstention import gather
    from ragls.retrieval.corrective import correct

    k = top_k or settings.top_k

    def again(text: str):
        return _adopt(search(indexes, embedder, text, settings=settings, top_k=k, **search_kwargs), trace)

    merged = correct(q.text, result, llm, trace, again, k, settings.rrf_k)
    if merged is None:
        return result.with_(corrective=trace.grade)
    query = result.query or q
    evidence = gather(result.term_stats, query, merged[:settings.top_k], result.best_similarity,
                      absent=result.evidence.absent_names if result.evidence is not None else ())
    if result.evidence is not None:  # the first round's BM25 scores and meaning veto are not rerun: they carry over
        evidence = replace(evidence, bm25_top=result.evidence.bm25_top,
                           meaning_absent=result.evidence.meaning_absent, absent_words=result.evidence.absent_words,
                           sentence_cosine=result.evidence.sentence_cosine)
    return result.with_(hits=tuple(merged), llm=trace, corrective=trace.grade, evidence=evidence)


def _adopt(result: RetrievalResult, trace: LLMTrace) -> RetrievalResult:
    """`result` carrying the question's `trace`, with what `search` traced for it (the LLM reranker's call)
    added."""
    if result.llm is not None and result.llm is not trace:
        trace.merge(result.llm)
    return result.with_(llm=trace)
