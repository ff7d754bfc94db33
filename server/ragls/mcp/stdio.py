"""`ragls mcp`'s stdio transport: the MCP SDK's own (`mcp.server.stdio.stdio_server`, which claims fd 0 and 1),
with lines it cannot read answered instead of dropped.

The SDK's reader turns a line that is not a JSON-RPC message into an `Exception` item on its read stream and the
session drops it (modelcontextprotocol/python-sdk#2751), so a client that sent one waited for its own timeout.
`answer_unreadable` sits between the two: a line that is not JSON (or not UTF-8) is answered
`{"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error: …"}}`; JSON that is not a
JSON-RPC message (`[]`, `42`, `{}`, a request whose `params` is a string) -32600 Invalid Request, with the
message's `id` when it has a readable one (a string or an integer), else `null` (JSON-RPC 2.0, section 5), so
a request with malformed params fails at once. Everything else passes through unchanged, in order; the server
serves the next line. The same answers as the language server's (`lsp.protocol.RaglsProtocol`).
"""

from __future__ import annotations

import logging
from contextlib import asynccontextmanager
from typing import Any

import anyio
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp_types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError
from pydantic import ValidationError

try:  # the SDK's own streams (they carry the sender's contextvars to the session); a private module of mcp 2.3
    from mcp.shared._context_streams import create_context_streams as _streams
except ImportError:  # a later SDK without it: anyio's memory streams, which its wrappers are duck-typed after
    _streams = anyio.create_memory_object_stream

log = logging.getLogger(__name__)


def error_for(exc: Exception) -> JSONRPCError:
    """The JSON-RPC error answering a line the SDK's reader could not read (`exc`: its pydantic ValidationError
    for the line; anything else is answered -32700). A ValidationError does not carry the line, but its
    "missing field" errors carry the object they were checked on, which is where the `id` comes from."""
    errors = exc.errors() if isinstance(exc, ValidationError) else [{"type": "json_invalid", "msg": str(exc)}]
    if any(e["type"] == "json_invalid" for e in errors):
        why = next(e for e in errors if e["type"] == "json_invalid").get("ctx", {}).get("error") or "not JSON"
        return JSONRPCError(jsonrpc="2.0", id=None, error=ErrorData(code=PARSE_ERROR, message=f"Parse error: {why}"))
    message = _message_of(errors)
    if message is None:
        why = "not a JSON-RPC 2.0 message (an object with jsonrpc, method and optional id and params)"
    else:
        why = "; ".join(sorted({f"{'.'.join(map(str, e['loc'][1:]))}: {e['msg']}"
                                for e in errors if e["loc"] and e["loc"][0] == _kind(message) and e["loc"][1:]}))
        why = why or "not a JSON-RPC 2.0 message"
    msg_id = message.get("id") if message else None
    readable = isinstance(msg_id, (str, int)) and not isinstance(msg_id, bool)
    return JSONRPCError(jsonrpc="2.0", id=msg_id if readable else None,
                        error=ErrorData(code=INVALID_REQUEST, message=f"Invalid Request: {why}"[:500]))


def _message_of(errors: list[dict[str, Any]]) -> dict | None:
    """The JSON object a line held, from the validation errors that carry it whole (None: not an object, or no
    error carries it)."""
    for e in errors:
        if len(e["loc"]) == 2 and isinstance(e.get("input"), dict) and e["type"] == "missing":
            return e["input"]
    return None


def _kind(message: dict) -> str:
    """Which JSON-RPC envelope `message` meant to be (its errors under that name are the ones to report)."""
    if "method" in message:
        return "JSONRPCRequest" if "id" in message else "JSONRPCNotification"
    return "JSONRPCError" if "error" in message else "JSONRPCResponse"


@asynccontextmanager
async def answering_stdio_server():
    """`stdio_server()` whose read stream carries only readable messages; an unreadable line is answered on the
    write stream (`error_for`) and logged. Yields (read_stream, write_stream) as `stdio_server` does."""
    async with stdio_server() as (read_stream, write_stream):
        send, receive = _streams[SessionMessage | Exception](0)

        async def forward() -> None:
            async with send, read_stream:
                async for item in read_stream:
                    if not isinstance(item, Exception):
                        await send.send(item)
                        continue
                    reply = error_for(item)
                    log.warning("ragls mcp: answered an unreadable line with %s (id %s): %s",
                                reply.error.code, reply.id, reply.error.message)
                    try:
                        await write_stream.send(SessionMessage(reply))
                    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                        return

        async with anyio.create_task_group() as tg:
            tg.start_soon(forward)
            yield receive, write_stream
            tg.cancel_scope.cancel()
