"""Time of near-duplicate removal (`retrieval/dedup.py`, `retrieval.dedup_cosine` 0.92) at 100 candidates.

    python bench/dedup.py [--candidates 100] [--dim 384] [--repeat 200]

Random L2-normalised float32 vectors (dim 384, all-MiniLM-L6-v2's), one in five a near-copy of another; prints the
median and 95th percentile of `keep_distinct` over `--repeat` runs. Target (issue 12): under 5 ms at 100.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from ragls.retrieval.dedup import keep_distinct


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--candidates", type=int, default=100)
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--repeat", type=int, default=200)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    vecs = rng.standard_normal((args.candidates, args.dim)).astype(np.float32)
    for i in range(0, args.candidates, 5):  # near-copies
        vecs[i] = vecs[(i + 7) % args.candidates] + 0.05 * rng.standard_normal(args.dim).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    rows = list(vecs)
    times = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        keep = keep_distinct(rows, 0.92)
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    print(f"keep_distinct, {args.candidates} candidates x {args.dim}: median {statistics.median(times):.3f} ms, "
          f"p95 {times[int(0.95 * len(times)) - 1]:.3f} ms; {args.candidates - sum(keep)} near-copies removed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
