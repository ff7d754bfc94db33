"""Where the memory of a cold index goes: the server's steps in one process, RSS after each (issue 2, peak RSS).

    python bench/memory.py                 # the Rust book; prints one table row per step
    python bench/memory.py --trim          # malloc_trim(0) before each reading, as the server's indexer does

Steps: `import ragls.lsp.server`, fastembed, lancedb; `RagWorkspace` on a fresh copy of the corpus with a fresh
index and cache (loads the model, opens the stores); text phase (`index(embed=False)`); embedding every pending
chunk batch by batch (`embed_pending_batch`, as the server's indexer thread); the 66 queries of bench/speed.py.
Readings are VmRSS / VmHWM and the anonymous / file-backed split (RssAnon / RssFile: mapped library code counts in
RSS too) from /proc/self/status, in MB, plus process CPU seconds. Linux only. Single-threaded, unlike the
server (see bench/speed.py (c) for the server's own peak).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from data import dataset


def status() -> dict[str, float]:
    """VmRSS, VmHWM, RssAnon, RssFile of this process in MB."""
    out = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM", "RssAnon", "RssFile"):
            out[key] = int(value.split()[0]) / 1024
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", type=Path, help="folder to index (default: the Rust book, found by bench/data.py)")
    ap.add_argument("--trim", action="store_true", help="malloc_trim(0) before each reading (glibc)")
    args = ap.parse_args(argv)
    args.corpus = dataset("rust-book", args.corpus)
    t0, prev = time.process_time(), 0.0
    print(f"load average {os.getloadavg()[0]:.2f}")
    print("| step | VmRSS | added | VmHWM | RssAnon | RssFile | CPU s |")
    print("|---|---:|---:|---:|---:|---:|---:|")

    def step(name: str) -> None:
        nonlocal prev
        if args.trim:
            from ragls.core import heap

            heap.trim()
        m = status()
        print(f"| {name} | {m['VmRSS']:.0f} | {m['VmRSS'] - prev:+.0f} | {m['VmHWM']:.0f} | {m['RssAnon']:.0f} | "
              f"{m['RssFile']:.0f} | {time.process_time() - t0:.1f} |", flush=True)
        prev = m["VmRSS"]

    step("python")
    import ragls.lsp.server  # noqa: F401

    step("`import ragls.lsp.server`")
    import fastembed  # noqa: F401

    step("`import fastembed`")
    import lancedb  # noqa: F401

    step("`import lancedb`")
    from ragls.workspace.rag_workspace import RagWorkspace
    from speed import QUERIES, model_overrides

    tmp = Path(tempfile.mkdtemp(prefix="ragls-memory-"))
    try:
        os.environ["RAGLS_CACHE_DIR"] = str(tmp / "cache")
        folder = tmp / "corpus"
        shutil.copytree(args.corpus, folder)
        ws = RagWorkspace([folder], [model_overrides() | {"index": {"path": str(tmp / "index")}}])
        step("open the workspace (model, stores)")
        ws.index(embed=False)
        step("text phase")
        idx = ws.indexes[0]
        n = 0
        while k := idx.embed_pending_batch():
            n += k
        step(f"embed {n} chunks, write their vectors")
        for q in QUERIES:
            ws.query(q)
        step(f"{len(QUERIES)} queries")
        ws.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
