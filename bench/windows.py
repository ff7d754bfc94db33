"""Cost and speed of multi-window vectors on the Rust book (issue 12).

    python bench/windows.py                 # (a) embedding cost, (b) warm query latency at k=10; prints tables
    python bench/windows.py --files 20      # the first 20 files only (quicker)
    python bench/windows.py --latency-only  # (b) only, on the whole book's index in the user cache dir
    python bench/windows.py --latency-only --compact   # ... after merging the vector table's fragments

(a) Embedding cost, in process, one loaded Embedder (offline all-MiniLM-L6-v2 int8, 256 wordpieces), no cache:
    "today" = one text per chunk, `embedding_input(chunk)` truncated by the model at 256 wordpieces (the
    pre-window product); "first pass" = window 0 of every chunk (what the indexer embeds before the window pass);
    "full windows" = every window of every chunk (`embedding.window` 256, `window_stride` 128). For each set:
    texts, wordpieces sent to the model (after truncation) and the wall and CPU seconds of `embed_documents`.
(b) Warm `rag/query` latency: the book is indexed into a fresh index whose embedding cache is pre-filled with the
    vectors of (a) (so nothing is embedded twice), then `RagWorkspace.query(text, top_k=10)` runs the 66 QUERIES
    of bench/speed.py (5 warm-up queries first, not counted) for `--rounds` rounds: p50 / p95 of its elapsed ms
    (the server's `elapsedMs`). With `--latency-only`, (b) runs on the book folder itself with default settings,
    on its index in the user cache dir (the one `ragls index` / `ragls eval` build; brought up to date first).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from data import dataset
from speed import QUERIES, model_overrides, pct

BOOK = dataset("rust-book")


def _timed(fn):
    w0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w0, time.process_time() - c0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=0, help="only the first N files of the book (0 = all)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--latency-only", action="store_true",
                    help="only (b), on the whole book's index in the user cache dir (default settings)")
    ap.add_argument("--compact", action="store_true",
                    help="with --latency-only: first merge the vector table's fragments, as `ragls serve` does when idle")
    args = ap.parse_args(argv)
    os.environ.setdefault("RAGLS_OFFLINE", "1")
    if args.latency_only:
        from ragls.workspace.rag_workspace import RagWorkspace

        ws = RagWorkspace([BOOK])
        try:
            ws.index()
            idx = ws.indexes[0]
            frags = idx.vectors.table.stats()["fragment_stats"]["num_fragments"]
            if args.compact:  # what `ragls serve` does when idle (workspace/watch.py); in-process `ragls index` does not
                idx.compact()
            print(f"{idx.manifest.chunk_count()} chunks, {idx.vectors.count()} window rows, vector table "
                  f"fragments {frags} -> {idx.vectors.table.stats()['fragment_stats']['num_fragments']}")
            return _latency(ws, args.rounds)
        finally:
            ws.close()

    from ragls.config.settings import build_settings
    from ragls.core.hashing import text_hash
    from ragls.embedding.embed import Embedder
    from ragls.index.chunking import chunk_document
    from ragls.index.indexer import FolderIndex
    from ragls.index.windows import embedding_input, plan_windows, resolve
    from ragls.sources.load import load_file
    from ragls.workspace.rag_workspace import RagWorkspace

    tmp = Path(tempfile.mkdtemp(prefix="ragls-windows-bench-"))
    book = tmp / "book"
    files = sorted(p for p in BOOK.iterdir() if p.suffix == ".md")
    if args.files:
        files = files[:args.files]
    book.mkdir()
    for p in files:
        shutil.copy(p, book / p.name)
    settings = build_settings(model_overrides(), {"index": {"path": str(tmp / "index")}})[0]
    emb = Embedder(settings.embedding)
    emb.ensure_loaded()
    tok = emb.tokenizer()
    window, stride = resolve(settings.embedding.window, settings.embedding.window_stride, emb.max_length)
    chunks = [c for p in files for c in chunk_document(load_file(book, p.name, 10**8), settings.chunking.chunk_size,
                                                        settings.chunking.overlap)]
    plans = [plan_windows(c, tok, window, stride) for c in chunks]
    sets = {
        "today (1 text/chunk, truncated)": list({text_hash(t): t for t in map(embedding_input, chunks)}.values()),
        "first pass (window 0)": list({text_hash(p[0].text): p[0].text for p in plans}.values()),
        "full windows": list({text_hash(w.text): w.text for p in plans for w in p}.values()),
    }
    print(f"{len(files)} files, {len(chunks)} chunks; window {window}, stride {stride} wordpieces; "
          f"load {os.getloadavg()[0]:.1f}")
    print("| texts embedded | texts | wordpieces | wall s | CPU s | wordpieces / today | CPU / today |")
    print("|---|---|---|---|---|---|---|")
    vectors = {}
    base = None
    for name, texts in sets.items():
        pieces = sum(min(len(e.ids), emb.max_length) for e in tok.encode_batch(texts))
        vecs, wall, cpu = _timed(lambda texts=texts: emb.embed_documents(texts))
        if base is None:
            base = (pieces, cpu)
        else:
            vectors.update({text_hash(t): v for t, v in zip(texts, vecs)})
        print(f"| {name} | {len(texts)} | {pieces} | {wall:.1f} | {cpu:.1f} | {pieces / base[0]:.2f} | "
              f"{cpu / base[1]:.2f} |", flush=True)

    idx = FolderIndex(book, settings, emb)
    idx.open_vectors()
    idx.manifest.cache_vectors(idx.embed_fp, vectors)
    _, wall, _ = _timed(idx.sync)
    assert idx.pending_windows_count() == 0 and emb.texts_embedded == sum(len(t) for t in sets.values())
    print(f"\nindexed from the pre-filled cache in {wall:.1f} s: {idx.vectors.count()} window rows")
    idx.close()
    ws = RagWorkspace([book], [{**model_overrides(), "index": {"path": str(tmp / "index")}}])
    try:
        ws.index()
        _latency(ws, args.rounds)
    finally:
        ws.close()
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


def _latency(ws, rounds: int) -> int:
    """Warm `RagWorkspace.query(text, 10)` over bench/speed.py's QUERIES, `rounds` times after 5 warm-up queries:
    prints p50 / p95 of the elapsed ms and of the process CPU ms, and the 1-minute load average before/after."""
    load0 = os.getloadavg()[0]
    for q in QUERIES[:5]:
        ws.query(q, 10)
    ms, cpu_ms = [], []
    for _ in range(rounds):
        for q in QUERIES:
            c0 = time.process_time()
            ms.append(ws.query(q, 10).elapsed_ms)
            cpu_ms.append((time.process_time() - c0) * 1000)
    print(f"\nwarm rag/query, top_k 10, {len(ms)} queries: elapsed p50 {pct(ms, 50):.1f} ms, p95 {pct(ms, 95):.1f} "
          f"ms; process CPU p50 {pct(cpu_ms, 50):.1f} ms, p95 {pct(cpu_ms, 95):.1f} ms "
          f"(load {load0:.1f} -> {os.getloadavg()[0]:.1f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
