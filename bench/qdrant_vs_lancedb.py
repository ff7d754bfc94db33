"""Query latency of the Qdrant backend (qdrant-client's embedded local mode) vs the default LanceDB + tantivy stores,
on the same 10 000 chunks (issue 19, "Figures").

    python bench/qdrant_vs_lancedb.py [--chunks 10000] [--queries 200]

Chunks: the Rust book and the Flask docs (`../shared/corpora`), loaded and chunked by ragls (2000 characters, 5 %
overlap), repeated with a copy number prefixed until `--chunks` texts exist (the BM25 / sparse vocabulary is real).
Vectors: random unit vectors of 384 dimensions (the offline MiniLM's size), one per chunk, and one per query: both
stores search exactly (LanceDB without an ANN index, qdrant-client's local mode in numpy), so the latency does not
depend on the vectors' values, and 10 000 real embeddings would take ~10 minutes on this machine. Query texts:
the chunks' heading paths (titles), cycled.

Measured per query (ms, after 20 warm-up queries): dense top 30 (LanceDB `VectorStore.search` vs
`QdrantChunkStore.search`), keyword top 30 (tantivy `Bm25Store.search` vs Qdrant's sparse `bm25` vector with
the IDF modifier), and both (what one hybrid query costs in the store layer, RRF itself is microseconds).
Also: the time to write the 10 000 points into each store.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

from data import dataset  # noqa: E402 - bench/data.py (this script's folder is sys.path[0])
from ragls.core.errors import Skipped  # noqa: E402
from ragls.core.ir import Chunk  # noqa: E402
from ragls.index.chunking import chunk_document  # noqa: E402
from ragls.index.windows import Window  # noqa: E402
from ragls.sources.load import load_file  # noqa: E402
from ragls.stores.bm25 import Bm25Store  # noqa: E402
from ragls.stores.qdrant import QdrantChunkStore, connect  # noqa: E402
from ragls.stores.vectors import VectorStore  # noqa: E402

CORPORA = ("rust-book", "flask-docs")  # data sets found by bench/data.py
DIM = 384
TOP = 30


def load_chunks(n: int) -> list[Chunk]:
    base: list[Chunk] = []
    for root in map(dataset, CORPORA):
        for path in sorted(root.rglob("*")):
            if path.suffix not in (".md", ".rst", ".txt") or not path.is_file():
                continue
            doc = load_file(root, str(path.relative_to(root)), 2_000_000)
            if not isinstance(doc, Skipped):
                base += chunk_document(doc, 2000, 100)
    out = []
    for i in range(n):
        c = base[i % len(base)]
        copy = i // len(base)
        out.append(Chunk(id=f"{i:08d}", path=f"copy{copy}/{c.path}", text=f"[copy {copy}] {c.text}", span=c.span,
                         text_hash=f"{i:064d}", ordinal=c.ordinal, title=c.title))
    print(f"{len(base)} distinct chunks from the corpora, {n} with copies", flush=True)
    return out


def p(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1] if len(values) > 1 else values[0]


def timed(fn, queries) -> list[float]:
    for q in queries[:20]:
        fn(q)
    out = []
    for q in queries:
        t0 = time.perf_counter()
        fn(q)
        out.append((time.perf_counter() - t0) * 1000)
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--chunks", type=int, default=10_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--location", default="path", choices=["path", "memory"],
                    help="Qdrant local mode on disk (default) or in memory")
    args = ap.parse_args()
    chunks = load_chunks(args.chunks)
    rng = np.random.default_rng(19)
    vecs = rng.standard_normal((len(chunks), DIM)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    qvecs = rng.standard_normal((args.queries, DIM)).astype(np.float32)
    qvecs /= np.linalg.norm(qvecs, axis=1, keepdims=True)
    titles = [c.title or c.text[:60] for c in chunks[:: max(1, len(chunks) // args.queries)]][: args.queries]
    queries = list(zip(qvecs, titles))

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        t0 = time.perf_counter()
        lance = VectorStore(tmp / "lance", DIM)
        by_id = {c.id: c for c in chunks}
        windows = [Window(c.id, 0, 1, c.span.start_line, c.span.end_line, c.text) for c in chunks]
        hashes = [c.text_hash for c in chunks]
        for s in range(0, len(chunks), 1000):
            lance.add(by_id, windows[s:s + 1000], vecs[s:s + 1000], hashes[s:s + 1000])
        bm25 = Bm25Store(tmp / "bm25")
        bm25.add(chunks)
        bm25.commit()
        lance_write = time.perf_counter() - t0

        results = {}
        t0 = time.perf_counter()
        where = str(tmp / "qdrant") if args.location == "path" else ":memory:"
        qd = QdrantChunkStore(connect(where), "bench", DIM, "bench-model", location=where)
        for s in range(0, len(chunks), 1000):
            qd.add(by_id, windows[s:s + 1000], vecs[s:s + 1000], hashes[s:s + 1000])
            print(f"qdrant: {s + 1000} points written, {time.perf_counter() - t0:.0f} s", flush=True)
        qdrant_write = time.perf_counter() - t0
        assert qd.count() == len(chunks) == lance.count()

        results["LanceDB dense"] = timed(lambda q: lance.search(q[0], TOP), queries)
        results["tantivy BM25"] = timed(lambda q: bm25.search(q[1], TOP), queries)
        results["LanceDB + tantivy (hybrid)"] = timed(lambda q: (lance.search(q[0], TOP), bm25.search(q[1], TOP)),
                                                      queries)
        results["Qdrant local dense"] = timed(lambda q: qd.search(q[0], TOP), queries)
        results["Qdrant local sparse BM25"] = timed(lambda q: qd.sparse_points(q[1], TOP), queries)
        results["Qdrant local dense + sparse (hybrid, one batch request)"] = timed(
            lambda q: qd.hybrid_points(q[0], q[1], TOP), queries)

    load = os.getloadavg()[0]
    print(f"\n{len(chunks)} chunks, {DIM}-d, top {TOP}, {args.queries} queries, Qdrant local mode {args.location}; "
          f"load average {load:.1f}\n")
    print("| store | p50 ms | p95 ms |")
    print("|---|---:|---:|")
    for name, vals in results.items():
        print(f"| {name} | {p(vals, 50):.1f} | {p(vals, 95):.1f} |")
    print(f"\nwrite {len(chunks)} chunks: LanceDB + tantivy {lance_write:.1f} s, Qdrant local {qdrant_write:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
