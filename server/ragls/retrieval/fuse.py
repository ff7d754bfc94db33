"""Weighted Reciprocal Rank Fusion.

score(d) = sum over signals s of w_s / (k + rank_s(d)), ranks starting at 1 (Cormack, Clarke & Buettcher,
"Reciprocal Rank Fusion outperforms Condorcet and individual Rank Learning Methods", SIGIR 2009; k = 60 there).
ragls weights: vector 1.125, BM25 1.0, graph 0.9. A document missing from a signal's list gets nothing from it.

Bonus (optional, per key): with truncated lists, a chunk that only BM25 ranks first — the only chunk holding a
rare identifier, whose embedding says little — scores 1/61 and sinks under several hits the vector signal ranks
1-8 (1.125/61...1.125/68). search.py gives BM25's top-3 chunks that contain every content word of the query
qmd's top-rank bonus (+0.05 for 1st, +0.02 for 2nd-3rd). Applied to every top-ranked chunk, as qmd does, it cost
0.012 nDCG@10 on Cranfield's long questions (docs/benchmarks.md); restricted to exact matches it is neutral there.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field

from ragls.core.telemetry import traced

DEFAULT_WEIGHTS = {"vector": 1.125, "bm25": 1.0, "graph": 0.9}


@dataclass
class Fused:
    """One fused result: `key`, its RRF `score`, its 1-based rank per signal and each signal's contribution."""

    key: Hashable
    score: float = 0.0
    ranks: dict[str, int] = field(default_factory=dict)
    contributions: dict[str, float] = field(default_factory=dict)


@traced("fusion.rrf")
def reciprocal_rank_fusion(rankings: Mapping[str, Sequence[Hashable]], weights: Mapping[str, float] | None = None,
                           k: float = 60.0, bonus: Mapping[Hashable, float] | None = None) -> list[Fused]:
    """Fuse ranked lists: `rankings[signal]` is a list of keys, best first (duplicates after the first ignored).

    `bonus[key]` is added to that key's score (contribution "bonus"; keys in no list are ignored). Returns Fused
    results sorted by score (ties broken by the best single rank, then by first
    appearance). The contributions of each result sum to its score (`contributions` is the explain trace).
    Raises ValueError when k <= 0.
    """
    if k <= 0:
        raise ValueError("RRF k must be positive")
    weights = DEFAULT_WEIGHTS if weights is None else weights
    fused: dict[Hashable, Fused] = {}
    order: dict[Hashable, int] = {}
    for signal, keys in rankings.items():
        w = weights.get(signal, 1.0)
        rank = 0
        for key in keys:
            item = fused.get(key)
            if item is None:
                item = fused[key] = Fused(key)
                order[key] = len(order)
            if signal in item.ranks:
                continue
            rank += 1
            item.ranks[signal] = rank
            item.contributions[signal] = w / (k + rank)
            item.score += item.contributions[signal]
    for key, extra in (bonus or {}).items():
        item = fused.get(key)
        if item is not None and extra:
            item.contributions["bonus"] = extra
            item.score += extra
    return sorted(fused.values(), key=lambda f: (-f.score, min(f.ranks.values()), order[f.key]))


def apply_prior(fused: list[Fused], factors: Mapping[Hashable, float], keep_bonus: bool = False) -> list[Fused]:
    """`fused` with each listed key's score replaced by `factors[key]` x its score without the exact-match bonus,
    re-sorted as `reciprocal_rank_fusion` sorts: a document prior (e.g. the bookkeeping pages'
    `retrieval.meta_page_weight`, doc_kind.py). A factor below 1 also withdraws the bonus — a changelog's literal
    match of a usage question's words says nothing about where it is answered — unless `keep_bonus` (the question
    names an identifier: the only chunk holding it still comes first), when the bonus is added back unscaled.
    The change is the contribution "prior" (negative for a factor below 1), so contributions still sum to the
    score. Keys not in `factors`, and factors of 1, are unchanged; an empty `factors` returns `fused` itself."""
    if not factors:
        return fused
    order = {id(f): i for i, f in enumerate(fused)}
    for f in fused:
        factor = factors.get(f.key)
        if factor is not None and factor != 1.0:
            bonus = f.contributions.get("bonus", 0.0)
            delta = (f.score - bonus) * factor + (bonus if keep_bonus else 0.0) - f.score
            f.contributions["prior"] = delta
            f.score += delta
    return sorted(fused, key=lambda f: (-f.score, order[id(f)]))
