"""Document-kind prior (issue 27, `retrieval.meta_page_weight`, retrieval/doc_kind.py): how often a changelog /
release-notes / contributing chunk ranks above the gold, how many gold spans are in such pages, and what demoting
them by a factor does to file Hit@1, SpanHit@5 and MRR@10.

    python bench/doc_kind_prior.py --set aiohttp-docs=aiohttp-3.14.5/docs --set black-docs=black-26.10.1/docs \
        --set urllib3-docs=urllib3-2.8.0/docs [--weights 1,0.7,0.5,0.3]

Sets as in bench/paraphrase_fusion.py (`--set NAME=FOLDER`, or `--set NAME` for rust-book, rust-book-keywords and
flask-docs, which default to the shared corpora; no `--set`: those three). Product retrieval (`RagWorkspace.retrieve`, top 10, read only, the index in the user cache),
scored by `ragls eval`'s judge. Per set: the count line (answerable questions with a bookkeeping chunk above the
first gold hit — `at 1` when it is the top hit —, questions whose gold is in such a page, questions that ask about
changes so nothing is demoted), then one row per weight: file Hit@1 / SpanHit@5 / MRR@10, and on stderr the
questions whose gold rank moved (`id:before->after`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from data import dataset
from paraphrase_fusion import DEFAULT_SETS, cell, rank_of, run


def count(folder: Path, questions) -> str:
    """The count line for one set with the prior off (module docstring)."""
    from ragls.retrieval.doc_kind import asks_about_changes, is_meta_page
    from ragls.workspace.rag_workspace import RagWorkspace

    ws = RagWorkspace([folder], [{"retrieval": {"meta_page_weight": 1.0}}], read_only=True)
    above = first = asks = 0
    gold_in: list[str] = []
    try:
        for q in questions:
            hits = list(ws.retrieve(q.question, 10))
            asks += asks_about_changes(q.question)
            r = rank_of(q, hits)
            if any(is_meta_page(c) for g in q.gold for c in ws.indexes[0].manifest.chunks_of(g.path)
                   if g.start is None or (c.span.start_line < g.end and c.span.end_line >= g.start - 1)):
                gold_in.append(q.id)
            metas = [i for i, h in enumerate(hits[:(r - 1) if r else 10], 1) if is_meta_page(h.chunk)]
            if metas:
                above += 1
                first += metas[0] == 1
                print(f"  {q.id}: bookkeeping chunk at {metas} above gold rank {r}", file=sys.stderr)
    finally:
        ws.close()
    return (f"{len(questions)} answerable; a bookkeeping chunk above the gold {above} (at 1: {first}); gold in a "
            f"bookkeeping page {len(gold_in)} {gold_in}; asking about changes {asks}")


def main() -> int:
    from ragls.evaluation import evaluate

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--set", action="append", default=[], metavar="NAME=FOLDER")
    ap.add_argument("--weights", default="1,0.7,0.5,0.3", help="comma list of meta_page_weight values")
    args = ap.parse_args()
    paths = {"rust-book": dataset("rust-book"), "rust-book-keywords": dataset("rust-book"),
             "flask-docs": dataset("flask-docs")}
    given = dict(s.split("=", 1) if "=" in s else (s, paths[s]) for s in args.set)
    paths.update((name, Path(folder)) for name, folder in given.items())
    names = [n for n in DEFAULT_SETS if n in (given or paths)] + [n for n in given if n not in DEFAULT_SETS]
    weights = [float(w) for w in args.weights.split(",")]
    for n in names:
        questions = [q for q in evaluate.load_questions(HERE / "questions" / f"{n}.jsonl") if q.answerable]
        print(f"{n}: {count(paths[n], questions)}", flush=True)
        base: dict = {}
        for w in weights:
            res = run(paths[n], questions, {"meta_page_weight": w})
            base = base or res
            print(f"  meta_page_weight {w}: {cell(res)}", flush=True)
            moved = [f"{i}:{base[i][0]}->{r}" for i, (r, *_) in res.items() if r != base[i][0]]
            if moved:
                print(f"  {n} w {w}: " + " ".join(moved), file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
