"""Wall time of each CLI command (issue 18, "a CLI that answers in a blink"): in-process vs through a running
`ragls serve` (its local socket).

    python bench/cli_wall.py [--corpus DIR] [--runs 5]

The corpus (default: this repository's own docs/) is indexed once with `ragls index` into a temp cache. Then each
of `ragls status`, `ragls query`, `ragls ask` (extractive, no LLM) runs `--runs` times with `--no-server` (a fresh
process that opens the stores and loads the model), again while a `ragls serve` holds the index (started here
over stdio with a minimal LSP handshake; the CLI talks to its socket), and again through `ragls serve --background`
(the warm server for the command line, cli/background.py). Prints the median and min wall per command.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def lsp_message(obj: dict) -> bytes:
    body = json.dumps(obj).encode()
    return f"Content-Length: {len(body)}\r\n\r\n".encode() + body


def start_server(folder: Path, env: dict) -> subprocess.Popen:
    log = open(Path(env["RAGLS_CACHE_DIR"]).parent / "serve.log", "w")  # noqa: SIM115 - the server's, while it runs
    proc = subprocess.Popen([sys.executable, "-m", "ragls", "serve"], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=log, env=env)
    uri = folder.as_uri()
    proc.stdin.write(lsp_message({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "processId": os.getpid(), "rootUri": uri, "capabilities": {},
        "workspaceFolders": [{"uri": uri, "name": folder.name}]}}))
    proc.stdin.write(lsp_message({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
    proc.stdin.flush()
    return proc


def wall(cmd: list[str], env: dict) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, capture_output=True)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=HERE.parent / "docs")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="ragls-cli-wall-"))
    env = {**os.environ, "RAGLS_CACHE_DIR": str(tmp / "cache"), "RAGLS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
    os.environ["RAGLS_CACHE_DIR"] = env["RAGLS_CACHE_DIR"]  # this process finds the index dir the same way
    # Measure what an installed ragls costs: pip byte-compiles the package at install, so the commands must not pay
    # for compiling sources here (this machine's environment sets PYTHONDONTWRITEBYTECODE).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    import ragls

    subprocess.run([sys.executable, "-m", "compileall", "-q", str(Path(ragls.__file__).parent)], check=True)
    env.pop("OPENAI_API_KEY", None)
    env.pop("ANTHROPIC_API_KEY", None)
    folder = args.corpus.resolve()
    ragls = [sys.executable, "-m", "ragls"]
    subprocess.run([*ragls, "index", str(folder)], env=env, check=True, capture_output=True)
    commands = {
        "status": ["status", str(folder)],
        "query": ["query", str(folder), "how do I configure the embedding model"],
        "ask": ["ask", str(folder), "How do I use a local Ollama model for answers?"],
    }
    rows = {}
    for name, cmd in commands.items():
        rows[name] = [wall([*ragls, *cmd, "--no-server"], env) for _ in range(args.runs)]
    server = start_server(folder, env)
    try:
        from ragls.config.trust_filter import load_settings
        from ragls.index.paths import resolve_index_dir

        info = resolve_index_dir(folder, load_settings(folder)[0]) / "server.json"
        deadline = time.monotonic() + 120
        while not info.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        if not info.exists():
            sys.exit("the server did not open the index within 120 s")
        subprocess.run([*ragls, "query", str(folder), "warm up"], env=env, check=True, capture_output=True)
        served = {name: [wall([*ragls, *cmd], env) for _ in range(args.runs)] for name, cmd in commands.items()}
    finally:
        server.terminate()
        server.wait(30)
    subprocess.run([*ragls, "serve", "--background", str(folder), "--idle-exit", "10"], env=env, check=True,
                   capture_output=True)  # returns once its socket answers
    try:
        subprocess.run([*ragls, "query", str(folder), "warm up"], env=env, check=True, capture_output=True)
        background = {name: [wall([*ragls, *cmd], env) for _ in range(args.runs)] for name, cmd in commands.items()}
    finally:
        subprocess.run([*ragls, "serve", "--stop", str(folder)], env=env, check=False, capture_output=True)
    print(f"corpus {folder}, {args.runs} runs each (seconds, median / min)")
    print(f"{'command':8} {'in-process':>16} {'via ragls serve':>18} {'via serve --background':>24}")
    for name in commands:
        a, b, c = rows[name], served[name], background[name]
        print(f"{name:8} {statistics.median(a):8.2f} / {min(a):5.2f} {statistics.median(b):10.2f} / {min(b):5.2f}"
              f" {statistics.median(c):16.2f} / {min(c):5.2f}")


if __name__ == "__main__":
    main()
