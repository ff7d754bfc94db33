"""Query -> ranked `Hit`s over one or more folder indexes (multi-root).

Signals: vector (cosine top-N from LanceDB) and BM25 (tantivy top-N; with `retrieval.bm25_feedback` the RM3
second pass of `feedback.py`, per folder), N = `retrieval.candidates`; per-signal lists
of all folders are merged by their raw score, then fused by weighted RRF (`fuse.py`). With a `reranker`
(`rerankers.py`: cross-encoder, ColBERT, LLM or a user class) the fused candidates are reordered by it, and extra
signals (graph) are not computed. Chunks with identical text appear once (the best ranked). `abstained(hits, floor)` is
the relevance test shared by rag/query and rag/ask.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from ragls.core.analysis import query_words
from ragls.core.ir import Hit
from ragls.retrieval.abstention import gather
from ragls.retrieval.dedup import keep_distinct
from ragls.retrieval.feedback import feedback_search
from ragls.retrieval.focus import keyword_focus, line_span, sentence_focus
from ragls.retrieval.fuse import fetch_chunks, reciprocal_rank_fusion
from ragls.retrieval.llm_steps import LLMTrace
from ragls.retrieval.pooling import pooled_scores
from ragls.retrieval.query import Query, analyse
from ragls.retrieval.query_fit import fit_query
from ragls.retrieval.result import RetrievalResult
from ragls.retrieval.transforms import Variant, variant_lists

if TYPE_CHECKING:
    from ragls.config.settings import RetrievalSettings
    from ragls.embedding.embed import Embedder
    from ragls.index.indexer import FolderIndex

log = logging.getLogger(__name__)

SIGNALS = ("vector", "bm25")

# Extra signal hook (graph RAG): (query, query vector, candidates) -> list of ((folder index, chunk id), score).
ExtraSignal = Callable[[str, object, int], list[tuple[tuple[int, str], float]]]


def hits_from_fused(fused, resolve: Callable[[object], object], similarity: dict, top_k: int) -> RetrievalResult:
    """The first `top_k` distinct hits of an RRF list (`fuse.reciprocal_rank_fusion`'s output, best first).

    `resolve(key)` gives the Chunk of a fused key, or None to drop it (missing, hidden, empty); a chunk whose
    `text_hash` was already taken is dropped too (the same text stored twice). `similarity`: key -> cosine, for
    `Hit.similarity` and `RetrievalResult.best_similarity` (the best over every candidate, not only the returned
    ones)."""
    hits, seen = [], set()
    for f in fused:
        chunk = resolve(f.key)
        if chunk is None or chunk.text_hash in seen:
            continue
        seen.add(chunk.text_hash)
        hits.append(Hit(chunk=chunk, score=f.score, signals={k: float(v) for k, v in f.ranks.items()},
                        similarity=similarity.get(f.key)))
        if len(hits) == top_k:
            break
    return RetrievalResult(tuple(hits), max(similarity.values(), default=None))


def check_query(text: object) -> str:
    """The query text, stripped. Raises InvalidParams for a non-string or an empty/whitespace-only query."""
    return analyse(text).text


def search(indexes: Sequence[FolderIndex], embedder: Embedder, query: str | Query, *, settings: RetrievalSettings,
           top_k: int | None = None, signals: Sequence[str] = SIGNALS,
           extra: dict[str, ExtraSignal] | None = None, reranker=None,
           max_context_chars: int = 12000, variants: Sequence[Variant] = ()) -> RetrievalResult:
    """Top `top_k` hits (default `settings.top_k`) for `query` (text or an analysed `Query`), best first.

    `signals` restricts the built-in signals (benchmarks use ("bm25",) or ("vector",)); `retrieval.hybrid` false
    means ("vector",) whenever some folder has vectors. `extra` adds named signals (e.g. "graph").
    Hit.signals holds each signal's 1-based rank; Hit.similarity the cosine similarity of the chunk's best
    window when the vector signal saw it (the vector signal ranks chunks by their pooled window score,
    `retrieval.window_margin`, pooling.py); Hit.focus the lines of that window, or for a hit only BM25 found the
    lines holding the most query terms (`focus.py`). With `reranker` (rerankers.py), the fused candidates are
    sorted by its score (Hit.score and Hit.signals["rerank"]), `extra` is ignored, and hits below
    `retrieval.relevance_floor` (when non-zero) are dropped; past `retrieval.rerank_timeout_ms`, or when the
    backend fails at query time, the fused order is returned; `RetrievalResult.rerank` reports which. Hits whose
    vectors are near-copies of a better hit (`retrieval.dedup_cosine`) are dropped; with
    `retrieval.parent_document` each hit becomes its whole section (at most `max_context_chars`, `parent.py`).
    The vector signal covers only the indexes whose vector store is open (`FolderIndex.vectors_ready`; none yet:
    BM25 alone), its weight scaled by the fraction of chunks that have a vector (a cold index being embedded).
    `variants` (query transforms, retrieval/transforms.py) add their ranked lists as signals of their own, fused
    (or, with a reranker, re-scored) with the question's; they never change similarity, focus or abstention.
    Raises InvalidParams for an empty query, RequestFailed when the reranker cannot be loaded.
    """
    q = analyse(query)
    top_k = top_k or settings.top_k
    n = max(settings.candidates, top_k)
    ready = [(i, idx) for i, idx in enumerate(indexes) if idx.vectors_ready]
    if not settings.hybrid and ready and "vector" in signals:
        signals = ("vector",)
    scored: dict[str, list[tuple[tuple[int, str], float]]] = {}
    similarity: dict[tuple[int, str], float] = {}
    matches: dict[tuple[int, str], object] = {}  # key -> WindowMatch (best window)
    model_text, truncated = q.text, False
    if ("vector" in signals and ready) or reranker is not None:
        model_text, truncated = fit_query(q.text, embedder.query_token_count, embedder.max_length)
        if truncated:
            log.info("query of %d characters is longer than the embedding model reads (%d tokens): its last %d "
                     "characters are embedded, BM25 searches all of it", len(q.text), embedder.max_length,
                     len(model_text))
    if "vector" in signals and ready:
        q = q.with_vector(embedder.embed_query(model_text))
        lst = []
        for i, idx in ready:
            found = idx.vectors.search_windows(q.vector, n)
            for m, score in pooled_scores(idx.vectors, q.vector, found, settings.window_margin):
                lst.append(((i, m.chunk_id), score))
                similarity[(i, m.chunk_id)] = m.similarity
                matches[(i, m.chunk_id)] = m
        scored["vector"] = lst
    if "bm25" in signals:
        scored["bm25"] = [((i, cid), s) for i, idx in enumerate(indexes) for cid, s in _bm25(idx, q, n, settings)]
    for name, fn in ({} if reranker is not None else extra or {}).items():
        scored[name] = fn(q.text, q.vector, n)
    variant_weights: dict[str, float] = {}
    if variants:
        lists, variant_weights = variant_lists(indexes, ready if "vector" in signals else [], embedder, variants, n,
                                               settings)
        scored.update(lists)
    rankings = {name: [key for key, _ in sorted(lst, key=lambda kv: -kv[1])[:n]] for name, lst in scored.items()}
    best = max(similarity.values(), default=None)
    bm25_top = max((sc for _, sc in scored.get("bm25", [])), default=None)
    # While the first embedding runs, the vector signal ranks only the chunks embedded so far: a weak hit among
    # them would outrank the right, not yet embedded chunk BM25 found. Its weight scales with the coverage.
    vector_weight = settings.vector_weight * (_vector_coverage(indexes) if "vector" in scored else 1.0)
    weights = {"vector": vector_weight, "bm25": settings.bm25_weight, "graph": settings.graph_weight,
               **variant_weights}
    bonus = _exact_match_bonus(indexes, q, rankings.get("bm25", []), settings)
    fused = reciprocal_rank_fusion(rankings, weights, settings.rrf_k, bonus)
    report = None
    if reranker is not None:  # the fused candidates, reordered within retrieval.rerank_timeout_ms (rerankers.py)
        from ragls.retrieval.rerankers import rerank_fused

        hits, report = rerank_fused(indexes, reranker, model_text, [f.key for f in fused], rankings, similarity,
                                    top_k, settings.rerank_timeout_ms)
        if hits is not None:
            if settings.relevance_floor:
                hits = [h for h in hits if h.signals.get("rerank", h.score) >= settings.relevance_floor]
            hits = _finish(indexes, hits, matches, q, settings, max_context_chars)
            return _count_rerank_calls(RetrievalResult(
                hits, best, q, gather(indexes, q, hits[:settings.top_k], best, list(similarity.values()), bm25_top),
                truncated, report))
        # timed out or failed: the fused order below, with the report saying why
    if matches and settings.dedup_cosine < 1.0:
        keep = keep_distinct([m.vector if (m := matches.get(f.key)) is not None else None for f in fused],
                             settings.dedup_cosine)
        fused = [f for f, k in zip(fused, keep) if k]
    hits = _finish(indexes, _materialize(indexes, fused, similarity, top_k), matches, q, settings, max_context_chars)
    # Evidence is judged on the default top_k hits, so a caller asking for more does not change the decision.
    return _count_rerank_calls(RetrievalResult(
        hits, best, q, gather(indexes, q, hits[:settings.top_k], best, list(similarity.values()), bm25_top),
        truncated, report))


def _count_rerank_calls(result: RetrievalResult) -> RetrievalResult:
    """`result` with an `LLMTrace` counting the LLM reranker's call when it made one (`report["llmCalls"]`), so the
    question's `llmCalls` (rag/query, rag/ask) include it; a failed call counts as a failure. `assisted.py` merges
    this count into its own trace."""
    n = (result.rerank or {}).get("llmCalls")
    if not n:
        return result
    trace = LLMTrace()
    trace.counter.add("rerank", n, n if "error" in result.rerank else 0)
    return result.with_(llm=trace)


def _finish(indexes, hits: list[Hit], matches: dict, q: Query, settings, max_context_chars: int) -> list[Hit]:
    """Add each hit's context window (best window, else keyword lines) and its focus, the answering sentence in
    it (`focus.sentence_focus`); with `parent_document`, grow each hit to its section."""
    folder_of = {idx.manifest.folder: i for i, idx in enumerate(indexes)}
    out = []
    for hit in hits:
        m = matches.get((folder_of.get(hit.chunk.folder), hit.chunk.id))
        if m is not None:
            window = line_span(hit.chunk, m.start_line, m.end_line)
        else:
            window = keyword_focus(hit.chunk, q.focus_terms)
        out.append(replace(hit, focus=window, window=window) if window is not None else hit)
    out = sentence_focus(out, q.text)
    if settings.parent_document:
        from ragls.retrieval.parent import expand_hits

        def chunks_of(hit: Hit):
            i = folder_of.get(hit.chunk.folder)
            return indexes[i].manifest.chunks_of(hit.chunk.path) if i is not None else []

        out = expand_hits(out, chunks_of, max_context_chars)
    return out


def _bm25(idx: FolderIndex, q: Query, n: int, settings: RetrievalSettings) -> list[tuple[str, float]]:
    """One folder's BM25 top `n`: plain (with typo tolerance), or the RM3 feedback pass
    (`retrieval.bm25_feedback`, feedback.py) with the folder's own first-pass chunks and statistics."""
    if not settings.bm25_feedback:
        return idx.bm25.search(q.text, n, words=q.bm25_words, compounds=q.compounds, cjk_runs=q.cjk_runs,
                               title_weight=settings.bm25_title_weight)
    query = q.text

    def chunk_texts(ids: list[str]) -> dict[str, str]:
        return {cid: chunk.text for cid, chunk in idx.manifest.get_chunks(ids).items()}

    return feedback_search(idx.bm25, query, n, chunk_texts, fb_docs=settings.bm25_feedback_docs,
                           fb_terms=settings.bm25_feedback_terms, query_weight=settings.bm25_feedback_query_weight,
                           title_weight=settings.bm25_title_weight)


def _vector_coverage(indexes) -> float:
    """Fraction (0..1) of the indexes' chunks that have a vector; 1.0 for empty indexes."""
    counts = [(idx.manifest.chunk_count(), idx.pending_count()) for idx in indexes]
    total = sum(chunks for chunks, _ in counts)
    if not total:
        return 1.0
    return max(0.0, (total - sum(min(pending, chunks) for chunks, pending in counts)) / total)


def _exact_match_bonus(indexes, q: Query, bm25_ranking, settings: RetrievalSettings) -> dict:
    """{key: bonus} for BM25's top-3 chunks that contain every content word of the query literally:
    `top_rank_bonus` for the 1st, `top3_rank_bonus` for the 2nd-3rd (fuse.py says why)."""
    top = list(bm25_ranking[:3])
    if not top or not (settings.top_rank_bonus or settings.top3_rank_bonus):
        return {}
    words = set(q.content_words)
    if not words:
        return {}
    found = fetch_chunks(indexes, top)
    return {key: settings.top_rank_bonus if rank == 1 else settings.top3_rank_bonus
            for rank, key in enumerate(top, 1) if key in found and _has_words(found[key], words)}


def _has_words(chunk, words: set[str]) -> bool:
    """True when the chunk's title or text contains every one of `words` (BM25 query words) literally."""
    return words <= set(query_words(f"{chunk.title}\n{chunk.text}"))


def _materialize(indexes, fused, similarity, top_k: int) -> list[Hit]:
    """Fetch chunks for the fused keys in order, skipping duplicates of the same text, until top_k."""
    hits: list[Hit] = []
    seen_text: set[str] = set()
    pos = 0
    while len(hits) < top_k and pos < len(fused):
        window = fused[pos:pos + top_k * 2]
        pos += len(window)
        found = fetch_chunks(indexes, [f.key for f in window])
        for f in window:
            chunk = found.get(f.key)
            if chunk is None or chunk.text_hash in seen_text:
                continue  # deleted since it was ranked, or the same text seen already
            seen_text.add(chunk.text_hash)
            hits.append(Hit(chunk=chunk, score=f.score, signals={k: float(v) for k, v in f.ranks.items()},
                            similarity=similarity.get(f.key)))
            if len(hits) == top_k:
                break
    return hits


def abstained(result: Sequence[Hit], floor: float, query: str | Query | None = None, *,
              min_probability: float = 0.0) -> bool:
    """True when nothing relevant enough was found in `result` (a `RetrievalResult`; a plain list of hits is
    judged without evidence).

    0. No hits, or corrective retrieval graded them insufficient twice (`result.corrective`): abstain.
    1. With `min_probability` > 0 and the result's `evidence` (with vector evidence): abstain when the
       calibrated probability that the index answers (retrieval/abstention.py) is below it.
    2. Otherwise, and when rule 1 answers: relevant means any of: the best cosine similarity (of the hits, or
       `result.best_similarity` over all vector candidates) reaches `floor`; or (given the analysed query,
       `result.query`, else `query`) a hit BM25 found contains every content word of the query literally — a
       search for an identifier or a rare term is answered even though short keyword queries rarely reach the
       dense floor; or, without any vector evidence yet (vectors still being computed), BM25 found something.
       Content words: BM25's query words minus English stop words.
    """
    result = RetrievalResult.of(result)
    if not result or result.corrective == "insufficient":  # graded twice (retrieval/corrective.py)
        return True
    if min_probability > 0 and result.evidence is not None:
        p = result.evidence.probability()
        if p is not None and p < min_probability:
            return True
    query = result.query or query
    if query is not None and _keyword_match(result, query):
        return False
    sims = [h.similarity for h in result if h.similarity is not None]
    if result.best_similarity is not None:
        sims.append(result.best_similarity)
    if not sims:
        return not any("bm25" in h.signals for h in result)
    return max(sims) < floor


def _keyword_match(hits: Sequence[Hit], query: str | Query) -> bool:
    """True when a hit BM25 found holds every content word of `query` (BM25's words minus stop words)."""
    words = analyse(query).content_words
    if not words:
        return False
    return any("bm25" in hit.signals and _has_words(hit.chunk, words) for hit in hits)
