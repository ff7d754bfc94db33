"""File Hit@1 and MRR@10 under variants of convex fusion's normalisation and missing-score rule (issue 27): the
product's retrieval (`RagWorkspace.retrieve`, top 10, read only: the folder's index in the user cache is reused)
with `fuse.convex_fusion` replaced, per question, by each variant; every other step (exact-match bonus, document
priors, dedup, page support) is the product's.

    python bench/fusion_variants.py OUT.json bench/questions/<set>.jsonl <folder> base lookup floor200 ...

A variant (VARIANTS) changes how a signal's score s is normalised and what a chunk missing from a cut list scores:
  floor   "theory": (s - floor) / (top - floor) with the product's floors (cosine `min_similarity`, BM25 0);
          "deep":   the floor raised to the list's score at depth `depth` of a deeper list (min-max over a fixed
                    depth); "z": (s - mean) / sd over the deeper list's first `depth` scores (z-score, Montague &
                    Aslam 2001)
  missing "last":   the cut list's last score (the product); "deep": the deeper list's score at `depth`;
          "rank R": the cut list's score at rank R; "lookup": the chunk's own score in the deeper list when it is
                    there, else the rule after it; "page L": at least L x the best normalised score of the chunk's
                    page in that list
Only `signals` (default both) take the floor, only `missing_signals` (default both) the missing rule. The deeper lists hold DEEP chunks per signal (the sources asked
once more per question). Writes {variant: {question id: {ff, fr}}} (ff: file Hit@1; fr: rank of the first hit
overlapping the gold, None past 10) and prints each variant's totals. With `--misses` (instead of variants): for
each file Hit@1 miss of the product, the gold file's and the winner's best rank by file in the deep vector and BM25
lists, as JSON lines.
"""

from __future__ import annotations

import json
import math
import sys

from ragls.evaluation import evaluate
from ragls.retrieval import fuse, search
from ragls.retrieval.source import FolderSource
from ragls.workspace.rag_workspace import RagWorkspace

DEEP = 200
VARIANTS = {
    "base": {},
    "lookup": {"missing": ["lookup", "last"]},
    "lookup_deep": {"missing": ["lookup", "deep"]},
    "vfloor100": {"floor": "deep", "depth": 100, "signals": ["vector"], "missing": ["lookup", "deep"]},
    "vfloor200": {"floor": "deep", "signals": ["vector"], "missing": ["lookup", "deep"]},
    "floor200": {"floor": "deep", "missing": ["lookup", "deep"]},
    "floor200_last": {"floor": "deep"},
    "floor100_last": {"floor": "deep", "depth": 100},
    "vfloor200_last": {"floor": "deep", "signals": ["vector"]},
    "bfloor100": {"floor": "deep", "depth": 100, "signals": ["bm25"]},
    "bfloor200": {"floor": "deep", "signals": ["bm25"]},
    "bfloor200l": {"floor": "deep", "signals": ["bm25"], "missing": ["lookup", "last"]},
    "z200": {"floor": "z", "missing": ["lookup", "deep"]},
    "z200_a0.5": {"floor": "z", "missing": ["lookup", "deep"], "alpha": 0.5},
    "rank10": {"missing": ["rank 10"]},
    "rank20": {"missing": ["rank 20"]},
    "bm25_rank10": {"missing": ["rank 10"], "missing_signals": ["bm25"]},
    "bm25_rank20": {"missing": ["rank 20"], "missing_signals": ["bm25"]},
    "page0.5": {"missing": ["page 0.5"]},
    "page0.8": {"missing": ["page 0.8"]},
}
_deep: dict[str, list] = {}
_memo: dict = {}
_pages: dict = {}
_variant: dict = {}
_workspace: list = []
_candidates = FolderSource.candidates
_convex = fuse.convex_fusion


def candidates(self, q, n, settings, signals, *, plain=False):
    """The product's candidates (memoised per question), with the same lists DEEP deep kept in `_deep`."""
    key = (id(self), q.text, q.vector is not None, tuple(signals), plain)
    if key not in _memo:
        _memo[key] = (_candidates(self, q, n, settings, signals, plain=plain),
                      _candidates(self, q, DEEP, settings, signals, plain=plain))
    _deep.clear()
    _deep.update({sig: [((0, cid), s) for cid, s in lst] for sig, lst in _memo[key][1].lists.items()})
    return _memo[key][0]


def page(key) -> str | None:
    if key not in _pages:
        got = _workspace[0].indexes[0].manifest.get_chunks([key[1]])
        _pages[key] = got[key[1]].path if key[1] in got else None
    return _pages[key]


def normaliser(v: dict, signal: str, items: list, deep: list, floor: float):
    """The variant's score -> normalised score function for one list."""
    top, last = items[0][1], items[-1][1]
    kind = v.get("floor", "theory") if signal in v.get("signals", [signal]) else "theory"
    depth = v.get("depth", DEEP)
    if kind == "z":
        vals = [s for _, s in deep[:depth]] or [top]
        mean = sum(vals) / len(vals)
        sd = math.sqrt(sum((x - mean) ** 2 for x in vals) / len(vals)) or 1.0
        return lambda s: (s - mean) / sd
    if kind == "deep" and len(deep) >= depth:
        floor = max(floor, deep[depth - 1][1])
    if floor >= top:
        floor = last if last < top else top - 1.0
    return lambda s: min(1.0, max(0.0, (s - floor) / (top - floor)))


def missing_score(v: dict, signal: str, key, items: list, deep: list, norm, page_best: dict, cut: bool) -> float:
    """What `key`, absent from `signal`'s cut list, scores there under the variant."""
    rules = v.get("missing", ["last"]) if signal in v.get("missing_signals", [signal]) else ["last"]
    if not cut:
        return 0.0 if v.get("floor") != "z" else norm(0.0)
    score = None
    depth = v.get("depth", DEEP)
    for rule in rules:
        if rule == "lookup":
            score = dict(deep[:depth]).get(key)
        elif rule == "deep":
            score = deep[depth - 1][1] if len(deep) >= depth else 0.0
        elif rule.startswith("rank"):
            score = items[min(int(rule.split()[1]), len(items)) - 1][1]
        elif rule == "last" or rule.startswith("page"):
            score = items[-1][1]
        if score is not None:
            break
    value = norm(score)
    for rule in rules:
        if rule.startswith("page"):
            value = max(value, float(rule.split()[1]) * page_best.get(page(key), 0.0))
    return value


def variant_fusion(scored, weights, floors=None, bonus=None, depth=None):
    """`fuse.convex_fusion` under the current variant (`_variant`); the product's own for "base"."""
    v = _variant
    if not v:
        return _convex(scored, weights, floors, bonus, depth)
    if "alpha" in v:
        weights = {"vector": v["alpha"], "bm25": 1.0 - v["alpha"]}
    fused: dict = {}
    order: dict = {}
    lists = {}
    for signal, items in scored.items():
        if not items:
            continue
        deep = sorted(_deep.get(signal, items), key=lambda kv: -kv[1])
        norm = normaliser(v, signal, items, deep, (floors or {}).get(signal, 0.0))
        own = {}
        page_best: dict = {}
        for key, score in items:
            own.setdefault(key, norm(score))
            if "page" in str(v.get("missing")):
                page_best.setdefault(page(key), own[key])
            item = fused.setdefault(key, fuse.Fused(key))
            order.setdefault(key, len(order))
            item.ranks.setdefault(signal, len(own))
        lists[signal] = (items, deep, norm, own, page_best, depth is None or len(items) >= depth)
    for item in fused.values():
        for signal, (items, deep, norm, own, page_best, cut) in lists.items():
            value = own[item.key] if item.key in own else missing_score(v, signal, item.key, items, deep, norm,
                                                                         page_best, cut)
            item.contributions[signal] = weights.get(signal, 1.0) * value
            item.score += item.contributions[signal]
    return fuse._with_bonus(fused, order, bonus)


def file_ranks(lst: list, gold: set, top: str) -> dict:
    """The 1-based rank among the distinct files of `lst` ([(key, score)], best first) of the best gold file and
    of `top` (None when absent)."""
    files: list = []
    for key, _ in lst:
        if (p := evaluate._norm_path(page(key) or "")) not in files:
            files.append(p)
    return {"gold_file": next((i for i, p in enumerate(files, 1) if p in gold), None),
            "top_file": files.index(top) + 1 if top in files else None}


def main() -> int:
    if sys.argv[1] == "--misses":
        sys.argv[1:] = ["", *sys.argv[2:4], "base"]
    out, questions, folder, *names = sys.argv[1:]
    FolderSource.candidates = candidates
    search.convex_fusion = variant_fusion
    qs = [q for q in evaluate.load_questions(questions) if q.answerable]
    ws = RagWorkspace([folder], [{}], read_only=True)
    _workspace.append(ws)
    res: dict = {n: {} for n in names}
    try:
        for q in qs:
            for name in names:
                _variant.clear()
                _variant.update(VARIANTS[name])
                hits = list(ws.retrieve(q.question, 10))
                r = evaluate.judge(q, hits, 5, False)
                res[name][q.id] = {"ff": r.file_first, "fr": r.first_rank}
                if not out and hits and not r.file_first:
                    gold, top = {g.path for g in q.gold}, evaluate._norm_path(hits[0].chunk.path)
                    print(json.dumps({"id": q.id, "top": top, "gold": sorted(gold),
                                      **{sig: file_ranks(lst, gold, top) for sig, lst in _deep.items()}}))
    finally:
        ws.close()
    if not out:
        return 0
    with open(out, "w") as f:
        json.dump(res, f)
    for name in names:
        rows = res[name].values()
        print(f"{name:16} file Hit@1 {sum(r['ff'] for r in rows)}/{len(rows)}  "
              f"MRR@10 {sum(1 / r['fr'] for r in rows if r['fr']) / len(rows):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
