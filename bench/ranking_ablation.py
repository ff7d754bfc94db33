"""Ranking ablation (issue 27): each extra signal or bonus of the fused ranking switched off in turn, against a
plain RRF of tantivy BM25 and best-window cosine, on every dev set.

    python bench/ranking_ablation.py --urllib3-docs urllib3-2.8.0/docs        # indexes reused from the user cache

Sets: bench/questions/rust-book.jsonl (hard: deep, paraphrase, identifier, two-part; line-span gold),
rust-book-keywords.jsonl (easy, file-level gold), flask-docs.jsonl, urllib3-docs.jsonl (held out, written before
running ragls on it; its docs/ folder from `pip download --no-deps --no-binary :all: urllib3==2.8.0`). Each run is
the product's retrieval (`RagWorkspace.retrieve`, top 10) with one settings layer over the defaults, scored by
`ragls eval`'s own judge (evaluate.py): SpanHit@5 (Hit@5 for file-level gold), Recall@5, MRR@10 over the
answerable questions. Printed as a Markdown table, one row per run.

What is not in the table: query fitting (fit_query) only cuts a query longer than the model reads, so no question
here changes; RM3 feedback and window pooling (`window_margin`) are off by default and get a row each; the
abstention probes never reorder hits.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from data import dataset

PLAIN = {"top_rank_bonus": 0.0, "top3_rank_bonus": 0.0, "bm25_title_weight": 1.0, "dedup_cosine": 1.0,
         "vector_weight": 1.0}
RUNS = (
    ("shipped defaults", {}),
    ("no exact-match bonus", {"top_rank_bonus": 0.0, "top3_rank_bonus": 0.0}),
    ("title field weight 0 (body only)", {"bm25_title_weight": 0.0}),
    ("title field weight 1 (as the body)", {"bm25_title_weight": 1.0}),
    ("no near-duplicate removal", {"dedup_cosine": 1.0}),
    ("vector weight 1 (not 1.125)", {"vector_weight": 1.0}),
    ("+ RM3 feedback (off by default)", {"bm25_feedback": True}),
    ("+ window pooling margin 0.05 (off by default)", {"window_margin": 0.05}),
    ("plain RRF: BM25 (title as body) + best-window cosine", PLAIN),
    ("plain RRF, title weight 0.5", {**PLAIN, "bm25_title_weight": 0.5}),
    ("plain RRF + exact-match bonus", {**PLAIN, "top_rank_bonus": 0.05, "top3_rank_bonus": 0.02}),
)
SETS = (("rust-book hard", "rust-book", "rust-book.jsonl"), ("rust-book easy", "rust-book", "rust-book-keywords.jsonl"),
        ("flask-docs", "flask-docs", "flask-docs.jsonl"), ("urllib3 (held out)", "urllib3-docs", "urllib3-docs.jsonl"))


def main() -> int:
    from ragls.evaluation import evaluate
    from ragls.workspace.rag_workspace import RagWorkspace

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rust-book", type=Path)
    ap.add_argument("--flask-docs", type=Path)
    ap.add_argument("--urllib3-docs", type=Path, help="the docs/ folder of the urllib3 2.8.0 sdist")
    ap.add_argument("--corpora", default="rust-book,flask-docs,urllib3-docs", help="comma list of corpora")
    ap.add_argument("--runs", help="comma list of run numbers (1-based) to do; default all")
    args = ap.parse_args()
    runs = [RUNS[int(i) - 1] for i in args.runs.split(",")] if args.runs else list(RUNS)
    wanted = args.corpora.split(",")
    folders = {name: dataset(name, getattr(args, name.replace("-", "_"))) for name in ("rust-book", "flask-docs")
               if name in wanted}
    if args.urllib3_docs and "urllib3-docs" in wanted:
        folders["urllib3-docs"] = args.urllib3_docs
    sets = [s for s in SETS if s[1] in folders]
    table: dict[str, list[str]] = {}
    for label, layer in runs:
        cells = []
        for _name, corpus, qfile in sets:
            questions = evaluate.load_questions(HERE / "questions" / qfile)
            ws = RagWorkspace([folders[corpus]], [{"retrieval": layer}], read_only=True)
            try:
                results = evaluate.run(questions, lambda text, depth, ws=ws: ws.retrieve(text, depth),
                                       lambda text, hits: False, 5)
            finally:
                ws.close()
            row = evaluate.summarize(results, 5)["all"]
            first = row["SpanHit@5"] if row["SpanHit@5"] is not None else row["Hit@5"]
            cells.append(f"{first:.3f} / {row['Recall@5']:.3f} / {row['MRR@10']:.3f}")
        table[label] = cells
        print(f"{label}: " + " | ".join(cells), file=sys.stderr, flush=True)
    print("| run | " + " | ".join(f"{name}: SpanHit@5 (Hit@5) / Recall@5 / MRR@10" for name, _, _ in sets) + " |")
    print("|---|" + "---|" * len(sets))
    for label, cells in table.items():
        print(f"| {label} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
