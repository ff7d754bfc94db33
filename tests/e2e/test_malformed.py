"""Messages the server cannot read, over raw stdio (an LSP client library would refuse to send them): a request whose
params do not fit its LSP type gets -32602 for its id, a body that is not JSON gets -32700 with id null, nothing
pops up in the editor, and the next request is answered."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time

from lspkit import FIXTURE_DOCS, server_env
from ragls.core.uris import path_to_uri

SHARED_EMBEDDING_CACHE = True  # tests/conftest.py `_run_embedding_cache`: nothing here counts what the model embedded


class RawClient:
    """Content-Length framed JSON-RPC over the server's stdin/stdout, nothing checked on the way out."""

    def __init__(self, env: dict[str, str]):
        self.proc = subprocess.Popen([sys.executable, "-m", "ragls", "serve"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        self.buf = b""
        self.received: list[dict] = []

    def send_raw(self, body: bytes) -> None:
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def send(self, message: dict) -> None:
        self.send_raw(json.dumps({"jsonrpc": "2.0", **message}).encode())

    def _pump(self, timeout: float) -> None:
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if ready:
            self.buf += os.read(self.proc.stdout.fileno(), 1 << 16)
        while b"\r\n\r\n" in self.buf:
            head, rest = self.buf.split(b"\r\n\r\n", 1)
            length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                          if line.lower().startswith(b"content-length"))
            if len(rest) < length:
                return
            self.received.append(json.loads(rest[:length]))
            self.buf = rest[length:]

    def response(self, msg_id, timeout: float = 60.0) -> dict:
        """The response carrying `msg_id` (None: a response with "id": null)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for m in self.received:
                if "method" not in m and "id" in m and m["id"] == msg_id:
                    return m
            self._pump(0.1)
        raise AssertionError(f"no response for id {msg_id!r}; received {self.received}")

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


def test_unreadable_requests_get_errors_and_the_server_keeps_serving(tmp_path):
    client = RawClient(server_env(tmp_path / "cache"))
    try:
        client.send({"id": 1, "method": "initialize",
                     "params": {"capabilities": {}, "rootUri": path_to_uri(FIXTURE_DOCS)}})
        assert "capabilities" in client.response(1)["result"]
        client.send({"method": "initialized", "params": {}})
        client.send({"id": 2, "method": "textDocument/hover", "params": {}})  # no textDocument, no position
        assert client.response(2)["error"]["code"] == -32602
        client.send_raw(b'{"jsonrpc": "2.0", "id": 3, "method": "rag/query", "params": {"query": "x"')
        parse_error = client.response(None)
        assert parse_error["error"]["code"] == -32700 and "Parse error" in parse_error["error"]["message"]
        for msg_id in range(100, 400):  # the server keeps serving: wait for the start-up text phase
            client.send({"id": msg_id, "method": "rag/status", "params": {}})
            if client.response(msg_id)["result"]["folders"][0]["lastIndexedAt"]:
                break
            time.sleep(0.1)
        client.send({"id": 4, "method": "rag/query", "params": {"query": "exponential backoff"}})
        chunks = client.response(4)["result"]["chunks"]
        assert chunks[0]["source"]["path"] == "guide/retries.md"
        client.send({"id": 5, "method": "rag/commitMessage", "params": {"repository": "/etc"}})  # a path, no URI
        assert client.response(5)["error"] == {"code": -32602,  # was -32603 "ValueError" with a traceback
                                               "message": "repository: '/etc': not a file:// URI"}
        client.send({"id": 6, "method": "rag/models", "params": {"baseUrl": "http://[::1"}})  # urllib can't split it
        assert client.response(6)["error"] == {"code": -32602,  # was -32603 "ValueError: Invalid IPv6 URL"
                                               "message": "baseUrl: 'http://[::1' is not a URL (Invalid IPv6 URL); "
                                                          "e.g. http://127.0.0.1:8080/v1"}
        client.send({"id": 7, "method": "rag/rebuild", "params": {"workspaceFolder": "file:///tmp/docs%00"}})
        assert client.response(7)["error"] == {"code": -32602,  # was -32603 "ValueError: embedded null byte"
                                               "message": "workspaceFolder 'file:///tmp/docs%00': a NUL character "
                                                          "in its path"}
        client.send({"id": 8, "method": "rag/query", "params": {"query": "backoff", "rag": "file://server/docs"}})
        assert client.response(8)["error"]["code"] == -32602
        popups = [m for m in client.received if m.get("method") == "window/showMessage"]
        assert popups == []
    finally:
        client.close()


def test_messages_that_are_not_json_rpc_get_errors_and_no_pop_ups(tmp_path):
    """`{}`, a JSON array/number, a non-UTF-8 body, JSON nested 100,000 deep, a wrong version, a numeric method, an
    id without a method, an object, array or boolean id: each gets -32600 (or -32700 for the bytes and the nesting),
    never a pygls 'Error in server' pop-up; params may be omitted."""
    client = RawClient(server_env(tmp_path / "cache"))
    try:
        client.send({"id": 1, "method": "initialize",
                     "params": {"capabilities": {}, "rootUri": path_to_uri(FIXTURE_DOCS)}})
        assert "capabilities" in client.response(1)["result"]
        client.send({"method": "initialized"})  # params omitted: JSON-RPC 2.0 allows it
        client.send_raw(b'{"jsonrpc": "2.0", "id": 2, "method": "rag/status"}')
        assert client.response(2)["result"]["folders"][0]["uri"] == path_to_uri(FIXTURE_DOCS)
        client.send_raw(b'{"jsonrpc": "2.0", "id": 3, "method": "rag/query"}')
        assert client.response(3)["error"] == {"code": -32602, "message": "query: Field required"}
        for body in (b"{}", b"[]", b"42", b'"text"', b'[{"jsonrpc": "2.0", "id": 9, "method": "rag/status"}]'):
            client.send_raw(body)
            answer = client.response(None)
            client.received.remove(answer)
            assert answer["error"]["code"] == -32600 and "not a JSON-RPC 2.0 message" in answer["error"]["message"]
        for bad_id in (b'{"a": 1}', b"[1]", b"true"):  # was -32603 "TypeError: unhashable type: 'dict'" + traceback
            client.send_raw(b'{"jsonrpc": "2.0", "id": ' + bad_id + b', "method": "rag/status", "params": {}}')
            answer = client.response(None)
            client.received.remove(answer)
            assert answer["error"] == {"code": -32600, "message": "Invalid Request: id must be a string, a number or "
                                                                  "null"}, bad_id
        client.send_raw(b'{"jsonrpc": "2.0", "id": 4, "method": "rag/query", "params": {"query": "\xff\xfe"}}')
        answer = client.response(None)
        client.received.remove(answer)
        assert answer["error"]["code"] == -32700
        client.send_raw(b'{"jsonrpc": "2.0", "id": 9, "method": "rag/query", "params": {"query": '
                        + b"[" * 100_000 + b"]" * 100_000 + b"}}")  # valid JSON past the json module's depth
        assert client.response(None)["error"] == {"code": -32700,  # was only logged: the sender waited forever
                                                  "message": "Parse error: JSON nested too deeply to read"}
        client.send_raw(b'{"jsonrpc": "1.0", "id": 5, "method": "rag/status", "params": {}}')
        assert client.response(5)["error"]["code"] == -32600
        client.send_raw(b'{"jsonrpc": "2.0", "id": 6, "method": 5, "params": {}}')
        assert client.response(6)["error"] == {"code": -32600, "message": "Invalid Request: method must be a string"}
        client.send_raw(b'{"jsonrpc": "2.0", "id": 7}')
        assert client.response(7)["error"]["code"] == -32600
        client.send({"method": "textDocument/didSave", "params": {"x": 1}})  # unreadable notification: logged only
        client.send({"id": 8, "method": "rag/status", "params": {}})
        assert client.response(8)["result"]["folders"]
        popups = [m for m in client.received if m.get("method") == "window/showMessage"]
        assert popups == []
        client.send({"id": 10, "method": "shutdown"})
        assert client.response(10)["result"] is None
        client.send({"id": 11, "method": "rag/status", "params": {}})  # was never answered: the client waited
        assert client.response(11, timeout=10)["error"] == {
            "code": -32600, "message": "Invalid Request: the server is shutting down (shutdown was received); only "
                                       "exit is handled"}
        client.send({"method": "exit"})
        assert client.proc.wait(timeout=30) == 0
    finally:
        client.close()


def test_broken_frames_get_parse_errors_and_the_server_resynchronises(tmp_path):
    """Framing errors (protocol.md: never exits on a bad request): a huge, negative, non-numeric or missing
    Content-Length, or one 10 bytes short, each get -32700 with id null and the next frame is read; a lower-case
    header name and LF-only line ends are accepted."""
    client = RawClient(server_env(tmp_path / "cache"))

    def frame(msg_id: int) -> bytes:
        return json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": "rag/status", "params": {}}).encode()

    def write(data: bytes) -> None:
        client.proc.stdin.write(data)
        client.proc.stdin.flush()

    def parse_errors() -> int:
        return sum(1 for m in client.received if m.get("id", 0) is None and m.get("error", {}).get("code") == -32700)

    try:
        client.send({"id": 1, "method": "initialize",
                     "params": {"capabilities": {}, "rootUri": path_to_uri(FIXTURE_DOCS)}})
        assert "capabilities" in client.response(1)["result"]
        client.send({"method": "initialized", "params": {}})
        body = frame(2)
        write(b"content-length: %d\r\n\r\n" % len(body) + body)  # lower-case name
        assert client.response(2)["result"]["folders"]
        body = frame(3)
        write(b"Content-Length: %d\n\n" % len(body) + body)  # LF-only
        assert client.response(3)["result"]["folders"]
        bad = [b"Content-Length: 99999999999\r\n\r\n" + frame(50), b"Content-Length: -5\r\n\r\n" + frame(51),
               b"Content-Length: many\r\n\r\n" + frame(52), b"Content-Type: application/json\r\n\r\n" + frame(53),
               b"Content-Length: %d\r\n\r\n" % (len(frame(54)) - 10) + frame(54)]
        for n, data in enumerate(bad, 1):
            write(data)
            msg_id = 100 + n
            client.send({"id": msg_id, "method": "rag/status", "params": {}})  # resynchronised: answered
            assert client.response(msg_id)["result"]["folders"], data
            assert parse_errors() == n, (data, client.received[-3:])
        assert client.proc.poll() is None
        popups = [m for m in client.received if m.get("method") == "window/showMessage"]
        assert popups == []
    finally:
        client.close()
