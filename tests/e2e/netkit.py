"""A loopback TCP endpoint that records what reaches it: the recording "attacker" server, the vendor proxy and the
model hub of the network-before-trust tests (test_trust.py, test_trust_network.py, test_model_hub.py)."""

from __future__ import annotations

import socketserver
import threading

FORBIDDEN = b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


class LoopbackRecorder:
    """Any TCP client on 127.0.0.1: records each request's header block (`requests`: "CONNECT api.openai.com:443
    HTTP/1.1\\nHost: ...", "GET /collections HTTP/1.1\\n...") and its target (`targets`: "api.openai.com:443",
    "/api/models/org/name", a proxied request's URL), then answers `reply` (default 403, so nothing goes further) or,
    with `reply=None`, hangs up without answering (an HTTP client sees a connection error at once)."""

    def __init__(self, reply: bytes | None = FORBIDDEN):
        self.requests: list[str] = []
        self.targets: list[str] = []
        recorder = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self):
                lines = []
                while (line := self.rfile.readline().decode("latin-1")) not in ("", "\r\n", "\n"):
                    lines.append(line.rstrip())
                if lines:
                    recorder.requests.append("\n".join(lines))
                    first = lines[0].split()
                    if len(first) >= 2:
                        recorder.targets.append(first[1])
                if reply is not None:
                    self.wfile.write(reply)

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
