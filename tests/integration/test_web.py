"""Web sources: a small site served on 127.0.0.1 (links, a redirect, a 404, a link loop, robots.txt disallowing a
path, a 5 MB page, a PDF link, a link outside the crawl): exactly which pages are indexed and which are skipped
and why, citations with URL + #fragment, and a second crawl that only sends conditional requests."""

from __future__ import annotations

import hashlib
import threading
from http.server import BaseHTTPRequestHandler
from typing import ClassVar

import pytest
from docgen import pdf_bytes
from ragls.lsp.wire import to_wire_source
from sitekit import serving, web_rag_workspace


def page(title: str, body: str) -> bytes:
    return (f"<!doctype html><html><head><title>{title}</title></head><body><nav><a href='/docs/'>Docs home</a>"
            f"</nav><main>{body}</main></body></html>").encode()


SITE = {
    "/docs/": page("Docs", "<h1 id='welcome'>Welcome</h1><p>This site documents the widget server.</p>"
                   "<a href='a.html'>A</a> <a href='/docs/b.html#part'>B</a> <a href='old'>Old</a> "
                   "<a href='missing'>Missing</a> <a href='private/secret.html'>Private</a> "
                   "<a href='big.html'>Big</a> <a href='manual.pdf'>Manual</a> <a href='/outside.html'>Out</a> "
                   "<a href='http://other.invalid/docs/x.html'>Elsewhere</a>"),
    "/docs/a.html": page("A", "<h1 id='setup'>Setup</h1><p>Unpack the widget server archive first.</p>"
                         "<h2 id='install'>Installing the daemon</h2><p>Run widgetd --install to register the "
                         "daemon with systemd; it then listens on port 7341.</p><a href='b.html'>next</a> "
                         "<a href='./'>home</a> <a href='a.html#setup'>self</a>"),
    "/docs/b.html": page("B", "<h1>Tuning</h1><p>Raise the worker count to the number of cores.</p>"
                         "<a href='a.html'>back</a>"),
    "/docs/new.html": page("New", "<h1 id='moved'>Moved page</h1><p>The configuration reference moved here; the "
                           "config file is /etc/widget.toml.</p>"),
    "/docs/private/secret.html": page("Secret", "<p>internal only</p>"),
    "/outside.html": page("Outside", "<p>not in the crawl</p>"),
}
BIG = b"<html><body><p>" + b"x" * (5 * 1024 * 1024) + b"</p></body></html>"
PDF = pdf_bytes([["A manual page"]])


class Site(BaseHTTPRequestHandler):
    log: ClassVar[list[tuple[str, str | None, int]]] = []
    failing: ClassVar[set[str]] = set()  # paths answered 503 (a site having a bad day)

    def log_message(self, *args):
        pass

    def _send(self, status: int, ctype: str, body: bytes, headers: dict | None = None) -> None:
        self.send_response(status)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def do_GET(self):
        path = self.path
        cond = self.headers.get("if-none-match")
        if path in self.failing:
            self.log.append((path, cond, 503))
            return self._send(503, "text/plain", b"try later")
        if path == "/robots.txt":
            self.log.append((path, cond, 200))
            return self._send(200, "text/plain", b"User-agent: *\nDisallow: /docs/private/\n")
        if path == "/docs/old":
            self.log.append((path, cond, 301))
            self.send_response(301)
            self.send_header("location", "/docs/new.html")
            self.send_header("content-length", "0")
            self.end_headers()
            return None
        if path == "/docs/big.html":
            self.log.append((path, cond, 200))
            return self._send(200, "text/html", BIG)
        if path == "/docs/manual.pdf":
            self.log.append((path, cond, 200))
            return self._send(200, "application/pdf", PDF)
        body = SITE.get(path)
        if body is None:
            self.log.append((path, cond, 404))
            return self._send(404, "text/html", b"<h1>not found</h1>")
        etag = '"' + hashlib.sha1(body).hexdigest()[:12] + '"'
        if cond == etag:
            self.log.append((path, cond, 304))
            self.send_response(304)
            self.send_header("etag", etag)
            self.end_headers()
            return None
        self.log.append((path, cond, 200))
        return self._send(200, "text/html; charset=utf-8", body, {"etag": etag})


@pytest.fixture
def site():
    Site.log = []
    Site.failing = set()
    with serving(Site) as url:
        yield url


@pytest.fixture
def workspace(tmp_path, monkeypatch, site):
    ws = web_rag_workspace(tmp_path, monkeypatch, "widget", f"{site}/docs/**")
    yield ws
    ws.close()


def test_crawl_indexes_skips_and_recrawls_conditionally(workspace, site):
    report = workspace.index_rag("widget")
    assert sorted(report.indexed) == [f"{site}/docs/", f"{site}/docs/a.html", f"{site}/docs/b.html",
                                      f"{site}/docs/new.html"]
    assert sorted((s.path, s.reason) for s in report.skipped) == sorted([
        (f"{site}/docs/missing", "HTTP 404 Not Found"),
        (f"{site}/docs/private/secret.html", "disallowed by robots.txt"),
        (f"{site}/docs/big.html", f"too large ({len(BIG)} bytes > max_file_bytes 2000000)"),
        (f"{site}/docs/manual.pdf", "not HTML, Markdown or text (application/pdf)"),
    ])
    fetched = [p for p, _, _ in Site.log]
    assert "/outside.html" not in fetched and fetched.count("/docs/a.html") == 1  # the loop is fetched once
    assert fetched[0] == "/robots.txt"

    hit = workspace.query("which port does the daemon listen on after installing", rag="widget", top_k=1).hits[0]
    src = to_wire_source(hit.chunk)
    assert src["uri"] == f"{site}/docs/a.html#install" and src["path"] == f"{site}/docs/a.html"
    assert src["title"] == "Setup > Installing the daemon"
    text_lines = hit.chunk.text.splitlines()
    assert src["range"]["end"]["line"] - src["range"]["start"]["line"] == len(text_lines) - 1
    moved = workspace.query("where is the config file", rag="widget", top_k=1).hits[0]
    assert to_wire_source(moved.chunk)["uri"] == f"{site}/docs/new.html#moved"

    Site.log.clear()
    again = workspace.index_rag("widget")
    assert again.indexed == [] and again.deleted == [] and again.unchanged == 4
    pages = [(p, cond, status) for p, cond, status in Site.log if p in ("/docs/", "/docs/a.html", "/docs/b.html",
                                                                        "/docs/new.html")]
    assert len(pages) == 4 and all(cond and status == 304 for _, cond, status in pages)

    # A transient failure (HTTP 503) of an indexed page keeps its indexed copy and its links are still followed;
    # rag/list says so. A page that is gone (404 now) is removed.
    Site.failing = {"/docs/a.html"}
    SITE["/docs/b.html"], saved = None, SITE["/docs/b.html"]
    try:
        third = workspace.index_rag("widget")
    finally:
        SITE["/docs/b.html"] = saved
    assert third.deleted == [f"{site}/docs/b.html"] and third.indexed == []
    assert f"{site}/docs/a.html" in workspace.rags.get("widget").index.manifest.files()
    [info] = [r for r in workspace.rag_list() if r.name == "widget"]
    assert {"path": f"{site}/docs/a.html",
            "message": f"{site}/docs/a.html: HTTP 503 Service Unavailable; the indexed copy is kept"} in info.errors


class SlowSite(BaseHTTPRequestHandler):
    """A site whose robots.txt asks for a day between two requests."""

    robots_served = threading.Event()

    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path == "/robots.txt":
            body, ctype = b"User-agent: *\nCrawl-delay: 86400\n", "text/plain"
            SlowSite.robots_served.set()
        else:
            body, ctype = page("Docs", "<p>The widget docs.</p><a href='next.html'>next</a>"), "text/html"
        self.send_response(200)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.mark.timeout(60)
def test_a_sites_crawl_delay_is_bounded_and_a_stop_ends_the_wait():
    """A site is untrusted input: its robots.txt's `Crawl-delay: 86400` held the crawl a day before each page (red
    team, session 53). The pause is at most MAX_CRAWL_DELAY_S, and a crawl asked to stop stops waiting."""
    from ragls.sources.crawl import MAX_CRAWL_DELAY_S, Crawler, CrawlResult

    SlowSite.robots_served.clear()
    crawler = Crawler(cache=None, known=lambda url: False, max_bytes=100_000, delay_s=0,
                      should_stop=SlowSite.robots_served.is_set)
    with serving(SlowSite) as site:
        try:
            result = CrawlResult()
            crawler.crawl(f"{site}/docs/**", result)
        finally:
            crawler.close()
    assert crawler._delay == MAX_CRAWL_DELAY_S == 30.0
    assert result.interrupted and [p.final_url.rsplit("/", 2)[-2:] for p in result.pages] == [["docs", ""]]


TOKEN, PASSWORD = "a8F3kQ9zLm2Xw7Rt", "Zr8wq3Lp9x"


class CredentialSite(BaseHTTPRequestHandler):
    """A site whose pages link and redirect to URLs holding credentials; `requests` logs (path, Authorization)."""

    requests: ClassVar[list[tuple[str, str | None]]] = []

    def log_message(self, *args):
        pass

    def do_GET(self):
        CredentialSite.requests.append((self.path, self.headers.get("authorization")))
        me = f"127.0.0.1:{self.server.server_address[1]}"
        if self.path == "/docs/redirect":
            self.send_response(302)
            self.send_header("location", f"http://deploy:{PASSWORD}@{me}/docs/c.html")
            self.send_header("content-length", "0")
            self.end_headers()
            return
        pages = {"/docs/": page("Docs", "<p>The widget manual.</p><a href='ok.html'>ok</a> "
                                        f"<a href='a.html?token={TOKEN}'>a</a> "
                                        f"<a href='http://deploy:{PASSWORD}@{me}/docs/b.html'>b</a> "
                                        f"<a href='http://{TOKEN}@{me}/docs/b2.html'>b2</a> "
                                        f"<a href='http://deploy:{PASSWORD}@elsewhere.invalid/docs/'>elsewhere</a> "
                                        "<a href='redirect'>c</a>"),
                 "/docs/ok.html": page("OK", "<p>The widget daemon listens on port 7341.</p>")}
        body = pages.get(self.path.split("?")[0], b"<p>a page reached through a credential</p>")
        self.send_response(200)
        self.send_header("content-type", "text/html")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def test_a_crawled_link_or_redirect_holding_a_credential_is_not_fetched_and_reaches_no_store(tmp_path, monkeypatch,
                                                                                            caplog):
    """A crawled page is untrusted input: its links to `?token=…` and `user:password@` URLs of the crawl's own site
    were fetched (the query token then every chunk's key in the index, rag/status and hits), and a redirect to
    `user:password@` sent the password as Basic auth. Now, as for a source URL (`resolve.URL_CREDENTIAL`), none is
    requested, each is listed skipped with its credential masked, and no file of the index nor the log holds it."""
    from ragls.sources.redact import URL_CREDENTIAL

    CredentialSite.requests = []
    caplog.set_level("DEBUG")
    with serving(CredentialSite) as site:
        ws = web_rag_workspace(tmp_path, monkeypatch, "widget", f"{site}/docs/**")
        try:
            report = ws.index_rag("widget")
            [info] = [r for r in ws.rag_list() if r.name == "widget"]
            status = repr(info)
        finally:
            ws.close()
    me = site.removeprefix("http://")
    assert sorted(report.indexed) == [f"{site}/docs/", f"{site}/docs/ok.html"]
    assert sorted((s.path, s.reason) for s in report.skipped) == sorted([
        (f"{site}/docs/a.html?token={'*' * len(TOKEN)}", URL_CREDENTIAL),
        (f"http://deploy:{'*' * len(PASSWORD)}@{me}/docs/b.html", URL_CREDENTIAL),
        (f"http://{'*' * len(TOKEN)}@{me}/docs/b2.html", URL_CREDENTIAL),
        (f"{site}/docs/redirect", f"redirected to http://deploy:{'*' * len(PASSWORD)}@{me}/docs/c.html: {URL_CREDENTIAL}")])
    assert sorted(CredentialSite.requests) == [("/docs/", None), ("/docs/ok.html", None), ("/docs/redirect", None),
                                               ("/robots.txt", None)]
    stores = [p for p in (tmp_path / "cache").rglob("*") if p.is_file()]
    assert stores and all(TOKEN.encode() not in p.read_bytes() and PASSWORD.encode() not in p.read_bytes()
                          for p in stores)
    assert TOKEN not in status and PASSWORD not in status
    ours = "\n".join(r.getMessage() for r in caplog.records if r.name.startswith("ragls"))  # httpx's are at WARNING
    assert ours and TOKEN not in ours and PASSWORD not in ours


class RobotsRedirectSite(BaseHTTPRequestHandler):
    """A site whose robots.txt redirects to a URL holding a credential; `requests` logs (path, Authorization)."""

    requests: ClassVar[list[tuple[str, str | None]]] = []

    def log_message(self, *args):
        pass

    def do_GET(self):
        RobotsRedirectSite.requests.append((self.path, self.headers.get("authorization")))
        self.send_response(302 if self.path == "/robots.txt" else 200)
        if self.path == "/robots.txt":
            self.send_header("location", f"http://deploy:{PASSWORD}@127.0.0.1:{self.server.server_address[1]}/r.txt")
        body = b"" if self.path == "/robots.txt" else page("Docs", "<p>The widget manual.</p>")
        self.send_header("content-type", "text/html")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def test_a_robots_txt_redirecting_to_a_credential_disallows_the_crawl_without_ending_it():
    """The redirect check raised FetchError out of the robots.txt fetch (only httpx's errors were caught), so such a
    site ended the whole crawl — a named RAG's sync — with an exception. Now robots.txt counts as unreachable (RFC
    9309: assume complete disallow): each page is skipped with the reason, the credential masked, nothing sent."""
    from ragls.sources.crawl import Crawler, CrawlResult

    RobotsRedirectSite.requests = []
    crawler = Crawler(cache=None, known=lambda url: False, max_bytes=100_000, delay_s=0)
    result = CrawlResult()
    with serving(RobotsRedirectSite) as site:
        try:
            crawler.crawl(site + "/docs/**", result)
        finally:
            crawler.close()
    assert result.pages == [] and RobotsRedirectSite.requests == [("/robots.txt", None)]
    [skipped] = result.skipped
    assert skipped.path == site + "/docs/"
    assert skipped.reason.startswith(f"robots.txt unreachable: redirected to http://deploy:{'*' * len(PASSWORD)}@")
    assert PASSWORD not in skipped.reason


def test_a_page_an_interrupted_crawl_fetched_is_fetched_whole_at_the_next(workspace, site):
    """A crawl stopped before its end (the server shutting down) writes nothing to the index, not even the pages it
    fetched; their new validators were kept all the same, so the next crawl sent them, the site answered 304 and the
    index kept the page's old text until it changed again. Those pages are fetched whole at the next crawl now."""
    from ragls.core.errors import RequestFailed

    workspace.index_rag("widget")
    index = workspace.rags.get("widget").index
    SITE["/docs/a.html"], saved = page("A", "<h1 id='setup'>Setup</h1><p>The widget daemon now listens on port "
                                            "9182 after its install.</p>"), SITE["/docs/a.html"]
    try:
        Site.log.clear()
        # stopped once the changed page came (200), before the next page
        index.should_stop = lambda: ("/docs/a.html", 200) in [(p, s) for p, _, s in Site.log]
        with pytest.raises(RequestFailed, match="interrupted"):
            workspace.index_rag("widget")
        assert "9182" not in " ".join(c.text for c in index.manifest.chunks_of(f"{site}/docs/a.html"))
        index.should_stop = None
        Site.log.clear()
        report = workspace.index_rag("widget")
        assert ("/docs/a.html", 200) in [(p, s) for p, _, s in Site.log]
        assert report.indexed == [f"{site}/docs/a.html"]
        assert "9182" in " ".join(c.text for c in index.manifest.chunks_of(f"{site}/docs/a.html"))
    finally:
        SITE["/docs/a.html"] = saved


def test_a_page_whose_text_write_failed_is_fetched_whole_at_the_next_crawl(workspace, site):
    """The new validators of a changed page were saved as it was fetched, before its text was written: a write
    that failed (a full disk: SQLite's "database or disk is full") left them, the next crawl sent them, the site
    answered 304 and the index kept the old text. They are saved only once the text is written now."""
    import sqlite3

    workspace.index_rag("widget")
    index = workspace.rags.get("widget").index
    SITE["/docs/a.html"], saved = page("A", "<h1 id='setup'>Setup</h1><p>The widget daemon now listens on port "
                                            "9183 after its install.</p>"), SITE["/docs/a.html"]
    write_text = index._write_text

    def disk_full(docs, deleted, **kw):
        if docs:
            raise sqlite3.OperationalError("database or disk is full")
        return write_text(docs, deleted, **kw)

    try:
        index._write_text = disk_full
        with pytest.raises(sqlite3.OperationalError, match="disk is full"):
            workspace.index_rag("widget")
        index._write_text = write_text
        assert "9183" not in " ".join(c.text for c in index.manifest.chunks_of(f"{site}/docs/a.html"))
        Site.log.clear()
        report = workspace.index_rag("widget")
        assert ("/docs/a.html", 200) in [(p, s) for p, _, s in Site.log]
        assert report.indexed == [f"{site}/docs/a.html"]
        assert "9183" in " ".join(c.text for c in index.manifest.chunks_of(f"{site}/docs/a.html"))
        Site.log.clear()
        assert workspace.index_rag("widget").indexed == []  # written now: its validators are sent, a 304
        assert ("/docs/a.html", 304) in [(p, s) for p, _, s in Site.log]
    finally:
        SITE["/docs/a.html"] = saved
