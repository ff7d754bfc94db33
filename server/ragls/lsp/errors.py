"""RaglsError -> JSON-RPC error codes of docs/protocol.md: InvalidParams -32602, RequestFailed -32803,
Cancelled -32800. Anything else becomes -32603 (pygls' default) and the server keeps serving."""

from __future__ import annotations

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
