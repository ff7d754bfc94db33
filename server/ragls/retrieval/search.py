"""Query -> ranked `Hit`s over one or more knowledge sources: the one retrieval pipeline.

Sources (`retrieval/source.py`): workspace folders and named RAGs' indexes (`FolderIndex`, passed as they are),
a request's `documents` (`memory.DocumentsSource`), attached Qdrant collections and team folders' shared
collections. Each gives candidate lists per signal — vector (cosine top-N, pooled over windows) and BM25 (top-N;
with `retrieval.bm25_feedback` the RM3 second pass of `feedback.py`, per folder), N = `retrieval.candidates`; the
lists of all sources are merged by their raw score (BM25 lists of sources whose scores are not tantivy's over their
own chunks are interleaved by rank instead), then fused by weighted RRF (`fuse.py`) with the exact-match bonus.
With a `reranker` (`rerankers.py`: cross-encoder, ColBERT, LLM or a user class) the fused candidates are reordered
by it, and extra signals (graph) are not computed. Chunks with identical text appear once (the best ranked),
near-copies by vector too (`dedup.py`); under convex fusion a page's second passage among the first 30 raises its
others (`fuse.page_support`, `retrieval.page_support_weight`) and a tie for the first place (within
`fuse.NEAR_TIE`) goes to the page with more of BM25's score (`fuse.lexical_tie_break`); focus lines (`focus.py`), parent documents (`parent.py`) and the abstention
evidence (`abstention.py`) are added here, for every source alike. The relevance test
shared by rag/query and rag/ask, `abstained(hits, floor)`, is `relevance.py`'s.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from ragls.answer.focus import sentence_focus
from ragls.core.ir import Chunk, Hit
from ragls.retrieval.absent_meaning import with_absent_meaning
from ragls.retrieval.absent_names import absent_names, lookup_terms
from ragls.retrieval.abstention import evidence_terms, gather
from ragls.retrieval.dedup import keep_distinct
from ragls.retrieval.doc_kind import (
    SETTINGS_HEAD,
    api_page_factors,
    meta_factors,
    quoted_factors,
    reference_factors,
    repeated_block_factors,
    settings_factors,
    stub_factors,
    written_factors,
    written_names,
)
from ragls.retrieval.focus import keyword_focus, line_span
from ragls.retrieval.fuse import apply_prior, convex_fusion, lexical_tie_break, page_support, reciprocal_rank_fusion
from ragls.retrieval.llm_steps import LLMTrace
from ragls.retrieval.query import Query, analyse, query_vector
from ragls.retrieval.query_fit import fit_query
from ragls.retrieval.relevance import has_words
from ragls.retrieval.result import RetrievalResult
from ragls.retrieval.sentence_rank import SENTENCE_HEAD, sentence_rerank
from ragls.retrieval.source import Candidates, as_sources, file_filters, vector_weight_coverage
from ragls.retrieval.transforms import Variant, variant_lists

if TYPE_CHECKING:
    from ragls.config.settings import RetrievalSettings
    from ragls.embedding.embed import Embedder

log = logging.getLogger(__name__)

SIGNALS = ("vector", "bm25")

# Extra signal hook (graph RAG): (query, query vector, candidates) -> list of ((source position, chunk id), score).
ExtraSignal = Callable[[str, object, int], list[tuple[tuple[int, str], float]]]
Key = tuple[int, str]  # (position of the source in the searched list, chunk id)
# Fused entries whose pages `_page_support` weighs: the document priors' head at top_k 10 (2 x 10 + 10), the head the
# leave-one-corpus-out fit measured (bench/history/sessions-44-45.md, "Page support by leave-one-corpus-out").
PAGE_HEAD = 30


def prior_head(top_k: int) -> int:
    """How many fused entries the document priors weigh (`_document_priors`): 2 x top_k + 10, at least PAGE_HEAD
    (top_k 10's), so that the first hits of rag/query at the default top_k 5 are those `ragls eval` measures at 10:
    with 2 x 5 + 10 = 20 the priors judged repeated lines against fewer pages, and a Traefik question's third hit
    at top_k 5 was a page its top_k-10 ranking demoted below the tenth place."""
    return max(PAGE_HEAD, 2 * top_k + 10)


def check_query(text: object) -> str:
    """The query text, stripped. Raises InvalidParams for a non-string or an empty/whitespace-only query."""
    return analyse(text).text


class ChunkLookup:
    """Chunks of one query's candidates by key: those the sources returned with their candidates, the others
    fetched from their source (one `get_chunks` call per source and batch); `key_of` maps a fetched chunk
    (object identity) back to its key."""

    def __init__(self, sources: Sequence, known: dict[Key, Chunk]):
        self.sources = sources
        self.known = known
        self.key_of: dict[int, Key] = {id(c): k for k, c in known.items()}

    def __call__(self, keys: Sequence[Key]) -> dict[Key, Chunk]:
        """{key: Chunk} for `keys` (deleted or unknown chunks absent)."""
        out = {k: self.known[k] for k in keys if k in self.known}
        by_source: dict[int, list[str]] = {}
        for i, cid in keys:
            if (i, cid) not in out:
                by_source.setdefault(i, []).append(cid)
        for i, ids in by_source.items():
            for cid, chunk in self.sources[i].get_chunks(ids).items():
                out[(i, cid)] = self.known[(i, cid)] = chunk
                self.key_of[id(chunk)] = (i, cid)
        return out


def search(sources: Sequence, embedder: Embedder, query: str | Query, *, settings: RetrievalSettings,
           top_k: int | None = None, signals: Sequence[str] = SIGNALS,
           extra: dict[str, ExtraSignal] | None = None, reranker=None,
           max_context_chars: int = 12000, variants: Sequence[Variant] = ()) -> RetrievalResult:
    """Top `top_k` hits (default `settings.top_k`) for `query` (text or an analysed `Query`), best first, over
    `sources` (`FolderIndex`es and/or `retrieval.source.Source`s, module docstring).

    `signals` restricts the built-in signals (benchmarks use ("bm25",) or ("vector",)); `retrieval.hybrid` false
    means ("vector",) whenever some source has vectors. `extra` adds named signals (e.g. "graph"; its keys index
    `sources`). Hit.signals holds each signal's 1-based rank; Hit.similarity the cosine similarity of the chunk's
    best window when the vector signal saw it (the vector signal ranks chunks by their pooled window score,
    `retrieval.window_margin`, pooling.py); Hit.focus the lines of that window, or for a hit only BM25 found (or
    a source without windows) the lines holding the most query terms (`focus.py`). With `reranker`
    (rerankers.py), the fused candidates are sorted by its score (Hit.score and Hit.signals["rerank"]), `extra` is
    ignored, and hits below `retrieval.relevance_floor` (when non-zero) are dropped; past
    `retrieval.rerank_timeout_ms`, or when the backend fails at query time, the fused order is returned;
    `RetrievalResult.rerank` reports which. Hits whose vectors are near-copies of a better hit
    (`retrieval.dedup_cosine`; sources without stored vectors: identical texts only) are dropped; with
    `retrieval.parent_document` each hit becomes its whole section (at most `max_context_chars`, `parent.py`;
    sources that cannot list a file's chunks keep the chunk). The vector signal covers only the sources whose
    vectors are ready (none yet: BM25 alone), its weight scaled by the fraction of chunks that have a vector (a
    cold index being embedded). `variants` (query transforms, retrieval/transforms.py) add their ranked lists as
    signals of their own, fused (or, with a reranker, re-scored) with the question's; they never change
    similarity, focus or abstention. A query without a word to search (`Query.searchable`: only punctuation such
    as `( " * :`, or only stop words such as `AND OR NOT`) has no hits.
    Raises InvalidParams for an empty query, RequestFailed when the reranker cannot be loaded.
    """
    sources = as_sources(sources)
    q = analyse(query)
    if not q.searchable:  # only punctuation (`( " * :`) or stop words: no word to search, so no hits and the request abstains
        return RetrievalResult(query=q)
    top_k = top_k or settings.top_k
    n = max(settings.candidates, top_k)
    ready = [i for i, src in enumerate(sources) if src.vectors_ready]
    if not settings.hybrid and ready and "vector" in signals:
        signals = ("vector",)
    model_text, truncated = q.text, False
    use_vectors = "vector" in signals and bool(ready)
    if use_vectors or reranker is not None:
        model_text, truncated = fit_query(q.text, embedder.query_token_count, embedder.max_length)
        if truncated:
            log.info("query of %d characters is longer than the embedding model reads (%d tokens): its last %d "
                     "characters are embedded, BM25 searches all of it", len(q.text), embedder.max_length,
                     len(model_text))
    if use_vectors:
        q = q.with_vector(query_vector(embedder, q, model_text))
    asked = [s for s in ("vector", "bm25") if s in signals and (s != "vector" or use_vectors)]
    per_source = [src.candidates(q, n, settings, asked) for src in sources]
    scored, similarity, matches, known = _merge_candidates(sources, per_source, asked)
    for name, fn in ({} if reranker is not None else extra or {}).items():
        scored[name] = fn(q.text, q.vector, n)
    variant_weights: dict[str, float] = {}
    if variants:
        lists, variant_weights = variant_lists(sources, ready if "vector" in signals else [], embedder, variants, n,
                                               settings, known)
        scored.update(lists)
    rankings = {name: [key for key, _ in lst[:n]] if isinstance(lst, _Ranked) else
                [key for key, _ in sorted(lst, key=lambda kv: -kv[1])[:n]] for name, lst in scored.items()}
    best = max(similarity.values(), default=None)
    bm25_top = max((sc for src, c in zip(sources, per_source) if src.bm25_comparable
                    for _, sc in c.lists.get("bm25", [])), default=None)
    # While the first embedding runs, the vector signal ranks only the chunks embedded so far: a weak hit among
    # them would outrank the right, not yet embedded chunk BM25 found. Its weight scales with the coverage.
    vector_weight = settings.vector_weight * (vector_weight_coverage(sources) if "vector" in scored else 1.0)
    weights = {"vector": vector_weight, "bm25": settings.bm25_weight, "graph": settings.graph_weight,
               **variant_weights}
    lookup = ChunkLookup(sources, known)
    bonus = _exact_match_bonus(lookup, q, rankings.get("bm25", []), settings)
    fused = _fuse(scored, rankings, weights, bonus, settings, n)
    # The abstention model (abstention.py) was fitted on the evidence of RRF's top hits: with convex fusion that
    # evidence is still gathered from them (the RRF arithmetic costs microseconds; the chunks are mostly the same).
    by_rank = None
    if fused is not None:
        by_rank = _document_priors(lookup, q, reciprocal_rank_fusion(rankings, weights, settings.rrf_k, bonus),
                                   top_k, settings)
    else:
        fused = reciprocal_rank_fusion(rankings, weights, settings.rrf_k, bonus)
    fused = _document_priors(lookup, q, fused, top_k, settings, reference=True)
    stats = _term_stats(sources, per_source, q)
    absent = _absent_names(sources, per_source, q)
    corpus_wide = _corpus_wide(sources, per_source)
    report = None
    if reranker is not None:  # the fused candidates, reordered within retrieval.rerank_timeout_ms (rerankers.py)
        from ragls.retrieval.rerankers import rerank_fused

        hits, report = rerank_fused(lookup, reranker, model_text, [f.key for f in fused], rankings, similarity,
                                    top_k, settings.rerank_timeout_ms)
        if hits is not None:
            if settings.relevance_floor:
                hits = [h for h in hits if h.signals.get("rerank", h.score) >= settings.relevance_floor]
            hits = _finish(sources, lookup, hits, matches, q, settings, max_context_chars, embedder)
            evidence = gather(stats, q, hits[:settings.top_k], best, list(similarity.values()), bm25_top,
                              absent=absent)
            return _count_rerank_calls(RetrievalResult(
                hits, best, q, _meaning_veto(evidence, stats, q, hits, embedder, settings, corpus_wide), truncated, report,
                term_stats=stats))
        # timed out or failed: the fused order below, with the report saying why
    fused = _distinct(fused, matches, settings)
    if by_rank is not None:  # convex scores: a page's second passage in the head is evidence for its first
        fused = _page_support(lookup, fused, settings)
        fused = _sentence_rerank(sources, lookup, fused, q, settings, embedder)
    raw = _materialize(lookup, fused, similarity, top_k)
    hits = _finish(sources, lookup, raw, matches, q, settings, max_context_chars, embedder)
    # Evidence is judged on the default top_k hits, so a caller asking for more does not change the decision.
    judged = hits[:settings.top_k]
    if by_rank is not None:
        judged = _evidence_hits(sources, lookup, raw, hits, _materialize(
            lookup, _distinct(by_rank, matches, settings), similarity, settings.top_k), matches, q, settings,
            max_context_chars, embedder)
    evidence = gather(stats, q, judged, best, list(similarity.values()), bm25_top, absent=absent,
                      shown=hits[:settings.top_k])
    return _count_rerank_calls(RetrievalResult(
        hits, best, q, _meaning_veto(evidence, stats, q, hits, embedder, settings, corpus_wide), truncated, report,
        term_stats=stats))


def _meaning_veto(evidence, stats, q: Query, hits: list[Hit], embedder, settings: RetrievalSettings,
                  corpus_wide: bool):
    """`evidence` with abstention's `meaning_absent` veto judged on the shown `hits` (`with_absent_meaning`: only
    when the calibrated rule would answer and the question holds a word no chunk holds); the passages are embedded
    through the embedder's memo when it has one (`Embedder.embed_memoised`). Judged only with vectors and when
    every source has corpus-wide BM25 statistics (`corpus_wide`): a candidate pool's cannot tell that no chunk
    holds a word."""
    if q.vector is None or not corpus_wide:
        return evidence
    embed = getattr(embedder, "embed_memoised", None) or embedder.embed_documents
    return with_absent_meaning(evidence, stats, q, hits, embedder.embed_query, embed,
                               settings.abstention_probability)


def _evidence_hits(sources, lookup: ChunkLookup, raw: list[Hit], shown: list[Hit], judged: list[Hit], matches: dict,
                   q: Query, settings: RetrievalSettings, max_context_chars: int, embedder=None) -> list[Hit]:
    """`judged` (RRF's top hits, unfinished) finished as `_finish` finishes the shown hits: a chunk among the shown
    hits (`raw`, finished as `shown`) is taken from them — the same chunk gets the same window and focus — and
    only the others are focused (their passages scored for the first time)."""
    done = dict(zip((id(h.chunk) for h in raw), shown)) if len(raw) == len(shown) else {}
    rest = _finish(sources, lookup, [h for h in judged if id(h.chunk) not in done], matches, q, settings,
                   max_context_chars, embedder)
    if len(rest) != sum(id(h.chunk) not in done for h in judged):  # parent sections merged: finish them together
        return _finish(sources, lookup, judged, matches, q, settings, max_context_chars, embedder)
    it = iter(rest)
    return [done[id(h.chunk)] if id(h.chunk) in done else next(it) for h in judged]


def _distinct(fused: list, matches: dict, settings: RetrievalSettings) -> list:
    """`fused` without near-copies of a better entry (`retrieval.dedup_cosine`, dedup.py)."""
    if not matches or settings.dedup_cosine >= 1.0:
        return fused
    keep = keep_distinct([m.vector if (m := matches.get(f.key)) is not None else None for f in fused],
                         settings.dedup_cosine)
    return [f for f, k in zip(fused, keep) if k]


def _fuse(scored: dict, rankings: dict, weights: dict, bonus: dict, settings: RetrievalSettings,
          depth: int) -> list | None:
    """The candidates fused (`fuse.py`): by `convex_fusion` when `retrieval.fusion` is "convex" and the lists are
    the built-in vector and BM25 signals with comparable scores — vector weight `convex_alpha` (times the share of
    chunks embedded, as RRF's), BM25 1 - alpha, the cosine normalised from the relevance floor `min_similarity`,
    the exact-match bonus worth as many BM25 first places as under RRF (`_convex_bonus`); each source lists at
    most `depth` candidates per signal, so a shorter list is complete. None when the candidates are to be fused by
    weighted RRF (`fuse.reciprocal_rank_fusion`) — also while only part of the chunks are embedded."""
    if (settings.fusion != "convex" or not set(scored) <= {"vector", "bm25"}
            or isinstance(scored.get("bm25"), _Ranked)):
        return None
    alpha = settings.convex_alpha
    coverage = weights["vector"] / settings.vector_weight if settings.vector_weight else 0.0
    if 0.0 < coverage < 1.0:
        # During a cold embedding the vector list scores only the chunks embedded so far: a chunk still waiting has no
        # cosine, not a cosine of 0, so the scores are not comparable and weighted RRF (whose vector weight scales
        # with the coverage) fuses until every chunk is embedded.
        return None
    lists = {name: sorted(lst, key=lambda kv: -kv[1])[:len(rankings[name])] for name, lst in scored.items()}
    return convex_fusion(lists, {"vector": alpha * coverage, "bm25": 1.0 - alpha},
                         {"vector": settings.min_similarity, "bm25": 0.0},
                         _convex_bonus(bonus, lists.get("bm25", []), settings), depth=depth)


def _convex_bonus(bonus: dict, bm25: Sequence[tuple[Key, float]], settings: RetrievalSettings) -> dict:
    """The exact-match bonus (`_exact_match_bonus`: BM25's top-3 chunks holding every content word) on the convex
    scale: `top_rank_bonus` x the chunk's BM25 score / BM25's best score, in BM25 first places (rrf_k + 1 /
    bm25_weight) x the BM25 weight 1 - convex_alpha — BM25's first exact match gets what it got under RRF (1.22 at
    the defaults, above any fused score: an exact identifier match still comes first). The 2nd-3rd get their
    score's share of it, not RRF's rank step `top3_rank_bonus` (0.02 of 0.05 whatever the scores): with two exact
    matches of nearly the same BM25 score (Flask's "url_for" endpoint question: 10.42 against 10.40; the Rust
    book's "Cargo.toml": the workspaces page against the gold, vector rank 1), the cosine, not BM25's rank, decides
    which comes first (bench/history/sessions-38-39.md, "Exact-match bonus on the convex scale"). `bm25`: the (key, score) list,
    best first."""
    if not bonus or not bm25 or not settings.bm25_weight:
        return {}
    best = bm25[0][1]
    scores = dict(bm25)
    worth = settings.top_rank_bonus * (settings.rrf_k + 1.0) / settings.bm25_weight * (1.0 - settings.convex_alpha)
    return {key: worth * min(1.0, scores.get(key, 0.0) / best) if best > 0 else 0.0
            for key, b in bonus.items() if b}


class _Ranked(list):
    """A merged BM25 list of (key, score) already in its final order (sources with incomparable scores
    interleaved by rank, in source order)."""


def _merge_candidates(sources, per_source: Sequence[Candidates], asked: Sequence[str]):
    """The sources' candidates as the pipeline's: ({signal: [(key, score)]}, {key: cosine}, {key: best window},
    {key: Chunk}). Vector lists are merged by cosine; BM25 lists by score among sources whose scores are
    comparable (`Source.bm25_comparable`: tantivy over their own chunks), and those merged lists interleaved by
    rank with the others'."""
    scored: dict[str, list] = {}
    similarity: dict[Key, float] = {}
    matches: dict[Key, object] = {}
    known: dict[Key, Chunk] = {}
    for i, c in enumerate(per_source):
        similarity.update(((i, cid), s) for cid, s in c.similarity.items())
        matches.update(((i, cid), m) for cid, m in c.matches.items())
        known.update(((i, cid), ch) for cid, ch in c.chunks.items())
    for signal in asked:
        if signal == "vector":
            scored["vector"] = [((i, cid), s) for i, c in enumerate(per_source) for cid, s in c.lists.get(signal, [])]
            continue
        groups: list[list] = []
        comparable: list | None = None
        for i, c in enumerate(per_source):
            lst = [((i, cid), s) for cid, s in c.lists.get(signal, [])]
            if not sources[i].bm25_comparable:
                groups.append(lst)
            elif comparable is None:
                comparable = lst
                groups.append(comparable)
            else:
                comparable += lst
        if len(groups) <= 1:
            scored[signal] = groups[0] if groups else []
            continue
        groups = [sorted(g, key=lambda kv: -kv[1]) for g in groups]
        scored[signal] = _Ranked(g[pos] for pos in range(max(map(len, groups))) for g in groups if pos < len(g))
    return scored, similarity, matches, known


def _term_stats(sources, per_source: Sequence[Candidates], q: Query) -> tuple[tuple[int, dict[str, int]], ...]:
    """Each source's (chunk count, {query term or its other spelling's term: document frequency}) for the abstention
    evidence (`abstention.evidence_terms`): its pool's when it scored BM25 over its candidates, else its corpus'.
    Sources without BM25 are left out."""
    terms = evidence_terms(q.terms)  # with their other English spellings' terms (colour / color)
    return tuple(c.stats if c.stats is not None else src.term_stats(terms)
                 for src, c in zip(sources, per_source) if src.has_bm25 or c.stats is not None)


def _corpus_wide(sources, per_source: Sequence[Candidates]) -> bool:
    """Whether every source has corpus-wide BM25 statistics (not a candidate pool's, `Candidates.stats`): only then
    does a document frequency of 0 mean that no chunk holds a term."""
    return bool(sources) and all(c.stats is None and src.has_bm25 for src, c in zip(sources, per_source))


def _absent_names(sources, per_source: Sequence[Candidates], q: Query) -> tuple[str, ...]:
    """The question's names that no source mentions (`abstention.absent_names`), judged only when every source has
    corpus-wide BM25 statistics: a pool's statistics, or a source without BM25, cannot tell that a name is absent
    (then ())."""
    terms = lookup_terms(q.text)  # the names' terms and their closed-up forms; none without a name
    if not terms or not _corpus_wide(sources, per_source):
        return ()

    def phrase(terms) -> bool:  # a source that cannot look phrases up counts it as present
        return any(getattr(src, "phrase_count", None) is None or src.phrase_count(terms) for src in sources)

    return absent_names(tuple(src.term_stats(terms) for src in sources), q.text, phrase)


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


def _finish(sources, lookup: ChunkLookup, hits: list[Hit], matches: dict, q: Query, settings,
            max_context_chars: int, embedder=None) -> list[Hit]:
    """Add each hit's context window (best window, else keyword lines) and its focus, the answering sentence in
    it (`answer/focus.sentence_focus`: by the passages' words, and with `embedder` and the query's vector by their
    meaning too where their sentences' vectors are at hand, `Embedder.known_vectors`: the index's sentence pass
    stored them or an answer embedded them; the model never runs here); with `parent_document`, grow each hit to its section."""
    out = []
    for hit in hits:
        m = matches.get(lookup.key_of.get(id(hit.chunk)))
        if m is not None:
            window = line_span(hit.chunk, m.start_line, m.end_line)
        else:
            window = keyword_focus(hit.chunk, q.focus_terms)
        out.append(replace(hit, focus=window, window=window) if window is not None else hit)
    embed = None if q.vector is None else getattr(embedder, "known_vectors", None)  # never the model: see there
    out = sentence_focus(out, q.text, file_filters(sources), embed, q.vector)
    if settings.parent_document:
        from ragls.retrieval.parent import expand_hits

        def chunks_of(hit: Hit):
            key = lookup.key_of.get(id(hit.chunk))
            return sources[key[0]].chunks_of(hit.chunk.document) if key is not None else []

        out = expand_hits(out, chunks_of, max_context_chars)
    return out


def _exact_match_bonus(lookup: ChunkLookup, q: Query, bm25_ranking, settings: RetrievalSettings) -> dict:
    """{key: bonus} for BM25's top-3 chunks that contain every content word of the query literally, and each
    compound identifier it names (`get_worktrees`, `Rc::weak_count`; `_named_compounds`) as written, in any case:
    `top_rank_bonus` for the 1st, `top3_rank_bonus` for the 2nd-3rd (fuse.py says why; convex fusion rescales
    them, `_convex_bonus`). A chunk holding "get" and "worktrees" apart is no exact match of `get_worktrees`."""
    top = list(bm25_ranking[:3])
    if not top or not (settings.top_rank_bonus or settings.top3_rank_bonus):
        return {}
    words = set(q.content_words)
    if not words:
        return {}
    found = lookup(top)
    compounds = _named_compounds(q.compounds)
    return {key: settings.top_rank_bonus if rank == 1 else settings.top3_rank_bonus
            for rank, key in enumerate(top, 1)
            if key in found and has_words(found[key], words) and _has_compounds(found[key], compounds)}


def _named_compounds(compounds: Sequence[str]) -> tuple[str, ...]:
    """The query's compound identifiers (`Query.compounds`) lower-cased, without those that name nothing: no
    letter ("2.0") or only one-character parts ("e.g", "i.e")."""
    return tuple(c.lower() for c in compounds
                 if any(ch.isalpha() for ch in c) and any(len(p) > 1 for p in re.split(r"_+|\.|::", c)))


def _has_compounds(chunk, compounds: Sequence[str]) -> bool:
    """True when the chunk's title or text holds each of `compounds` (lower-cased) literally, in any case."""
    if not compounds:
        return True
    text = f"{chunk.title}\n{chunk.text}".lower()
    return all(c in text for c in compounds)


def _document_priors(lookup: ChunkLookup, q: Query, fused: list, top_k: int, settings: RetrievalSettings,
                     reference: bool = False) -> list:
    """`fused` with the bookkeeping pages' chunks (changelog, release notes, contributing; doc_kind.py) among the
    first `prior_head(top_k)` scored × `retrieval.meta_page_weight` and without the exact-match bonus (kept when the
    question names a compound identifier), unless the question asks about changes (`fuse.apply_prior`); with
    `reference`, API reference entries among them too × `retrieval.reference_entry_weight` unless the question names
    an identifier (`doc_kind.reference_factors`), stub chunks without the exact-match bonus ×
    `retrieval.stub_chunk_weight` (`doc_kind.stub_factors`), API pages' chunks without it ×
    `retrieval.api_page_weight` (`doc_kind.api_page_factors`) and, also without it, chunks of lines repeated on other
    pages × down to `retrieval.repeated_block_weight` and further as the question's terms they hold are held only there
    (`doc_kind.repeated_block_factors`, among those chunks), and chunks holding a message the question quotes ×
    `retrieval.quoted_message_weight` (`doc_kind.quoted_factors`, above 1), and chunks holding names the question writes
    as names (`--strict`, `warn_unreachable`) × up to `retrieval.written_name_weight` (`doc_kind.written_factors`); a chunk
    of several kinds gets every factor. Then, with `reference` and a question asking for a setting, the settings
    pages' chunks among the first `doc_kind.SETTINGS_HEAD` entries of that order (without the exact-match bonus) ×
    `retrieval.settings_page_weight` (`doc_kind.settings_factors`, above 1). Only those
    chunks are looked up (the ones `_materialize` fetches next anyway); a demoted chunk falls among them. With
    `reference`, the entries a demotion lifts into that head from below are weighed in turn, until
    that head holds only weighed entries: a 7,129-line changelog has hundreds of candidate chunks, and those below
    the head would otherwise fill the places its demoted chunks left (the repeated lines of a lifted chunk are
    judged against every chunk weighed so far). The abstention evidence's RRF list gets the bookkeeping factor
    only, on the first head, as when the abstention model was fitted."""
    weight = settings.reference_entry_weight if reference else 1.0
    stub = settings.stub_chunk_weight if reference else 1.0
    api = settings.api_page_weight if reference else 1.0
    repeated = settings.repeated_block_weight if reference else 1.0
    quoted = settings.quoted_message_weight if reference else 1.0
    setting = settings.settings_page_weight if reference else 1.0
    written = settings.written_name_weight if reference else 1.0
    names = written_names(q.text, _named_compounds(q.compounds)) if written != 1.0 else []
    if (settings.meta_page_weight >= 1.0 and weight >= 1.0 and stub >= 1.0 and api >= 1.0 and repeated >= 1.0
            and quoted == 1.0 and setting == 1.0 and not names) \
            or not fused:
        return fused
    size = prior_head(top_k)
    weighed: set = set()  # every key whose kinds were weighed
    judged: list = []  # their (key, chunk) pairs without the exact-match bonus: the repeated lines' other pages
    matched = {f.key for f in fused[:size] if f.contributions.get("bonus")}
    chunk_of: dict = {}  # the chunks looked up so far, by key
    new = fused[:size]
    while new:  # a demotion lifts entries from below the head into it (a long changelog's next chunks): weigh them too
        weighed.update(f.key for f in new)
        chunk_of.update(lookup([f.key for f in new]))
        chunks = [(f.key, chunk_of[f.key]) for f in new if f.key in chunk_of]
        fresh = [(k, c) for k, c in chunks if k not in matched]
        judged += fresh
        factors = meta_factors(q.text, chunks, settings.meta_page_weight)
        repeated_factors = repeated_block_factors(judged, repeated, q.focus_terms)
        for key, factor in (*reference_factors(q.text, chunks, weight).items(), *stub_factors(fresh, stub).items(),
                            *api_page_factors(fresh, api).items(),
                            *((k, repeated_factors[k]) for k, _ in fresh if k in repeated_factors),
                            *quoted_factors(q.text, fresh, quoted).items(), *written_factors(names, fresh, written).items()):
            factors[key] = factors.get(key, 1.0) * factor
        fused = apply_prior(fused, factors, keep_bonus=bool(q.compounds))
        new = [f for f in fused[:size] if f.key not in weighed] if reference else []
    if setting != 1.0:  # the head's chunks were all weighed above, so looked up already
        head = [f.key for f in fused[:SETTINGS_HEAD] if not f.contributions.get("bonus")]
        fused = apply_prior(fused, settings_factors(q.text, [(k, chunk_of[k]) for k in head if k in chunk_of], setting))
    return fused


def _page_support(lookup: ChunkLookup, fused: list, settings: RetrievalSettings) -> list:
    """`fused` (convex scores, after the priors and near-copy removal) with `fuse.page_support` at
    `retrieval.page_support_weight` over its first `PAGE_HEAD` entries: each raised by the weight x its page's
    second-best score there / the first's; then a tie for the first place broken by BM25 (`fuse.lexical_tie_break`). Their chunks are mostly looked up already (`_document_priors`' head at
    top_k 10); the head does not depend on top_k, so rag/query at k 5 and `ragls eval` at 10 rank alike."""
    if settings.page_support_weight <= 0:
        return fused
    found = lookup([f.key for f in fused[:PAGE_HEAD]])
    pages = {k: c.document for k, c in found.items()}
    return lexical_tie_break(page_support(fused, pages, settings.page_support_weight, PAGE_HEAD), pages)


def _sentence_rerank(sources, lookup: ChunkLookup, fused: list, q: Query, settings: RetrievalSettings,
                     embedder) -> list:
    """`fused` (convex scores, after page support) with its first `sentence_rank.SENTENCE_HEAD` entries raised by
    `retrieval.sentence_weight` x their page's best answer-sentence cosine among them (the fused first's page x
    `retrieval.sentence_margin` more; with `retrieval.sentence_rare_share` < 1 only sentences holding a question term
    rare among the head's) and re-sorted (`sentence_rank.sentence_rerank`), with the sentence vectors at hand only (`Embedder.known_vectors`: the model
    never runs here); unchanged without the question's vector."""
    known = getattr(embedder, "known_vectors", None)
    if settings.sentence_weight <= 0 or q.vector is None or known is None:
        return fused
    chunks = lookup([f.key for f in fused[:SENTENCE_HEAD]])
    return sentence_rerank(fused, chunks, known, q.vector, settings.sentence_weight, file_filters(sources),
                           margin=settings.sentence_margin, terms=q.focus_terms,
                           rare_share=settings.sentence_rare_share, first_only=settings.sentence_first_only)


def _materialize(lookup: ChunkLookup, fused, similarity, top_k: int) -> list[Hit]:
    """Fetch chunks for the fused keys in order, skipping duplicates of the same text, until top_k."""
    hits: list[Hit] = []
    seen_text: set[str] = set()
    pos = 0
    while len(hits) < top_k and pos < len(fused):
        window = fused[pos:pos + top_k * 2]
        pos += len(window)
        found = lookup([f.key for f in window])
        for f in window:
            chunk = found.get(f.key)
            if chunk is None or not chunk.text or chunk.text_hash in seen_text:
                continue  # deleted since it was ranked, empty, or the same text seen already
            seen_text.add(chunk.text_hash)
            hits.append(Hit(chunk=chunk, score=f.score, signals={k: float(v) for k, v in f.ranks.items()},
                            similarity=similarity.get(f.key)))
            if len(hits) == top_k:
                break
    return hits
