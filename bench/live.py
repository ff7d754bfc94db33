"""Live-index benchmark (issue 4): save-to-queryable latency, chunks re-embedded per edit, rag/query latency during
a cold index, and time from server start to the first BM25 answer.

    python bench/live.py                      # all three parts; the big index is built once in --workdir
    python bench/live.py --parts latency      # only (a)

(a) Save-to-queryable on a big index: the Rust book copied `--copies` times (9 × 113 = 1017 files) into
    <workdir>/ws (default /tmp/ragls-bench-live, outside the repository), indexed by `python -m ragls serve` with its cache in <workdir>/cache (kept between runs: the first
    run embeds the book once — the copies hit the content-addressed embedding cache — later runs reuse it). For each
    of `--edits` edits a different chapter gets a new ~5 KB Markdown section (unique marker word) appended; the
    clock runs from the write until `rag/query` for the marker returns a chunk containing it (queries every 20 ms).
    Then the benchmark waits until nothing is pending and reads the server's log lines: chunks of the edited file,
    vectors taken from the cache, chunks sent to the model.
(b) rag/query latency while a cold index runs: a fresh cache and one copy of the book; varied queries are sent
    back to back (50 ms apart) from the moment the workspace is open until every chunk has its vector.
(c) Server start to first BM25 answer: fresh cache, one copy of the book; from spawning the process until a
    `rag/query` (sent every 50 ms after `initialized`) returns a chunk containing the query's rare word.

Model: the offline all-MiniLM-L6-v2 (int8) via `embedding.model_path`; other settings are ragls' defaults
(debounce 300 ms). The server runs with watchfiles; no didSave hints are sent.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from speed import model_overrides

BOOK: Path  # the Rust book: --corpus, else bench/data.py's lookup (set in main)
HERE = Path(__file__).resolve().parent
SERVER = [sys.executable, "-m", "ragls", "serve"]
QUERIES = ["what is ownership", "borrowing rules mutable reference", "the Option enum instead of null",
           "recoverable errors with Result", "trait bounds", "lifetime annotations", "closures capture environment",
           "Rc<T> reference counting", "message passing channels", "pattern matching syntax ranges",
           "declarative macros macro_rules", "thread pool graceful shutdown", "store a list of values in a vector",
           "iterate over a HashMap", "the ? operator", "writing unit tests"]


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    k = (len(values) - 1) * p
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


class Server:
    """`ragls serve` on stdio driven by a pytest-lsp client (collects window/logMessage lines)."""

    def __init__(self, folder: Path, cache: Path):
        self.folder, self.cache = folder, cache
        self.client = None
        self.t_spawn = 0.0

    async def start(self) -> Server:
        from lsprotocol import types
        from pytest_lsp import make_test_lsp_client
        from ragls.core.uris import path_to_uri

        env = dict(os.environ, RAGLS_CACHE_DIR=str(self.cache), RAGLS_OFFLINE="1", HF_HUB_OFFLINE="1")
        self.client = make_test_lsp_client()
        self.t_spawn = time.perf_counter()
        await self.client.start_io(*SERVER, env=env)
        await self.client.initialize_session(types.InitializeParams(
            capabilities=types.ClientCapabilities(), root_uri=path_to_uri(self.folder),
            workspace_folders=[types.WorkspaceFolder(uri=path_to_uri(self.folder), name=self.folder.name)],
            initialization_options=model_overrides()))
        return self

    async def request(self, method: str, params: dict):
        return to_dict(await self.client.protocol.send_request_async(method, params))

    async def status(self) -> dict:
        return (await self.request("rag/status", {}))["folders"][0]

    async def wait_idle(self, timeout: float = 3600) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            st = await self.status()
            if st["pending"] == 0 and st["pendingVectors"] == 0 and st["lastIndexedAt"]:
                return st
            await asyncio.sleep(0.2)
        raise TimeoutError("index not idle")

    def logs(self, pattern: str) -> list[re.Match]:
        rx = re.compile(pattern)
        return [m for msg in self.client.log_messages if (m := rx.search(msg.message))]

    async def stop(self) -> None:
        try:
            await asyncio.wait_for(self.client.shutdown_session(), 60)
        finally:
            if self.client._server.returncode is None:
                self.client._server.kill()
            await self.client.stop()


def to_dict(obj):
    if hasattr(obj, "_asdict"):
        return {k: to_dict(v) for k, v in obj._asdict().items()}
    if isinstance(obj, (list, tuple)):
        return [to_dict(v) for v in obj]
    return obj


async def query(server: Server, text: str) -> tuple[dict, float]:
    t0 = time.perf_counter()
    res = to_dict(await server.client.protocol.send_request_async("rag/query", {"query": text, "topK": 5}))
    return res, (time.perf_counter() - t0) * 1000


def load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


# -- (a) -----------------------------------------------------------------------------------------------------
def build_workspace(ws: Path, copies: int) -> int:
    if not ws.exists():
        for i in range(copies):
            shutil.copytree(BOOK, ws / f"copy{i}", ignore=shutil.ignore_patterns("LICENSE*", "COPYRIGHT"))
    return sum(1 for _ in ws.rglob("*.md"))


def edit_text(n: int) -> str:
    """~5 KB of new Markdown: a heading and paragraphs; one marker word that occurs nowhere else."""
    para = ("This added section describes how the borrow checker treats temporary values in a loop, with an "
            "example that moves a vector into a closure and then tries to use it again after the closure ran. ")
    body = "".join(f"{para}Paragraph {k} of edit {n}.\n\n" for k in range(22))
    return f"\n\n## Live edit {n}\n\nThe marker word is zqmarker{n}x.\n\n{body}"


async def part_latency(workdir: Path, copies: int, edits: int) -> dict:
    ws, cache = workdir / "ws", workdir / "cache"
    files = build_workspace(ws, copies)
    server = await Server(ws, cache).start()
    t0 = time.perf_counter()
    st = await server.wait_idle()
    ready_s = time.perf_counter() - t0
    print(f"(a) index ready: {st['files']} files, {st['chunks']} chunks in {ready_s:.1f} s (load {load()})", flush=True)
    chapters = sorted(p for p in ws.rglob("ch*.md") if p.stat().st_size > 8000)
    latencies, per_edit = [], []
    for n in range(edits):
        path = chapters[(n * 7) % len(chapters)]
        original = path.read_text()
        marker = f"zqmarker{n}x"
        n_sync = len(server.logs(r"ragls: indexed \d+ file"))
        n_embed = len(server.logs(r"ragls: embedded \d+ chunks"))
        t0 = time.perf_counter()
        path.write_text(original + edit_text(n))
        while True:
            res, _ = await query(server, f"{marker}")
            if any(marker in c["text"] for c in res["chunks"]):
                break
            if time.perf_counter() - t0 > 60:
                raise TimeoutError(f"edit {n} never became searchable")
            await asyncio.sleep(0.02)
        latencies.append((time.perf_counter() - t0) * 1000)
        await server.wait_idle()
        await asyncio.sleep(0.1)
        sync = server.logs(r"ragls: indexed (\d+) file\(s\), deleted (\d+) in \S+: (\d+) chunks, (\d+) vectors from "
                           r"cache")[n_sync:]
        embedded = [int(m.group(1)) for m in server.logs(r"ragls: embedded (\d+) chunks")[n_embed:]]
        per_edit.append({"file": str(path.relative_to(ws)), "syncs": len(sync),
                         "chunks": sum(int(m.group(3)) for m in sync), "from_cache": sum(int(m.group(4)) for m in sync),
                         "embedded": sum(embedded), "ms": round(latencies[-1], 1)})
        print(f"    edit {n}: {per_edit[-1]}", flush=True)
        path.write_text(original)  # restore (re-indexed from the cache; not measured)
        await asyncio.sleep(0.6)
        await server.wait_idle()
    await server.stop()
    return {"files": files, "chunks": st["chunks"], "ready_s": round(ready_s, 1), "edits": per_edit,
            "p50_ms": round(pct(latencies, 0.5), 1), "p95_ms": round(pct(latencies, 0.95), 1),
            "max_ms": round(max(latencies), 1), "load": load()}


# -- (b) and (c) ---------------------------------------------------------------------------------------------
async def part_cold_queries(tmp: Path) -> dict:
    ws = tmp / "book"
    shutil.copytree(BOOK, ws)
    server = await Server(ws, tmp / "cache-b").start()
    rtt, elapsed, pending_seen = [], [], []
    i = 0
    t0 = time.perf_counter()
    while True:
        st = await server.status()
        if st["pendingVectors"] == 0 and st["pending"] == 0 and st["lastIndexedAt"]:
            break
        res, ms = await query(server, QUERIES[i % len(QUERIES)])
        i += 1
        rtt.append(ms)
        elapsed.append(res["elapsedMs"])
        pending_seen.append(st["pendingVectors"])
        await asyncio.sleep(0.05)
    total_s = time.perf_counter() - t0
    await server.stop()
    return {"queries": len(rtt), "cold_index_s": round(total_s, 1), "max_pending": max(pending_seen),
            "rtt_p50_ms": round(pct(rtt, 0.5), 1), "rtt_p95_ms": round(pct(rtt, 0.95), 1),
            "server_p50_ms": round(pct(elapsed, 0.5), 1), "server_p95_ms": round(pct(elapsed, 0.95), 1),
            "load": load()}


async def part_first_answer(tmp: Path, runs: int) -> dict:
    times = []
    for r in range(runs):
        ws = tmp / f"book-c{r}"
        shutil.copytree(BOOK, ws)
        server = Server(ws, tmp / f"cache-c{r}")
        await server.start()
        while True:
            res, _ = await query(server, "rustup toolchain installation")
            if any("rustup" in c["text"] for c in res["chunks"]):
                break
            await asyncio.sleep(0.05)
        times.append(time.perf_counter() - server.t_spawn)
        await server.stop()
    return {"runs_s": [round(t, 2) for t in times], "median_s": round(statistics.median(times), 2), "load": load()}


async def main() -> None:
    ap = argparse.ArgumentParser()
    # Outside the repository: its .gitignore (bench/results/) would exclude every file of the workspace.
    ap.add_argument("--corpus", type=Path, help="the Rust book folder (default: bench/data.py's lookup)")
    ap.add_argument("--workdir", default=str(Path(tempfile.gettempdir()) / "ragls-bench-live"))
    ap.add_argument("--copies", type=int, default=9)
    ap.add_argument("--edits", type=int, default=20)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--parts", default="latency,cold,first")
    args = ap.parse_args()
    global BOOK
    sys.path.insert(0, str(HERE))
    from data import dataset

    BOOK = dataset("rust-book", args.corpus)
    parts = args.parts.split(",")
    out: dict = {"load_before": load()}
    with tempfile.TemporaryDirectory(prefix="ragls-live-bench-") as tmp:
        if "first" in parts:
            out["first_answer"] = await part_first_answer(Path(tmp), args.runs)
            print("(c)", out["first_answer"], flush=True)
        if "cold" in parts:
            out["cold_queries"] = await part_cold_queries(Path(tmp))
            print("(b)", out["cold_queries"], flush=True)
        if "latency" in parts:
            out["latency"] = await part_latency(Path(args.workdir), args.copies, args.edits)
            print("(a)", {k: v for k, v in out["latency"].items() if k != "edits"}, flush=True)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    asyncio.run(main())
