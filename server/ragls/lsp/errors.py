"""RaglsError -> JSON-RPC error codes of docs/protocol.md: InvalidParams -32602, RequestFailed -32803,
Cancelled -32800. Anything else becomes -32603 (pygls' default) and the server keeps serving."""

from __future__ import annotations

import logging

from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams, JsonRpcRequestCancelled

from ragls import errors


class JsonRpcRequestFailed(JsonRpcException):
    """LSP 3.17 RequestFailed."""

    CODE = -32803


def to_jsonrpc(exc: BaseException) -> JsonRpcException:
    """The JSON-RPC exception to raise for `exc` (its message is kept)."""
    if isinstance(exc, errors.InvalidParams):
        return JsonRpcInvalidParams(message=str(exc))
    if isinstance(exc, errors.RequestFailed):
        return JsonRpcRequestFailed(message=str(exc))
    cancelled = getattr(errors, "Cancelled", ())
    if cancelled and isinstance(exc, cancelled):
        return JsonRpcRequestCancelled(message=str(exc) or "request cancelled")
    if isinstance(exc, errors.RaglsError):
        return JsonRpcRequestFailed(message=str(exc))
    raise TypeError("not a ragls error")


EXPECTED_CODES = frozenset({JsonRpcInvalidParams.CODE, JsonRpcRequestFailed.CODE, JsonRpcRequestCancelled.CODE})


class ExpectedErrorLogFilter(logging.Filter):
    """pygls logs every error answer with its Python traceback. An expected one (invalid params, request failed,
    cancelled: the user's input or state, e.g. "nothing staged") becomes one INFO line with its code and message;
    anything else (a bug) keeps its traceback. Installed on pygls' JSON-RPC logger by `install_log_filter`."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, JsonRpcException) and exc.code in EXPECTED_CODES:
            record.msg, record.args = "request answered with error %s: %s", (exc.code, exc.message)
            record.exc_info, record.exc_text = None, None
            record.levelno, record.levelname = logging.INFO, "INFO"
        return True


def install_log_filter() -> None:
    """Attach `ExpectedErrorLogFilter` to pygls' JSON-RPC logger (idempotent)."""
    logger = logging.getLogger("pygls.protocol.json_rpc")
    if not any(isinstance(f, ExpectedErrorLogFilter) for f in logger.filters):
        logger.addFilter(ExpectedErrorLogFilter())
