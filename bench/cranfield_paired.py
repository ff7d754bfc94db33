"""Per-query comparison of two settings on Cranfield-1400: nDCG@10 and MRR@10 differences, paired randomization test.

    python bench/cranfield_paired.py --set retrieval.bm25_feedback=true      # baseline: the shipped settings

Runs bench/cranfield.py's harness (same workdir/index, `candidates` 100, top 10 documents) for BM25 alone and
hybrid, once with the shipped settings and once with the `--set` overrides. The p-value is a two-sided paired
randomization (sign-flip) test of the mean nDCG@10 difference, 10 000 flips, seed 0 (Smucker, Allan & Carterette,
CIKM 2007, recommend it for IR significance).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import cranfield
from ir_metrics import ndcg_at, reciprocal_rank_at


def sign_flip_p(diffs: list[float], flips: int = 10_000, seed: int = 0) -> float:
    """Two-sided p of a mean paired difference under random sign flips."""
    rng = random.Random(seed)
    obs = abs(statistics.mean(diffs))
    hits = sum(abs(statistics.mean([d if rng.random() < 0.5 else -d for d in diffs])) >= obs - 1e-12
               for _ in range(flips))
    return hits / flips


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workdir", type=Path, default=cranfield.DEFAULT_WORKDIR)
    ap.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=JSON", required=True)
    ap.add_argument("--data", type=Path, help="the Cranfield folder (default: bench/data.py's lookup)")
    args = ap.parse_args(argv)
    cranfield.DATA = cranfield.dataset("cranfield", args.data)
    queries, qrels = cranfield.load_queries(), cranfield.load_qrels()
    cranfield.write_docs(cranfield.load_docs(), args.workdir / "docs")
    extra: dict = {}
    for item in args.set:
        key, _, val = item.partition("=")
        section, _, name = key.partition(".")
        extra.setdefault(section, {})[name] = json.loads(val)
    runs = {}
    for label, layer in (("base", None), ("changed", extra)):
        ws = cranfield.open_workspace(args.workdir, 100, layer)
        ws.index()
        for name in ("bm25", "hybrid"):
            signals = cranfield.SIGNAL_SETS[name]
            runs[label, name] = {q: cranfield.doc_run(ws, t, signals, 10) for q, t in queries.items()}
        ws.close()
    print(f"Cranfield-1400, 225 queries, top 10 documents, candidates 100; changed: {extra}")
    for name in ("bm25", "hybrid"):
        a = [ndcg_at(runs["base", name][q], qrels[q], 10) for q in queries]
        b = [ndcg_at(runs["changed", name][q], qrels[q], 10) for q in queries]
        d = [y - x for x, y in zip(a, b, strict=True)]
        ra = [reciprocal_rank_at(runs["base", name][q], qrels[q], 10) for q in queries]
        rb = [reciprocal_rank_at(runs["changed", name][q], qrels[q], 10) for q in queries]
        print(f"{name}: nDCG@10 {statistics.mean(a):.4f} -> {statistics.mean(b):.4f} ({statistics.mean(d):+.4f}); "
              f"better {sum(x > 1e-9 for x in d)}, worse {sum(x < -1e-9 for x in d)}, "
              f"same {sum(abs(x) <= 1e-9 for x in d)}; p = {sign_flip_p(d):.3f}; MRR@10 {statistics.mean(ra):.4f} -> "
              f"{statistics.mean(rb):.4f}; relevant first {sum(x == 1 for x in ra)} -> {sum(x == 1 for x in rb)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
