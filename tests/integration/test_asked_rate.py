"""A limit asked on a rate, none stated (retrieval/asked_limit.py `_RATE_ASK` / `_RATE_STATED`; abstention's
limit_missing veto): a question asking to rate-limit requests, or to cap requests per client or a bandwidth, is
answered only by a passage that states a rate (rate, throttle, requests per second, 10/m, 1 MB/s); passages that
state a limit of something else (a body's maximum size, at most four connections) do not answer it. Datasette's ds33,
Flask's fl-un-01, Pyramid's pyramid-n03, urllib3's u3-n1 and Werkzeug's wz-n05 were answered from such passages
(bench/history/session-69.md, "Abstention: a rate asked, none stated"). On a real index (tantivy + LanceDB + the
offline MiniLM) of a small web server's docs and of a downloader's, written here: the server states sizes and
counts, the downloader a rate."""

from __future__ import annotations

import pytest
from offline_index import extractive_workspace
from ragls.embedding.embed import offline_model_dir
from ragls.retrieval.asked_limit import limit_missing

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

DOCS = {
"server-limits.md": """# Limiting what a client sends to webserv

webserv reads the whole request body into memory before your handler runs, so it limits what a client may send.
The maximum body size is 10 MB by default; set `max_body_size` in webserv.toml to raise or lower it. A request whose
body exceeds the limit gets a 413 response and never reaches your API handlers.

Each worker serves at most four connections at once (`max_connections`); further clients wait in the listen queue
until a connection closes. Headers are limited to 8 KB per request.
""",
"server-api.md": """# Writing an API with webserv

Register a handler for a path with `app.route("/items")`. The handler receives the request and returns a response;
a dict is sent back as JSON. Clients are told apart by their IP address, which `request.client_ip` holds, and
requests are logged with it.
""",
}
FETCHR = {
"fetchr.md": """# Polite downloading with fetchr

fetchr downloads many files from the same host. Set `delay = 0.5` to wait half a second between two requests to one
host, so it sends at most two requests per second to each host, and `max_rate = 500` to download at most 500 KiB/s
from each host.
""",
}


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    with extractive_workspace(tmp_path_factory.mktemp("rate"), DOCS) as w:
        yield w


@pytest.fixture(scope="module")
def fetchr_ws(tmp_path_factory):
    with extractive_workspace(tmp_path_factory.mktemp("fetchr"), FETCHR) as w:
        yield w


def test_the_rate_words():
    """A rate asked needs a rate stated; a limit asked of another kind still counts any limit."""
    assert limit_missing("How do I rate-limit my API?", ["The maximum body size is 10 MB."])
    assert limit_missing("How do I limit the number of requests per IP address?", ["at most four connections"])
    assert not limit_missing("How do I rate-limit my API?", ["Set the RateLimit middleware's average to 100."])
    assert not limit_missing("How do I cap the upload bandwidth?", ["--upload-ratelimit RATE  in kiByte/s"])
    assert not limit_missing("How do I limit it to 10 requests a second?", ["runs at most 10 tasks per second"])
    assert not limit_missing("How do I cap anonymous clients at 100 requests a day?", ["'anon': '100/day'"])
    assert not limit_missing("How do I cap the number of open connections?", ["at most four connections"])
    assert not limit_missing("How do I rate-limit my API?", ["Each client may send 100 requests a minute."])
    assert not limit_missing("How do I cap the frame rate?", ["repaint_delay = 10 ms, about 100 fps"])
    assert limit_missing("How do I cap the frame rate?", ["repaint_delay = 10 ms"])
    # a count per host, user or client of anything but requests is no rate: any limit states it
    assert not limit_missing("How do I limit the number of connections per host?", ["at most four connections"])
    assert not limit_missing("How can I limit the memory used per user?", ["Set max_memory = 2 GB per session."])
    assert not limit_missing("How do I limit the request body size per client?", ["The maximum body size is 10 MB."])
    assert limit_missing("How do I limit the number of API requests per user?", ["at most four connections"])
    assert limit_missing("How do I cap the requests made per client?", ["at most four connections"])


@pytest.mark.parametrize(("docs", "question", "missing"), [
    ("server", "How do I add per-client rate limiting to my webserv API?", True),
    ("server", "My webserv API gets hammered by a scraper. How do I limit the number of requests per IP address?", True),
    ("server", "How do I limit the number of connections per client in webserv?", False),
    ("fetchr", "How do I limit how fast fetchr downloads, say to a fixed number of requests per second to one host?",
     False),
    ("fetchr", "How do I cap the download bandwidth fetchr uses per host?", False),
])
def test_a_rate_asked(ws, fetchr_ws, docs, question, missing):
    """The server's docs state a maximum body size and a connection count, no rate: abstains, limit_missing. The
    downloader's docs state a rate (two requests per second, 500 KiB/s): answered."""
    w = ws if docs == "server" else fetchr_ws
    result = w.retrieve(question)
    assert result.evidence.limit_missing == (1.0 if missing else 0.0), result.evidence
    assert w.query(question).abstained is missing


@pytest.mark.timeout(60)
def test_a_long_run_of_digits_is_read_in_linear_time():
    """A number before a unit (`asked_limit._AMOUNT`) was tried from every digit of a run to the run's end, the units
    at each: 2.6 s for a passage of 2,000 digits, 8.4 s for 4,000 (a big integer printed in the docs), at every
    limit asked. Its digits and separators are bounded now; the verdicts are the same (every 2,000-character piece
    of the 70 dev corpora read alike). The timeout is a hang guard."""
    digits = "1" * 100_000
    assert limit_missing("How do I limit the upload size?", [f"The checksum is {digits} here."])
    assert not limit_missing("How do I limit the upload size?", [f"The checksum is {digits} MB here."])
    assert limit_missing("How do I rate-limit my API?", [f"Send {digits} now."])
    assert not limit_missing("How do I rate-limit my API?", [f"Send {digits}/s now."])
    assert not limit_missing("How do I limit the upload size?", ["Uploads up to 10,000,000,000 bytes."])
