"""Chat follow-ups without an LLM: Hit@1 of a follow-up question asked after earlier turns (`rag/ask` with history).

    python bench/chat_followups.py                                   # bench/followups/rust-book.jsonl + flask-docs.jsonl
    python bench/chat_followups.py bench/followups/flask-docs.jsonl --corpus flask-docs=PATH --json out.json

Each line of a set (format in bench/followups/rust-book.jsonl) is a conversation: the user's earlier questions and
a follow-up. The earlier questions are asked in turn through `RagWorkspace.ask` (extractive, no LLM), each with the
turns before it as history, and their real answers are sent back as the assistant turns, as a chat client does;
then the follow-up is asked with the whole history. Per follow-up: `file` (Hit@1: the first source is in a gold
file), `span` (the first source's lines overlap a gold span), `lead` (the first sentence of the extractive answer
cites a source in a gold file), and the query searched (`Answer.retrieval_query`). Totals by kind ("pronoun":
the follow-up needs the earlier subject; "switch": its own words name its subject).

The corpora are found by bench/data.py (`--corpus NAME=PATH` to override); their indexes in the user cache
(`RAGLS_CACHE_DIR`) are reused (read only), so run `ragls index` on each folder first.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from data import dataset  # noqa: E402

DEFAULT_SETS = [HERE / "followups" / "rust-book.jsonl", HERE / "followups" / "flask-docs.jsonl"]
_CITE = re.compile(r"\[(\d+)\]")


def load(path: Path) -> list[dict]:
    """The conversations of one set (lines starting with `//` are comments)."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("//"):
            out.append(json.loads(line))
    return out


def _lead_source(answer) -> int | None:
    """The [n] cited by the first answer line (`- ...`) of an extractive answer, else None."""
    first = next((ln for ln in answer.text.splitlines() if ln.startswith("- ")), "")
    m = _CITE.search(first)
    return int(m.group(1)) if m else None


def run_conversation(ws, conv: dict) -> dict:
    """Ask the earlier questions, then the follow-up; the follow-up's scores (module docstring)."""
    history: list[dict] = []
    for q in conv["history"]:
        a = ws.ask(q, history=history or None)
        history += [{"role": "user", "content": q}, {"role": "assistant", "content": a.text}]
    answer = ws.ask(conv["question"], history=history)
    gold = conv["gold"]
    files = {g["path"] for g in gold}
    sources = dict(answer.sources)
    top = sources.get(1)
    path = top.chunk.path.replace("\\", "/") if top is not None else None
    span = False
    if top is not None:
        first, last = top.chunk.span.start_line + 1, top.chunk.span.end_line + 1
        span = any(g["path"] == path and g["lines"][0] <= last and first <= g["lines"][1] for g in gold)
    lead = _lead_source(answer)
    lead_path = sources[lead].chunk.path.replace("\\", "/") if lead in sources else None
    return {"id": conv["id"], "kind": conv["kind"], "question": conv["question"], "query": answer.retrieval_query,
            "top": path, "file": path in files, "span": span, "lead": lead_path in files,
            "abstained": answer.abstained}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sets", nargs="*", type=Path, default=DEFAULT_SETS)
    ap.add_argument("--corpus", action="append", default=[], help="NAME=PATH (default: bench/data.py's)")
    ap.add_argument("--json", type=Path, help="write the per-follow-up results here")
    ap.add_argument("--context-weight", type=float, help="retrieval.query.CONTEXT_WEIGHT for this run (a sweep)")
    args = ap.parse_args()
    from ragls.workspace.rag_workspace import RagWorkspace

    if args.context_weight is not None:
        import ragls.retrieval.query

        ragls.retrieval.query.CONTEXT_WEIGHT = args.context_weight

    explicit = dict(c.split("=", 1) for c in args.corpus)
    results = []
    for path in args.sets:
        name = path.stem
        ws = RagWorkspace([dataset(name, explicit.get(name))], read_only=True)
        try:
            for conv in load(path):
                r = run_conversation(ws, conv)
                results.append({"set": name, **r})
                marks = "".join(c if r[k] else "." for c, k in (("F", "file"), ("S", "span"), ("L", "lead")))
                print(f"{r['id']:9} {r['kind']:7} {marks} {r['top']}  <- {r['query']!r}")
        finally:
            ws.close()
    for kind in sorted({r["kind"] for r in results}) + ["all"]:
        rs = [r for r in results if kind in ("all", r["kind"])]
        print(f"{kind:8} n={len(rs):2}  file Hit@1 {sum(r['file'] for r in rs):2}  span Hit@1 "
              f"{sum(r['span'] for r in rs):2}  lead {sum(r['lead'] for r in rs):2}  abstained "
              f"{sum(r['abstained'] for r in rs)}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
