"""Ranking metrics (trec_eval definitions) for `ragls eval` and the benchmarks, per query; average them over
queries yourself.

`run` is a list of document ids, best first (duplicates must already be removed). `qrels` maps a document id to
its gain (> 0 relevant; 0 or absent not relevant). Unjudged documents count as not relevant.

- ndcg_at(run, qrels, k): DCG@k / IDCG@k with linear gain and log2(rank + 1) discount (trec_eval `ndcg_cut`);
  the ideal ranking sorts all judged gains, not just the retrieved ones. 0.0 when nothing is relevant.
- average_precision_at(run, qrels, k): sum of precision@rank at each relevant rank <= k, divided by the number of
  relevant documents (trec_eval `map_cut`, so relevant documents not retrieved count as 0).
- recall_at(run, qrels, k): relevant documents in the top k / all relevant documents.
- reciprocal_rank_at(run, qrels, k): 1 / rank of the first relevant document within the top k, else 0.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence


def _relevant(qrels: Mapping[str, float]) -> set[str]:
    return {d for d, g in qrels.items() if g > 0}


def ndcg_at(run: Sequence[str], qrels: Mapping[str, float], k: int) -> float:
    dcg = sum(qrels.get(d, 0.0) / math.log2(i + 2) for i, d in enumerate(run[:k]) if qrels.get(d, 0.0) > 0)
    ideal = sorted((g for g in qrels.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def average_precision_at(run: Sequence[str], qrels: Mapping[str, float], k: int) -> float:
    rel = _relevant(qrels)
    if not rel:
        return 0.0
    hits, total = 0, 0.0
    for i, d in enumerate(run[:k]):
        if d in rel:
            hits += 1
            total += hits / (i + 1)
    return total / len(rel)


def recall_at(run: Sequence[str], qrels: Mapping[str, float], k: int) -> float:
    rel = _relevant(qrels)
    if not rel:
        return 0.0
    return len(rel.intersection(run[:k])) / len(rel)


def reciprocal_rank_at(run: Sequence[str], qrels: Mapping[str, float], k: int) -> float:
    rel = _relevant(qrels)
    for i, d in enumerate(run[:k]):
        if d in rel:
            return 1.0 / (i + 1)
    return 0.0


METRICS = {
    "nDCG@10": lambda run, q: ndcg_at(run, q, 10),
    "MAP@100": lambda run, q: average_precision_at(run, q, 100),
    "R@10": lambda run, q: recall_at(run, q, 10),
    "R@100": lambda run, q: recall_at(run, q, 100),
    "MRR@10": lambda run, q: reciprocal_rank_at(run, q, 10),
}


def evaluate(runs: Mapping[str, Sequence[str]], qrels: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    """Mean of every metric in METRICS over the queries of `qrels` (a query missing from `runs` scores 0)."""
    out = {}
    for name, fn in METRICS.items():
        vals = [fn(list(runs.get(q, [])), rel) for q, rel in qrels.items()]
        out[name] = sum(vals) / len(vals) if vals else 0.0
    return out
