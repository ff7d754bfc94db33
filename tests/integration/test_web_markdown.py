"""A crawl of a raw docs site on 127.0.0.1: `text/markdown` pages (with and without a .md name) and an `llms.txt`
(`text/plain`) are indexed as Markdown / text with their own line numbers, their Markdown links are followed, and
an image is one skipped entry."""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler

import pytest
from ragls.lsp.wire import to_wire_source
from sitekit import serving, web_rag_workspace

GUIDE = ("# Guide\n\nUnpack the widget archive first.\n\n## Install\n\nRun widgetd --install; the daemon then "
         "listens on port 7341.\n\n## Tune\n\nRaise the worker count to the number of cores.\n")
API = "# API\n\nThe frobnicate endpoint takes a JSON body with a gizmo field.\n"
LLMS = ("# Widget\n\n> The widget server.\n\n## Docs\n\n- [Guide](https://HOST/raw/guide.md): install and tune\n"
        "- [API](/raw/api): endpoints\n\n## Notes\n\nThe llms.txt notes say the mascot is a pangolin.\n")
PAGES = {
    "/raw/": ("text/markdown; charset=utf-8", ("# Widget docs\n\n- [Guide](guide.md)\n- [Full list](llms.txt)\n"
                                               "- [Logo](logo.png)\n- [Elsewhere](https://example.invalid/x.md)\n")),
    "/raw/guide.md": ("text/markdown", GUIDE),
    "/raw/api": ("text/markdown", API),
    "/raw/llms.txt": ("text/plain; charset=utf-8", LLMS),
    "/raw/logo.png": ("image/png", "\x89PNG\r\n"),
}


class Site(BaseHTTPRequestHandler):
    host = ""

    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path == "/robots.txt":
            ctype, body = "text/plain", ""
        elif self.path in PAGES:
            ctype, body = PAGES[self.path]
        else:
            self.send_response(404)
            self.send_header("content-length", "0")
            self.end_headers()
            return
        data = body.replace("HOST", self.host).encode()
        self.send_response(200)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def site():
    with serving(Site) as url:
        Site.host = url.removeprefix("http://")
        yield url


@pytest.fixture
def workspace(tmp_path, monkeypatch, site):
    ws = web_rag_workspace(tmp_path, monkeypatch, "raw", f"{site}/raw/**")
    yield ws
    ws.close()


def test_markdown_and_text_pages_are_crawled_with_their_lines(workspace, site):
    report = workspace.index_rag("raw")
    assert sorted(report.indexed) == [f"{site}/raw/", f"{site}/raw/api", f"{site}/raw/guide.md",
                                      f"{site}/raw/llms.txt"]
    assert [(s.path, s.reason) for s in report.skipped] == [
        (f"{site}/raw/logo.png", "not HTML, Markdown or text (image/png)")]

    hit = workspace.query("which port does the daemon listen on", rag="raw", top_k=1).hits[0]
    src = to_wire_source(hit.chunk)
    assert src["path"] == f"{site}/raw/guide.md"
    assert src["title"] == "Guide > Install"  # a Markdown heading path: parsed as Markdown
    line = GUIDE.splitlines().index("Run widgetd --install; the daemon then listens on port 7341.")
    assert src["range"]["start"]["line"] <= line <= src["range"]["end"]["line"]  # the raw file's own lines
    lines = GUIDE.splitlines()[src["range"]["start"]["line"]:src["range"]["end"]["line"] + 1]
    assert hit.chunk.text.strip() == "\n".join(lines).strip()

    # every page is in the index under its own URL, Markdown headings as titles, lines as in the served text
    rag = workspace.rags.get("raw").index
    chunks = list(rag.manifest.get_chunks(rag.manifest.ordered_chunk_ids()).values())
    [api] = [c for c in chunks if c.path == f"{site}/raw/api"]
    assert api.title == "API" and "gizmo field" in api.text  # text/markdown without a .md name: Markdown
    [notes] = [c for c in chunks if c.path == f"{site}/raw/llms.txt" and "pangolin" in c.text]
    served = LLMS.replace("HOST", Site.host).splitlines()
    assert notes.text.splitlines() == served[notes.span.start_line:notes.span.end_line + 1]
