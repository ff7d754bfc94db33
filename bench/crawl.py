"""Crawl speed of a web RAG source on a local site, and the cost of a re-crawl with nothing changed.

A site of N documentation-like pages (default 200; each ~3 KB of text in a few sections with heading ids, links
to its neighbours, to the index page and to 3 pseudo-random pages) is served on 127.0.0.1 with ETags. Then:

1. crawl only: `crawl.Crawler` fetches + converts (trafilatura) every page, no index — pages/s of the crawler;
   then the same crawl again with every page known: conditional requests only (304s, links from the cache);
2. with `--index`: first index, the `ragls index --rag site` equivalent (`RagWorkspace.index_rag`): crawl,
   chunk, BM25, embed with the offline MiniLM model; then a re-index with nothing changed (304s, nothing
   converted, chunked or embedded).

`web.delay_s` is 0 (no politeness pause: the site is ours); the default 0.5 s would add N × 0.5 s.

    python bench/crawl.py [--pages 200] [--index]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

WORDS = ["request", "retry", "timeout", "cache", "index", "query", "chunk", "vector", "embedding", "server", "client", "config", "token", "session", "worker", "queue", "latency", "header", "proxy", "route", "handler", "model", "schema", "version", "release", "build"]


def make_site(n: int) -> dict[str, bytes]:
    rng = random.Random(7)
    pages: dict[str, bytes] = {}
    for i in range(n):
        sections = []
        for s in range(4):
            words = " ".join(rng.choice(WORDS) for _ in range(110))
            sections.append(f"<h2 id='s{s}'>Section {s} of page {i}</h2><p>{words}.</p>")
        links = {(i + 1) % n, (i - 1) % n, *(rng.randrange(n) for _ in range(3))}
        nav = " ".join(f"<a href='/docs/p{j}.html'>page {j}</a>" for j in sorted(links))
        pages[f"/docs/p{i}.html"] = (f"<!doctype html><html><head><title>Page {i}</title></head><body>"
                                     f"<nav><a href='/docs/'>Home</a> {nav}</nav><main><h1 id='top'>Page {i}</h1>"
                                     f"{''.join(sections)}</main></body></html>").encode()
    index_links = " ".join(f"<a href='p{i}.html'>{i}</a>" for i in range(0, n, 10))
    pages["/docs/"] = f"<html><body><main><h1>Docs</h1><p>Start here.</p>{index_links}</main></body></html>".encode()
    return pages


def serve(pages: dict[str, bytes]) -> tuple[ThreadingHTTPServer, dict[str, int]]:
    counts = {"200": 0, "304": 0, "other": 0}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            body = pages.get(self.path)
            if body is None:
                counts["other"] += 1
                self.send_response(404)
                self.send_header("content-length", "0")
                self.end_headers()
                return
            etag = '"' + hashlib.sha1(body).hexdigest()[:16] + '"'
            if self.headers.get("if-none-match") == etag:
                counts["304"] += 1
                self.send_response(304)
                self.send_header("etag", etag)
                self.end_headers()
                return
            counts["200"] += 1
            self.send_response(200)
            self.send_header("content-type", "text/html; charset=utf-8")
            self.send_header("content-length", str(len(body)))
            self.send_header("etag", etag)
            self.end_headers()
            self.wfile.write(body)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True).start()
    return httpd, counts


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=200)
    ap.add_argument("--index", action="store_true", help="also index the site (embedding: minutes on 2 cores)")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="ragls-bench-crawl-"))
    os.environ.update({"RAGLS_CACHE_DIR": str(tmp / "cache"), "RAGLS_OFFLINE": "1",
                       "RAGLS_CONFIG_DIR": str(tmp / "config")})
    from ragls.sources.crawl import Crawler, CrawlResult, HttpCache
    from ragls.workspace.rag_workspace import RagWorkspace

    pages = make_site(args.pages)
    httpd, counts = serve(pages)
    base = f"http://127.0.0.1:{httpd.server_address[1]}"
    print(f"site: {len(pages)} pages, {sum(map(len, pages.values())) / 1e6:.1f} MB; "
          f"load average {os.getloadavg()[0]:.1f}")

    cache = HttpCache(tmp / "http_cache.sqlite")
    for known, label in ((False, "crawl only"), (True, "re-crawl, nothing changed")):
        crawler = Crawler(cache=cache, known=lambda url, k=known: k, max_bytes=2_000_000, delay_s=0,
                          max_pages=10_000)
        counts.update({"200": 0, "304": 0, "other": 0})
        result = CrawlResult()
        t0 = time.perf_counter()
        crawler.crawl(f"{base}/docs/**", result)
        dt = time.perf_counter() - t0
        crawler.close()
        n = len(result.pages) + len(result.unchanged)
        print(f"{label}: {len(result.pages)} converted + {len(result.unchanged)} unchanged in {dt:.2f} s = "
              f"{n / dt:.1f} pages/s; server answered {counts['200']} × 200, {counts['304']} × 304")
    cache.close()
    if not args.index:
        httpd.shutdown()
        return 0

    (tmp / "config").mkdir()
    (tmp / "config" / "ragls.toml").write_text(f'[rags.site]\nsources = ["{base}/docs/**"]\n'
                                               "web = { delay_s = 0, max_pages = 10000 }\n")
    project = tmp / "project"
    project.mkdir()
    ws = RagWorkspace([project])
    try:
        t0 = time.perf_counter()
        report = ws.index_rag("site")
        dt = time.perf_counter() - t0
        info = ws.rags.get("site").info()
        print(f"first index (crawl, convert, chunk, BM25, embed): {len(report.indexed)} pages, {info.chunks} chunks "
              f"in {dt:.1f} s = {len(report.indexed) / dt:.1f} pages/s")
        counts.update({"200": 0, "304": 0, "other": 0})
        t0 = time.perf_counter()
        again = ws.index_rag("site")
        dt = time.perf_counter() - t0
        print(f"re-index, nothing changed: {again.unchanged} unchanged, {len(again.indexed)} re-indexed in "
              f"{dt:.2f} s; server answered {counts['304']} × 304, {counts['200']} × 200")
    finally:
        ws.close()
        httpd.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
