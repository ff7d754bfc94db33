"""Query -> ranked `Hit`s over one or more folder indexes (multi-root).

Signals: vector (cosine top-N from LanceDB) and BM25 (tantivy top-N; with `retrieval.bm25_feedback` the RM3
second pass of `feedback.py`, per folder), N = `retrieval.candidates`; per-signal lists
of all folders are merged by their raw score, then fused by weighted RRF (`fuse.py`). With a `reranker`
(`rerank.py`) the union of the candidates is re-scored by the cross-encoder instead of RRF, and extra signals
(graph) are not computed. Chunks with identical text appear once (the best ranked). `abstained(hits, floor)` is
the relevance test shared by rag/query and rag/ask.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ragls.errors import InvalidParams
from ragls.ir import Hit
from ragls.retrieval.feedback import feedback_search
from ragls.retrieval.fuse import reciprocal_rank_fusion
from ragls.retrieval.query_fit import fit_query
from ragls.stores.bm25 import STOPWORDS, query_words

if TYPE_CHECKING:
    from ragls.config import RetrievalSettings
    from ragls.embed import Embedder
    from ragls.indexer import FolderIndex
    from ragls.retrieval.rerank import Reranker

log = logging.getLogger(__name__)

SIGNALS = ("vector", "bm25")

# Extra signal hook (graph RAG): (query, query vector, candidates) -> list of ((folder index, chunk id), score).
ExtraSignal = Callable[[str, object, int], list[tuple[tuple[int, str], float]]]


class Hits(list):
    """A list of Hit that also carries `best_similarity`: the highest cosine similarity among all vector
    candidates (not only the returned top_k), None without vector evidence — so abstention does not depend on
    top_k."""

    def __init__(self, hits=(), best_similarity: float | None = None, truncated: bool = False):
        super().__init__(hits)
        self.best_similarity = best_similarity
        self.truncated = truncated  # the query was longer than the embedding model reads (query_fit.py)


def check_query(text: object) -> str:
    """The query text, stripped. Raises InvalidParams for a non-string or an empty/whitespace-only query."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidParams("query must be a non-empty string")
    return text.strip()


def search(indexes: Sequence[FolderIndex], embedder: Embedder, query: str, *, settings: RetrievalSettings,
           top_k: int | None = None, signals: Sequence[str] = SIGNALS,
           extra: dict[str, ExtraSignal] | None = None, reranker: Reranker | None = None) -> list[Hit]:
    """Top `top_k` hits (default `settings.top_k`) for `query`, best first.

    `signals` restricts the built-in signals (benchmarks use ("bm25",) or ("vector",)); `extra` adds named
    signals (e.g. "graph"). Hit.signals holds each signal's 1-based rank; Hit.similarity the cosine similarity
    when the vector signal saw the chunk. With `reranker`, hits are sorted by its score (Hit.score and
    Hit.signals["rerank"]), `extra` is ignored. The vector signal covers only the indexes whose vector store is
    open (`FolderIndex.vectors_ready`; none yet: BM25 alone), its weight scaled by the fraction of chunks that have
    a vector (a cold index being embedded). Raises InvalidParams for an empty query,
    RequestFailed when the reranker cannot be loaded.
    """
    query = check_query(query)
    top_k = top_k or settings.top_k
    n = max(settings.candidates, top_k)
    scored: dict[str, list[tuple[tuple[int, str], float]]] = {}
    similarity: dict[tuple[int, str], float] = {}
    qvec = None
    ready = [(i, idx) for i, idx in enumerate(indexes) if idx.vectors_ready]
    model_query, truncated = query, False
    if ("vector" in signals and ready) or reranker is not None:
        model_query, truncated = fit_query(query, embedder.query_token_count, embedder.max_length)
        if truncated:
            log.info("query of %d characters is longer than the embedding model reads (%d tokens): its last %d "
                     "characters are embedded, BM25 searches all of it", len(query), embedder.max_length,
                     len(model_query))
    if "vector" in signals and ready:
        qvec = embedder.embed_query(model_query)
        lst = []
        for i, idx in ready:
            for cid, sim in idx.vectors.search(qvec, n):
                lst.append(((i, cid), sim))
                similarity[(i, cid)] = sim
        scored["vector"] = lst
    if "bm25" in signals:
        scored["bm25"] = [((i, cid), s) for i, idx in enumerate(indexes) for cid, s in _bm25(idx, query, n, settings)]
    for name, fn in ({} if reranker is not None else extra or {}).items():
        scored[name] = fn(query, qvec, n)
    rankings = {name: [key for key, _ in sorted(lst, key=lambda kv: -kv[1])[:n]] for name, lst in scored.items()}
    if reranker is not None:
        from ragls.retrieval.rerank import rerank_hits

        return Hits(rerank_hits(indexes, reranker, model_query, rankings, similarity, top_k), None, truncated)
    # While the first embedding runs, the vector signal ranks only the chunks embedded so far: a weak hit among
    # them would outrank the right, not yet embedded chunk BM25 found. Its weight scales with the coverage.
    vector_weight = settings.vector_weight * (_vector_coverage(indexes) if "vector" in scored else 1.0)
    weights = {"vector": vector_weight, "bm25": settings.bm25_weight, "graph": settings.graph_weight}
    bonus = _exact_match_bonus(indexes, query, rankings.get("bm25", []), settings)
    fused = reciprocal_rank_fusion(rankings, weights, settings.rrf_k, bonus)
    return Hits(_materialize(indexes, fused, similarity, top_k), max(similarity.values(), default=None), truncated)


def _bm25(idx: FolderIndex, query: str, n: int, settings: RetrievalSettings) -> list[tuple[str, float]]:
    """One folder's BM25 top `n`: plain, or the RM3 feedback pass (`retrieval.bm25_feedback`, feedback.py) with
    the folder's own first-pass chunks and statistics."""
    if not settings.bm25_feedback:
        return idx.bm25.search(query, n)

    def chunk_texts(ids: list[str]) -> dict[str, str]:
        return {cid: chunk.text for cid, chunk in idx.manifest.get_chunks(ids).items()}

    return feedback_search(idx.bm25, query, n, chunk_texts, fb_docs=settings.bm25_feedback_docs,
                           fb_terms=settings.bm25_feedback_terms, query_weight=settings.bm25_feedback_query_weight)


def _vector_coverage(indexes) -> float:
    """Fraction (0..1) of the indexes' chunks that have a vector; 1.0 for empty indexes."""
    counts = [(idx.manifest.chunk_count(), idx.pending_count()) for idx in indexes]
    total = sum(chunks for chunks, _ in counts)
    if not total:
        return 1.0
    return max(0.0, (total - sum(min(pending, chunks) for chunks, pending in counts)) / total)


def _exact_match_bonus(indexes, query: str, bm25_ranking, settings: RetrievalSettings) -> dict:
    """{key: bonus} for BM25's top-3 chunks that contain every content word of the query literally:
    `top_rank_bonus` for the 1st, `top3_rank_bonus` for the 2nd-3rd (fuse.py says why)."""
    top = list(bm25_ranking[:3])
    if not top or not (settings.top_rank_bonus or settings.top3_rank_bonus):
        return {}
    words = _content_words(query)
    if not words:
        return {}
    found = _fetch_chunks(indexes, top)
    return {key: settings.top_rank_bonus if rank == 1 else settings.top3_rank_bonus
            for rank, key in enumerate(top, 1) if key in found and _has_words(found[key], words)}


def _content_words(query: str) -> set[str]:
    """BM25's query words minus English stop words (the words an exact match must contain)."""
    return {w for w in query_words(query) if w not in STOPWORDS}


def _has_words(chunk, words: set[str]) -> bool:
    """True when the chunk's title or text contains every one of `words` (BM25 query words) literally."""
    return words <= set(query_words(f"{chunk.title}\n{chunk.text}"))


def _fetch_chunks(indexes, keys) -> dict:
    """{(folder index, chunk id): Chunk} for `keys`, one manifest query per folder (deleted chunks absent)."""
    by_folder: dict[int, list[str]] = {}
    for i, cid in keys:
        by_folder.setdefault(i, []).append(cid)
    return {(i, cid): chunk for i, ids in by_folder.items()
            for cid, chunk in indexes[i].manifest.get_chunks(ids).items()}


def _materialize(indexes, fused, similarity, top_k: int) -> list[Hit]:
    """Fetch chunks for the fused keys in order, skipping duplicates of the same text, until top_k."""
    hits: list[Hit] = []
    seen_text: set[str] = set()
    pos = 0
    while len(hits) < top_k and pos < len(fused):
        window = fused[pos:pos + top_k * 2]
        pos += len(window)
        found = _fetch_chunks(indexes, [f.key for f in window])
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


def abstained(hits: Sequence[Hit], floor: float, query: str | None = None,
              best_similarity: float | None = None) -> bool:
    """True when nothing relevant enough was found.

    Relevant means any of: the best cosine similarity (of the hits, or `best_similarity` over all vector
    candidates when given — `Hits.best_similarity`) reaches `floor`; or (given the `query`) a hit BM25 found
    contains every content word of the query literally — a search for an identifier or a rare term is answered
    even though short keyword queries rarely reach the dense floor; or, without any vector evidence yet (vectors
    still being computed), BM25 found something. Content words: BM25's query words minus English stop words.
    """
    if not hits:
        return True
    if query is not None and _keyword_match(hits, query):
        return False
    sims = [h.similarity for h in hits if h.similarity is not None]
    if best_similarity is not None:
        sims.append(best_similarity)
    if not sims:
        return not any("bm25" in h.signals for h in hits)
    return max(sims) < floor


def _keyword_match(hits: Sequence[Hit], query: str) -> bool:
    words = _content_words(query)
    if not words:
        return False
    return any("bm25" in hit.signals and _has_words(hit.chunk, words) for hit in hits)
