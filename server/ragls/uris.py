"""file:// URIs as LSP clients encode them (spaces -> %20, '#' -> %23) and back."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote, unquote, urlparse


def path_to_uri(path: str | Path) -> str:
    """Absolute file path -> file:// URI (percent-encoded like VS Code: only unreserved chars and '/' kept)."""
    p = Path(path).resolve().as_posix()
    if not p.startswith("/"):
        p = "/" + p  # Windows drive paths: file:///c%3A/...
    return "file://" + quote(p, safe="/")


def uri_to_path(uri: str) -> str:
    """file:// URI -> local path. Raises ValueError for other schemes."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        raise ValueError(f"not a file URI: {uri}")
    path = unquote(parsed.path)
    if len(path) >= 3 and path[0] == "/" and path[2] == ":":
        path = path[1:]  # /c:/x -> c:/x
    return path
