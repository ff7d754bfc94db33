"""File Hit@1 misses (issue 27): for each answerable question whose top hit is not in a gold file, the file ranked
first against the best-ranked gold file, with each one's per-signal ranks (vector, BM25) and chunk size.

    python bench/file_hit1.py bench/questions/urllib3-docs.jsonl urllib3-2.8.0/docs [--layer '{"bm25_title_weight": 0}']

Product retrieval (`RagWorkspace.retrieve`, top 10, read only: the folder's index in the user cache is reused, not
built). Prints one line per miss, then `file Hit@1 n/N` and MRR@10 by file (first hit in a gold file).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def _sig(hit) -> str:
    s = hit.signals
    return "v{} b{}".format(int(s["vector"]) if "vector" in s else "-", int(s["bm25"]) if "bm25" in s else "-")


def main() -> int:
    from ragls.evaluation import evaluate
    from ragls.workspace.rag_workspace import RagWorkspace

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("questions", type=Path)
    ap.add_argument("folder", type=Path)
    ap.add_argument("--layer", default="{}", help="JSON [retrieval] settings layered over the defaults")
    ap.add_argument("--quiet", action="store_true", help="only the totals")
    args = ap.parse_args()
    questions = [q for q in evaluate.load_questions(args.questions) if q.answerable]
    ws = RagWorkspace([args.folder], [{"retrieval": json.loads(args.layer)}], read_only=True)
    hit1 = 0
    rr = 0.0
    try:
        for q in questions:
            hits = list(ws.retrieve(q.question, 10))
            gold = {g.path for g in q.gold}
            paths = [evaluate._norm_path(h.chunk.path) for h in hits]
            rank = next((i for i, p in enumerate(paths, 1) if p in gold), None)
            rr += 1 / rank if rank else 0.0
            if rank == 1:
                hit1 += 1
                continue
            if args.quiet:
                continue
            top = hits[0] if hits else None
            g = hits[rank - 1] if rank else None
            print(f"{q.id} [{q.kind}] {q.question[:70]!r}")
            if top is not None:
                print(f"   top: {paths[0]} «{top.chunk.title[:50]}» {_sig(top)} {len(top.chunk.text)}ch "
                      f"score {top.score:.4f}")
            if g is not None:
                print(f"  gold: {paths[rank - 1]} rank {rank} «{g.chunk.title[:50]}» {_sig(g)} {len(g.chunk.text)}ch "
                      f"score {g.score:.4f}")
            else:
                print(f"  gold: {sorted(gold)} not in top 10")
    finally:
        ws.close()
    print(f"file Hit@1 {hit1}/{len(questions)}  file MRR@10 {rr / len(questions):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
