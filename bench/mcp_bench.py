"""`ragls mcp` benchmark (issue 17): MCP launch to first answer, and warm `search_docs` latency.

    python bench/mcp_bench.py                 # both parts; the Rust book's index is built once in --workdir
    python bench/mcp_bench.py --runs 5 --rounds 3

Setup: the Rust book (113 Markdown files) copied to <workdir>/ws (default /tmp/ragls-bench-mcp) and indexed once
with `python -m ragls index` (cache in <workdir>/cache, kept between runs). The MCP SDK's own client spawns
`python -m ragls mcp <ws>` over stdio, as Claude Code or VS Code would.

(a) Launch to first answer, `--runs` times: from spawning the process until `search_docs` "rustup toolchain
    installation" (sent as soon as `initialize` returns, then every 50 ms until it succeeds) returns a passage
    containing "rustup". Also printed: spawn to `initialize` done, and the server's CPU seconds (user + system, all
    threads, from /proc) at the first answer - unlike wall time, CPU hardly depends on the machine's load. On an
    indexed folder the first answer comes from BM25 while the embedding model loads (progressive start).
(b) Warm `search_docs`: once every chunk has its vector (index_status pending_vectors 0, so the model is loaded),
    the 16 varied queries of bench/live.py x `--rounds`, one after another; client round trip p50 / p95 and the
    server's elapsed_ms.

The last line, `SUMMARY mcp_bench: ...`, gives the medians and whether the 2 s target was met.

Model: the offline int8 all-MiniLM-L6-v2 (RAGLS_OFFLINE=1); other settings are ragls' defaults.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from data import dataset  # noqa: E402 - bench/data.py: --corpus, $RAGLS_BENCH_DATA, ../shared, the fetch folder
from live import QUERIES, pct  # noqa: E402 - the queries and percentile of the live benchmark, for comparable figures


def env_for(cache: Path) -> dict[str, str]:
    env = dict(os.environ)
    # Measure what an installed ragls costs: pip byte-compiles the package at install, so the server must not pay
    # for compiling ragls' sources at each launch (some environments set PYTHONDONTWRITEBYTECODE).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    import ragls

    subprocess.run([sys.executable, "-m", "compileall", "-q", str(Path(ragls.__file__).parent)], check=True)
    env.update({"RAGLS_CACHE_DIR": str(cache), "RAGLS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"})
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        env.pop(key, None)
    return env


def prepare(workdir: Path, corpus: Path) -> tuple[Path, Path]:
    ws, cache = workdir / "ws", workdir / "cache"
    if not ws.exists():
        shutil.copytree(corpus, ws)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "ragls", "index", str(ws)], env=env_for(cache), check=True,
                   stdout=subprocess.DEVNULL)
    print(f"index ready ({time.perf_counter() - t0:.1f} s, incremental)", file=sys.stderr)
    return ws, cache


def server_pid() -> int | None:
    """The pid of this process's `ragls mcp` child (Linux /proc; None elsewhere or when not found)."""
    me = os.getpid()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            raw = stat.read_text()
            if int(raw[raw.rindex(")") + 2:].split()[1]) != me:  # after "pid (comm) ": state ppid ...
                continue
            cmdline = (stat.parent / "cmdline").read_bytes().split(b"\0")
        except (OSError, ValueError):
            continue
        if b"ragls" in cmdline and b"mcp" in cmdline:
            return int(stat.parent.name)
    return None


def cpu_s(pid: int | None) -> float | None:
    """CPU seconds (user + system, all threads) used so far by process `pid`, from /proc/<pid>/stat. Unlike wall
    time, CPU hardly depends on the machine's load."""
    if pid is None:
        return None
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw[raw.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def first_answer(ws: Path, cache: Path) -> tuple[float, float, float | None]:
    """(spawn -> initialize done, spawn -> first search_docs passage containing "rustup", seconds; the server's
    CPU seconds at that answer)."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "ragls", "mcp", str(ws)], env=env_for(cache))
    with open(os.devnull, "w") as devnull:  # noqa: ASYNC230 - the null device does not block
        t0 = time.perf_counter()
        async with stdio_client(params, errlog=devnull) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            t_init = time.perf_counter() - t0
            pid = server_pid()
            while True:
                r = await s.call_tool("search_docs", {"query": "rustup toolchain installation", "top_k": 3})
                if not r.is_error and any("rustup" in p["text"] for p in r.structured_content["results"]):
                    return t_init, time.perf_counter() - t0, cpu_s(pid)
                await asyncio.sleep(0.05)


async def warm(ws: Path, cache: Path, rounds: int) -> tuple[list[float], list[float]]:
    """Client round trips and server elapsed_ms (both ms) of warm search_docs calls."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "ragls", "mcp", str(ws)], env=env_for(cache))
    with open(os.devnull, "w") as devnull:  # noqa: ASYNC230 - the null device does not block
        async with stdio_client(params, errlog=devnull) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            while True:
                st = (await s.call_tool("index_status", {})).structured_content
                if all(f["pending_vectors"] == 0 and f["pending_files"] == 0 for f in st["folders"]):
                    break
                await asyncio.sleep(0.2)
            for q in QUERIES[:4]:  # warm-up
                await s.call_tool("search_docs", {"query": q})
            trips, server = [], []
            for _ in range(rounds):
                for q in QUERIES:
                    t0 = time.perf_counter()
                    r = await s.call_tool("search_docs", {"query": q})
                    trips.append((time.perf_counter() - t0) * 1000)
                    server.append(r.structured_content["elapsed_ms"])
            return trips, server


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/ragls-bench-mcp"))
    ap.add_argument("--corpus", type=Path, default=None, help="default: the rust-book data set (bench/data.py)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    args.corpus = dataset("rust-book", args.corpus)
    ws, cache = prepare(args.workdir, args.corpus)
    load = os.getloadavg()[0]
    print(f"corpus {args.corpus} ({sum(1 for _ in ws.rglob('*.md'))} .md files), load average {load:.1f}")
    inits, firsts, cpus = [], [], []
    for _ in range(args.runs):
        t_init, t_first, cpu = asyncio.run(first_answer(ws, cache))
        inits.append(t_init)
        firsts.append(t_first)
        if cpu is not None:
            cpus.append(cpu)
        print(f"  launch -> initialize {t_init:.2f} s, launch -> first search_docs answer {t_first:.2f} s, "
              f"server CPU by then {cpu if cpu is not None else float('nan'):.2f} s; load {os.getloadavg()[0]:.1f}")
    cpu_part = (f"; server CPU (user+sys) to first answer median {statistics.median(cpus):.2f} s "
                f"(runs: {' / '.join(f'{c:.2f}' for c in cpus)})" if cpus else "")
    print(f"(a) launch -> first answer: median {statistics.median(firsts):.2f} s "
          f"(runs: {' / '.join(f'{t:.2f}' for t in firsts)}); launch -> initialize median "
          f"{statistics.median(inits):.2f} s{cpu_part}")
    summary_a = (f"launch->first answer median {statistics.median(firsts):.2f} s wall"
                 + (f", {statistics.median(cpus):.2f} s CPU" if cpus else "") + " (target 2 s: "
                 + ("met" if statistics.median(firsts) <= 2.0 else "NOT met") + f"), load at start {load:.1f}")
    trips, server = asyncio.run(warm(ws, cache, args.rounds))
    print(f"(b) warm search_docs, {len(trips)} calls: round trip p50 {pct(trips, 0.5):.1f} ms, "
          f"p95 {pct(trips, 0.95):.1f} ms; server elapsed_ms p50 {pct(server, 0.5):.1f}, "
          f"p95 {pct(server, 0.95):.1f}; load average now {os.getloadavg()[0]:.1f}")
    print(f"SUMMARY mcp_bench: {summary_a}; warm search_docs p50 {pct(trips, 0.5):.1f} ms, "
          f"p95 {pct(trips, 0.95):.1f} ms")


if __name__ == "__main__":
    main()
