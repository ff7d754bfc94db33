"""A ragls process imports httpx without its command-line client (ragls/__init__.py): `import ragls` first, then
httpx — as fastembed's huggingface_hub imports it when the embedding model loads — leaves out `httpx._main` and
what only it needs (click, rich, pygments; ~0.1 CPU-s per process), while httpx itself still makes real requests
(here to a loopback HTTP server) and its `main` is httpx's own stub."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SERVER = Path(__file__).resolve().parents[2] / "server"

SCRIPT = """
import http.server, json, sys, threading
import ragls
import httpx

class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = json.dumps({"path": self.path}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass

server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
with httpx.Client(timeout=10) as client:
    reply = client.get(f"http://127.0.0.1:{server.server_address[1]}/probe?q=1")
server.shutdown()
print(json.dumps({
    "status": reply.status_code, "body": reply.json(),
    "cli_module": sys.modules.get("httpx._main", "absent"),
    "loaded": sorted(m for m in ("click", "rich", "pygments") if m in sys.modules),
    "main": f"{httpx.main.__module__}.{httpx.main.__qualname__}",
}))
"""


def test_httpx_imports_without_its_command_line_client_and_still_requests(tmp_path):
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, cwd=tmp_path,
                          env=dict(os.environ, PYTHONPATH=str(SERVER)), timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    assert got["status"] == 200
    assert got["body"] == {"path": "/probe?q=1"}
    assert got["cli_module"] is None  # marked not importable before httpx imported
    assert got["loaded"] == []
    assert got["main"] == "httpx.main"  # httpx's own stub (`httpx/__init__.py`), not `httpx._main.main`
