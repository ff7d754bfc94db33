"""`ragls http`: the live index over HTTP for services and dashboards (starlette + uvicorn; issue 18).

Endpoints (JSON bodies and results are the docs/protocol.md shapes, camelCase):
  GET  /healthz   → `{"status": "ok", "ready": bool}` (ready: the index is open; 200 even while it opens)
  GET  /status    → the `rag/status` result
  POST /retrieve  → `rag/query` params `{query, topK?, rag?, explain?}` → the `rag/query` result
  POST /ask       → `rag/ask` params `{question, topK?, rag?, history?}` → the `rag/ask` result; with
                    `"stream": true` or `Accept: text/event-stream`, Server-Sent Events: `event: delta` (data
                    `{"delta": "..."}`) per piece of the answer, then `event: result` (the result) or `event: error`.
Errors: `{"error": {"code", "message"}}` with the protocol's JSON-RPC code, always JSON; the code and the HTTP
status come from the error's type (`errors.error_kind`): 400 for -32602 (bad params), 502 for -32803 (backend
failure: LLM unreachable…), 503 while the index cannot be opened (`NotReady`), 500 with -32603 for an unexpected
error (logged with its traceback), 413 with -32600 for a body over MAX_BODY_BYTES (16 MB), 401 without the token, 403 / 415 with -32600 for a request `refusal` turns
away, 404 / 405 with -32600 for a path or method no endpoint serves (the message lists the endpoints). `/ask`
refuses `documents` (-32602: a client of the HTTP API names no local files or commands) rather than answer
without them.

Security: binds 127.0.0.1 by default. Any other address needs `allow_remote` and a bearer token (read from an
environment variable, never from a file or the command line); when a token is set, every endpoint but /healthz
requires `Authorization: Bearer <token>` (compared in constant time). The token never reaches logs or results.
Document text in results is data, exactly as over LSP. Against web pages in the user's browser (`refusal`):
bound to loopback, a request whose `Host` is not localhost / 127.0.0.1 / [::1] (DNS rebinding) or whose `Origin`
is another site is refused with 403; a POST without `Content-Type: application/json` (a form or `text/plain`
"simple request", which a page may send cross-site without a CORS preflight) with 415.
"""

from __future__ import annotations

import asyncio
import errno
import hmac
import ipaddress
import json
import logging
import os
import socket
import threading
from collections.abc import Callable
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from ragls.core.errors import (
    INVALID_REQUEST,
    InvalidParams,
    RaglsError,
    error_kind,
    to_wire_error,
)
from ragls.lsp.wire import (
    AskParams,
    QueryParams,
    parse,
    to_wire_answer,
    to_wire_query,
    to_wire_status,
)

log = logging.getLogger(__name__)


def is_loopback(host: str) -> bool:
    """True for `localhost` and loopback addresses (127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")


def _host_name(authority: str) -> str:
    """The host of a `Host` header or an origin's authority, lower case, without the port ("[::1]:8000" -> "[::1]")."""
    authority = authority.strip().lower()
    if authority.startswith("["):
        return authority[:authority.find("]") + 1] if "]" in authority else authority
    return authority.rsplit(":", 1)[0] if authority.count(":") == 1 else authority


def refusal(method: str, headers, loopback: bool) -> tuple[int, str] | None:
    """(HTTP status, message) when a request must be refused before any endpoint runs, else None.

    `headers`: the request's headers (case-insensitive mapping); `loopback`: the server is bound to a loopback
    address without a token, so any page in the user's browser could reach it. Then a `Host` other than
    `LOOPBACK_NAMES` (with or without a port) → 403 (DNS rebinding: a page of attacker.example resolved to
    127.0.0.1), and an `Origin` whose host is not one of them → 403 (another site's page). Always: a POST whose
    `Content-Type` is not `application/json` → 415 (forms and `text/plain` are sent cross-site without a CORS
    preflight)."""
    if loopback:
        host = _host_name(headers.get("host", ""))
        if host not in LOOPBACK_NAMES:
            return 403, f"refused: Host {headers.get('host', '')!r} is not localhost (ragls http serves loopback only)"
        origin = headers.get("origin")
        if origin is not None:
            scheme, sep, rest = origin.strip().partition("://")
            if not sep or scheme.lower() not in ("http", "https") or _host_name(rest.split("/")[0]) not in LOOPBACK_NAMES:
                return 403, f"refused: requests from the web page origin {origin!r} are not allowed"
    if method == "POST":
        ctype = headers.get("content-type", "").split(";")[0].strip().lower()
        if ctype != "application/json":
            return 415, "the request body must be sent with Content-Type: application/json"
    return None


class RequestGuard:
    """ASGI middleware applying `refusal` to every HTTP request; a refused one gets the documented JSON error
    `{"error": {"code": -32600, "message"}}` and never reaches an endpoint."""

    def __init__(self, app, loopback: bool):
        self.app = app
        self.loopback = loopback

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            from starlette.datastructures import Headers

            refused = refusal(scope["method"], Headers(scope=scope), self.loopback)
            if refused is not None:
                status, message = refused
                response = JSONResponse({"error": {"code": INVALID_REQUEST, "message": message}}, status_code=status)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _error(exc: BaseException) -> JSONResponse:
    """The documented JSON error answer for `exc`, its status from the error's type (`errors.error_kind`)."""
    return JSONResponse({"error": to_wire_error(exc)}, status_code=error_kind(exc).http)


#: The endpoints and their methods, as the error for any other path or method lists them.
ENDPOINTS = "GET /healthz, GET /status, POST /retrieve, POST /ask"


async def _no_endpoint(request: Request, exc: HTTPException) -> Response:
    """Starlette's own refusals (an unknown path: 404, a wrong method: 405) as the documented JSON error with
    -32600 and Starlette's status and headers (`Allow` on a 405), instead of its plain-text "Not Found"."""
    message = (f"no endpoint {request.method} {request.url.path}; ragls http serves {ENDPOINTS}"
               if exc.status_code in (404, 405) else exc.detail)
    return JSONResponse({"error": {"code": INVALID_REQUEST, "message": message}}, status_code=exc.status_code,
                        headers=exc.headers)


#: Largest request body read (bytes): a query is at most 16,000 characters, a conversation's history a few hundred
#: kB. A larger body (its Content-Length, or a chunked one once past it) is answered 413 without reading the rest;
#: before, every byte was held in memory first (a 1 GB body, a gigabyte of the server's memory).
MAX_BODY_BYTES = 16 * 1024 * 1024


class _TooLarge(Exception):
    """A request body over MAX_BODY_BYTES (answered 413, -32600)."""


async def _body(request: Request) -> dict[str, Any]:
    """The request's JSON object. Raises InvalidParams for a body that is not JSON, not an object or nested past
    what Python's json module reads (RecursionError: some 1,000 levels of `[`), _TooLarge past MAX_BODY_BYTES (read
    no further)."""
    try:
        declared = int(request.headers.get("content-length") or 0)
    except ValueError:
        declared = 0
    if declared > MAX_BODY_BYTES:
        raise _TooLarge
    data = bytearray()
    async for piece in request.stream():
        data += piece
        if len(data) > MAX_BODY_BYTES:
            raise _TooLarge
    try:
        body = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        raise InvalidParams("the request body is not JSON") from None
    except RecursionError:  # was a 500 "internal error (RecursionError)" with a traceback in the log
        raise InvalidParams("the request body is JSON nested too deeply to read") from None
    if not isinstance(body, dict):
        raise InvalidParams("the request body must be a JSON object")
    return body


def build_app(live, token: str | None = None, loopback: bool = True) -> Starlette:
    """The ASGI app over `live` (a `ragls.workspace.live.LiveWorkspace`, started). `token`: the bearer token every endpoint
    but /healthz requires (None: no authentication, loopback only — enforced by `serve`). `loopback`: served on a
    loopback address, so only local `Host` and `Origin` values are accepted (`refusal`); `serve` passes False for
    another address (`allow_remote`, token required)."""

    def authorized(request: Request) -> bool:
        if token is None:
            return True
        given = request.headers.get("authorization", "")
        return hmac.compare_digest(given.encode(), f"Bearer {token}".encode())

    def guarded(handler):
        async def endpoint(request: Request) -> Response:
            if not authorized(request):
                return JSONResponse({"error": {"code": INVALID_REQUEST, "message": "missing or wrong bearer token"}},
                                    status_code=401, headers={"WWW-Authenticate": "Bearer"})
            try:
                with live.request():  # the workspace it uses is not closed under it (a reopen waits)
                    return await handler(request)
            except _TooLarge:
                return JSONResponse({"error": {"code": INVALID_REQUEST, "message": (
                    f"the request body is over {MAX_BODY_BYTES:,} bytes")}}, status_code=413,
                    headers={"Connection": "close"})
            except Exception as exc:  # noqa: BLE001 - every failure is a JSON answer, the server keeps serving
                if not isinstance(exc, RaglsError):
                    log.exception("%s %s failed", request.method, request.url.path)
                return _error(exc)
        return endpoint

    async def healthz(request: Request) -> Response:
        return JSONResponse({"status": "ok", "ready": live.ready()})

    async def status(request: Request) -> Response:
        ws = await asyncio.to_thread(live.get)
        return JSONResponse(to_wire_status(await asyncio.to_thread(ws.status)))

    async def retrieve(request: Request) -> Response:
        body = await _body(request)
        p = parse(QueryParams, body)
        ws = await asyncio.to_thread(live.get_indexed)
        result = await asyncio.to_thread(ws.query, p.query, p.top_k, p.rag)
        return JSONResponse(to_wire_query(result, p.explain))

    async def ask(request: Request) -> Response:
        body = await _body(request)
        if "documents" in body:  # said, not silently dropped: the answer would leave out what the caller sent
            raise InvalidParams("documents: not taken over HTTP (a client of ragls http names no local files, "
                                "commands or URLs); index them in the folder, or send rag/ask to the language server")
        if not isinstance(body.get("stream", False), bool):  # "false" is a string, and bool("false") is True
            raise InvalidParams("stream: Input should be a valid boolean")
        p = parse(AskParams, body)
        history = [m.model_dump() for m in p.history] if p.history else None
        kwargs = {"top_k": p.top_k, "rag": p.rag, "history": history}
        stream = body.get("stream", False) or "text/event-stream" in request.headers.get("accept", "")
        ws = await asyncio.to_thread(live.get_indexed)  # not open: the JSON error (503), before any event
        if not stream:
            answer = await asyncio.to_thread(ws.ask, p.question, **kwargs)
            return JSONResponse(to_wire_answer(answer))
        return StreamingResponse(_sse_answer(live, p.question, kwargs, to_wire_answer),
                                 media_type="text/event-stream", headers={"Cache-Control": "no-cache"})

    routes = [Route("/healthz", healthz, methods=["GET"]), Route("/status", guarded(status), methods=["GET"]),
              Route("/retrieve", guarded(retrieve), methods=["POST"]), Route("/ask", guarded(ask), methods=["POST"])]
    return Starlette(routes=routes, middleware=[Middleware(RequestGuard, loopback=loopback)],
                     exception_handlers={HTTPException: _no_endpoint})


def _sse(event: str, data: dict) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


async def _sse_answer(live, question, kwargs: dict, to_wire):
    """Run `ask` on `live`'s workspace on a thread (a request of its own: the stream outlives the endpoint); yield
    an SSE `delta` event per piece, then `result` or `error`. A client that disconnects cancels the generation at
    its next piece."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue = asyncio.Queue()
    cancel = threading.Event()

    def run() -> None:
        try:
            with live.request():
                answer = live.get_indexed().ask(question, on_delta=lambda piece: loop.call_soon_threadsafe(
                    queue.put_nowait, ("delta", {"delta": piece})), cancel=cancel, **kwargs)
            loop.call_soon_threadsafe(queue.put_nowait, ("result", to_wire(answer)))
        except Exception as exc:  # noqa: BLE001 - reported to the client as an event, the server keeps serving
            if not isinstance(exc, RaglsError):
                log.exception("ask failed")
            loop.call_soon_threadsafe(queue.put_nowait, ("error", to_wire_error(exc)))

    worker = asyncio.ensure_future(asyncio.to_thread(run))
    try:
        while True:
            event, data = await queue.get()
            yield _sse(event, data)
            if event != "delta":
                break
    finally:
        cancel.set()  # a no-op after a normal end; stops the generation when the client went away
        await asyncio.shield(worker)


def listening_socket(host: str, port: int, backlog: int = 2048) -> socket.socket:
    """A TCP socket bound to `host`:`port` (0: a free port) and listening, as uvicorn's `Config.bind_socket` makes
    it (SO_REUSEADDR on POSIX; IPv6 for a host holding ":"; `backlog` its default), so a client told the port queues in the
    backlog until the server accepts. Raises OSError (its errno kept) whose message names the address and what to
    do: uvicorn logged "[Errno 98] Address already in use" and exited 3, after the index was opened."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family=family, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    try:
        if os.name == "posix":  # as asyncio's create_server: on Windows it lets a second socket take a port in use
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(backlog)
    except OSError as exc:
        sock.close()
        busy = " (another `ragls http` or another server holds it)" if exc.errno == errno.EADDRINUSE else ""
        raise OSError(exc.errno, f"cannot listen on {host}:{port}: {exc.strerror or exc}{busy}; choose another "
                                 "port with --port, or --port 0 for a free one") from None
    sock.set_inheritable(True)
    return sock


def serve(live, host: str = "127.0.0.1", port: int = 8000, allow_remote: bool = False,
          token: str | None = None, on_listening: Callable[[int], None] | None = None,
          sock: socket.socket | None = None) -> None:
    """Run the HTTP API until interrupted. `port` 0 takes a free port from the OS; `on_listening(port)` is called
    with the bound port once the socket listens (before requests are served). `sock`: a socket `listening_socket`
    made already (`ragls http` makes it before opening the index), else one is made here; closed on return.
    Raises InvalidParams for a non-loopback `host` without `allow_remote` and a token; OSError when the port cannot
    be bound (`listening_socket`)."""
    if not is_loopback(host):
        if not allow_remote:
            raise InvalidParams(f"refusing to listen on {host}: only loopback by default; pass --allow-remote "
                                "and set a bearer token (--token-env) to serve other machines")
        if not token:
            raise InvalidParams(f"listening on {host} needs a bearer token: set the variable named by --token-env")
    import uvicorn

    config = uvicorn.Config(build_app(live, token, loopback=is_loopback(host)), host=host, port=port,
                            log_level="warning", access_log=False)
    # Listening now, not only bound: a client told the port below queues in the backlog until the server accepts,
    # instead of being refused while uvicorn starts (asyncio's create_server listens again, harmlessly).
    sock = sock if sock is not None else listening_socket(host, port, config.backlog)
    try:
        if on_listening is not None:
            on_listening(sock.getsockname()[1])
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()
