"""file:// URIs as LSP clients encode them (spaces -> %20, '#' -> %23) and back; file-name bytes as index keys.

File names are bytes on POSIX: a name that is not valid UTF-8 (an old archive, a mounted drive) reaches Python as
a `str` with lone surrogates (PEP 383 "surrogateescape", as `os.fsdecode` gives), which SQLite, tantivy, LanceDB
and JSON all reject. Such a relative path is stored under a *key* (`path_key`): the path itself when it is valid
Unicode (so existing indexes keep their keys), else `KEY_MARK` + its bytes percent-encoded. `key_path` turns a key
back into the `str` the OS accepts, `display_path` into readable text (undecodable bytes shown as U+FFFD), and URIs
carry the raw bytes percent-encoded (`%E9`), as VS Code and Neovim send them. `display_url` shows a network
URL without its credentials.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import quote, unquote, unquote_to_bytes, urlparse, urlsplit

# A Unicode noncharacter (never assigned, never in a real file name) marking a percent-encoded key; a valid path
# that happens to start with it is encoded too, so keys and paths correspond one to one.
KEY_MARK = "\ufffe"


def _is_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def path_key(rel: str) -> str:
    """The index key of a relative path: `rel` itself when it is valid Unicode, else KEY_MARK + its file-system
    bytes percent-encoded ("/" kept), e.g. "caf\\udce9.md" -> "\\ufffecaf%E9.md". Always valid UTF-8."""
    if _is_unicode(rel) and not rel.startswith(KEY_MARK):
        return rel
    return KEY_MARK + quote(os.fsencode(rel), safe="/")


def key_path(key: str) -> str:
    """Inverse of `path_key`: the relative path as the OS `str` (undecodable bytes as lone surrogates)."""
    if key.startswith(KEY_MARK):
        return os.fsdecode(unquote_to_bytes(key[len(KEY_MARK):]))
    return key


def key_prefixes(rel_dir: str) -> list[str]:
    """Key prefixes ("…/") under which the files below directory `rel_dir` are stored (plain and encoded)."""
    rel_dir = rel_dir.rstrip("/")
    prefixes = [KEY_MARK + quote(os.fsencode(rel_dir), safe="/") + "/"]
    if _is_unicode(rel_dir) and not rel_dir.startswith(KEY_MARK):
        prefixes.insert(0, rel_dir + "/")
    return prefixes


def display_path(path: str) -> str:
    """Readable text for a key or an OS path: undecodable bytes become U+FFFD ("caf\\ufffd.md")."""
    return os.fsencode(key_path(path)).decode("utf-8", errors="replace")


def path_to_uri(path: str | Path) -> str:
    """Absolute file path -> file:// URI (percent-encoded like VS Code: only unreserved chars and '/' kept; the
    bytes of a non-UTF-8 name are percent-encoded as they are)."""
    p = Path(path).resolve().as_posix()
    if not p.startswith("/"):
        p = "/" + p  # Windows drive paths: file:///c%3A/...
    return "file://" + quote(os.fsencode(p), safe="/")


def uri_to_path(uri: str) -> str:
    """file:// URI -> local path (percent-encoded bytes that are not UTF-8 become surrogate-escaped characters, as
    `os.fsdecode` gives). Raises ValueError for other schemes."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        raise ValueError(f"not a file URI: {uri}")
    path = os.fsdecode(unquote_to_bytes(parsed.path))
    if len(path) >= 3 and path[0] == "/" and path[2] == ":":
        path = path[1:]  # /c:/x -> c:/x
    return path


def folder_uri_path(uri: str) -> str:
    """`uri_to_path` of a folder URI a client names (rootUri, a workspace folder), checked. ValueError saying what
    is wrong when it is not a file:// URI, names a host other than localhost ("file://%00", "file://server/share":
    `uri_to_path` would drop it and read the rest as a local path), has no absolute path, or holds a NUL (no path
    can)."""
    parsed = urlsplit(uri)
    if parsed.scheme.lower() != "file":
        raise ValueError("not a file:// URI")
    if parsed.netloc not in ("", "localhost"):
        raise ValueError(f"a host {unquote(parsed.netloc)!r} before its path")
    path = uri_to_path(uri)
    if "\0" in path:
        raise ValueError("a NUL character in its path")
    if not (path.startswith("/") or path[1:3] in (":/", ":\\")):
        raise ValueError("no absolute path")
    return path


def split_authority(url: str) -> tuple[str, str | None, str, str] | None:
    """`url` as (scheme, user info, host, rest): the authority follows "://" and ends at the first "/", "?" or "#",
    as `urllib.parse.urlsplit` ends its netloc; its user info is its text up to the last "@" (None when it holds no
    "@"), the host (with its port) the text after it; rest is the path, query and fragment. Unlike urlsplit it never
    raises ("http://[::1" is no valid IPv6 host) and keeps every character (urlsplit drops tabs and newlines), so a
    caller can mask the user info in place. None when `url` holds no "://". A "\\" inside the authority stays in it
    (`requests` ends the host there, urllib does not): an "@" after it still marks user info, so either reading's
    credential is inside the user info returned. "http://u:p@ss@[::1/v1?k" -> ("http", "u:p@ss", "[::1", "/v1?k")."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return None
    end = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    userinfo, at, host = rest[:end].rpartition("@")
    return scheme, (userinfo if at else None), host, rest[end:]


def display_url(url: str) -> str:
    """`url` as status lines, errors and logs show it: scheme, host, port and path, without a user name, password,
    query string or fragment, where credentials ride ("https://user:pw@gw.example/v1?api-key=k" ->
    "https://gw.example/v1"). Text that is no URL (no scheme and host) is returned as it is."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:  # "http://u:p@ss@[::1/v1?k=…" -> "http://[::1/v1": split by hand, user info dropped
        split = split_authority(url)
        if split is None:
            return url
        scheme, _, host, rest = split
        return f"{scheme}://{host}{rest.split('?', 1)[0].split('#', 1)[0]}"
    if not parts.scheme or not parts.netloc:
        return url
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host
    return f"{parts.scheme}://{host}{f':{port}' if port else ''}{parts.path}"


def http_url(url: str | None) -> str | None:
    """`url` when it is an http(s) URL with a host whose parts parse (`generation.base_url`, `rag/models` `baseUrl`);
    None stays None. Raises ValueError saying what is wrong, the URL shown by `display_url` (no credentials):
    "http://[::1" made urllib's "Invalid IPv6 URL" a -32603 with a traceback at the first rag/ask."""
    if url is None:
        return url
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is no number or out of range
    except ValueError as exc:
        raise ValueError(f"{display_url(url)!r} is not a URL ({exc}); e.g. http://127.0.0.1:8080/v1") from None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{display_url(url)!r} is not an http(s) URL with a host; e.g. http://127.0.0.1:8080/v1")
    return url
