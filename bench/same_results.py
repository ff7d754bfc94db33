"""Do two code versions give the same results? Dump what rag/query and the extractive rag/ask return, then compare.

    PYTHONHASHSEED=0 PYTHONPATH=<old>/server python bench/same_results.py dump bench/questions/rust-book.jsonl \
        ../shared/corpora/rust-book old.jsonl
    PYTHONHASHSEED=0 python bench/same_results.py dump bench/questions/rust-book.jsonl ../shared/corpora/rust-book new.jsonl
    python bench/same_results.py compare old.jsonl new.jsonl

`dump` asks every question of the file twice in one process (a first and a warm pass, so memos are exercised):
`RagWorkspace.query(question, top_k=10)` in its LSP wire form with `explain` (chunks, scores, focus and context
ranges, signals, abstained), the raw scores and cosines, the abstention evidence, and `RagWorkspace.ask(question)`
in its wire form (answer text, sources, citations); timings left out. `compare` counts the records whose query,
evidence or answer differ beyond 1e-5 and those byte-identical. The folder must be indexed and have no LLM
configured. Fix PYTHONHASHSEED for both dumps: the extractive passage score sums over a set, so a near tie can
break differently from one process to the next (bench/history/early-speed-and-operations.md, "Warm query latency: third round").
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from pathlib import Path


def dump(questions: str, folder: Path, out: Path) -> None:
    from ragls.evaluation import evaluate
    from ragls.lsp.wire import to_wire_answer, to_wire_query
    from ragls.workspace.rag_workspace import RagWorkspace

    qs = [q.question for q in evaluate.load_questions(questions)]
    ws = RagWorkspace([folder], [{}], read_only=True)
    try:
        with out.open("w") as f:
            for rnd in range(2):
                for q in qs:
                    r = ws.query(q, 10)
                    ev = r.hits.evidence
                    a = ws.ask(q)
                    f.write(json.dumps({
                        "round": rnd, "q": q,
                        "query": {k: v for k, v in to_wire_query(r, explain=True).items() if k != "elapsedMs"},
                        "raw": [(h.chunk.id, h.score, h.similarity) for h in r.hits],
                        "evidence": asdict(ev) if ev is not None else None,
                        "ask": {k: v for k, v in to_wire_answer(a).items() if k != "elapsedMs"},
                    }, default=str) + "\n")
    finally:
        ws.close()


def _close(x, y, tol: float = 1e-5) -> bool:
    if isinstance(x, float) or isinstance(y, float):
        return x is not None and y is not None and abs(x - y) <= tol
    if isinstance(x, dict):
        return isinstance(y, dict) and x.keys() == y.keys() and all(_close(x[k], y[k], tol) for k in x)
    if isinstance(x, list):
        return isinstance(y, list) and len(x) == len(y) and all(_close(p, q, tol) for p, q in zip(x, y))
    return x == y


def compare(old: Path, new: Path) -> None:
    a = [json.loads(line) for line in old.open()]
    b = [json.loads(line) for line in new.open()]
    if len(a) != len(b) or any(x["q"] != y["q"] for x, y in zip(a, b)):
        raise SystemExit("the two dumps are not of the same questions")
    differ = {k: 0 for k in ("query", "raw", "evidence", "ask")}
    identical = {"query": 0, "ask": 0}
    for x, y in zip(a, b):
        for k in differ:
            if not _close(x[k], y[k]):
                differ[k] += 1
                print(f"differs ({k}, pass {x['round'] + 1}): {x['q']}")
        for k in identical:
            identical[k] += x[k] == y[k]
    print(f"{len(a)} records; differing beyond 1e-5: {differ}; byte-identical: {identical}")


def main() -> None:
    ap = argparse.ArgumentParser(description="Dump rag/query and rag/ask results of a question file, or compare two "
                                             "dumps.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump")
    d.add_argument("questions")
    d.add_argument("folder", type=Path)
    d.add_argument("out", type=Path)
    c = sub.add_parser("compare")
    c.add_argument("old", type=Path)
    c.add_argument("new", type=Path)
    args = ap.parse_args()
    if args.cmd == "dump":
        dump(args.questions, args.folder, args.out)
    else:
        compare(args.old, args.new)


if __name__ == "__main__":
    main()
