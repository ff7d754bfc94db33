"""An index made by an older ragls holds its HTML pages as that ragls converted them; opened by this one, each page
is converted again at the next full scan although its size and mtime did not change (`convert.CONVERTER_VERSIONS`,
the version in a converted file's content hash), and nothing else is read again. Before, such an index kept the
old text until the page changed or `ragls rebuild`: session 67's converter keeps bare text beside paragraphs
(Node.js's "Stability: 3 - Legacy. Use X instead."), which an index made before it never gained. Real stores
(tantivy, LanceDB, the SQLite manifest) and the offline model."""

from __future__ import annotations

import hashlib
from http.server import BaseHTTPRequestHandler
from typing import ClassVar

import pytest
from offline_index import folder_index
from ragls.embedding.embed import offline_model_dir
from ragls.index.indexer import FolderIndex
from ragls.sources import convert
from sitekit import serving, web_rag_workspace

PAGE = """<!DOCTYPE html>
<html><head><title>Buffer globals</title></head><body>
<h2>The package cache</h2>
<p>The format of the generated cache files is explained in the following sections.</p>
<div>This step lets applications read the records they need without parsing every source file, and it validates
the input once.</div>
<p>Applications then read the cache alone.</p>
</body></html>
"""
NOTE = "# Notes\n\nThe harbour opens at dawn.\n"


def _texts(idx: FolderIndex, path: str) -> str:
    return " ".join(c.text for c in idx.manifest.chunks_of(path))


@pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")
def test_an_index_of_an_older_html_conversion_reads_its_pages_again_once(tmp_path, monkeypatch):
    with monkeypatch.context() as old:  # the converter and versions of a ragls before session 67
        old.setattr(convert, "_bare_text_paragraphs", lambda root, deep=True: False)
        old.setattr(convert, "CONVERTER_VERSIONS", {"html": 1, "pdf": 1, "docx": 1}, raising=False)
        idx, settings = folder_index(tmp_path, {"globals.html": PAGE, "notes.md": NOTE})
        assert "without parsing every source file" not in _texts(idx, "globals.html")
        idx.close()
    idx = FolderIndex(tmp_path / "docs", settings, idx.embedder)
    try:
        report = idx.sync()
        assert report.indexed == ["globals.html"] and report.unchanged == 1  # notes.md is not read again
        assert "without parsing every source file" in _texts(idx, "globals.html")
        assert idx.manifest.files()["globals.html"].content_hash.endswith("~2")
        again = idx.sync()
        assert again.indexed == [] and again.unchanged == 2
    finally:
        idx.close()


def test_only_a_built_in_converters_record_can_be_outdated():
    plain = "0" * 64  # a record of an index made before versions
    assert convert.conversion_outdated("api/page.htm", plain) and convert.conversion_outdated("x.txt", plain, {}, "html")
    assert not convert.conversion_outdated("api/page.html", plain + "~2")
    assert not convert.conversion_outdated("manual.pdf", plain) and not convert.conversion_outdated("notes.md", plain)
    assert not convert.conversion_outdated("page.html", plain, {"html": "pandoc -t plain $1"})  # a program reads it


class _Site(BaseHTTPRequestHandler):
    """PAGE at /docs/page.html with an ETag, answered 304 when the request holds it; `log`: (path, status)."""

    log: ClassVar[list[tuple[str, int]]] = []

    def log_message(self, *args):
        pass

    def do_GET(self):
        body = PAGE.encode()
        etag = '"' + hashlib.sha1(body).hexdigest()[:12] + '"'
        if self.path != "/docs/page.html":
            status, body = 404, b"not found"
        elif self.headers.get("if-none-match") == etag:
            status, body = 304, b""
        else:
            status = 200
        self.log.append((self.path, status))
        self.send_response(status)
        self.send_header("etag", etag)
        if status != 304:
            self.send_header("content-type", "text/html; charset=utf-8" if status == 200 else "text/plain")
            self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def _page_requests() -> list[int]:
    """The statuses of the page's requests in `_Site.log` (not robots.txt's)."""
    return [status for path, status in _Site.log if path == "/docs/page.html"]


@pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")
def test_a_web_page_of_an_older_html_conversion_is_fetched_whole_again_once(tmp_path, monkeypatch):
    """A web page is not read again by its size and mtime but by a conditional request (its ETag): the site answers
    304 and the index kept the older converter's text for as long as the page did not change. The validators
    saved by an older converter are not sent once (`crawl.HttpCache`): the page is fetched whole and converted
    again, then conditional requests go on."""
    with serving(_Site) as site:
        url = f"{site}/docs/page.html"
        ws = web_rag_workspace(tmp_path, monkeypatch, "pages", url)
        try:
            with monkeypatch.context() as old:  # the converter and versions of a ragls before session 67
                old.setattr(convert, "_bare_text_paragraphs", lambda root, deep=True: False)
                old.setattr(convert, "CONVERTER_VERSIONS", {"html": 1, "pdf": 1, "docx": 1})
                assert ws.index_rag("pages").indexed == [url]
            index = ws.rags.get("pages").index
            assert "without parsing every source file" not in _texts(index, url)
            _Site.log.clear()
            report = ws.index_rag("pages")
            assert _page_requests() == [200] and report.indexed == [url]
            assert "without parsing every source file" in _texts(ws.rags.get("pages").index, url)
            _Site.log.clear()
            assert ws.index_rag("pages").unchanged == 1 and _page_requests() == [304]
        finally:
            ws.close()
