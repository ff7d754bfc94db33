"""What an editor sees in the first seconds of `ragls serve` (issue: "ragls: starting" ~25 s without saying why).

    RAGLS_CACHE_DIR=<cache> PYTHONPATH=server python bench/lsp_start.py FOLDER [--until-ready] [--timeout 300]

Starts `python -m ragls serve` on stdio as an editor does (bench/speed.py's `RpcClient`: no LSP library between the
pipe and the clock), sends `initialize` (work-done progress supported) and `initialized`, then `rag/status` at once
and again every 0.5 s, and prints one line per message with the seconds since the process was spawned: the
`initialize` result, every `$/progress` begin/report/end with its message, `window/logMessage` lines, and each
`rag/status` answer's folder state (files, pending, pendingVectors, embeddingLoading). It stops at the first
`rag/status` answer (default) or, with `--until-ready`, once no folder has files queued or the model loading. The
server is shut down politely after. `--ask QUESTION` (on a folder indexed before: a restart) sends `rag/ask` right
after `initialized` instead, as an editor whose user asks at once, and prints the seconds to its answer, the answer's
first line and the model's state then (a `rag/status` after it). `--configuration` sends `workspace/didChangeConfiguration` right after
`initialized`, as Neovim's client does with its settings. The load average is printed at the start and the end: quote it with the figures.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from speed import RpcClient  # bench/speed.py: the minimal JSON-RPC client over stdio


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def folder_state(status: dict) -> str:
    parts = []
    for f in status.get("folders", []):
        parts.append(f"files {f['files']} pending {f['pending']} pendingVectors {f['pendingVectors']} "
                     f"embeddingLoading {f.get('embeddingLoading')}")
    return "; ".join(parts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", type=Path)
    ap.add_argument("--until-ready", action="store_true")
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--configuration", action="store_true",
                    help="send workspace/didChangeConfiguration right after initialized, as Neovim does")
    ap.add_argument("--ask", metavar="QUESTION", help="time the first rag/ask instead of watching rag/status")
    args = ap.parse_args()
    folder = args.folder.resolve()
    env = {**os.environ, "RAGLS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
    print(f"start: {load()}", flush=True)
    t0 = time.perf_counter()

    def stamp(text: str) -> None:
        print(f"{time.perf_counter() - t0:8.3f} s  {text}", flush=True)

    def seen(msg: dict) -> None:
        method, params = msg["method"], msg.get("params") or {}
        if method == "$/progress":
            value = params.get("value") or {}
            pct = "" if value.get("percentage") is None else f" {value['percentage']}%"
            stamp(f"$/progress {value.get('kind')}: {value.get('title', '')} {value.get('message', '')}{pct}")
        elif method == "window/logMessage":
            stamp(f"log: {params.get('message', '')[:160]}")
        else:
            stamp(f"{'server request' if 'id' in msg else 'notification'} {method}")

    client = RpcClient([sys.executable, "-m", "ragls", "serve"], env, folder, on_message=seen)
    uri = folder.as_uri()
    init = client.request("initialize", {
        "processId": os.getpid(), "rootUri": uri, "workspaceFolders": [{"uri": uri, "name": folder.name}],
        "capabilities": {"window": {"workDoneProgress": True}}, "initializationOptions": {}})
    stamp(f"initialize result ({init.get('serverInfo')})")
    client.notify("initialized", {})
    if args.configuration:
        client.notify("workspace/didChangeConfiguration", {"settings": {"ragls": {}}})
    deadline = time.perf_counter() + args.timeout
    if args.ask:
        sent = time.perf_counter()
        answer = client.request("rag/ask", {"question": args.ask})
        lines = [line for line in answer.get("answer", "").splitlines() if line.strip() and not line.startswith("*")]
        stamp(f"rag/ask answered after {time.perf_counter() - sent:.3f} s: {(lines or [''])[0][:100]!r}")
        stamp(f"rag/status then: {folder_state(client.request('rag/status', {}))}")
        deadline = 0
    while time.perf_counter() < deadline:
        sent = time.perf_counter()
        status = client.request("rag/status", {})
        stamp(f"rag/status answered after {time.perf_counter() - sent:.3f} s: {folder_state(status)}")
        folders = status.get("folders", [])
        if not args.until_ready or (folders and all(not f["pending"] and not f.get("embeddingLoading")
                                                    for f in folders)):
            break
        time.sleep(0.5)
    client.close()
    stamp(f"server exited ({client.proc.returncode}); {load()}")


if __name__ == "__main__":
    main()
