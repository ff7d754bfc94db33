"""Sentence cosines as evidence (issue 27): would MiniLM's cosine of each answer sentence with the question pick the
right FILE first, or the right LINES, better than what ragls does without a model pass per hit?

    python bench/sentence_cosine.py bench/questions/click-docs.jsonl click-8.5.1/docs [QUESTIONS FOLDER ...]

For every answerable question the product's retrieval runs (`RagWorkspace.retrieve`, top 10, read only: the folder's
index in the user cache is reused, not built); each of the first 6 hits is split into the extractive answer's
candidates (`answer.passages.units`, sentences and whole list items) and each candidate is embedded
(`Embedder.embed_memoised`, the model of the index) and compared with the question's vector. Printed per folder and
in total over the answerable questions:
- file Hit@1 of the product's order, and of two reorderings by the best sentence cosine of each hit: `swap@2 m` puts
  the second hit first when its best sentence beats the first's by more than m (0.04, 0.06, 0.1), `blend@3 w` orders
  the first 3 by fused score (the first = 1) + w x best sentence cosine (0.25, 0.5, 1); with how many folders each
  rule helps and hurts;
- Focus@5 over the questions with line gold (as `ragls eval` judges it: a top-5 hit whose lines, at most 6, overlap
  a gold span) of the product's `focusRange` and of the best-cosine sentence's lines instead.
Measured over 22 sets in session 45 (bench/history/sessions-44-45.md, "Sentence cosines: neither the page nor the lines"): neither
beats what ships.
"""

from __future__ import annotations

import sys
from pathlib import Path

MAX_HITS = 6  # hits whose sentences are embedded (the swap and blend rules read at most 3; focus reads 5)
FOCUS_LINES = 6  # evaluate.FOCUS_MAX_LINES


def measure(questions: Path, folder: Path) -> list[dict]:
    """[{"gold": set of paths, "spans": [(path, first, last)], "hits": [{"path", "score", "focus", "best",
    "best_lines"}]}] for the answerable questions of `questions` over `folder` (lines 1-based inclusive)."""
    from ragls.answer.blocks import is_markdown
    from ragls.answer.passages import units
    from ragls.evaluation import evaluate
    from ragls.workspace.rag_workspace import RagWorkspace

    ws = RagWorkspace([folder], [], read_only=True)
    out = []
    try:
        embedder = ws.embedder
        for q in evaluate.load_questions(questions):
            if not q.answerable:
                continue
            qv = embedder.embed_query(q.question)
            hits = []
            for h in list(ws.retrieve(q.question, 10).hits)[:MAX_HITS]:
                found = units(h.chunk.text, None, is_markdown(h.chunk.path))
                cos = (embedder.embed_memoised([u.sentence for u in found]) @ qv).tolist() if found else []
                best = max(range(len(cos)), key=cos.__getitem__) if cos else None
                base = h.chunk.span.start_line + 1
                hits.append({"path": evaluate._norm_path(h.chunk.path), "score": h.score,
                             "focus": evaluate.focus_lines(h), "best": cos[best] if cos else 0.0,
                             "best_lines": (base + found[best].line, base + found[best].end) if cos else None})
            out.append({"gold": {g.path for g in q.gold},
                        "spans": [(g.path, g.start, g.end) for g in q.gold if g.start is not None], "hits": hits})
    finally:
        ws.close()
    return out


def _first(q: dict, order: int) -> bool:
    return bool(q["hits"]) and q["hits"][order]["path"] in q["gold"]


def swap(q: dict, margin: float) -> int:
    """Index of the hit shown first: the second when its best sentence beats the first's by more than `margin`."""
    h = q["hits"]
    return 1 if len(h) > 1 and h[1]["best"] - h[0]["best"] > margin else 0


def blend(q: dict, weight: float) -> int:
    """Index of the hit shown first: the best of the first 3 by fused score (relative to the first) + weight x cosine."""
    h = q["hits"][:3]
    if not h:
        return 0
    top = h[0]["score"] or 1.0
    return max(range(len(h)), key=lambda i: (h[i]["score"] / top + weight * h[i]["best"], -i))


def _overlaps(q: dict, path: str, lines) -> bool:
    return (lines is not None and lines[1] - lines[0] + 1 <= FOCUS_LINES
            and any(p == path and lines[0] <= e and lines[1] >= s for p, s, e in q["spans"]))


def report(runs: dict[str, list[dict]]) -> None:
    """Print the file Hit@1 of each rule per folder and in total, then Focus@5 of the focus and of the best sentence."""
    rules = {"product": lambda q: 0, **{f"swap@2 {m}": (lambda q, m=m: swap(q, m)) for m in (0.04, 0.06, 0.1)},
             **{f"blend@3 {w}": (lambda q, w=w: blend(q, w)) for w in (0.25, 0.5, 1.0)}}
    base = {name: sum(_first(q, 0) for q in qs) for name, qs in runs.items()}
    print(f"{'rule':14s} {'Hit@1':>6s} {'helps':>6s} {'hurts':>6s}   (folders)")
    for rule, pick in rules.items():
        per = {name: sum(_first(q, pick(q)) for q in qs) for name, qs in runs.items()}
        print(f"{rule:14s} {sum(per.values()):6d} {sum(per[n] > base[n] for n in runs):6d} "
              f"{sum(per[n] < base[n] for n in runs):6d}")
    lined = [q for qs in runs.values() for q in qs if q["spans"]]
    focus = sum(any(_overlaps(q, h["path"], h["focus"]) for h in q["hits"][:5]) for q in lined)
    best = sum(any(_overlaps(q, h["path"], h["best_lines"]) for h in q["hits"][:5]) for q in lined)
    print(f"Focus@5 over {len(lined)} questions with line gold: focusRange {focus}, best-cosine sentence {best}")


def main(argv: list[str]) -> int:
    if not argv or len(argv) % 2:
        print(__doc__)
        return 2
    runs = {}
    for questions, folder in zip(argv[::2], argv[1::2]):
        runs[Path(folder).as_posix()] = measure(Path(questions), Path(folder))
        print(f"{folder}: {len(runs[Path(folder).as_posix()])} answerable questions", file=sys.stderr)
    report(runs)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
