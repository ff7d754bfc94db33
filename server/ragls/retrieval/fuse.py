"""Weighted Reciprocal Rank Fusion.

score(d) = sum over signals s of w_s / (k + rank_s(d)), ranks starting at 1 (Cormack, Clarke & Buettcher,
"Reciprocal Rank Fusion outperforms Condorcet and individual Rank Learning Methods", SIGIR 2009; k = 60 there).
ragls weights: vector 1.125, BM25 1.0, graph 0.9. A document missing from a signal's list gets nothing from it.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field

DEFAULT_WEIGHTS = {"vector": 1.125, "bm25": 1.0, "graph": 0.9}


@dataclass
class Fused:
    """One fused result: `key`, its RRF `score`, its 1-based rank per signal and each signal's contribution."""

    key: Hashable
    score: float = 0.0
    ranks: dict[str, int] = field(default_factory=dict)
    contributions: dict[str, float] = field(default_factory=dict)


def reciprocal_rank_fusion(rankings: Mapping[str, Sequence[Hashable]], weights: Mapping[str, float] | None = None,
                           k: float = 60.0) -> list[Fused]:
    """Fuse ranked lists: `rankings[signal]` is a list of keys, best first (duplicates after the first ignored).

    Returns Fused results sorted by score (ties broken by the best single rank, then by first appearance).
    The contributions of each result sum to its score (`contributions` is the explain trace).
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
    return sorted(fused.values(), key=lambda f: (-f.score, min(f.ranks.values()), order[f.key]))
