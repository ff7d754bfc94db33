"""In-sample sweep of one page feature over recorded fused lists (issue 27): per set, file Hit@1 and MRR@10 at each
weight against the recorded order, and the questions whose first file changes.

    python bench/fused_replay.py record bench/questions/<set>.jsonl <folder> rec/<set>.json      # once per set
    python bench/file_rank_sweep.py FEATURE -0.05,0.02,0.1 rec/*.json [--base second30=0.1]

FEATURE is one of `file_rank_loco.FEATURES`; each entry is re-scored as `file_rank_loco.Question.order` does (weight x
feature added to its score) on top of `--base` (default: main's page support, second30 x 0.1, so the recorded order
reproduces the product's file Hit@1). In-sample only: a weight that helps here is then checked leave-one-corpus-out
(`file_rank_loco.py`) and with `ragls eval`. "id+" gains the first file, "id-" loses it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import file_rank_loco as loco  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("feature", choices=loco.FEATURES)
    ap.add_argument("weights", help="comma-separated weights, e.g. -0.05,0.02,0.1")
    ap.add_argument("files", type=Path, nargs="+")
    ap.add_argument("--base", nargs="*", default=["second30=0.1"], metavar="FEATURE=WEIGHT")
    args = ap.parse_args()
    weights = [float(w) for w in args.weights.split(",")]
    loco.BASE[:] = [(name, float(w)) for name, w in (b.split("=") for b in args.base)]
    totals = {w: [0, 0.0] for w in weights}
    base_hit, base_mrr = 0, 0.0
    for sets in loco.load(args.files).values():
        for name, qs in sets.items():
            base = [q.metrics(loco.ALPHA, None, 0.0) for q in qs]
            hit, mrr = sum(m[0] for m in base), sum(m[1] for m in base)
            base_hit, base_mrr = base_hit + hit, base_mrr + mrr
            line = f"{name:22} {hit:3} {mrr / len(qs):.3f}"
            for w in weights:
                got = [q.metrics(loco.ALPHA, args.feature, w) for q in qs]
                h, m = sum(g[0] for g in got), sum(g[1] for g in got)
                totals[w][0] += h
                totals[w][1] += m
                moved = " ".join(f"{q.id}{'+' if g[0] > b[0] else '-'}" for q, g, b in zip(qs, got, base) if g[0] != b[0])
                line += f" | {w}: {h:3} {m / len(qs):.3f} {moved}"
            print(line)
    print(f"TOTAL {base_hit} {base_mrr:.2f} " + " ".join(f"| {w}: {t[0]} {t[1]:.2f}" for w, t in totals.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
