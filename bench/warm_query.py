"""Warm `rag/query` latency over a question file's questions (issue 27's check that the sentence focus costs nothing).

    python bench/warm_query.py bench/questions/flask-docs.jsonl ../shared/corpora/flask-docs [label]
    python bench/warm_query.py --ask bench/questions/rust-book.jsonl ../shared/corpora/rust-book   # rag/ask

`--ask` times `RagWorkspace.ask(question)` instead (the extractive answer without an LLM: retrieval at the default
top_k 5, sentence scoring with the embedding model, citations); the folder must then have no LLM configured.

The folder must be indexed already (`ragls index FOLDER`). One warm-up pass over the questions, then two timed
passes of `RagWorkspace.query(question, top_k=10)` in one process; prints p50 and p90 in milliseconds, of the timed
passes and of the warm-up pass (each question asked for the first time: what in-process memos cannot help), and the
p50 of the process CPU time per request (all threads: ONNX Runtime's and LanceDB's too), which moves less than wall
time on a busy machine. Compare two code versions by running it with each on PYTHONPATH, alternating, on the same
index.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from ragls.evaluation import evaluate
from ragls.workspace.rag_workspace import RagWorkspace


def main() -> None:
    ap = argparse.ArgumentParser(description="Warm rag/query latency (p50, p90 in ms) over a question file.")
    ap.add_argument("questions", help="JSON Lines question file (docs/evaluation.md)")
    ap.add_argument("folder", type=Path, help="an indexed folder (`ragls index FOLDER` first)")
    ap.add_argument("label", nargs="?", default="", help="printed before the figures")
    ap.add_argument("--ask", action="store_true",
                    help="time rag/ask (extractive answer, no LLM, top_k 5) instead of rag/query at top_k 10")
    args = ap.parse_args()
    qs = [q.question for q in evaluate.load_questions(args.questions)]
    ws = RagWorkspace([args.folder], [{}], read_only=True)

    def run(q: str) -> None:
        if not args.ask:
            ws.query(q, 10)
        elif ws.ask(q).model != "extractive":
            raise SystemExit(f"{args.folder}: an LLM answered; --ask times the extractive answer (no LLM configured)")

    first, first_cpu = [], []  # the warm-up pass: each question asked for the first time (nothing of it memoised yet)
    ts, cpu = [], []
    try:
        for q in qs:
            t, c = time.perf_counter(), time.process_time()
            run(q)
            first.append((time.perf_counter() - t) * 1000)
            first_cpu.append((time.process_time() - c) * 1000)
        for _ in range(2):
            for q in qs:
                t, c = time.perf_counter(), time.process_time()
                run(q)
                ts.append((time.perf_counter() - t) * 1000)
                cpu.append((time.process_time() - c) * 1000)
    finally:
        ws.close()
    what = "rag/ask (extractive)" if args.ask else "rag/query k=10"
    print(f"{args.label} {what} p50 {statistics.median(ts):.1f} ms, p90 {sorted(ts)[int(len(ts) * 0.9)]:.1f} ms, n={len(ts)}; "
          f"first pass (each question new, model loading on the first) p50 {statistics.median(first):.1f} ms, "
          f"p90 {sorted(first)[int(len(first) * 0.9)]:.1f} ms; process CPU p50 warm {statistics.median(cpu):.1f} ms, "
          f"first pass {statistics.median(first_cpu):.1f} ms")


if __name__ == "__main__":
    main()
