"""Scale benchmark (issue 18): 10k / 50k / 100k chunks.

    python bench/scale.py [--sizes 10000,50000,100000] [--queries 50] [--workdir DIR]

For each size N, in a fresh directory:
- vectors: N synthetic unit vectors of 384 dimensions (MiniLM's), clustered like real embeddings (200 topic centres
  plus noise), written to a real LanceDB vector store (`stores/vectors.py`). Query vectors are perturbed stored
  vectors. Measured: exact search p50/p95 (k=10), then the IVF_PQ index build time, ANN p50/p95, and recall@10 of
  the ANN results against the exact ones;
- text: N real chunks for BM25, cut from the Rust book's Markdown (cycled, with a per-copy marker word so documents
  differ), indexed in a real tantivy store (`stores/bm25.py`); BM25 p50 over real queries;
- on disk: the size of both stores; re-open: the time to open both stores again and answer one query;
- memory: this process's peak RSS (VmHWM) after the size's steps.

Embedding 100k real chunks would take about an hour on 2 cores, so vectors are synthetic; the vector search cost
depends only on their number and dimension, not on their meaning.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

QUERIES = ["what is ownership", "borrowing rules mutable reference", "the Option enum instead of null",
           "recoverable errors with Result", "trait bounds", "lifetime annotations", "closures capture environment",
           "Rc reference counting", "message passing channels", "pattern matching ranges", "macro_rules",
           "thread pool graceful shutdown", "store a list of values in a vector", "iterate over a HashMap"]


def vm_hwm_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def dir_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1e6


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, round(p * (len(values) - 1)))]


def book_paragraphs(corpus: Path) -> list[str]:
    paras = []
    for md in sorted(corpus.rglob("*.md")):
        for block in md.read_text(encoding="utf-8", errors="replace").split("\n\n"):
            if len(block) > 200:
                paras.append(block[:2000])
    return paras


def run_size(n: int, workdir: Path, paras: list[str], queries: int, rng) -> dict:
    from ragls.core.ir import Chunk, LineSpan
    from ragls.index.windows import Window
    from ragls.stores.bm25 import Bm25Store
    from ragls.stores.vectors import VectorStore

    root = workdir / f"n{n}"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    dim = 384
    centres = rng.normal(size=(200, dim))
    vecs = centres[rng.integers(0, 200, n)] + 0.6 * rng.normal(size=(n, dim))
    vecs = (vecs / np.linalg.norm(vecs, axis=1, keepdims=True)).astype(np.float32)
    chunks = {}
    windows = []
    for i in range(n):
        cid = f"c{i:06}"
        text = f"copy{i // max(1, len(paras))} " + paras[i % len(paras)]
        chunks[cid] = Chunk(id=cid, path=f"doc{i // 20:05}.md", text=text, span=LineSpan(i % 20, 0, i % 20 + 1, 0),
                            text_hash=f"h{i}")
        windows.append(Window(chunk_id=cid, index=0, count=1, start_line=i % 20, end_line=i % 20, text=text))
    t0 = time.perf_counter()
    store = VectorStore(root / "vectors", dim)
    for start in range(0, n, 5000):
        part = windows[start:start + 5000]
        store.add(chunks, part, vecs[start:start + 5000], [f"h{start + j}" for j in range(len(part))])
    write_s = time.perf_counter() - t0
    qv = vecs[rng.integers(0, n, queries)] + 0.3 * rng.normal(size=(queries, dim)).astype(np.float32)
    qv = (qv / np.linalg.norm(qv, axis=1, keepdims=True)).astype(np.float32)
    exact, exact_ms = [], []
    for q in qv:
        t = time.perf_counter()
        exact.append([c for c, _ in store.search(q, 10)])
        exact_ms.append((time.perf_counter() - t) * 1000)
    t0 = time.perf_counter()
    store.build_ann()
    build_s = time.perf_counter() - t0
    approx, ann_ms = [], []
    for q in qv:
        t = time.perf_counter()
        approx.append([c for c, _ in store.search(q, 10)])
        ann_ms.append((time.perf_counter() - t) * 1000)
    recall = float(np.mean([len(set(a) & set(e)) / 10 for a, e in zip(approx, exact)]))

    bm = Bm25Store(root / "bm25", writable=True)
    t0 = time.perf_counter()
    items = list(chunks.values())
    for start in range(0, n, 5000):
        bm.add(items[start:start + 5000])
    bm.commit()
    bm_write_s = time.perf_counter() - t0
    bm_ms = []
    for i in range(queries):
        t = time.perf_counter()
        bm.search(QUERIES[i % len(QUERIES)], 10)
        bm_ms.append((time.perf_counter() - t) * 1000)
    bm.close()
    t0 = time.perf_counter()
    store2 = VectorStore(root / "vectors", dim)
    store2.search(qv[0], 10)
    bm2 = Bm25Store(root / "bm25", writable=False)
    bm2.search(QUERIES[0], 10)
    reopen_s = time.perf_counter() - t0
    bm2.close()
    return {"n": n, "write_s": write_s, "exact_p50": statistics.median(exact_ms), "exact_p95": pct(exact_ms, 0.95),
            "build_s": build_s, "ann_p50": statistics.median(ann_ms), "ann_p95": pct(ann_ms, 0.95),
            "recall": recall, "bm25_write_s": bm_write_s, "bm25_p50": statistics.median(bm_ms),
            "disk_mb": dir_mb(root), "reopen_s": reopen_s, "hwm_mb": vm_hwm_mb()}


def main() -> None:
    from data import dataset

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="10000,50000,100000")
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--corpus", type=Path, default=None, help="Markdown corpus for the BM25 text (default: rust-book)")
    ap.add_argument("--workdir", type=Path, default=None)
    args = ap.parse_args()
    corpus = dataset("rust-book", args.corpus)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="ragls-scale-"))
    paras = book_paragraphs(corpus)
    rng = np.random.default_rng(0)
    print(f"{'chunks':>7} {'exact p50/p95 ms':>17} {'ANN build s':>11} {'ANN p50/p95 ms':>15} {'recall@10':>9} "
          f"{'BM25 p50 ms':>11} {'disk MB':>8} {'re-open s':>9} {'VmHWM MB':>8}")
    for n in (int(s) for s in args.sizes.split(",")):
        r = run_size(n, workdir, paras, args.queries, rng)
        print(f"{r['n']:>7} {r['exact_p50']:8.1f}/{r['exact_p95']:<8.1f} {r['build_s']:11.1f} "
              f"{r['ann_p50']:7.1f}/{r['ann_p95']:<7.1f} {r['recall']:9.3f} {r['bm25_p50']:11.1f} "
              f"{r['disk_mb']:8.0f} {r['reopen_s']:9.2f} {r['hwm_mb']:8.0f}", flush=True)
    shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
