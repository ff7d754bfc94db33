"""Paraphrase retrieval (issue 27): which answerable questions lose their gold chunk from the top 5, where BM25 alone
and the vector signal alone rank it, and what other fusion rules do to every dev set.

    python bench/paraphrase_fusion.py --misses \
        --set aiohttp-docs=aiohttp-3.14.5/docs --set black-docs=black-26.10.1/docs --set urllib3-docs=urllib3-2.8.0/docs
    python bench/paraphrase_fusion.py --set aiohttp-docs=aiohttp-3.14.5/docs ...     # the table of fusion rules

Sets: bench/questions/<name>.jsonl, each on its folder (`--set NAME=FOLDER`; rust-book, rust-book-keywords and
flask-docs default to the shared corpora, `bench/data.py`). Every run is the product's retrieval
(`RagWorkspace.retrieve`, top 10, read only, the index in the user cache) scored by `ragls eval`'s judge
(`evaluation/evaluate.matches`): file Hit@1, SpanHit@5 (Hit@5 for file-level gold), MRR@10 over the answerable
questions. A rule is either a settings layer (`retrieval.*`) or a fusion function put in place of
`retrieval.fuse.reciprocal_rank_fusion` for the run (the pipeline's candidate lists, bonus and dedup unchanged):

- `minmax`: each signal's candidate scores scaled to [0, 1] by the list's min and max, weighted sum (a convex
  combination, Bruch et al., "An Analysis of Fusion Functions for Hybrid Retrieval", TOIS 2023); the exact-match
  bonus scaled by 20 (0.05 -> 1.0, the weight of a list's best);
- `absent`: RRF, a chunk missing from a signal's top-N list scored as if that signal ranked it at `at` x N + 1;
- `lift`: RRF, then the vector signal's best chunk moved up to rank 5 when it ranks lower.

Per rule, the questions whose gold rank changed are listed (`id:before->after`, None = not in the top 10).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from data import dataset

RULES: tuple[tuple[str, dict, dict], ...] = (
    ("shipped (RRF k 60, bonus 0.05/0.02)", {}, {}),
    ("RRF k 30", {"rrf_k": 30}, {}),
    ("RRF k 20", {"rrf_k": 20}, {}),
    ("RRF k 10", {"rrf_k": 10}, {}),
    ("RRF k 20, bonus x 61/21", {"rrf_k": 20, "top_rank_bonus": 0.145, "top3_rank_bonus": 0.058}, {}),
    ("RRF k 30, bonus x 2", {"rrf_k": 30, "top_rank_bonus": 0.1, "top3_rank_bonus": 0.04}, {}),
    ("candidates 50", {"candidates": 50}, {}),
    ("candidates 100", {"candidates": 100}, {}),
    ("min-max score fusion", {}, {"rule": "minmax"}),
    ("min-max, vector weight 1", {"vector_weight": 1.0}, {"rule": "minmax"}),
    ("min-max, candidates 50", {"candidates": 50}, {"rule": "minmax"}),
    ("absent = rank 1.5N+1", {}, {"rule": "absent", "at": 1.5}),
    ("absent = rank 2N+1", {}, {"rule": "absent", "at": 2.0}),
    ("absent = rank 3N+1", {}, {"rule": "absent", "at": 3.0}),
    ("vector best lifted to rank 5", {}, {"rule": "lift"}),
)
DEFAULT_SETS = ("aiohttp-docs", "black-docs", "urllib3-docs", "flask-docs", "rust-book", "rust-book-keywords")


class Fusion:
    """The fusion rule of the current run, put in place of the pipeline's RRF (module docstring)."""

    def __init__(self):
        from ragls.retrieval import search

        self.search, self.rrf, self.merge = search, search.reciprocal_rank_fusion, search._merge_candidates
        self.rule: dict = {}
        self.scored: dict = {}
        search._merge_candidates = self._merge
        search.reciprocal_rank_fusion = self._fuse

    def _merge(self, *args, **kw):
        out = self.merge(*args, **kw)
        self.scored = out[0]
        return out

    def _fuse(self, rankings, weights, k, bonus):
        from ragls.retrieval.fuse import Fused

        rule = self.rule.get("rule")
        out = self.rrf(rankings, weights, k, bonus)
        if rule == "absent":
            for f in out:
                for sig, keys in rankings.items():
                    if keys and sig not in f.ranks:
                        f.score += weights.get(sig, 1.0) / (k + self.rule["at"] * len(keys) + 1)
            out.sort(key=lambda f: (-f.score, min(f.ranks.values())))
        elif rule == "lift" and rankings.get("vector"):
            pos = next(i for i, f in enumerate(out) if f.key == rankings["vector"][0])
            if pos > 4:
                out.insert(4, out.pop(pos))
        elif rule == "minmax":
            fused: dict = {}
            for sig, keys in rankings.items():
                score = dict(self.scored.get(sig, []))
                values = [score[key] for key in keys]
                if not values:
                    continue
                hi, lo = max(values), min(values)
                for rank, key in enumerate(keys, 1):
                    f = fused.setdefault(key, Fused(key))
                    f.ranks[sig] = rank
                    f.score += weights.get(sig, 1.0) * (score[key] - lo) / (hi - lo or 1.0)
            for key, extra in (bonus or {}).items():
                if key in fused:
                    fused[key].score += 20 * extra
            out = sorted(fused.values(), key=lambda f: (-f.score, min(f.ranks.values())))
        return out


def rank_of(question, hits) -> int | None:
    from ragls.evaluation import evaluate

    return next((i for i, h in enumerate(hits, 1) if any(evaluate.matches(h, g) for g in question.gold)), None)


def run(folder: Path, questions, layer: dict, misses: bool = False) -> dict:
    """{question id: (gold rank, file hit at 1, bm25 rank, vector rank)}; the single-signal ranks (top 50) only
    with `misses` and only for questions whose gold is not in the top 5."""
    from ragls.evaluation import evaluate
    from ragls.workspace.rag_workspace import RagWorkspace

    ws = RagWorkspace([folder], [{"retrieval": layer}], read_only=True)
    out = {}
    try:
        for q in questions:
            hits = list(ws.retrieve(q.question, 10))
            r = rank_of(q, hits)
            first = bool(hits) and evaluate._norm_path(hits[0].chunk.path) in {g.path for g in q.gold}
            bm25 = vector = None
            if misses and (r is None or r > 5):
                bm25 = rank_of(q, ws.retrieve(q.question, 50, signals=("bm25",)))
                vector = rank_of(q, ws.retrieve(q.question, 50, signals=("vector",)))
            out[q.id] = (r, first, bm25, vector)
    finally:
        ws.close()
    return out


def cell(res: dict) -> str:
    n = len(res)
    top5 = sum(1 for r, *_ in res.values() if r and r <= 5) / n
    mrr = sum(1 / r for r, *_ in res.values() if r) / n
    return f"{sum(f for _, f, *_ in res.values())}/{n} / {top5:.3f} / {mrr:.3f}"


def main() -> int:
    from ragls.evaluation import evaluate

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--set", action="append", default=[], metavar="NAME=FOLDER",
                    help="a question set and its folder (repeat); rust-book* and flask-docs default to the shared "
                         "corpora")
    ap.add_argument("--misses", action="store_true", help="list the questions whose gold is not in the top 5")
    ap.add_argument("--rules", help="comma list of rule numbers (1-based) to run; default all")
    args = ap.parse_args()
    paths = {"rust-book": dataset("rust-book"), "rust-book-keywords": dataset("rust-book"),
             "flask-docs": dataset("flask-docs")}
    paths.update((name, Path(folder)) for name, folder in (s.split("=", 1) for s in args.set))
    names = [n for n in DEFAULT_SETS if n in paths] + [n for n in paths if n not in DEFAULT_SETS]
    questions = {n: [q for q in evaluate.load_questions(HERE / "questions" / f"{n}.jsonl") if q.answerable]
                 for n in names}
    fusion = Fusion()
    if args.misses:
        for n in names:
            res = run(paths[n], questions[n], {}, misses=True)
            print(f"{n}: {cell(res)}")
            for q in questions[n]:
                r, _, bm25, vector = res[q.id]
                if r is None or r > 5:
                    print(f"  {q.id} fused {r} bm25 {bm25} vector {vector}: {q.question}")
        return 0
    rules = [RULES[int(i) - 1] for i in args.rules.split(",")] if args.rules else list(RULES)
    print("| rule | " + " | ".join(f"{n}: Hit@1 / top-5 / MRR@10" for n in names) + " |")
    print("|---|" + "---|" * len(names), flush=True)
    base: dict = {}
    for label, layer, rule in rules:
        fusion.rule = rule
        results = {n: run(paths[n], questions[n], layer) for n in names}
        base = base or results
        print(f"| {label} | " + " | ".join(cell(results[n]) for n in names) + " |", flush=True)
        for n in names:
            moved = [f"{i}:{base[n][i][0]}->{r}" for i, (r, *_) in results[n].items() if r != base[n][i][0]]
            if moved:
                print(f"  {n} " + " ".join(moved), file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
