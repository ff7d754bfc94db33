"""Params as plain data: pygls hands custom params over as nested namedtuples (and lsprotocol attrs objects).

A module of its own, importing nothing: the language server reads `initializationOptions` with it before it answers
`initialize`, before the settings (pydantic) and the workspace are imported (lsp/server.py)."""

from __future__ import annotations

from typing import Any


def to_plain(obj: Any) -> Any:
    """pygls hands custom params over as nested namedtuples; turn them (and lsprotocol attrs) into dicts. Absent
    params (None) become {}; a null inside stays None (a setting reset to its default)."""
    return {} if obj is None else _plain(obj)


def _plain(obj: Any) -> Any:
    if hasattr(obj, "_asdict"):
        return {k: _plain(v) for k, v in obj._asdict().items()}
    if isinstance(obj, dict):
        return {k: _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    return obj
