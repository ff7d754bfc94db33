"""Which signal could move the right file first (issue 27): each question's first entry against its strongest rival.

    python bench/fused_replay.py record bench/questions/<set>.jsonl <folder> rec/<set>.json   # once per set
    python bench/heading_features.py rec/<set>.json; python bench/page_aboutness.py rec/<set>.json <folder>
    python bench/file_rank_pairs.py rec/*.json [--gap 0.1] [--signals nv nb head ...]

Reads the recorded fused lists as `bench/file_rank_loco.py` does, with main's page support added (second30 0.1: the
recorded order then reproduces the product's first file). For a file Hit@1 miss the pair is (the first entry, the
best-placed entry of a gold file); for a hit, (the first entry, the best-placed entry of another file). A signal that
prefers the second of the pair would fix the miss, or break the hit, once its weight closes the gap between the two
fused scores (relative to the first's). Prints the gap's quartiles for misses and hits, and per signal how often it
prefers the rival, over all pairs and over the near ties (gap below `--gap`): a signal helps only where it prefers the
gold entry of misses clearly more often than it prefers the rival of hits, scaled by how many more near-tie hits
there are than misses. Signals: `nv` / `nb` (the normalised cosine and BM25 score the fusion already weighs) and any
of `file_rank_loco.FEATURES` (the side files' features when written).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import file_rank_loco as loco  # noqa: E402

SIGNALS = ("nv", "nb", "rrf", "second30", "count10", "title_share", "file_share", "log_length", "head", "head_lead",
           "qhead", "page_centroid", "page_mean", "page_top3", "page_near")


def pairs(data, signals):
    """[(kind, gap, {signal: (first's value, rival's value)})] over every answerable question with a rival."""
    out = []
    for sets in data.values():
        for qs in sets.values():
            for q in qs:
                order = q.order(loco.ALPHA, None, 0.0)
                score = q.factor * (loco.ALPHA * q.nv + (1 - loco.ALPHA) * q.nb) + q.bonus
                for name, weight in loco.BASE:
                    score = score + weight * q.feat[name]
                first = order[0]
                hit = bool(q.gold_file[first])
                rivals = [i for i in order[1:] if bool(q.gold_file[i]) != hit]
                if not rivals:  # a miss whose gold file is not among the recorded entries
                    continue
                r = rivals[0]
                gap = float((score[first] - score[r]) / max(score[first], 1e-9))
                values = {s: (getattr(q, s) if s in ("nv", "nb") else q.feat[s]) for s in signals}
                out.append(("hit" if hit else "miss", gap, {s: (float(v[first]), float(v[r])) for s, v in values.items()}))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", type=Path, nargs="+")
    ap.add_argument("--gap", type=float, default=0.1, help="near ties: relative score gap below this")
    ap.add_argument("--signals", nargs="*", default=list(SIGNALS))
    args = ap.parse_args()
    loco.BASE[:] = [("second30", 0.1)]
    found = pairs(loco.load(args.files), args.signals)
    for kind in ("miss", "hit"):
        gaps = np.asarray([g for k, g, _ in found if k == kind])
        print(f"{kind}: {len(gaps)} pairs, gap quartiles {np.round(np.percentile(gaps, [10, 25, 50, 75, 90]), 3)}, "
              f"below {args.gap}: {int((gaps < args.gap).sum())}")
    print(f"{'signal':14} {'misses: prefers gold':>22} {'hits: prefers rival':>22}   near ties: misses / hits")
    for s in args.signals:
        cells = []
        for near in (False, True):
            for kind in ("miss", "hit"):
                sel = [v[s] for k, g, v in found if k == kind and (not near or g < args.gap)]
                n = sum(b > a + 1e-9 for a, b in sel)
                cells.append(f"{n:4d} of {len(sel):4d} ({n / max(1, len(sel)):.2f})")
        print(f"{s:14} {cells[0]:>22} {cells[1]:>22}   {cells[2]} / {cells[3]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
