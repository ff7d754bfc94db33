"""Fusion of the signals' ranked lists: convex combination of normalised scores (the default), or weighted
Reciprocal Rank Fusion.

Convex (`convex_fusion`, `retrieval.fusion = "convex"`): score(d) = sum over signals s of w_s x n_s(d), where
n_s(d) = (score_s(d) - floor_s) / (top_s - floor_s), clipped to [0, 1]: top_s is the best score in the signal's list
and floor_s the score that means "unrelated" — the relevance floor `retrieval.min_similarity` for the cosine, 0 for
BM25 (Bruch, Gai & Ingber, "An Analysis of Fusion Functions for Hybrid Retrieval", ACM TOIS 2023: a convex
combination of theoretically min-max normalised scores beats RRF in and out of domain; the list's own lowest score
as the minimum, "min-max", is what they warn against). A chunk missing from a truncated list gets that list's last score (an
upper bound of what it would have scored, so a chunk one signal ranks first by a wide margin is not outvoted by
chunks both signals rank midway, and one the other signal missed keeps most of its evidence). Weights: the vector
signal `retrieval.convex_alpha` (0.6), BM25 1 - alpha. RRF sees ranks only: where the cosine of the page that
answers is far above the rest and BM25's scores are close, a rank-2/rank-2 chunk and a rank-1/rank-3 chunk tie.

RRF (`reciprocal_rank_fusion`):

score(d) = sum over signals s of w_s / (k + rank_s(d)), ranks starting at 1 (Cormack, Clarke & Buettcher,
"Reciprocal Rank Fusion outperforms Condorcet and individual Rank Learning Methods", SIGIR 2009; k = 60 there).
ragls weights: vector 1.125, BM25 1.0, graph 0.9. A document missing from a signal's list gets nothing from it.

Bonus (optional, per key): with truncated lists, a chunk that only BM25 ranks first — the only chunk holding a
rare identifier, whose embedding says little — scores 1/61 and sinks under several hits the vector signal ranks
1-8 (1.125/61...1.125/68). search.py gives BM25's top-3 chunks that contain every content word of the query
qmd's top-rank bonus (+0.05 for 1st, +0.02 for 2nd-3rd). Applied to every top-ranked chunk, as qmd does, it cost
0.012 nDCG@10 on Cranfield's long questions (bench/history/early-retrieval-quality.md, "Exact identifier matches"); restricted to exact matches it is neutral there.
Under convex fusion the bonus is expressed in BM25 first places and the 2nd-3rd exact matches get their BM25 score's
share of the 1st's (`search._convex_bonus`), not RRF's rank step.
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
    return _with_bonus(fused, order, bonus)


@traced("fusion.convex")
def convex_fusion(scored: Mapping[str, Sequence[tuple[Hashable, float]]], weights: Mapping[str, float],
                  floors: Mapping[str, float] | None = None, bonus: Mapping[Hashable, float] | None = None,
                  depth: int | None = None) -> list[Fused]:
    """Fuse scored lists by a convex combination of normalised scores (module docstring): `scored[signal]` is
    [(key, score)], best first (a key's later entries ignored); `weights[signal]` its weight (missing: 1);
    `floors[signal]` the score meaning "unrelated" (missing: 0; used only below the list's best score, else the
    list's last score is the floor). A key missing from a list of `depth` items or more (a truncated list; every
    list when `depth` is None) scores that list's last score in it; missing from a shorter list (every match was
    listed: BM25 found no query word in it) it scores 0 there.

    `bonus[key]` is added as in `reciprocal_rank_fusion` (contribution "bonus"). Returns Fused results sorted by
    score (ties broken by the best single rank, then by first appearance); `ranks` holds each list's 1-based rank
    of the key (lists that miss it have none), `contributions` each signal's w_s x n_s and sum to the score."""
    floors = floors or {}
    norm: dict[str, dict[Hashable, float]] = {}
    missing: dict[str, float] = {}
    fused: dict[Hashable, Fused] = {}
    order: dict[Hashable, int] = {}
    for signal, items in scored.items():
        if not items:
            continue
        top = items[0][1]
        last = items[-1][1]
        floor = floors.get(signal, 0.0)
        if floor >= top:
            floor = last if last < top else top - 1.0
        span = top - floor
        seen = norm[signal] = {}
        for key, score in items:
            if key in seen:
                continue
            seen[key] = min(1.0, max(0.0, (score - floor) / span))
            item = fused.get(key)
            if item is None:
                item = fused[key] = Fused(key)
                order[key] = len(order)
            item.ranks[signal] = len(seen)
        truncated = depth is None or len(items) >= depth
        missing[signal] = min(1.0, max(0.0, (last - floor) / span)) if truncated else 0.0
    for item in fused.values():
        for signal, values in norm.items():
            c = weights.get(signal, 1.0) * values.get(item.key, missing[signal])
            item.contributions[signal] = c
            item.score += c
    return _with_bonus(fused, order, bonus)


def _with_bonus(fused: dict[Hashable, Fused], order: dict[Hashable, int],
                bonus: Mapping[Hashable, float] | None) -> list[Fused]:
    """The fused results with `bonus[key]` added (contribution "bonus"), sorted by score; ties broken by the best
    single rank, then by first appearance (`order`). Shared by both fusions."""
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
    The change is added to the contribution "prior" (negative for a factor below 1), so contributions still sum to
    the score when several priors apply. Keys not in `factors`, and factors of 1, are unchanged; an empty `factors` returns `fused` itself."""
    if not factors:
        return fused
    order = {id(f): i for i, f in enumerate(fused)}
    for f in fused:
        factor = factors.get(f.key)
        if factor is not None and factor != 1.0:
            bonus = f.contributions.get("bonus", 0.0)
            delta = (f.score - bonus) * factor + (bonus if keep_bonus else 0.0) - f.score
            f.contributions["prior"] = f.contributions.get("prior", 0.0) + delta
            f.score += delta
    return sorted(fused, key=lambda f: (-f.score, order[id(f)]))


def page_support(fused: list[Fused], pages: Mapping[Hashable, str], weight: float, head: int) -> list[Fused]:
    """`fused` with each of its first `head` entries raised by `weight` x the fused score of its page's second-best
    entry among them, as a share of the first entry's score (the exact-match bonus left out of both), re-sorted: a
    page that answers with two passages beats a sibling page with one about as good (passage evidence: Callan, "Passage-
    level evidence in document retrieval", SIGIR 1994). `pages[key]` is the entry's page (file path); entries not in
    it, pages with one entry in the head and entries below the head are unchanged. The raise is added to the
    contribution "page". Meant for convex scores (0 to 1 without the bonus): on RRF's scale `weight` would dwarf them.
    Where `retrieval.page_support_weight` (0.1) and `head` (30) come from: leave-one-corpus-out over the 23 docs sets
    (bench/history/sessions-44-45.md, "Page support by leave-one-corpus-out"). `weight` <= 0 or fewer than 2 entries: `fused`
    itself."""
    if weight <= 0 or len(fused) < 2:
        return fused
    top = fused[0].score - fused[0].contributions.get("bonus", 0.0)
    if top <= 0:
        return fused
    by_page: dict[str, list[float]] = {}
    for f in fused[:head]:
        if f.key in pages:
            by_page.setdefault(pages[f.key], []).append(f.score - f.contributions.get("bonus", 0.0))
    second = {page: sorted(scores, reverse=True)[1] for page, scores in by_page.items() if len(scores) > 1}
    if not second:
        return fused
    order = {id(f): i for i, f in enumerate(fused)}
    for f in fused[:head]:
        extra = weight * second.get(pages.get(f.key, ""), 0.0) / top
        if extra:
            f.contributions["page"] = extra
            f.score += extra
    return sorted(fused, key=lambda f: (-f.score, order[id(f)]))


# Fused scores (convex, after page support) this close are a tie for the first place (`lexical_tie_break`).
NEAR_TIE = 0.005


def lexical_tie_break(fused: list[Fused], pages: Mapping[Hashable, str], margin: float = NEAR_TIE,
                      within: int = 4) -> list[Fused]:
    """`fused` with its first place given to another page's entry when the two are tied: the best-placed entry of
    another page among the first `within` (`pages[key]`: the entry's page) whose score is within `margin` of the
    first's and whose BM25 contribution is larger goes first; the rest keep their order. A first entry holding the
    exact-match bonus stays, and so does one a document prior demoted less than the other (`apply_prior`'s
    "prior" contribution: a tie-break never undoes an API page's or a changelog's demotion). Under convex fusion
    a difference of a few thousandths is no evidence either way, and the page that matches the question's words
    beats the one that matches its meaning as well. `margin` <= 0: `fused` itself."""
    if margin <= 0 or len(fused) < 2 or fused[0].contributions.get("bonus"):
        return fused
    lead = fused[0]
    for f in fused[1:within]:
        if pages.get(f.key) == pages.get(lead.key):
            continue
        if lead.score - f.score <= margin and f.contributions.get("bm25", 0.0) > lead.contributions.get("bm25", 0.0) \
                and f.contributions.get("prior", 0.0) >= lead.contributions.get("prior", 0.0):
            return [f, *(x for x in fused if x is not f)]
        break
    return fused


def relevance_shares(scores: list[float]) -> list[float] | None:
    """Each score as a share of the best one, in [0, 1] rounded to 0.001 (`Chunk.relevance`, docs/protocol.md): the
    only reading of a hit's score that holds across fusions (convex scores run 0 to ~2.2 with the exact-match bonus,
    RRF's ~0.016 to 0.035, a reranker's its own scale). None when no share means anything: no hits, a best score
    that is not positive, or a negative score (a cross-encoder's logits)."""
    if not scores or max(scores) <= 0 or min(scores) < 0:
        return None
    top = max(scores)
    return [round(s / top, 3) for s in scores]
