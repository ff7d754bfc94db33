"""The stdio message loop of `ragls serve`: LSP base-protocol framing that survives a bad frame (protocol.md: the
server never exits on a bad request).

pygls's own loop (`pygls.io_.run_async`) reads `Content-Length` with a case-sensitive, CRLF-only pattern and trusts
the number: `Content-Length: 99999999999` made the server exit (MemoryError), and a lower-case name, LF-only
headers, a missing, negative or non-numeric length, or a body shorter than its length left it running but deaf.
This loop instead:

- matches header names case-insensitively and accepts LF line ends;
- answers a frame without a usable length (missing, not a number, over MAX_MESSAGE_BYTES) or whose body is not JSON
  (or JSON nested past what the json module reads, ~1,000 levels) with a JSON-RPC error -32700 (id null) and goes on;
- resynchronises on the next `Content-Length` header, even one glued to the end of a body that was longer than
  declared (the bytes before it are dropped).
"""

from __future__ import annotations

import inspect
import json
import logging
import re

log = logging.getLogger(__name__)

#: Largest message body accepted (bytes); a larger Content-Length is answered -32700 and its body skipped.
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
_LENGTH = re.compile(rb"content-length[ \t]*:[ \t]*([^\r\n]*)", re.IGNORECASE)


def _parse_error(protocol, message: str) -> None:
    """Answer a frame that cannot be read: `{"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message":
    "Parse error: ..."}}` (the protocol's `answer_parse_error`, lsp/protocol.py; raw on the writer otherwise)."""
    log.warning("bad LSP frame: %s", message)
    answer = getattr(protocol, "answer_parse_error", None)
    if answer is not None:
        answer(ValueError(message))
        return
    body = json.dumps({"jsonrpc": "2.0", "id": None,
                       "error": {"code": -32700, "message": f"Parse error: {message}"}}).encode()
    res = protocol.writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    if inspect.isawaitable(res):
        import asyncio

        asyncio.ensure_future(res)


async def run_async(stop_event, reader, protocol, logger=None, error_handler=None) -> None:
    """Drop-in for `pygls.io_.run_async` (same arguments: a threading.Event that stops the loop, a reader with
    awaitable `readline()` / `readexactly(n)`, the JSON-RPC protocol, a logger, an error handler); returns at end
    of input."""
    logger = logger or log
    length: int | None = None
    problem: str | None = None
    in_headers = False
    while not stop_event.is_set():
        line = await reader.readline()
        if not line:
            return
        if line.strip():
            in_headers = True
            match = _LENGTH.search(line)
            if match:  # possibly after the tail of a body longer than its declared length: resynchronised here
                value = match.group(1).strip()
                length, problem = None, None
                if not value.isdigit():
                    problem = f"invalid Content-Length {value.decode('latin-1')[:40]!r}"
                elif int(value) > MAX_MESSAGE_BYTES:
                    problem = f"Content-Length {int(value)} exceeds the limit of {MAX_MESSAGE_BYTES} bytes"
                else:
                    length = int(value)
            continue
        if not in_headers:
            continue  # a blank line between messages
        in_headers = False
        if length is None:
            _parse_error(protocol, problem or "missing Content-Length header")
            problem = None
            continue
        want, length = length, None
        body = await reader.readexactly(want)
        if len(body) < want:
            return  # end of input inside a body
        try:  # as pygls: a body that is not JSON (or cut short) reaches the error handler, which answers -32700
            try:
                message = json.loads(body, object_hook=protocol.structure_message)
            except RecursionError:  # nested too deeply for the json module: was only logged, the sender left waiting
                _parse_error(protocol, "JSON nested too deeply to read")
                continue
            protocol.handle_message(message)
        except Exception as exc:  # noqa: BLE001 - log, report, keep serving
            logger.debug("Unable to handle message", exc_info=True)
            if error_handler:
                from pygls.exceptions import JsonRpcException

                error_handler(exc, JsonRpcException)
            else:
                _parse_error(protocol, str(exc))
