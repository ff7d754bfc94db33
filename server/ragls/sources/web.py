"""Web sources: one URL, or a crawl (`https://docs.example.com/guide/**`).

Fetching (httpx): a clear User-Agent (`web.user_agent`), timeouts (`web.timeout_s`), at most 5 redirects, the
body streamed and cut off past `max_bytes` (`sources.max_file_bytes`), the content type checked; HTML, PDF and
DOCX are converted as files are (`convert.py`: main content, headings kept, heading ids → citation fragments).

Crawling: breadth first from the start URL, following `<a href>` links that stay within the same origin (scheme,
host, port) and path prefix (the start URL's path up to the `/**`), fragments dropped, each URL once; at most
`web.max_pages` pages (default 500) and `web.max_depth` link hops (default 4); robots.txt honoured
(`urllib.robotparser`, our User-Agent; a `Crawl-delay` longer than `web.delay_s` wins, up to
`MAX_CRAWL_DELAY_S`); `web.delay_s` seconds between two requests, a wait a crawl's stop ends; pages are HTML, Markdown (`text/markdown`, e.g. a raw docs site) or plain text (`text/plain`,
e.g. `llms.txt`) — Markdown and text are indexed as they are, with their own line numbers, and their Markdown links
`[title](url)` are followed —, other types (PDF, images) are skipped. On a re-crawl every page already indexed is requested with its
validators (If-None-Match / If-Modified-Since, RFC 9110), so an unchanged page costs one 304 and no conversion;
its links are taken from the cache. Every failure (HTTP status, timeout, too large, not HTML, disallowed by
robots.txt, redirected outside the crawl, limit reached, not a page) is a `Skipped` entry with its reason.

A link or redirect to a URL holding a credential (`https://user:token@host/…`, `?token=…`: `redact.credential_refusal`)
is never requested, as a source holding one is not (`resolve.py`): a crawled page is untrusted input, and the URL
would be every chunk's key. A link of the crawl's own site is listed as skipped under its masked form; the raw URL
reaches no page, cache row, status or log.
"""

from __future__ import annotations

import ipaddress
import json
import socket
import sqlite3
import threading
import time
import urllib.robotparser
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urldefrag, urljoin, urlsplit

import httpcore
import httpx

from ragls.core.errors import Skipped
from ragls.core.ir import Document
from ragls.sources.convert import convert_bytes, extension
from ragls.sources.load import decode_bytes, is_binary, load_text
from ragls.sources.redact import CredentialRefusal, credential_refusal

DEFAULT_USER_AGENT = "ragls/0.1 (retrieval-augmented documentation indexer; respects robots.txt)"
MAX_REDIRECTS = 5
#: The longest pause between two requests a site's robots.txt `Crawl-delay` gets (Apache Nutch's
#: fetcher.max.crawl.delay, 30 s): a site is untrusted input, and `Crawl-delay: 100000` held its crawl — the named
#: RAG's sync, and a server's reopen behind it — for a day a page (red team, session 53).
MAX_CRAWL_DELAY_S = 30.0
#: How often a pause between two requests checks whether the crawl is to stop.
_WAIT_SLICE_S = 0.2
HTML_TYPES = ("text/html", "application/xhtml+xml")
MARKDOWN_TYPES = ("text/markdown", "text/x-markdown")
#: What a crawl indexes and follows links from: HTML, Markdown and plain text.
PAGE_TYPES = (*HTML_TYPES, *MARKDOWN_TYPES, "text/plain")


class FetchError(Exception):
    """A page could not be used; the message is the reason (e.g. "HTTP 404", "too large (...)"). `transient`:
    the failure says nothing about the page (timeout, connection error, HTTP 5xx/429), so a page indexed before
    keeps its indexed copy."""

    def __init__(self, message: str, transient: bool = False):
        super().__init__(message)
        self.transient = transient


@dataclass
class Page:
    """One fetched URL: `url` as requested, `final_url` after redirects; `document` None when `not_modified`
    (HTTP 304); `links` the absolute, fragment-free link targets of an HTML page, and `refused` those holding a
    credential (`redact.credential_refusal`, masked); the response validators."""

    url: str
    final_url: str
    document: Document | None
    links: list[str] = field(default_factory=list)
    etag: str | None = None
    last_modified: str | None = None
    not_modified: bool = False
    content_type: str = ""
    refused: list[CredentialRefusal] = field(default_factory=list)


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


def _credential_free(links: Iterable[str]) -> tuple[list[str], list[CredentialRefusal]]:
    """(the links holding no credential, the others' refusals, `redact.credential_refusal`), in order."""
    clean: list[str] = []
    refused: list[CredentialRefusal] = []
    for link in links:
        if (refusal := credential_refusal(link)) is None:
            clean.append(link)
        else:
            refused.append(refusal)
    return clean, refused


def within(url: str, start: str, prefix: str) -> bool:
    """True when `url` has the origin of `start` and its path starts with `prefix`."""
    return _origin(url) == _origin(start) and (urlsplit(url).path or "/").startswith(prefix)


def _links(html: str, base: str) -> list[str]:
    """Absolute http(s) targets of the `<a href>` links of a page (fragments dropped, `<base href>` honoured),
    in document order without duplicates."""
    import lxml.html

    try:
        root = lxml.html.fromstring(html)
    except (ValueError, TypeError, lxml.etree.ParserError):
        return []
    for b in root.iter("base"):
        if b.get("href"):
            base = urljoin(base, b.get("href"))
            break
    out: dict[str, None] = {}
    for a in root.iter("a"):
        if url := _web_link(a.get("href"), base):
            out[url] = None
    return list(out)


def _web_link(href: str | None, base: str) -> str | None:
    """The absolute http(s) URL a link's `href` names relative to `base`, fragment dropped; None for an empty,
    in-page, mailto:, javascript: or tel: link and for any other scheme."""
    href = (href or "").strip()
    if not href or href.startswith(("#", "mailto:", "javascript:", "tel:")):
        return None
    url = urldefrag(urljoin(base, href))[0]
    return url if url.lower().startswith(("http://", "https://")) else None


def _markdown_links(text: str, base: str) -> list[str]:
    """Absolute http(s) targets of the Markdown links (`[title](url)`, `<https://…>`, reference links) of a Markdown
    or text page (an llms.txt lists its pages so), fragments dropped, in document order without duplicates."""
    from markdown_it import MarkdownIt

    out: dict[str, None] = {}
    for token in MarkdownIt("commonmark").parse(text):
        for child in token.children or ():
            if child.type == "link_open" and (url := _web_link(child.attrGet("href"), base)):
                out[url] = None
    return list(out)


#: How inward an address kind reaches, for a name with several addresses (the most inward one counts).
_INWARD = {"link-local": 3, "loopback": 2, "private": 1}


def _ip_kind(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    ip = getattr(ip, "ipv4_mapped", None) or ip
    if ip.is_link_local:
        return "link-local"
    if ip.is_loopback or ip.is_unspecified:
        return "loopback"
    return "private" if ip.is_private or ip.is_reserved else None


class Resolver:
    """A client's name → addresses answers, each name resolved once (system resolver) for the client's life, so the
    redirect check (`_address_kind`) and the connection (`_PinnedBackend`) see the very same addresses: a name
    answering a public address to the check and 169.254.169.254 or 127.0.0.1 to the connection (DNS rebinding with
    a zero TTL) reaches only the address that was checked. Thread-safe."""

    def __init__(self) -> None:
        self._answers: dict[str, list[str]] = {}
        self._lock = threading.Lock()

    def addresses(self, host: str) -> list[str]:
        """The addresses of `host` (a literal address is its own), in the resolver's order; [] when it does not
        resolve (tried again next time)."""
        host = host.strip("[]").lower().rstrip(".")
        try:
            return [str(ipaddress.ip_address(host.split("%")[0]))]
        except ValueError:
            pass
        with self._lock:
            if host in self._answers:
                return self._answers[host]
        try:
            found = [str(info[4][0]) for info in socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)]
        except (OSError, UnicodeError):
            return []
        with self._lock:
            return self._answers.setdefault(host, list(dict.fromkeys(found)))


class _PinnedBackend(httpcore.SyncBackend):
    """httpcore's network backend connecting a host name only to the addresses `resolver` gave it (each tried in
    turn): the connection goes where the redirect check looked. TLS still names the host (SNI, certificate)."""

    def __init__(self, resolver: Resolver):
        self.resolver = resolver

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options=None) -> httpcore.NetworkStream:
        addresses = self.resolver.addresses(host)
        if not addresses:
            raise httpcore.ConnectError(f"cannot resolve {host}")
        failure: httpcore.ConnectError | None = None
        for address in addresses:
            try:
                return super().connect_tcp(address, port, timeout, local_address, socket_options)
            except httpcore.ConnectError as exc:
                failure = exc
        raise failure  # type: ignore[misc] - addresses is not empty


def _address_kind(host: str, resolver: Resolver | None = None) -> str | None:
    """"link-local", "loopback" or "private" for a host that names one — a literal address, `localhost`, or a name
    any of whose addresses is one (`resolver`'s answer, a fresh `Resolver` without one: a site's DNS name may answer
    127.0.0.1 or 169.254.169.254; the most inward kind counts) —, else None (a public host, or a name that does not
    resolve)."""
    host = host.strip("[]").lower().rstrip(".")
    if host == "localhost" or host.endswith(".localhost"):
        return "loopback"
    kinds = {_ip_kind(ipaddress.ip_address(a.split("%")[0])) for a in (resolver or Resolver()).addresses(host)}
    return max(kinds - {None}, key=_INWARD.__getitem__, default=None)


def _refuse_redirect_inward(resolver: Resolver) -> Callable[[httpx.Response], None]:
    """An httpx response hook (it runs before a redirect is followed): a fetched site is untrusted input, so its
    redirect may not move the fetch to a URL holding a credential (`redact.credential_refusal`), nor to a link-local address (169.254.169.254: the cloud's instance metadata, with
    the machine's credentials) nor, from a host that is not one, to a loopback or private address (the user's own
    services). Host names are resolved for the check with the client's `resolver`, whose answer the connection is
    pinned to (`_PinnedBackend`), so a name cannot answer differently to the connection. The hook raises
    FetchError, so nothing is sent there. A URL the user configures may name any of them."""

    def hook(response: httpx.Response) -> None:
        location = response.headers.get("location") if response.is_redirect else None
        if not location:
            return
        target = response.url.join(location)
        if (refusal := credential_refusal(str(target))) is not None:
            raise FetchError(f"redirected to {refusal}")
        kind = _address_kind(target.host, resolver)
        if kind == "link-local" or (kind is not None and _address_kind(response.url.host, resolver) is None):
            raise FetchError(f"redirected to {target.host}, a {kind} address: not followed")

    return hook


def new_client(timeout_s: float = 30.0, user_agent: str = DEFAULT_USER_AGENT) -> httpx.Client:
    """An httpx client with ragls's User-Agent, `timeout_s` per operation and redirects followed (at most 5; never
    to the machine's or its network's own services, `_refuse_redirect_inward`), each host name resolved once and
    connected only at the addresses checked (`Resolver`; a proxy from the environment resolves names itself)."""
    resolver = Resolver()
    client = httpx.Client(timeout=timeout_s, follow_redirects=True, max_redirects=MAX_REDIRECTS,
                          headers={"user-agent": user_agent},
                          event_hooks={"response": [_refuse_redirect_inward(resolver)]})
    # httpx passes no network backend through (and a `transport=` of our own would drop the environment's proxies):
    # set it on the direct transport's connection pool; a proxy's transports are left as they are
    pool = getattr(getattr(client, "_transport", None), "_pool", None)
    if not isinstance(pool, httpcore.ConnectionPool) or not hasattr(pool, "_network_backend"):
        client.close()
        raise RuntimeError(f"httpx {httpx.__version__} has no connection pool to pin addresses on")
    pool._network_backend = _PinnedBackend(resolver)
    return client


def fetch_page(url: str, *, client: httpx.Client | None = None, timeout_s: float = 30.0,
               max_bytes: int = 2_000_000, etag: str | None = None, last_modified: str | None = None,
               pages_only: bool = False, user_agent: str = DEFAULT_USER_AGENT) -> Page:
    """GET `url` (conditional when `etag` / `last_modified` are given) → Page. The body is streamed and cut off
    past `max_bytes`; HTML/PDF/DOCX are converted, other text is kept as is (Markdown as Markdown: `text/markdown` or
    a .md path). `pages_only` (a crawl): only HTML, Markdown and plain text (`PAGE_TYPES`), with their links.
    Raises FetchError with the reason: "timed out after N s", "cannot connect: …", "HTTP 404", "too large (…)",
    "not HTML, Markdown or text (type)" (`pages_only`),
    "not a document (type)" for binary content, "too many redirects", "redirected to 169.254.169.254, a link-local
    address: not followed" (`new_client`), or a converter's error; "<url masked>: a URL holding a credential is not
    fetched…" (`redact.credential_refusal`, the check a named RAG's source, a crawled link and a redirect's target
    get too) before any request: a `rag/ask` document URL is labelled by its URL (prompts, sources, errors)."""
    if (refusal := credential_refusal(url)) is not None:
        raise FetchError(str(refusal))
    own = client is None
    client = client or new_client(timeout_s, user_agent)
    headers = {}
    if etag:
        headers["if-none-match"] = etag
    if last_modified:
        headers["if-modified-since"] = last_modified
    try:
        with client.stream("GET", url, headers=headers) as resp:
            final = str(resp.url)
            if resp.status_code == 304:
                return Page(url, final, None, etag=etag, last_modified=last_modified, not_modified=True)
            if not resp.is_success:
                raise FetchError(f"HTTP {resp.status_code} {resp.reason_phrase}".rstrip(),
                                 transient=resp.status_code >= 500 or resp.status_code == 429)
            ctype = resp.headers.get("content-type", "").split(";")[0].strip().lower()
            if pages_only and ctype and ctype not in PAGE_TYPES:
                raise FetchError(f"not HTML, Markdown or text ({ctype})")
            declared = resp.headers.get("content-length")
            if declared and declared.isdigit() and int(declared) > max_bytes:
                raise FetchError(f"too large ({declared} bytes > max_file_bytes {max_bytes})")
            body = bytearray()
            for piece in resp.iter_bytes():
                body += piece
                if len(body) > max_bytes:
                    raise FetchError(f"too large (more than max_file_bytes {max_bytes} bytes)")
            data = bytes(body)
            encoding = resp.charset_encoding
            page_etag, page_lm = resp.headers.get("etag"), resp.headers.get("last-modified")
    except httpx.TimeoutException:
        raise FetchError(f"timed out after {timeout_s:g} s", transient=True) from None
    except httpx.TooManyRedirects:
        raise FetchError(f"too many redirects (more than {MAX_REDIRECTS})") from None
    except httpx.HTTPError as exc:
        raise FetchError(f"cannot fetch {url}: {exc}", transient=True) from None
    finally:
        if own:
            client.close()
    ext = extension(urlsplit(final).path)
    is_html = ctype in HTML_TYPES or (not ctype and data.lstrip()[:15].lower().startswith((b"<!doctype html", b"<html")))
    is_markdown = ctype in MARKDOWN_TYPES or (ctype in ("", "text/plain") and ext in ("md", "markdown"))
    if pages_only and not (is_html or is_markdown or ctype == "text/plain"):
        raise FetchError(f"not HTML, Markdown or text ({ctype or 'unknown type'})")
    links: list[str] = []
    try:
        if is_html:
            text = data.decode(encoding, "replace") if encoding else decode_bytes(data)
            doc = convert_bytes(final, text.encode("utf-8"), "html")
            links = _links(text, final)
        elif ctype == "application/pdf" or ext == "pdf":
            doc = convert_bytes(final, data, "pdf")
        elif ext == "docx" or "officedocument.wordprocessingml" in ctype:
            doc = convert_bytes(final, data, "docx")
        elif is_binary(data) or (ctype and not ctype.startswith("text/") and "json" not in ctype
                                 and "xml" not in ctype):
            raise FetchError(f"not a document ({ctype or 'binary content'})")
        else:
            text = data.decode(encoding, "replace") if encoding else decode_bytes(data)
            doc = load_text(final, text, kind="markdown" if is_markdown else None)
            if pages_only:  # a Markdown page, or an llms.txt listing its pages as Markdown links
                links = _markdown_links(text, final)
    except ValueError as exc:
        raise FetchError(str(exc)) from None
    if not doc.text.strip():
        raise FetchError("no extractable text")
    links, refused = _credential_free(links)
    return Page(url, final, doc, links, page_etag, page_lm, content_type=ctype, refused=refused)


class HttpCache:
    """Validators and links of fetched pages (SQLite at `path`): url → (etag, last_modified, final URL, links).
    A crawl sends them only for URLs that are still indexed, so a stale entry can never hide a page."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._local = threading.local()
        self._db().execute("CREATE TABLE IF NOT EXISTS pages (url TEXT PRIMARY KEY, etag TEXT, last_modified TEXT, "
                           "final_url TEXT, links TEXT)")

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

    def forget(self, urls: Iterable[str]) -> None:
        self._db().executemany("DELETE FROM pages WHERE url=?", [(u,) for u in urls])

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
    before its next page once `should_stop()` is true."""

    def __init__(self, *, cache: HttpCache | None, known: Callable[[str], bool], max_bytes: int,
                 timeout_s: float = 30.0, delay_s: float = 0.5, max_pages: int = 500, max_depth: int = 4,
                 user_agent: str = DEFAULT_USER_AGENT, respect_robots: bool = True,
                 on_page: Callable[[str, int], None] | None = None,
                 should_stop: Callable[[], bool] | None = None):
        self.cache, self.known, self.max_bytes = cache, known, max_bytes
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
        if self.cache is not None:
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
        clean, more = _credential_free(links)
        for link in clean:
            if link not in queued and within(link, *crawl):
                queued.add(link)
                queue.append((link, depth + 1))
        for refusal in (*refused, *more):
            if refusal.masked not in queued and within(refusal.masked, *crawl):
                queued.add(refusal.masked)
                result.skipped.append(refusal.skipped)
