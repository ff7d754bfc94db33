"""A loopback LLM server for tests: OpenAI-compatible and Anthropic-compatible, stdlib only.

Endpoints (on 127.0.0.1, a free port):
  POST /v1/chat/completions  OpenAI Chat Completions, streaming (SSE `data:` chunks, `[DONE]`) or not, tool calls
  GET  /v1/models            OpenAI model list
  POST /v1/messages          Anthropic Messages, streaming (message_start, content_block_start/delta/stop,
                             message_delta, message_stop) or not, `tool_use` blocks

Every request is recorded (`server.requests`, a list of `Request`) so tests can assert what the model received;
`server.aborted` counts streams the client closed before their end (a cancelled answer).
Replies come from `server.handler(request) -> Reply | str` (default: echo the last user text; `route(...)` picks a
scripted reply by words of the prompt), or from replies queued with `server.queue(...)`, used first, in order.

    with LLMServer() as srv:
        srv.queue(Reply(status=429), "ok [1]")
        client = openai.OpenAI(base_url=srv.openai_url, api_key="k")
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """What the fake model answers.

    text: the answer; streamed as `chunks` if given, else word by word (each piece keeps its trailing space).
    tool_calls: [{"id"?, "name", "arguments": dict}] — sent as OpenAI tool_calls / Anthropic tool_use blocks.
    status: an HTTP error status (401, 404, 429, 500...) answered with the API's error JSON and `error` message.
    delay_s: wait this long before answering (for timeouts); cut short when the server stops.
    headers: extra response headers (e.g. {"retry-after-ms": "10"}).
    piece_delay_s: wait this long before each streamed piece (a slow model); cut short when the server stops.
    """

    text: str = ""
    tool_calls: list[dict] = field(default_factory=list)
    status: int = 200
    error: str = ""
    delay_s: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    chunks: list[str] | None = None
    piece_delay_s: float = 0.0

    def pieces(self) -> list[str]:
        if self.chunks is not None:
            return list(self.chunks)
        words = self.text.split(" ")
        return [w + " " for w in words[:-1]] + [words[-1]] if self.text else []


@dataclass
class Request:
    """One recorded request. `api` is "openai" or "anthropic"; `body` the decoded JSON."""

    api: str
    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def stream(self) -> bool:
        return bool(self.body.get("stream"))

    @property
    def model(self) -> str:
        return self.body.get("model", "")

    @property
    def tools(self) -> list[dict]:
        return self.body.get("tools") or []

    @property
    def system(self) -> str:
        if self.api == "anthropic":
            sys_ = self.body.get("system") or ""
            return sys_ if isinstance(sys_, str) else " ".join(b.get("text", "") for b in sys_)
        return " ".join(_text(m.get("content")) for m in self.body.get("messages", []) if m.get("role") == "system")

    @property
    def messages(self) -> list[dict]:
        return self.body.get("messages", [])

    def user_texts(self) -> list[str]:
        """The text of each user turn, in order (tool results excluded)."""
        return [t for m in self.messages if m.get("role") == "user" and (t := _text(m.get("content")))]

    def last_user_text(self) -> str:
        texts = self.user_texts()
        return texts[-1] if texts else ""

    def tool_results(self) -> list[dict]:
        """[{"id", "content"}] for each tool result in the request, in order, whatever the API."""
        out = []
        for m in self.messages:
            if m.get("role") == "tool":
                out.append({"id": m.get("tool_call_id"), "content": _text(m.get("content"))})
            elif isinstance(m.get("content"), list):
                for b in m["content"]:
                    if b.get("type") == "tool_result":
                        out.append({"id": b.get("tool_use_id"), "content": _text(b.get("content"))})
        return out


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    return ""


def echo_handler(req: Request) -> Reply:
    return Reply(text=f"You said: {req.last_user_text()}")


Handler = Callable[[Request], "Reply | str"]


def route(rules: dict[str, Reply | str | Callable[[Request], Reply | str]], default: Reply | str = "") -> Handler:
    """A handler scripted by prompt: the first rule whose key occurs in the request's system prompt or last user
    text answers it (a reply, or a function of the request); else `default`. Every request is still recorded
    (`server.requests`), so a test asserts both what the model was sent and what it answered.

        srv.reset(route({"rephrase": "query one\nquery two", "passage": Reply(status=500)}))
    """

    def handler(req: Request) -> Reply | str:
        text = f"{req.system}\n{req.last_user_text()}"
        for key, reply in rules.items():
            if key in text:
                return reply(req) if callable(reply) else reply
        return default

    return handler

_ANTHROPIC_ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
                          404: "not_found_error", 429: "rate_limit_error", 500: "api_error", 529: "overloaded_error"}


class _ReusePortServer(ThreadingHTTPServer):
    def server_bind(self) -> None:
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        super().server_bind()


@contextlib.contextmanager
def held_port(reuse_port: bool = False) -> Iterator[int]:
    """A loopback port from the OS, held bound but not listening while the block runs: connecting to it is refused,
    and no other process can take it (except an `LLMServer(port=…, reuse_port=True)` when `reuse_port`)."""
    with socket.socket() as sock:
        if reuse_port:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


class LLMServer:
    """Threaded fake LLM server. `url` is the root; `openai_url` = url + "/v1" (OpenAI base_url);
    `anthropic_url` = url (Anthropic base_url). `known_models`: when set, other model names get a 404."""

    def __init__(self, handler: Handler | None = None, known_models: set[str] | None = None,
                 port: int = 0, reuse_port: bool = False) -> None:
        self.handler: Handler = handler or echo_handler
        self.known_models = known_models
        self.requests: list[Request] = []
        self.aborted = 0
        self._queue: deque[Reply | str] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        # reuse_port: share a `port` that a test holds bound (not listening) with SO_REUSEPORT (see held_port)
        self._httpd = (_ReusePortServer if reuse_port else ThreadingHTTPServer)(("127.0.0.1", port),
                                                                                self._make_handler_class())
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    # -- lifecycle
    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_url(self) -> str:
        return self.url + "/v1"

    @property
    def anthropic_url(self) -> str:
        return self.url

    def start(self) -> LLMServer:
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), name="llm-server",
                                        daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> LLMServer:  # noqa: PYI034
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- scripting
    def queue(self, *replies: Reply | str) -> None:
        """Answer the next requests with these replies, in order, before falling back to `handler`."""
        with self._lock:
            self._queue.extend(replies)

    def reset(self, handler: Handler | None = None) -> None:
        with self._lock:
            self.requests.clear()
            self._queue.clear()
        self.handler = handler or echo_handler

    def _reply_for(self, req: Request) -> Reply:
        with self._lock:
            self.requests.append(req)
            queued = self._queue.popleft() if self._queue else None
        reply = queued if queued is not None else self.handler(req)
        return Reply(text=reply) if isinstance(reply, str) else reply

    # -- HTTP
    def _make_handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class H(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"  # one response per connection; streams end when it closes

            def log_message(self, *args: object) -> None:  # keep test output clean
                pass

            def do_GET(self) -> None:
                if self.path.split("?")[0].rstrip("/") == "/v1/models":
                    models = sorted(server.known_models or {"test-model"})
                    self._json(200, {"object": "list", "data": [
                        {"id": m, "object": "model", "created": 0, "owned_by": "test"} for m in models]})
                else:
                    self._json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    self._json(400, {"error": {"message": "invalid JSON", "type": "invalid_request_error"}})
                    return
                path = self.path.split("?")[0].rstrip("/")
                if path == "/v1/chat/completions":
                    api = "openai"
                elif path == "/v1/messages":
                    api = "anthropic"
                else:
                    self._json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
                    return
                req = Request(api, "POST", path, {k.lower(): v for k, v in self.headers.items()}, body)
                try:
                    reply = server._reply_for(req)
                except Exception as exc:  # noqa: BLE001 - a test handler bug: answer 500 so the test sees it
                    reply = Reply(status=500, error=f"handler raised {exc!r}")
                if server.known_models is not None and req.model not in server.known_models:
                    reply = Reply(status=404, error=f"The model `{req.model}` does not exist")
                if reply.delay_s and server._stopping.wait(reply.delay_s):
                    return
                try:
                    if reply.status != 200:
                        self._error(api, reply)
                    elif api == "openai":
                        self._openai(req, reply)
                    else:
                        self._anthropic(req, reply)
                except (BrokenPipeError, ConnectionResetError):
                    with server._lock:  # the client went away (cancel, timeout)
                        server.aborted += 1

            # -- writers
            def _json(self, status: int, obj: dict, headers: dict[str, str] | None = None) -> None:
                data = json.dumps(obj).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def _error(self, api: str, reply: Reply) -> None:
                message = reply.error or f"error {reply.status}"
                headers = dict(reply.headers)
                if reply.status == 429:
                    headers.setdefault("retry-after-ms", "10")
                if api == "openai":
                    obj = {"error": {"message": message, "type": "invalid_request_error", "code": None}}
                else:
                    obj = {"type": "error", "error": {"type": _ANTHROPIC_ERROR_TYPES.get(reply.status, "api_error"),
                                                      "message": message}}
                self._json(reply.status, obj, headers)

            def _sse_start(self, headers: dict[str, str]) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()

            def _send_event(self, obj: dict | str, event: str | None = None) -> None:
                data = obj if isinstance(obj, str) else json.dumps(obj)
                prefix = f"event: {event}\n" if event else ""
                self.wfile.write(f"{prefix}data: {data}\n\n".encode())
                self.wfile.flush()

            def _openai(self, req: Request, reply: Reply) -> None:
                calls = [{"id": c.get("id") or f"call_{i}", "type": "function",
                          "function": {"name": c["name"], "arguments": json.dumps(c.get("arguments", {}))}}
                         for i, c in enumerate(reply.tool_calls)]
                finish = "tool_calls" if calls else "stop"
                base = {"id": "chatcmpl-test", "created": int(time.time()), "model": req.model}
                if not req.stream:
                    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
                    if calls:
                        message["tool_calls"] = calls
                    self._json(200, {**base, "object": "chat.completion", "choices": [
                        {"index": 0, "message": message, "finish_reason": finish}],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}, reply.headers)
                    return
                self._sse_start(reply.headers)

                def chunk(delta: dict, finish_reason: str | None = None) -> dict:
                    return {**base, "object": "chat.completion.chunk",
                            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}

                self._send_event(chunk({"role": "assistant", "content": ""}))
                for piece in reply.pieces():
                    if reply.piece_delay_s and server._stopping.wait(reply.piece_delay_s):
                        return
                    self._send_event(chunk({"content": piece}))
                for i, c in enumerate(calls):
                    args = c["function"]["arguments"]
                    half = len(args) // 2
                    self._send_event(chunk({"tool_calls": [{"index": i, "id": c["id"], "type": "function",
                                                            "function": {"name": c["function"]["name"],
                                                                         "arguments": args[:half]}}]}))
                    self._send_event(chunk({"tool_calls": [{"index": i, "function": {"arguments": args[half:]}}]}))
                self._send_event(chunk({}, finish))
                self._send_event("[DONE]")

            def _anthropic(self, req: Request, reply: Reply) -> None:
                uses = [{"type": "tool_use", "id": c.get("id") or f"toolu_{i}", "name": c["name"],
                         "input": c.get("arguments", {})} for i, c in enumerate(reply.tool_calls)]
                stop = "tool_use" if uses else "end_turn"
                msg = {"id": "msg_test", "type": "message", "role": "assistant", "model": req.model,
                       "stop_sequence": None}
                if not req.stream:
                    content = ([{"type": "text", "text": reply.text}] if reply.text else []) + uses
                    self._json(200, {**msg, "content": content, "stop_reason": stop,
                                     "usage": {"input_tokens": 1, "output_tokens": 1}}, reply.headers)
                    return
                self._sse_start(reply.headers)
                self._send_event({"type": "message_start", "message": {
                    **msg, "content": [], "stop_reason": None, "usage": {"input_tokens": 1, "output_tokens": 0}}},
                    "message_start")
                index = 0
                pieces = reply.pieces()
                if pieces:
                    self._send_event({"type": "content_block_start", "index": index,
                                      "content_block": {"type": "text", "text": ""}}, "content_block_start")
                    for piece in pieces:
                        if reply.piece_delay_s and server._stopping.wait(reply.piece_delay_s):
                            return
                        self._send_event({"type": "content_block_delta", "index": index,
                                          "delta": {"type": "text_delta", "text": piece}}, "content_block_delta")
                    self._send_event({"type": "content_block_stop", "index": index}, "content_block_stop")
                    index += 1
                for use in uses:
                    self._send_event({"type": "content_block_start", "index": index, "content_block": {
                        "type": "tool_use", "id": use["id"], "name": use["name"], "input": {}}},
                        "content_block_start")
                    args = json.dumps(use["input"])
                    half = len(args) // 2
                    for part in (args[:half], args[half:]):
                        self._send_event({"type": "content_block_delta", "index": index,
                                          "delta": {"type": "input_json_delta", "partial_json": part}},
                                         "content_block_delta")
                    self._send_event({"type": "content_block_stop", "index": index}, "content_block_stop")
                    index += 1
                self._send_event({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                  "usage": {"output_tokens": 1}}, "message_delta")
                self._send_event({"type": "message_stop"}, "message_stop")

        return H
