"""What an editor sees in the first seconds of `ragls serve` (issue: "ragls: starting" ~25 s without saying why).

    RAGLS_CACHE_DIR=<cache> PYTHONPATH=server python bench/lsp_start.py FOLDER [--until-ready] [--timeout 300]

Starts `python -m ragls serve` on stdio as an editor does (a plain JSON-RPC client: no LSP library between the
pipe and the clock), sends `initialize` (work-done progress supported) and `initialized`, then `rag/status` at once
and again every 0.5 s, and prints one line per message with the seconds since the process was spawned: the
`initialize` result, every `$/progress` begin/report/end with its message, `window/logMessage` lines, and each
`rag/status` answer's folder state (files, pending, pendingVectors, embeddingLoading). It stops at the first
`rag/status` answer (default) or, with `--until-ready`, once no folder has files queued or the model loading. The
server is shut down politely after. The load average is printed at the start and the end: quote it with the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


class Client:
    """A minimal JSON-RPC client over the server's stdio; `events` are (seconds since spawn, text) lines."""

    def __init__(self, proc: asyncio.subprocess.Process, t0: float):
        self.proc, self.t0 = proc, t0
        self.next_id = 0
        self.waiting: dict[int, asyncio.Future] = {}

    def stamp(self, text: str) -> None:
        print(f"{time.perf_counter() - self.t0:8.3f} s  {text}", flush=True)

    def send(self, msg: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **msg}).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    async def request(self, method: str, params: dict) -> dict:
        self.next_id += 1
        fut = asyncio.get_running_loop().create_future()
        self.waiting[self.next_id] = fut
        self.send({"id": self.next_id, "method": method, "params": params})
        return await fut

    async def read(self) -> None:
        reader = self.proc.stdout
        while True:
            headers = {}
            while True:
                line = await reader.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                key, _, value = line.decode().partition(":")
                headers[key.lower()] = value.strip()
            msg = json.loads(await reader.readexactly(int(headers["content-length"])))
            method = msg.get("method")
            if "id" in msg and method:  # a request from the server: accept it
                self.send({"id": msg["id"], "result": None})
                self.stamp(f"server request {method} (answered)")
            elif method == "$/progress":
                value = msg["params"]["value"]
                self.stamp(f"$/progress {value.get('kind')}: {value.get('title', '')} {value.get('message', '')}"
                           f"{'' if value.get('percentage') is None else ' ' + str(value['percentage']) + '%'}")
            elif method == "window/logMessage":
                self.stamp(f"log: {msg['params']['message'][:160]}")
            elif method:
                self.stamp(f"notification {method}")
            elif msg.get("id") in self.waiting:
                self.waiting.pop(msg["id"]).set_result(msg)


def folder_state(status: dict) -> str:
    parts = []
    for f in status.get("folders", []):
        parts.append(f"files {f['files']} pending {f['pending']} pendingVectors {f['pendingVectors']} "
                     f"embeddingLoading {f.get('embeddingLoading')}")
    return "; ".join(parts)


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", type=Path)
    ap.add_argument("--until-ready", action="store_true")
    ap.add_argument("--timeout", type=float, default=300.0)
    args = ap.parse_args()
    folder = args.folder.resolve()
    env = {**os.environ, "RAGLS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
    print(f"start: {load()}", flush=True)
    t0 = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "ragls", "serve", env=env,
                                                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
    client = Client(proc, t0)
    reader = asyncio.create_task(client.read())
    uri = folder.as_uri()
    init = await client.request("initialize", {
        "processId": os.getpid(), "rootUri": uri, "workspaceFolders": [{"uri": uri, "name": folder.name}],
        "capabilities": {"window": {"workDoneProgress": True}}, "initializationOptions": {}})
    client.stamp(f"initialize result ({init.get('result', {}).get('serverInfo')})")
    client.send({"method": "initialized", "params": {}})
    deadline = time.perf_counter() + args.timeout
    while time.perf_counter() < deadline:
        sent = time.perf_counter()
        status = (await client.request("rag/status", {})).get("result") or {}
        client.stamp(f"rag/status answered after {time.perf_counter() - sent:.3f} s: {folder_state(status)}")
        folders = status.get("folders", [])
        if not args.until_ready or (folders and all(not f["pending"] and not f.get("embeddingLoading")
                                                    for f in folders)):
            break
        await asyncio.sleep(0.5)
    await client.request("shutdown", {})
    client.send({"method": "exit", "params": None})
    await proc.wait()
    reader.cancel()
    client.stamp(f"server exited ({proc.returncode}); {load()}")


if __name__ == "__main__":
    asyncio.run(main())
