"""LLM calls and added latency of contextual retrieval (per chunk) and the LLM reranker (per question), issue 20.

    python bench/llm_retrieval_cost.py                    # first 6 Rust-book files, model latency 0 and 200 ms
    python bench/llm_retrieval_cost.py --files 12 --latency-ms 0,500 --questions 20

No real LLM is reachable here, so the model is the loopback OpenAI-compatible server of the tests
(tests/llm_server.py) answering at once or after `--latency-ms` (a stand-in for a provider's time to answer).
Contexts are a fixed sentence; the LLM reranker's reply is "[2] > [1]". What is measured is ragls' own cost
around the calls (counting, prompts, SDK/HTTP, the extra embedded text) plus the model's time as the concurrency
bounds it. Quality gains need a real model: see bench/history/early-speed-and-operations.md,
"Measuring the quality gain once a real LLM is reachable" for `ragls eval --compare`.

(a) Contextual retrieval: the same files indexed plain and with `retrieval.contextual` (ingest_concurrency 4),
    each into a fresh index with an empty embedding cache; LLM calls, calls per chunk, wall seconds, added ms per
    chunk, and of that the LLM step (time inside `Contextualizer.apply`; the rest is embedding the longer text);
    then a re-index (nothing changed) and a rebuild (contexts from the cache): their calls.
(b) LLM reranker: `--questions` Rust-book questions (bench/questions/rust-book.jsonl) on the plain index, warm,
    plain fused (all questions), then `rerank_backend = "llm"` (all questions, after one warm-up): calls per
    question (requests the server received) and p50 ms; "added" = difference of the p50s.
(c) Time budget: the LLM answering after 2 s with `rerank_timeout_ms = 300`: p50 query ms and timeouts reported.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

from data import dataset
from llm_server import LLMServer, Reply
from speed import model_overrides

CONTEXT = "This chunk is part of the Rust book chapter it comes from and explains one of its topics."


def _copy_files(n: int, dest: Path) -> Path:
    book = dataset("rust-book")
    dest.mkdir(parents=True)
    for p in sorted(book.glob("ch*.md"))[:n]:
        shutil.copyfile(p, dest / p.name)
    return dest


def _settings(server: LLMServer, index: Path, **retrieval) -> list[dict]:
    return [model_overrides(), {"generation": {"backend": "openai", "base_url": server.openai_url, "model": "bench",
                                               "max_retries": 0},
                                "index": {"path": str(index)}, "retrieval": retrieval}]


def _index(folder: Path, overrides: list[dict], cache: Path) -> tuple:
    from ragls.workspace.rag_workspace import RagWorkspace

    os.environ["RAGLS_EMBEDDING_CACHE"] = str(cache)
    ws = RagWorkspace([folder], overrides)
    ws.indexes[0].try_open_vectors()  # the model loads outside the timing
    t0 = time.perf_counter()
    ws.index()
    return ws, time.perf_counter() - t0


def _timing_apply() -> list[float]:
    """Seconds spent in `Contextualizer.apply` (the LLM step of indexing), appended per call."""
    from ragls.index.contextual import Contextualizer

    spent: list[float] = []
    original = Contextualizer.apply

    def timed(self, docs, chunks):
        t0 = time.perf_counter()
        try:
            return original(self, docs, chunks)
        finally:
            spent.append(time.perf_counter() - t0)

    Contextualizer.apply = timed
    return spent


def contextual(folder: Path, tmp: Path, latency_s: float) -> dict:
    spent = _timing_apply()
    with LLMServer(lambda req: Reply(text=CONTEXT, delay_s=latency_s)) as srv:
        plain, t_plain = _index(folder, _settings(srv, tmp / f"plain-{latency_s}"), tmp / f"c0-{latency_s}.sqlite")
        chunks = plain.indexes[0].manifest.chunk_count()
        plain.close()
        over = _settings(srv, tmp / f"ctx-{latency_s}", contextual=True, ingest_concurrency=4)
        ws, t_ctx = _index(folder, over, tmp / f"c1-{latency_s}.sqlite")
        llm_s = sum(spent)
        calls = len(srv.requests)
        srv.reset(lambda req: Reply(text=CONTEXT, delay_s=latency_s))
        ws.index()
        again = len(srv.requests)
        ws.rebuild()
        rebuilt = len(srv.requests) - again
        ws.close()
    return {"latency_ms": latency_s * 1000, "chunks": chunks, "calls": calls, "calls_per_chunk": calls / chunks,
            "plain_s": t_plain, "contextual_s": t_ctx, "added_ms_per_chunk": (t_ctx - t_plain) * 1000 / chunks,
            "llm_step_ms_per_chunk": llm_s * 1000 / chunks,
            "reindex_calls": again, "rebuild_calls": rebuilt}


def rerank(folder: Path, tmp: Path, questions: list[str], latency_s: float, timeout_ms: int = 0) -> dict:
    with LLMServer(lambda req: Reply(text="[2] > [1]", delay_s=latency_s)) as srv:
        ws, _ = _index(folder, _settings(srv, tmp / "rr"), tmp / "rr.sqlite")
        r = ws.settings.retrieval
        for q in questions[:3]:
            ws.query(q)  # warm-up
        plain, reranked, timeouts = [], [], 0
        for q in questions:
            t0 = time.perf_counter()
            ws.query(q)
            plain.append((time.perf_counter() - t0) * 1000)
        r.rerank_backend, r.rerank_timeout_ms = "llm", timeout_ms
        ws.query(questions[0])  # warm-up: the chat client is made once per reranker
        srv.reset(lambda req: Reply(text="[2] > [1]", delay_s=latency_s))
        for q in questions:
            t0 = time.perf_counter()
            res = ws.query(q)
            reranked.append((time.perf_counter() - t0) * 1000)
            timeouts += bool(res.rerank and res.rerank.get("timedOut"))
        calls = len(srv.requests)
        ws.close()
    return {"latency_ms": latency_s * 1000, "timeout_ms": timeout_ms, "questions": len(questions),
            "calls_per_question": calls / len(questions), "plain_p50_ms": statistics.median(plain),
            "llm_p50_ms": statistics.median(reranked),
            "added_p50_ms": statistics.median(reranked) - statistics.median(plain), "timeouts": timeouts}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--files", type=int, default=6)
    ap.add_argument("--latency-ms", default="0,200", help="the stand-in model's answer time(s), comma-separated")
    ap.add_argument("--questions", type=int, default=15)
    args = ap.parse_args()
    os.environ.setdefault("RAGLS_OFFLINE", "1")
    import openai  # noqa: F401 - the SDK's one-time import (~3 s here) is not a per-chunk cost
    latencies = [float(x) / 1000 for x in args.latency_ms.split(",")]
    qfile = HERE / "questions" / "rust-book.jsonl"
    questions = [json.loads(line)["question"] for line in qfile.read_text().splitlines()
                 if line.strip() and not line.lstrip().startswith("//")]  # `//` lines are comments
    questions = questions[:args.questions]
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        os.environ["RAGLS_CACHE_DIR"] = str(tmp / "cache")
        folder = _copy_files(args.files, tmp / "book")
        print(f"Rust book, first {args.files} chapter files; loopback model; ingest_concurrency 4\n")
        print("(a) contextual retrieval")
        print("| model latency | chunks | LLM calls | calls/chunk | index plain s | index contextual s | added ms/chunk "
              "| of which LLM step ms/chunk | re-index calls | rebuild calls |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for lat in latencies:
            c = contextual(folder, tmp, lat)
            print(f"| {c['latency_ms']:.0f} ms | {c['chunks']} | {c['calls']} | {c['calls_per_chunk']:.2f} | "
                  f"{c['plain_s']:.1f} | {c['contextual_s']:.1f} | {c['added_ms_per_chunk']:.1f} | "
                  f"{c['llm_step_ms_per_chunk']:.1f} | "
                  f"{c['reindex_calls']} | {c['rebuild_calls']} |", flush=True)
        print("\n(b) LLM reranker (20 candidates), warm queries")
        print("| model latency | budget | questions | calls/question | fused p50 ms | llm rerank p50 ms | added p50 ms "
              "| timeouts |")
        print("|---|---|---|---|---|---|---|---|")
        runs = [(lat, 0) for lat in latencies] + [(2.0, 300)]
        for lat, budget in runs:
            r = rerank(folder, tmp, questions, lat, budget)  # one index, embedded once
            print(f"| {r['latency_ms']:.0f} ms | {budget or 'none'} | {r['questions']} | {r['calls_per_question']:.2f} | "
                  f"{r['plain_p50_ms']:.0f} | {r['llm_p50_ms']:.0f} | {r['added_p50_ms']:.0f} | {r['timeouts']} |",
                  flush=True)


if __name__ == "__main__":
    main()
