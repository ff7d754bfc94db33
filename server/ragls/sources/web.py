"""Web pages: fetching one URL (a URL source, each page of a crawl, a `rag/ask` document URL).

Fetching (httpx): a clear User-Agent (`web.user_agent`), timeouts (`web.timeout_s`), at most 5 redirects, the
body streamed and cut off past `max_bytes` (`sources.max_file_bytes`), the content type checked; HTML, PDF and
DOCX are converted as files are (`convert.py`: main content, headings kept, heading ids → citation fragments).

Crawling a `…/**` source, robots.txt and the cache of validators a re-crawl sends: `crawl.py`.

A link or redirect to a URL holding a credential (`https://user:token@host/…`, `?token=…`: `redact.credential_refusal`)
is never requested, as a source holding one is not (`resolve.py`): a crawled page is untrusted input, and the URL
would be every chunk's key. A link of the crawl's own site is listed as skipped under its masked form; the raw URL
reaches no page, cache row, status or log.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from urllib.parse import urldefrag, urljoin, urlsplit

import httpcore
import httpx

from ragls.core.ir import Document
from ragls.sources.convert import convert_bytes, extension
from ragls.sources.load import decode_bytes, is_binary, load_text
from ragls.sources.redact import CredentialRefusal, credential_refusal

DEFAULT_USER_AGENT = "ragls/0.1 (retrieval-augmented documentation indexer; respects robots.txt)"
MAX_REDIRECTS = 5
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


def credential_free(links: Iterable[str]) -> tuple[list[str], list[CredentialRefusal]]:
    """(the links holding no credential, the others' refusals, `redact.credential_refusal`), in order."""
    clean: list[str] = []
    refused: list[CredentialRefusal] = []
    for link in links:
        if (refusal := credential_refusal(link)) is None:
            clean.append(link)
        else:
            refused.append(refusal)
    return clean, refused


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
    links, refused = credential_free(links)
    return Page(url, final, doc, links, page_etag, page_lm, content_type=ctype, refused=refused)
