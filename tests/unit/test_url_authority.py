"""One reading of a URL's authority (`core.uris.split_authority`) for the two places that hide its user info:
`display_url` (status lines, errors, logs) and `redact.url_credential` (a URL a crawl or a named RAG would fetch)."""

from __future__ import annotations

import pytest
from ragls.core.uris import display_url, split_authority
from ragls.sources.redact import url_credential


@pytest.mark.parametrize(("url", "parts"), [
    ("https://user:pw@gw.example:8443/v1?k=1#f", ("https", "user:pw", "gw.example:8443", "/v1?k=1#f")),
    ("http://u:p@ss@[::1/v1?k=1", ("http", "u:p@ss", "[::1", "/v1?k=1")),  # the last "@" ends the user info
    ("https://TOKEN@h.example", ("https", "TOKEN", "h.example", "")),
    ("https://@h.example/", ("https", "", "h.example", "/")),  # an empty user info is still one
    ("https://h.example/a@b?c@d", ("https", None, "h.example", "/a@b?c@d")),  # "@" past the authority: no user info
    ("https://h.example\\x@y/p", ("https", "h.example\\x", "y", "/p")),  # "\\" does not end the authority
    ("https://u:p\tq@h.example/", ("https", "u:p\tq", "h.example", "/")),  # urlsplit would drop the tab
    ("localhost:8080", None),
])
def test_split_authority(url, parts):
    assert split_authority(url) == parts


def test_display_url_and_url_credential_read_the_same_user_info():
    """Each hides exactly what `split_authority` calls user info, including where urllib cannot split the URL
    (display_url's fallback) and where a "\\" comes before the "@" (`requests` would end the host at the "\\";
    url_credential refuses the URL either way)."""
    assert display_url("http://u:p@ss@[::1/v1?k=1#f") == "http://[::1/v1"
    assert display_url("https://user:pw@gw.example:8443/v1?api-key=k") == "https://gw.example:8443/v1"
    assert display_url("no url") == "no url"
    assert url_credential("http://u:p@ss@[::1/v1") == "http://u:****@[::1/v1"
    assert url_credential("https://TOKEN@h.example/") == "https://*****@h.example/"
    assert url_credential("https://@h.example/") == "https://@h.example/"
    assert url_credential("https://h.example\\x@y/p") == "https://" + "*" * 11 + "@y/p"
    assert url_credential("https://u:p\\w@h.example/") == "https://u:***@h.example/"  # was not found: "\\" ended it
    assert url_credential("https://h.example/a@b") is None
    assert url_credential("https://h.example/docs/") is None


def test_a_url_holding_a_credential_gets_one_check_and_one_shape_everywhere(tmp_path):
    """`redact.credential_refusal` is the one check: a named RAG's URL source is skipped as its `skipped`, a fetch
    (a `rag/ask` document URL, a source's page) fails with its text before any request, a redirect's target is
    "redirected to " + that text, a crawl's link is listed as its `skipped` (the last two: test_web.py)."""
    from ragls.config.settings import SourcesSettings
    from ragls.core.errors import InvalidParams, RequestFailed, Skipped
    from ragls.sources.ephemeral import load_documents
    from ragls.sources.redact import URL_CREDENTIAL, credential_refusal
    from ragls.sources.resolve import resolve_sources
    from ragls.sources.web import FetchError, fetch_page

    url = "https://deploy:s3cr3t-pw@docs.invalid/guide/?api_key=abcd1234efgh5678"
    refusal = credential_refusal(url)
    masked = url_credential(url)
    assert masked is not None and "s3cr3t" not in masked and "abcd1234" not in masked
    assert (refusal.masked, refusal.skipped, str(refusal)) == (masked, Skipped(masked, URL_CREDENTIAL),
                                                                f"{masked}: {URL_CREDENTIAL}")
    assert credential_refusal("https://docs.invalid/guide/") is None
    assert resolve_sources([url], tmp_path, SourcesSettings()).skipped == [refusal.skipped]
    with pytest.raises(FetchError) as info:
        fetch_page(url)
    assert str(info.value) == str(refusal)
    with pytest.raises((InvalidParams, RequestFailed)) as failed:
        load_documents([url], tmp_path)
    assert str(failed.value) == f"documents: {refusal}"
