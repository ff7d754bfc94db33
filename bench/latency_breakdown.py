"""bench/latency_breakdown.py [--ask] [--passes N] QUESTIONS FOLDER: wall/CPU ms per question spent in chosen functions (wrapped
with timers, no profiler), for the first pass (each question new) and the later passes."""
import functools
import importlib
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

args = sys.argv[1:]
ask = "--ask" in args
args = [a for a in args if not a.startswith("--")]
from ragls.evaluation import evaluate
from ragls.workspace.rag_workspace import RagWorkspace

TARGETS = [
    ("ragls.embedding.embed", "Embedder.embed_documents"),
    ("ragls.embedding.embed", "Embedder.embed_query"),
    ("ragls.retrieval.search", "search"),
    ("ragls.retrieval.search", "_document_priors"),
    ("ragls.retrieval.search", "_finish"),
    ("ragls.retrieval.search", "_meaning_veto"),
    ("ragls.retrieval.search", "_term_stats"),
    ("ragls.retrieval.search", "_absent_names"),
    ("ragls.retrieval.search", "gather"),
    ("ragls.retrieval.search", "sentence_focus"),
    ("ragls.retrieval.search", "repeated_block_factors"),
    ("ragls.retrieval.search", "_distinct"),
    ("ragls.retrieval.search", "_evidence_hits"),
    ("ragls.retrieval.source", "FolderSource.candidates"),
    ("ragls.workspace.rag_workspace", "RagWorkspace.servable"),
    ("ragls.answer.blocks", "parsed"),
    ("ragls.answer.extractive", "extractive_picks"),
    ("ragls.answer.extractive", "candidate_passages"),
    ("ragls.answer.ask", "check_citations"),
    ("ragls.index.indexer", "FolderIndex.refresh"),
    ("ragls.retrieval.search", "_exact_match_bonus"),
    ("ragls.retrieval.search", "_fuse"),
    ("ragls.retrieval.search", "_materialize"),
    ("ragls.retrieval.search", "_merge_candidates"),
    ("ragls.retrieval.search", "_corpus_wide"),
    ("ragls.retrieval.search", "analyse"),
    ("ragls.retrieval.search", "fit_query"),
    ("ragls.retrieval.search", "_page_support"),
    ("ragls.retrieval.search", "keyword_focus"),
    ("ragls.retrieval.assisted", "search"),
    ("ragls.workspace.rag_workspace", "RagWorkspace.abstains"),
    ("ragls.workspace.rag_workspace", "RagWorkspace.retrieve"),
    ("ragls.stores.vectors", "VectorStore.search_windows"),
    ("ragls.stores.bm25", "Bm25Store.search"),
]
acc = defaultdict(lambda: [0.0, 0.0, 0])
depth = defaultdict(int)
def wrap(mod, name):
    m = importlib.import_module(mod)
    owner, attr = (m, name) if "." not in name else (getattr(m, name.split(".")[0]), name.split(".")[1])
    fn = getattr(owner, attr)
    @functools.wraps(fn)
    def inner(*a, **k):
        depth[name] += 1
        t, c = time.perf_counter(), time.process_time()
        try:
            return fn(*a, **k)
        finally:
            depth[name] -= 1
            if depth[name] == 0:
                e = acc[name]; e[0] += time.perf_counter() - t; e[1] += time.process_time() - c; e[2] += 1
    setattr(owner, attr, inner)
for mod, name in TARGETS:
    try: wrap(mod, name)
    except (ImportError, AttributeError) as e: print("skip", mod, name, e)
qs = [q.question for q in evaluate.load_questions(args[0])]
ws = RagWorkspace([Path(args[1])], [{}], read_only=True)
run = (lambda q: ws.ask(q)) if ask else (lambda q: ws.query(q, 10))
run("warm the model up please")
def one_pass(label):
    acc.clear()
    tot = []; cpu = []
    for q in qs:
        t, c = time.perf_counter(), time.process_time()
        run(q)
        tot.append((time.perf_counter() - t) * 1000); cpu.append((time.process_time() - c) * 1000)
    n = len(qs)
    print(f"== {label}: wall p50 {statistics.median(tot):.1f} mean {statistics.mean(tot):.1f}; cpu p50 {statistics.median(cpu):.1f} mean {statistics.mean(cpu):.1f} ms/q")
    for name, (w, c, k) in sorted(acc.items(), key=lambda kv: -kv[1][0]):
        print(f"   {name:40s} wall {w*1000/n:7.2f}  cpu {c*1000/n:7.2f}  calls/q {k/n:5.1f}")
one_pass("first")
if "--first-only" not in sys.argv: one_pass("warm")
ws.close()
