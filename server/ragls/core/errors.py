"""Errors shared by every layer, and the one mapping of an error to what each front answers.

Every front converts an exception with `error_kind(exc)`: the JSON-RPC code (LSP, the local socket, HTTP bodies
and SSE `error` events), the HTTP status and the CLI exit status. The status comes from the error's type, never
from its message. `from_wire_error` turns a JSON-RPC error answer back into the exception (the CLI asking a running
server). The MCP adapter answers every error as an `isError` tool result carrying the same `{"code", "message"}`
(`mcp_server.tool_error`). `Skipped` is not an error: it records why a file was left out of the index so
`rag/status` can show it.
"""

from __future__ import annotations

from dataclasses import dataclass


class RaglsError(Exception):
    """Base class of every error ragls raises on purpose. `str(err)` is the user-facing message."""


class InvalidParams(RaglsError):
    """The request or setting is malformed (JSON-RPC -32602). The message names the offending field."""


class RequestFailed(RaglsError):
    """A backend could not do the work (JSON-RPC -32803): LLM unreachable, no API key, not a git repository..."""


class StoreBusy(RequestFailed):
    """The index's vector store is held by another process now (qdrant-client's embedded mode allows one at a time):
    a server retries it after a back-off rather than going without vectors for good."""


class Cancelled(RaglsError):
    """The client cancelled the request (JSON-RPC -32800), e.g. `$/cancelRequest` during a streamed answer."""


class ConfigError(InvalidParams):
    """A setting has an invalid value (bad template, unknown backend); raised when settings are loaded."""


class NotReady(RequestFailed):
    """The workspace cannot answer yet: its index is still opening, could not be opened, or the server is shutting
    down (JSON-RPC -32803 like RequestFailed; HTTP 503)."""


# JSON-RPC codes of docs/protocol.md
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
REQUEST_CANCELLED = -32800
REQUEST_FAILED = -32803


@dataclass(frozen=True)
class ErrorKind:
    """How every front answers one kind of error: `code` (JSON-RPC), `http` (status), `exit` (CLI status)."""

    code: int
    http: int
    exit: int


# Most specific type first; anything that is not a RaglsError is a bug: INTERNAL.
_KINDS: tuple[tuple[type[BaseException], ErrorKind], ...] = (
    (Cancelled, ErrorKind(REQUEST_CANCELLED, 499, 1)),
    (InvalidParams, ErrorKind(INVALID_PARAMS, 400, 2)),
    (NotReady, ErrorKind(REQUEST_FAILED, 503, 1)),
    (RaglsError, ErrorKind(REQUEST_FAILED, 502, 1)),
)
INTERNAL = ErrorKind(INTERNAL_ERROR, 500, 1)


def error_kind(exc: BaseException) -> ErrorKind:
    """The `ErrorKind` of `exc` by its type (module docstring); `INTERNAL` for an unexpected exception."""
    return next((kind for cls, kind in _KINDS if isinstance(exc, cls)), INTERNAL)


def invalid_params(errors: list[dict], limit: int | None = None) -> InvalidParams:
    """InvalidParams for pydantic's `ValidationError.errors()`: "field: message" per error (the first `limit`),
    joined by "; " — the field named, the rejected value never echoed (it may be anything the caller sent).
    The one wording of a malformed request's fields for the LSP params (`lsp.wire.parse`) and MCP tool arguments."""
    parts = [f"{'.'.join(str(p) for p in err.get('loc', ())) or 'params'}: "
             f"{str(err.get('msg', 'invalid')).removeprefix('Value error, ')}" for err in errors[:limit]]
    return InvalidParams("; ".join(parts) or "invalid params")


def to_wire_error(exc: BaseException) -> dict:
    """`{"code", "message"}` of the protocol's error object for `exc`: a RaglsError keeps its message; an unexpected
    error says "internal error" and its type only (its text may hold anything; the caller logs the traceback)."""
    kind = error_kind(exc)
    if kind is INTERNAL:
        return {"code": kind.code, "message": f"internal error ({type(exc).__name__}); see the server log"}
    return {"code": kind.code, "message": str(exc) or ("request cancelled" if isinstance(exc, Cancelled) else "")}


def from_wire_error(err: dict) -> RaglsError:
    """The exception a JSON-RPC error answer `{"code", "message"}` stands for: InvalidParams for -32602, Cancelled
    for -32800, else RequestFailed (a server's internal error included)."""
    cls = {INVALID_PARAMS: InvalidParams, REQUEST_CANCELLED: Cancelled}.get(err.get("code"), RequestFailed)
    return cls(str(err.get("message", "")))


@dataclass(frozen=True)
class Skipped:
    """A file left out of the index. `path` is relative to its workspace folder ("/" separators)."""

    path: str
    reason: str


#: The OS's words for a full disk or quota, as store libraries (LanceDB, tantivy) carry them in their own error types.
_FULL_TEXTS = ("no space left on device", "disk quota exceeded", "database or disk is full")


def disk_full(exc: BaseException) -> bool:
    """True when `exc`, or an exception it was raised from (`__cause__` / `__context__`), says the disk or the
    user's quota is full: an OSError with errno ENOSPC or EDQUOT, SQLite's SQLITE_FULL ("database or disk is
    full"), or a store library's own error type carrying the OS message "No space left on device" (LanceDB and
    tantivy wrap the OS error). Used to back off and say "disk full" once instead of failing on every write."""
    return full_disk_error(exc) is not None


def full_disk_error(exc: BaseException) -> BaseException | None:
    """The exception of `exc`'s chain that says the disk is full (`disk_full`), or None: its message names the
    cause, where `exc` itself may be a failure it led to (SQLite's "cannot rollback - no transaction is active")."""
    import errno

    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return exc
        if getattr(exc, "sqlite_errorcode", None) == 13:  # SQLITE_FULL
            return exc
        if any(t in str(exc).lower() for t in _FULL_TEXTS):
            return exc
        exc = exc.__cause__ or exc.__context__
    return None
