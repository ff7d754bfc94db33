"""Errors shared by every layer.

`InvalidParams` and `RequestFailed` map to JSON-RPC -32602 and -32803 in `lsp/errors.py`; everywhere else they are
plain exceptions with a message the user can act on. `Skipped` is not an error: it records why a file was left out
of the index so `rag/status` can show it.
"""

from __future__ import annotations

from dataclasses import dataclass


class RaglsError(Exception):
    """Base class of every error ragls raises on purpose. `str(err)` is the user-facing message."""


class InvalidParams(RaglsError):
    """The request or setting is malformed (JSON-RPC -32602). The message names the offending field."""


class RequestFailed(RaglsError):
    """A backend could not do the work (JSON-RPC -32803): LLM unreachable, no API key, not a git repository..."""


class Cancelled(RaglsError):
    """The client cancelled the request (JSON-RPC -32800), e.g. `$/cancelRequest` during a streamed answer."""


class ConfigError(InvalidParams):
    """A setting has an invalid value (bad template, unknown backend); raised when settings are loaded."""


@dataclass(frozen=True)
class Skipped:
    """A file left out of the index. `path` is relative to its workspace folder ("/" separators)."""

    path: str
    reason: str
