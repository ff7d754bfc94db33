"""A web site on 127.0.0.1 for the tests that fetch or crawl pages (test_web, test_web_markdown, test_ephemeral):
a request handler class served by a thread, and a workspace whose user config holds one web RAG."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest


@contextlib.contextmanager
def serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """`handler` served on 127.0.0.1 at a free port by a ThreadingHTTPServer thread; yields the base URL
    ("http://127.0.0.1:PORT"), then shuts the server down and closes its socket."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def web_rag_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, source: str):
    """A RagWorkspace of an empty folder (`tmp_path/project`, offline, its own cache) whose user config
    (`tmp_path/config/ragls.toml`) names the web RAG `name` over `source` (a URL with `/**`), chunk size 100, no
    delay between requests. The caller closes it."""
    from ragls.workspace.rag_workspace import RagWorkspace

    monkeypatch.setenv("RAGLS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RAGLS_OFFLINE", "1")
    monkeypatch.setenv("RAGLS_CONFIG_DIR", str(tmp_path / "config"))
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "ragls.toml").write_text(
        f'[rags.{name}]\nsources = ["{source}"]\nchunk_size = 100\nweb = {{ delay_s = 0 }}\n')
    (tmp_path / "project").mkdir()
    return RagWorkspace([tmp_path / "project"])
