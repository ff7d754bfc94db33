"""Abstention: does the index answer this query? One calibrated rule over several pieces of evidence.

A single cosine cannot tell answerable from unanswerable questions (MiniLM: answerable 0.43-0.83, near-miss
unanswerable 0.29-0.63 on real docs). The evidence, gathered once per query from the retrieval results:

- `cosine`: the best vector cosine over all vector candidates (`RetrievalResult.best_similarity`);
- `coverage`: the IDF-weighted share of the query's indexed terms (BM25's own analysis: stemmed content words,
  compound identifiers split) that occur in the top hits — title or text; IDF = BM25's
  ln(1 + (N - df + 0.5) / (df + 0.5)) over all searched folders, a term absent from the corpus getting the
  largest IDF. A near miss ("deploy Flask to AWS Lambda") shares the common words but not the rare ones;
- `agreement`: whether BM25 and the vector signal found the same chunks: the largest min(1/rank_vector,
  1/rank_bm25) over the top hits (1.0 when one chunk is first in both lists; 0 when no top hit was seen by both);
- `coverage_top`: the largest IDF-weighted share of the query's terms found in ONE top hit (all key words in one
  passage, not spread over five);
- `missing_idf`: the IDF of the rarest query term found in no top hit, over the largest possible IDF (0 when
  none is missing);
- `focus_coverage`: the largest IDF-weighted share of the query's terms found in one top hit's focus lines (its
  best window, or for a BM25-only hit the lines holding the most query terms): the key words close together, in
  the passage that matched, not scattered over a 2,000-character chunk;
- `cosine_margin`: the best pooled cosine minus the 10th best over the vector candidates (0 with fewer): a flat
  distribution of scores says no chunk matches better than the rest;
- `bm25_top`: the top BM25 score over the largest score the query's terms could reach in a body field,
  (k1 + 1) x the sum of their IDFs (tantivy BM25, k1 = 1.2), capped at 1: how much of the query one chunk matches,
  comparable across queries.

They are combined by a logistic model, P(answerable) = σ(b0 + Σ b_f·f) over the features that have a coefficient
in `COEFFICIENTS` (the others are gathered and reported, weight 0), fitted by `bench/abstention_fit.py` on the
Flask dev set plus bench/abstention.py's far-off questions and tested on the Rust book's. Fitted on one corpus and
tested on the other, coverage_top and missing_idf did not improve the held-out AUROC (docs/benchmarks.md,
"Abstention"); focus_coverage and bm25_top did (Flask 0.824 -> 0.865 / 0.891, Rust book 0.934 -> 0.948 / 0.950)
but no refit abstained on more near misses without refusing more answerable questions at the floor, so the model
uses cosine, coverage and agreement ("Abstention: focus-window, margin and BM25-score evidence"). The query is abstained on when
P < `retrieval.abstention_probability`. Fitted on all-MiniLM-L6-v2 cosines: another embedding model has another
cosine scale, so refit (or lower the floor) when you change it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ragls.core.analysis import stems
from ragls.core.ir import Hit
from ragls.retrieval.query import Query

# Fitted by `python bench/abstention_fit.py --corpora flask-docs` on best-window cosines (docs/benchmarks.md, "Dev
# sets"): 83 questions, 34 answerable, 10 near misses, 39 far-off; on the Rust book (held out) at the default floor
# 0.2 they abstained on 6 of 12 near misses and 3 of 49 answerable questions when fitted, 4 of 12 / 3 of 49 with
# today's windows and title weight (docs/benchmarks.md, "Retrieval quality targets after the window tail"). A refit on both dev sets
# ({"intercept": -6.337, "cosine": 5.175, "coverage": 7.467}) abstained on fewer near misses at that floor (Rust 4
# of 12, Flask 5 of 10, same answerable errors), so these stay. Agreement gets a small negative weight once cosine
# and coverage are in (they carry its information; near misses also find "agreeing" chunks).
COEFFICIENTS = {"intercept": -5.474, "cosine": 3.907, "coverage": 6.44, "agreement": -0.611}

FEATURES = ("cosine", "coverage", "agreement", "coverage_top", "missing_idf", "focus_coverage", "cosine_margin",
            "bm25_top")
BM25_K1 = 1.2  # tantivy's BM25 k1: a term's body score is below (k1 + 1) x its IDF
MARGIN_RANK = 10  # cosine_margin: best cosine minus the cosine at this rank


@dataclass(frozen=True)
class Evidence:
    """What retrieval saw for one query (see the module docstring); each value in [0, 1] except the cosine
    ([-1, 1]); `cosine` None without vector evidence (vectors still being computed)."""

    cosine: float | None
    coverage: float
    agreement: float
    coverage_top: float = 1.0
    missing_idf: float = 0.0
    focus_coverage: float = 1.0
    cosine_margin: float = 0.0
    bm25_top: float = 0.0

    def probability(self, coefficients: dict[str, float] = COEFFICIENTS) -> float | None:
        """P(the index answers the query) under the logistic model; None without a cosine. A feature without a
        coefficient counts 0."""
        if self.cosine is None:
            return None
        z = coefficients["intercept"] + sum(coefficients.get(f, 0.0) * getattr(self, f) for f in FEATURES)
        return 1.0 / (1.0 + math.exp(-z))

    @staticmethod
    def most_answerable(parts: Sequence[Evidence | None]) -> Evidence | None:
        """The evidence of several knowledge bases searched for one query, combined: the part most likely to
        answer it (highest `probability()`; a part without a probability — no vector evidence yet — counts as
        the most likely, so rule 1 of `search.abstained` never abstains on its account). None when `parts` is
        empty or some part has no evidence at all (that knowledge base is judged by the cosine floor alone)."""
        if not parts or any(p is None for p in parts):
            return None

        def rank(e: Evidence) -> tuple[int, float]:
            p = e.probability()
            return (1, 0.0) if p is None else (0, p)

        return max(parts, key=rank)


def idf(df: int, n: int) -> float:
    """BM25's (Lucene/tantivy) inverse document frequency: ln(1 + (n - df + 0.5) / (df + 0.5))."""
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


def term_weights(stats: Sequence[tuple[int, dict[str, int]]], query: Query) -> tuple[dict[str, float], float]:
    """({stemmed query term: BM25 IDF over all searched sources}, the largest possible IDF ln(1 + (n + 0.5) / 0.5)
    of a term found nowhere); `stats` holds each source's (chunk count, {term: document frequency})
    (`Source.term_stats`, or the candidate pool's for a source that scores BM25 over its candidates);
    ({}, 1.0) without sources or terms."""
    if not stats:
        return {}, 1.0
    n = sum(count for count, _ in stats)
    return {t: idf(sum(dfs.get(t, 0) for _, dfs in stats), n) for t in query.terms}, idf(0, n)


def term_coverage(stats: Sequence[tuple[int, dict[str, int]]], query: Query, hits: Sequence[Hit]) -> float:
    """IDF-weighted share (0..1) of the query's BM25 terms (its searched words, stemmed) found in the hits' titles
    or texts. 1.0 for a query without terms (nothing to miss) or without sources."""
    weights, _ = term_weights(stats, query)
    return _coverages(weights, [_stems_of(h) for h in hits])[0]


def _stems_of(hit: Hit) -> set[str]:
    return set(stems(f"{hit.chunk.title}\n{hit.chunk.text}"))


def _coverages(weights: dict[str, float], seen_per_hit: Sequence[set[str]]) -> tuple[float, float]:
    """(IDF share of the terms found in any hit, largest IDF share found in one hit); 1.0 each without terms."""
    total = sum(weights.values())
    if not weights or total <= 0:
        return 1.0, 1.0
    seen = set().union(*seen_per_hit) if seen_per_hit else set()
    union = sum(w for t, w in weights.items() if t in seen) / total
    top = max((sum(w for t, w in weights.items() if t in s) / total for s in seen_per_hit), default=0.0)
    return union, top


def signal_agreement(hits: Sequence[Hit]) -> float:
    """max over `hits` of min(1 / vector rank, 1 / BM25 rank); 0 when no hit has both ranks."""
    best = 0.0
    for hit in hits:
        v, b = hit.signals.get("vector"), hit.signals.get("bm25")
        if v and b:
            best = max(best, min(1.0 / v, 1.0 / b))
    return best


def _focus_stems(hit: Hit) -> set[str]:
    """BM25 terms of the hit's context window (`Hit.window`, else its focus lines; all of its title and text without
    either); the title counts, as it prefixes every window."""
    focus = hit.window or hit.focus
    if focus is None:
        return _stems_of(hit)
    lines = hit.chunk.text.splitlines()
    a = max(0, focus.start_line - hit.chunk.span.start_line)
    b = max(a, focus.end_line - hit.chunk.span.start_line)
    return set(stems(hit.chunk.title + "\n" + "\n".join(lines[a:b + 1])))


def cosine_margin(similarities: Sequence[float] | None, rank: int = MARGIN_RANK) -> float:
    """Best minus the `rank`-th best of `similarities` (pooled cosines of the vector candidates); 0 with fewer."""
    if not similarities or len(similarities) < rank:
        return 0.0
    ordered = sorted(similarities, reverse=True)
    return float(ordered[0] - ordered[rank - 1])


def gather(stats: Sequence[tuple[int, dict[str, int]]], query: Query, hits: Sequence[Hit], best_similarity: float | None,
           similarities: Sequence[float] | None = None, bm25_top: float | None = None) -> Evidence:
    """The Evidence for the analysed `query` from its top `hits` (best first, with their focus lines) over
    sources with the term statistics `stats` (`term_weights`); `best_similarity` is the best cosine over all vector candidates (None without
    vectors), `similarities` every vector candidate's pooled cosine, `bm25_top` the best raw BM25 score (None
    without BM25). All from what retrieval computed already: no search is repeated."""
    sims = [h.similarity for h in hits if h.similarity is not None]
    if best_similarity is not None:
        sims.append(best_similarity)
    weights, max_idf = term_weights(stats, query)
    seen = [_stems_of(h) for h in hits]
    union, top = _coverages(weights, seen)
    _, focus_top = _coverages(weights, [_focus_stems(h) for h in hits])
    found = set().union(*seen) if seen else set()
    missing = max((w for t, w in weights.items() if t not in found), default=0.0) / max_idf if max_idf > 0 else 0.0
    reach = (BM25_K1 + 1.0) * sum(weights.values())
    bm25 = min(1.0, bm25_top / reach) if bm25_top and reach > 0 else 0.0
    return Evidence(cosine=max(sims) if sims else None, coverage=union, agreement=signal_agreement(hits),
                    coverage_top=top, missing_idf=min(1.0, missing), focus_coverage=focus_top,
                    cosine_margin=cosine_margin(similarities), bm25_top=bm25)
