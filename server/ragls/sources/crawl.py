"""Crawling web sources (`https://docs.example.com/guide/**`) and fetching a named RAG's URL sources for its index
(`Crawler`), each page through `web.fetch_page` (its client, redirect checks and conversion); the validators and
links of fetched pages kept between runs (`HttpCache`).

Crawling: breadth first from the start URL, following `<a href>` links that stay within the same origin (scheme,
host, port) and path prefix (the start URL's path up to the `/**`), fragments dropped, each URL once; at most
`web.max_pages` pages (default 500) and `web.max_depth` link hops (default 4); robots.txt honoured
(`urllib.robotparser`, our User-Agent; a `Crawl-delay` longer than `web.delay_s` wins, up to
`MAX_CRAWL_DELAY_S`); `web.delay_s` seconds between two requests, a wait a crawl's stop ends; pages are HTML, Markdown (`text/markdown`, e.g. a raw docs site) or plain text (`text/plain`,
e.g. `llms.txt`) — Markdown and text are indexed as they are, with their own line numbers, and their Markdown links
`[title](url)` are followed —, other types (PDF, images) are skipped. On a re-crawl every page already indexed is requested with its
validators (If-None-Match / If-Modified-Since, RFC 9110), so an unchanged page costs one 304 and no conversion;
its links are taken from the cache. Validators saved under other built-in converters (`convert.CONVERTER_VERSIONS`)
are not sent: the index holds the text an older converter gave, which a 304 would keep. Every failure (HTTP status, timeout, too large, not HTML, disallowed by
robots.txt, redirected outside the crawl, limit reached, not a page) is a `Skipped` entry with its reason.

A link holding a credential is never queued: it is listed as skipped under its masked form (`web.py`).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
import urllib.robotparser
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from ragls.core.errors import Skipped
from ragls.sources import convert
from ragls.sources.redact import CredentialRefusal
from ragls.sources.web import DEFAULT_USER_AGENT, FetchError, Page, credential_free, fetch_page, new_client

#: The longest pause between two requests a site's robots.txt `Crawl-delay` gets (Apache Nutch's
#: fetcher.max.crawl.delay, 30 s): a site is untrusted input, and `Crawl-delay: 100000` held its crawl — the named
#: RAG's sync, and a server's reopen behind it — for a day a page (red team, session 53).
MAX_CRAWL_DELAY_S = 30.0
#: How often a pause between two requests checks whether the crawl is to stop.
_WAIT_SLICE_S = 0.2


def is_crawl(source: str) -> bool:
    """True for a recursive crawl source: an http(s) URL ending in `/**`."""
    return source.lower().startswith(("http://", "https://")) and source.rstrip().endswith("/**")


def crawl_root(source: str) -> tuple[str, str]:
    """(start URL, path prefix) of a crawl source "https://h/guide/**" → ("https://h/guide/", "/guide/")."""
    start = source.rstrip()[:-2]
    if not start.endswith("/"):
        start += "/"
    return start, urlsplit(start).path or "/"


def _origin(url: str) -> tuple[str, str]:
    """(scheme, host[:port]) of `url`, lower case, user info dropped."""
    parts = urlsplit(url)
    return parts.scheme.lower(), parts.netloc.rpartition("@")[2].lower()


def within(url: str, start: str, prefix: str) -> bool:
    """True when `url` has the origin of `start` and its path starts with `prefix`."""
    return _origin(url) == _origin(start) and (urlsplit(url).path or "/").startswith(prefix)


class HttpCache:
    """Validators and links of fetched pages (SQLite at `path`): url → (etag, last_modified, final URL, links).
    A crawl sends them only for URLs that are still indexed, so a stale entry can never hide a page. Opened under
    other built-in converter versions than it was written with (`convert.CONVERTER_VERSIONS`, in its `meta` table;
    none before session 68), it drops its validators, the links kept: each page is fetched whole once and converted
    again, as the folder scan converts a file again (`convert.conversion_outdated`); a 304 kept an older converter's
    text until the page changed."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._local = threading.local()
        db = self._db()
        db.execute("CREATE TABLE IF NOT EXISTS pages (url TEXT PRIMARY KEY, etag TEXT, last_modified TEXT, "
                   "final_url TEXT, links TEXT)")
        db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
        versions = json.dumps(convert.CONVERTER_VERSIONS, sort_keys=True)
        row = db.execute("SELECT value FROM meta WHERE key = 'converters'").fetchone()
        if row is None or row[0] != versions:
            db.execute("UPDATE pages SET etag = NULL, last_modified = NULL")
            db.execute("INSERT OR REPLACE INTO meta VALUES ('converters', ?)", (versions,))

    def _db(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")  # one small write per page: no fsync of a rollback journal
            conn.execute("PRAGMA synchronous=NORMAL")
            self._local.conn = conn
        return conn

    def get(self, url: str) -> tuple[str | None, str | None, str, list[str]] | None:
        row = self._db().execute("SELECT etag, last_modified, final_url, links FROM pages WHERE url=?",
                                 (url,)).fetchone()
        return None if row is None else (row[0], row[1], row[2], json.loads(row[3] or "[]"))

    def put(self, page: Page) -> None:
        self._db().execute("INSERT OR REPLACE INTO pages VALUES (?,?,?,?,?)",
                           (page.url, page.etag, page.last_modified, page.final_url, json.dumps(page.links)))

    def put_all(self, pages: Iterable[Page]) -> None:
        """`put` each of `pages` (validators a caller held until their text was written), in one transaction."""
        db = self._db()
        with db:
            db.execute("BEGIN")
            for page in pages:
                self.put(page)

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None


@dataclass
class CrawlResult:
    """Pages fetched with new content (`pages`), URLs answered 304 (`unchanged`, final URLs), failures
    (`skipped`), and indexed pages whose fetch failed transiently (`kept`: they keep their indexed copy)."""

    pages: list[Page] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    kept: list[Skipped] = field(default_factory=list)
    requests: int = 0
    interrupted: bool = False


class Crawler:
    """Fetches URL sources and crawls for one index; `known` says which URLs are indexed (their validators are
    sent). `delay_s` between two requests; robots.txt per origin (cached for the crawler's life); a crawl stops
    before its next page once `should_stop()` is true. With `hold_new`, the validators of a page fetched with new
    content are not saved: the caller saves them (`HttpCache.put_all` of `CrawlResult.pages`) once the page's text
    is written, so a failed write (a full disk) leaves the older validators and the next crawl fetches it whole,
    not a 304 on a text the index never got."""

    def __init__(self, *, cache: HttpCache | None, known: Callable[[str], bool], max_bytes: int,
                 timeout_s: float = 30.0, delay_s: float = 0.5, max_pages: int = 500, max_depth: int = 4,
                 user_agent: str = DEFAULT_USER_AGENT, respect_robots: bool = True,
                 on_page: Callable[[str, int], None] | None = None,
                 should_stop: Callable[[], bool] | None = None, hold_new: bool = False):
        self.cache, self.known, self.max_bytes, self.hold_new = cache, known, max_bytes, hold_new
        self.timeout_s, self.delay_s, self.max_pages, self.max_depth = timeout_s, delay_s, max_pages, max_depth
        self.user_agent, self.respect_robots = user_agent, respect_robots
        self.on_page = on_page or (lambda url, n: None)
        self.should_stop = should_stop or (lambda: False)
        self.client = new_client(timeout_s, user_agent)
        self._robots: dict[tuple[str, str], urllib.robotparser.RobotFileParser | str] = {}
        self._last_request = 0.0
        self._delay = delay_s

    def close(self) -> None:
        self.client.close()

    def _wait(self) -> None:
        """Pause until `delay_s` (or the site's `Crawl-delay`) has passed since the last request; a stop ends it."""
        until = self._last_request + self._delay
        while (pause := until - time.monotonic()) > 0 and not self.should_stop():
            time.sleep(min(pause, _WAIT_SLICE_S))
        self._last_request = time.monotonic()

    def _robots_for(self, url: str) -> urllib.robotparser.RobotFileParser | str:
        """The parsed robots.txt of `url`'s origin, or a reason string when the site disallows everything
        (robots.txt answered 5xx or could not be fetched, a redirect refused included: RFC 9309 says assume complete
        disallow). A robots.txt redirecting to a URL holding a credential ended the whole crawl with FetchError."""
        key = _origin(url)
        if key not in self._robots:
            robots_url = f"{key[0]}://{key[1]}/robots.txt"
            parser = urllib.robotparser.RobotFileParser(robots_url)
            self._wait()
            try:
                resp = self.client.get(robots_url)
                if resp.status_code >= 500:
                    result: urllib.robotparser.RobotFileParser | str = f"robots.txt answered HTTP {resp.status_code}"
                else:
                    parser.parse(resp.text.splitlines() if resp.is_success else [])
                    result = parser
                    delay = parser.crawl_delay(self.user_agent)
                    if delay:
                        self._delay = max(self._delay, min(float(delay), MAX_CRAWL_DELAY_S))
            except (httpx.HTTPError, FetchError) as exc:  # FetchError: a redirect refused (`new_client`)
                result = f"robots.txt unreachable: {exc}"
            self._robots[key] = result
        return self._robots[key]

    def _disallowed(self, url: str) -> FetchError | None:
        """Why robots.txt forbids `url` (transient when robots.txt itself could not be read), or None."""
        if not self.respect_robots:
            return None
        robots = self._robots_for(url)
        if isinstance(robots, str):
            return FetchError(robots, transient=True)
        return None if robots.can_fetch(self.user_agent, url) else FetchError("disallowed by robots.txt")

    def _failed(self, url: str, exc: FetchError, result: CrawlResult) -> list[str]:
        """Record a failure; an indexed page failing transiently is kept (with its cached links, returned so a
        crawl goes on past it)."""
        cached = self.cache.get(url) if self.cache is not None else None
        final = cached[2] if cached is not None else url
        if exc.transient and self.known(final):
            result.kept.append(Skipped(final, f"{exc}; the indexed copy is kept"))
            result.unchanged.append(final)
            return cached[3] if cached is not None else []
        result.skipped.append(Skipped(url, str(exc)))
        return []

    def _fetch(self, url: str, pages_only: bool, result: CrawlResult) -> Page:
        cached = self.cache.get(url) if self.cache is not None else None
        etag = last_modified = None
        if cached is not None and self.known(cached[2]):
            etag, last_modified = cached[0], cached[1]
        self._wait()
        result.requests += 1
        page = fetch_page(url, client=self.client, timeout_s=self.timeout_s, max_bytes=self.max_bytes, etag=etag,
                          last_modified=last_modified, pages_only=pages_only, user_agent=self.user_agent)
        if page.not_modified and cached is not None:
            page.final_url, page.links = cached[2], cached[3]
        if self.cache is not None and (page.not_modified or not self.hold_new):
            self.cache.put(page)
        return page

    def fetch_one(self, url: str, result: CrawlResult) -> None:
        """A single URL source (any document type): into `result`."""
        why = self._disallowed(url)
        if why:
            self._failed(url, why, result)
            return
        try:
            page = self._fetch(url, False, result)
        except FetchError as exc:
            self._failed(url, exc, result)
            return
        self.on_page(page.final_url, 1)
        if page.not_modified:
            result.unchanged.append(page.final_url)
        else:
            result.pages.append(page)

    def crawl(self, source: str, result: CrawlResult, seen: set[str] | None = None) -> None:
        """Breadth-first crawl of a `…/**` source into `result` (see the module docstring)."""
        start, prefix = crawl_root(source)
        seen = seen if seen is not None else set()
        queue: deque[tuple[str, int]] = deque([(start, 0)])
        queued = {start}
        fetched = 0
        while queue:
            if self.should_stop():
                result.interrupted = True
                break
            url, depth = queue.popleft()
            if fetched >= self.max_pages:
                result.skipped.append(Skipped(source, f"crawl stopped at web.max_pages {self.max_pages}: "
                                                      f"{len(queue) + 1} more link(s) not fetched"))
                break
            why = self._disallowed(url)
            links: list[str] | None = None
            if why:
                links = self._failed(url, why, result)
            else:
                try:
                    page = self._fetch(url, True, result)
                except FetchError as exc:
                    links = self._failed(url, exc, result)
            if links is not None:  # failed; a kept page's cached links are still followed
                if depth < self.max_depth:
                    self._follow(links, [], (start, prefix), queued, queue, depth, result)
                continue
            fetched += 1
            final = page.final_url
            if final != url and not within(final, start, prefix):
                result.skipped.append(Skipped(url, f"redirected outside the crawl to {final}"))
                continue
            if final in seen:
                continue  # a redirect to a page indexed already
            seen.add(final)
            self.on_page(final, fetched)
            if page.not_modified:
                result.unchanged.append(final)
            else:
                result.pages.append(page)
            if depth < self.max_depth:
                self._follow(page.links, page.refused, (start, prefix), queued, queue, depth, result)

    @staticmethod
    def _follow(links: list[str], refused: list[CredentialRefusal], crawl: tuple[str, str], queued: set[str],
                queue: deque[tuple[str, int]], depth: int, result: CrawlResult) -> None:
        """Queue the `links` of a page at `depth` that lie within the `crawl` (start URL, path prefix) and are new;
        a link holding a credential — in `refused`, or among `links` from an older cache — is not queued but listed
        as skipped (masked, `CredentialRefusal.skipped`) when it lies within the crawl, once."""
        clean, more = credential_free(links)
        for link in clean:
            if link not in queued and within(link, *crawl):
                queued.add(link)
                queue.append((link, depth + 1))
        for refusal in (*refused, *more):
            if refusal.masked not in queued and within(refusal.masked, *crawl):
                queued.add(refusal.masked)
                result.skipped.append(refusal.skipped)
