"""LLM-assisted query-time retrieval (retrieval/assisted.py): the skip rule on the dev sets, and the LLM calls and
added latency per question of each option with the loopback model.

1. Skip rule. For every question of bench/questions/<corpus>.jsonl: BM25's best two scores, normalised s/(1+s)
   (qmd's mapping); for a grid of (strong_signal_score, strong_signal_gap) how often the rule fires (no LLM
   step) and, when it fires on an answerable question, whether BM25's top hit is a gold passage; plus how
   often it fires on unanswerable questions (where skipping corrective grading loses an abstention).
2. Cost. The loopback OpenAI-compatible server of tests/llm_server.py answers every call at once with a fixed
   scripted text (a passage / question / 3 paraphrases / "SUFFICIENT" or "INSUFFICIENT" + a query), so the
   figures are ragls' own overhead (HTTP round trip, extra embeddings and searches, fusion) — add the real
   model's time: the transforms' calls run concurrently (one model latency), corrective adds one or two
   sequential ones. Per option: LLM calls per question (mean), questions skipped, median and p95 wall time of
   `RagWorkspace.query` and the median added over plain retrieval.

    python bench/llm_retrieval.py [--corpus rust-book|flask-docs] [--workdir /tmp/ragls-llm-bench]

The index (offline all-MiniLM-L6-v2) is kept in --workdir between runs.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the loopback LLM server

from data import REPO_ROOT, dataset
from speed import model_overrides

GRID_SCORES = (0.80, 0.85, 0.90, 0.95)
GRID_GAPS = (0.05, 0.10, 0.15, 0.20)


def open_workspace(workdir: Path, corpus: Path):
    """A workspace over `corpus` with the offline model, its index kept in `workdir`/index between runs."""
    from ragls.workspace.rag_workspace import RagWorkspace

    return RagWorkspace([corpus], [model_overrides(batch_size=16) | {"index": {"path": str(workdir / "index")}}])


def skip_rule(ws, questions) -> None:
    from ragls.core.ir import Hit
    from ragls.evaluation.evaluate import matches
    from ragls.retrieval.query import analyse
    from ragls.retrieval.transforms import normalised_bm25

    idx = ws.indexes[0]
    rows = []  # (kind, answerable, top, gap, top hit is gold, relative gap (s1 - s2) / s1)
    for q in questions:
        aq = analyse(q.question)
        found = idx.bm25.search(aq.text, 2, words=aq.bm25_words, compounds=aq.compounds)
        if not found:
            rows.append((q.kind, bool(q.gold), 0.0, 0.0, False, 0.0))
            continue
        top = normalised_bm25(found[0][1])
        second = normalised_bm25(found[1][1]) if len(found) > 1 else 0.0
        chunk = idx.manifest.get_chunks([found[0][0]]).get(found[0][0])
        right = chunk is not None and any(matches(Hit(chunk, 1.0), g) for g in q.gold)
        raw2 = found[1][1] if len(found) > 1 else 0.0
        rows.append((q.kind, bool(q.gold), top, top - second, right, (found[0][1] - raw2) / found[0][1]))
    answerable = [r for r in rows if r[1]]
    print(f"\nskip rule: {len(rows)} questions ({len(answerable)} answerable); BM25 top normalised score median "
          f"{statistics.median(r[2] for r in rows):.3f}, gap median {statistics.median(r[3] for r in rows):.3f}")
    print("score  gap   fires (all)  fires (answerable)  top hit right when fired  fires (unanswerable)")
    for s in GRID_SCORES:
        for g in GRID_GAPS:
            fired = [r for r in rows if r[2] >= s and r[3] >= g]
            fa = [r for r in fired if r[1]]
            right = sum(r[4] for r in fa)
            print(f"{s:.2f}  {g:.2f}  {len(fired):3d}/{len(rows)}      {len(fa):3d}/{len(answerable)}           "
                  f"{right}/{len(fa)}                       {len(fired) - len(fa)}")
    print("alternative (not used): raw BM25 top leads the second by a relative gap (s1 - s2) / s1, top >= 0.85")
    for g in (0.2, 0.3, 0.4, 0.5):
        fired = [r for r in rows if r[2] >= 0.85 and r[5] >= g]
        fa = [r for r in fired if r[1]]
        print(f"  relative gap >= {g:.1f}: fires {len(fired)}/{len(rows)}, answerable {len(fa)}, top hit right "
              f"{sum(r[4] for r in fa)}/{len(fa)}, unanswerable {len(fired) - len(fa)}")
    print("per kind at 0.85 / 0.15 (fired / questions, top hit right):")
    for kind in sorted({r[0] for r in rows}):
        ks = [r for r in rows if r[0] == kind]
        fired = [r for r in ks if r[2] >= 0.85 and r[3] >= 0.15]
        print(f"  {kind:13} {len(fired)}/{len(ks)}  right {sum(r[4] for r in fired)}/{len(fired)}")


def scripted(req) -> str:
    """The loopback model's reply, by prompt: fixed texts built from the question's words."""
    from ragls.retrieval.corrective import GRADE_SYSTEM

    text = req.last_user_text()
    question = text.split("Question: ", 1)[-1].split("\n", 1)[0] if "Question: " in text else \
        text.rsplit("Query: ", 1)[-1].strip()
    if req.system == GRADE_SYSTEM:  # first grade: a second round for questions of odd length; then sufficient
        if "Reply SUFFICIENT, or INSUFFICIENT" in text and len(question) % 2:
            return f"INSUFFICIENT\nQuery: {question} details"
        return "SUFFICIENT"
    if "rephrasings" in text:
        return f"{question} explained\nhow to {question}\n{question} example"
    if "step-back" in req.system:
        return f"What is the concept behind: {question}"
    return f"{question}. This section of the documentation explains it with an example."


def cost(ws, questions, repeat: int) -> None:
    from llm_server import LLMServer
    from ragls.retrieval.llm_steps import CACHE

    options = {
        "plain": {},
        "hyde": {"hyde": True},
        "step_back": {"step_back": True},
        "expand_n=3": {"expand_n": 3},
        "corrective": {"corrective": True},
        "all four": {"hyde": True, "step_back": True, "expand_n": 3, "corrective": True},
    }
    texts = [q.question for q in questions]
    base = ws.settings
    with LLMServer(handler=scripted) as srv:
        gen = base.generation.model_copy(update={"backend": "openai", "base_url": srv.openai_url,
                                                 "model": "test-model"})
        plain_median = None
        print(f"\ncost per question, {len(texts)} questions x {repeat}, loopback model (replies at once), "
              f"transform cache cleared before each pass")
        print("option        LLM calls/q  skipped  median ms  p95 ms  added median ms")
        for label, retrieval in options.items():
            ws.settings = base.model_copy(update={"retrieval": base.retrieval.model_copy(update=retrieval),
                                                  "generation": gen})
            for t in texts[:5]:
                ws.query(t)  # warm-up (model, client)
            times, calls, skipped = [], 0, 0
            for _ in range(repeat):
                CACHE.clear()
                for t in texts:
                    t0 = time.perf_counter()
                    result = ws.query(t)
                    times.append((time.perf_counter() - t0) * 1000)
                    if result.llm is not None:
                        calls += result.llm.counter.total()
                        skipped += result.llm.skipped is not None
            n = len(texts) * repeat
            med = statistics.median(times)
            p95 = sorted(times)[int(0.95 * (len(times) - 1))]
            if plain_median is None:
                plain_median = med
            print(f"{label:12}  {calls / n:11.2f}  {skipped:4d}/{n}  {med:9.1f}  {p95:6.1f}  "
                  f"{med - plain_median:+15.1f}")
    ws.settings = base


def main(argv: list[str] | None = None) -> int:
    from ragls.evaluation.evaluate import load_questions

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default="rust-book", choices=("rust-book", "flask-docs"))
    ap.add_argument("--data", help="the corpus folder (default: found by bench/data.py)")
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/ragls-llm-bench"))
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--skip-cost", action="store_true", help="only the skip-rule table")
    args = ap.parse_args(argv)
    corpus = dataset(args.corpus, args.data)
    questions = load_questions(REPO_ROOT / "bench" / "questions" / f"{args.corpus}.jsonl")
    ws = open_workspace(args.workdir / args.corpus, corpus)
    try:
        t0 = time.perf_counter()
        ws.index()
        print(f"{args.corpus}: {sum(i.manifest.chunk_count() for i in ws.indexes)} chunks "
              f"(index ready in {time.perf_counter() - t0:.0f} s)")
        skip_rule(ws, questions)
        if not args.skip_cost:
            cost(ws, questions, args.repeat)
    finally:
        ws.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
