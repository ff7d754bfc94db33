"""RaglsError -> the JSON-RPC error pygls answers, by `errors.error_kind` (the one mapping of every front):
InvalidParams -32602, RequestFailed -32803, Cancelled -32800. Anything else becomes -32603 (pygls' default) and
the server keeps serving."""

from __future__ import annotations

import logging
from collections.abc import Callable

from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInvalidParams,
    JsonRpcRequestCancelled,
)

from ragls.core import errors


class JsonRpcRequestFailed(JsonRpcException):
    """LSP 3.17 RequestFailed."""

    CODE = errors.REQUEST_FAILED


_EXCEPTIONS = {cls.CODE: cls for cls in (JsonRpcInvalidParams, JsonRpcRequestFailed, JsonRpcRequestCancelled)}


def to_jsonrpc(exc: BaseException, rename: Callable[[str], str] | None = None) -> JsonRpcException:
    """The JSON-RPC exception to raise for `exc` (its message is kept, passed through `rename` when given: the
    editor front names settings as the editor does). Raises TypeError for an exception that is not a RaglsError
    (pygls answers those -32603 itself, with their traceback logged)."""
    if not isinstance(exc, errors.RaglsError):
        raise TypeError("not a ragls error")
    wire = errors.to_wire_error(exc)
    return _EXCEPTIONS[wire["code"]](message=rename(wire["message"]) if rename else wire["message"])


EXPECTED_CODES = frozenset({JsonRpcInvalidParams.CODE, JsonRpcRequestFailed.CODE, JsonRpcRequestCancelled.CODE})


def _request_named(args: object) -> str:
    """"rag/status (request 12)" or "request 12" from the arguments of pygls' two error log calls:
    ("Failed to handle request %s %s %s", id, method, params) for a handler that raised, ('Exception occurred for
    message "%s"', id) for one whose future failed. Two failed requests then never log the same line twice in a row
    (they did when a status refresh and another request met the same unopened workspace)."""
    args = args if isinstance(args, tuple) else ()
    if len(args) >= 3 and isinstance(args[1], str):
        return f"{args[1]} (request {args[0]})"
    return f"request {args[0]}" if args else "request"


class ExpectedErrorLogFilter(logging.Filter):
    """pygls logs every error answer with its Python traceback. An expected one (invalid params, request failed,
    cancelled: the user's input or state, e.g. "nothing staged") becomes one INFO line with the request, its code and
    message; anything else (a bug) keeps its traceback. Installed on pygls' JSON-RPC logger by `install_log_filter`."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, JsonRpcException) and exc.code in EXPECTED_CODES:
            record.msg, record.args = "%s answered with error %s: %s", (_request_named(record.args), exc.code,
                                                                         exc.message)
            record.exc_info, record.exc_text = None, None
            record.levelno, record.levelname = logging.INFO, "INFO"
        return True


def install_log_filter() -> None:
    """Attach `ExpectedErrorLogFilter` to pygls' JSON-RPC logger (idempotent)."""
    logger = logging.getLogger("pygls.protocol.json_rpc")
    if not any(isinstance(f, ExpectedErrorLogFilter) for f in logger.filters):
        logger.addFilter(ExpectedErrorLogFilter())
