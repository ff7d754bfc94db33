"""BM25 pseudo-relevance feedback, RM3 style: expand the query with terms of the first-pass top chunks.

Relevance model RM1 (Lavrenko & Croft 2001, "Relevance-based language models") interpolated with the original
query — RM3 (Abdul-Jaleel et al. 2004, "UMass at TREC 2004") — computed as Anserini's `Rm3Reranker` does
(Lin et al.; castorini/anserini `rerank/lib/Rm3Reranker.java`):

1. First pass: BM25 top `fb_docs` chunks with their scores s_d (the plain `Bm25Store.search`).
2. Each feedback chunk d gives a term-frequency vector over its indexed `body` terms (the index's own analyzer,
   English stop words left out), keeping terms of 2-20 characters whose document frequency is at most 10 % of
   the chunks (Anserini's df cut, castorini/anserini PR 289), pruned to its `fb_terms` most frequent terms.
3. Relevance model: P(w|R) ∝ sum_d s_d · tf(w, d) / |d|, pruned to the `fb_terms` heaviest terms and scaled to
   sum 1.
4. Query model: the query's terms, counted (a chat follow-up's borrowed word at its weight, `query.CONTEXT_WEIGHT`,
   here and in the first pass, as plain BM25 weighs it), scaled to sum 1. Expanded query:
   w(t) = λ · P(t|Q) + (1 − λ) · P(t|R), λ = `query_weight`.
5. Second pass: BM25 over the whole index with the weighted term query (`Bm25Store.search_terms`: each term's
   BM25 score times its weight, in the title and body fields). The second pass's ranking is the BM25 signal.

Defaults (settings `retrieval.bm25_feedback_*`): fb_docs 10, fb_terms 10, λ 0.5 — Anserini's BM25+RM3 defaults
(`-rm3.fbDocs 10 -rm3.fbTerms 10 -rm3.originalQueryWeight 0.5`, docs/regressions and `SearchArgs.java`).
User text only ever becomes analyzed terms; nothing is parsed as query syntax.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ragls.core.analysis import content_words

if TYPE_CHECKING:
    from ragls.stores.bm25 import Bm25Store

MAX_DF_RATIO = 0.1  # Anserini: a term in more than 10 % of the documents is not a feedback term
MIN_TERM_CHARS, MAX_TERM_CHARS = 2, 20  # Anserini: feedback terms of 2-20 characters


def _top(weights: dict[str, float], n: int) -> dict[str, float]:
    """The `n` heaviest entries (ties broken by term, so results are reproducible)."""
    return dict(sorted(weights.items(), key=lambda kv: (-kv[1], kv[0]))[:n])


def _unit(weights: dict[str, float]) -> dict[str, float]:
    total = sum(weights.values())
    return {t: w / total for t, w in weights.items()} if total > 0 else {}


def relevance_model(doc_terms: Sequence[Sequence[str]], scores: Sequence[float], doc_freq: Callable[[str], int],
                    num_docs: int, fb_terms: int) -> dict[str, float]:
    """P(w|R) over the feedback chunks (step 2-3 above): {term: weight}, weights summing to 1, at most `fb_terms`
    terms; {} when no chunk has an eligible term.

    `doc_terms[i]` are the analyzed terms of feedback chunk i (repeats count), `scores[i]` its first-pass BM25
    score; `doc_freq(term)` the number of chunks holding the term among `num_docs`.
    """
    df_cache: dict[str, bool] = {}

    def eligible(term: str) -> bool:
        if term not in df_cache:
            df_cache[term] = (MIN_TERM_CHARS <= len(term) <= MAX_TERM_CHARS
                              and doc_freq(term) <= MAX_DF_RATIO * num_docs)
        return df_cache[term]

    model: Counter[str] = Counter()
    for terms, score in zip(doc_terms, scores, strict=True):
        tf = _top({t: n for t, n in Counter(terms).items() if eligible(t)}, fb_terms)
        norm = sum(tf.values())
        if norm <= 0:
            continue
        for term, n in tf.items():
            model[term] += n / norm * score
    return _unit(_top(dict(model), fb_terms))


def expanded_query(query_terms: Sequence[str], model: dict[str, float], query_weight: float,
                   term_weights: Sequence[float] | None = None) -> dict[str, float]:
    """Step 4: {term: weight} = λ · P(t|Q) + (1 − λ) · P(t|R), λ = `query_weight`; P(t|Q) from term counts, each
    occurrence counted as its `term_weights` entry (parallel to `query_terms`; 1 each without: a chat follow-up's
    borrowed words weigh `query.CONTEXT_WEIGHT`). Weights sum to 1 when both parts are non-empty."""
    counts: Counter[str] = Counter()
    for term, w in zip(query_terms, term_weights or [1.0] * len(query_terms), strict=True):
        counts[term] += w
    query = _unit(dict(counts))
    if not model:
        return query
    out = {t: query_weight * w for t, w in query.items()}
    for term, w in model.items():
        out[term] = out.get(term, 0.0) + (1.0 - query_weight) * w
    return out


def feedback_query(store: Bm25Store, text: str, chunk_texts: Callable[[list[str]], dict[str, str]], *,
                   fb_docs: int = 10, fb_terms: int = 10, query_weight: float = 0.5,
                   title_weight: float = 1.0, word_weights: dict[str, float] | None = None) -> dict[str, float]:
    """The expanded query (steps 1-4) for free `text`: {indexed term: weight}; {} when the text has no words.
    Without a first-pass match (or an eligible feedback term) it is the original query's terms alone.

    `chunk_texts(ids)` returns {chunk id: chunk text} (the manifest's; missing ids are skipped). `word_weights`
    ({query word: weight}, `Query.word_weights`: a chat follow-up's borrowed words at `query.CONTEXT_WEIGHT`)
    weighs those words in the first pass (as `Bm25Store.search` does) and their terms in P(t|Q); other words 1.
    """
    weights = word_weights or {}
    weighted = [(t, float(weights.get(w, 1.0))) for w in content_words(text) for t in store.query_terms(w)]
    if not weighted:
        return {}
    first = store.search(text, fb_docs, title_weight=title_weight, weights=weights or None)
    texts = chunk_texts([cid for cid, _ in first]) if first else {}
    fb = [(store.text_terms(texts[cid]), score) for cid, score in first if cid in texts]
    model = relevance_model([t for t, _ in fb], [s for _, s in fb], store.doc_freq, store.num_docs(), fb_terms)
    return expanded_query([t for t, _ in weighted], model, query_weight, [w for _, w in weighted])


def feedback_search(store: Bm25Store, text: str, limit: int, chunk_texts: Callable[[list[str]], dict[str, str]],
                    *, fb_docs: int = 10, fb_terms: int = 10, query_weight: float = 0.5,
                    title_weight: float = 1.0, word_weights: dict[str, float] | None = None
                    ) -> list[tuple[str, float]]:
    """Top `limit` (chunk id, score) of the RM3 second pass (step 5) for free `text`, best first; [] when the
    text has no words. Arguments as `feedback_query`; `title_weight` as `Bm25Store.search`. Raises what the
    store raises (OSError)."""
    weights = feedback_query(store, text, chunk_texts, fb_docs=fb_docs, fb_terms=fb_terms, query_weight=query_weight,
                             title_weight=title_weight, word_weights=word_weights)
    return store.search_terms(weights, limit, title_weight=title_weight)
