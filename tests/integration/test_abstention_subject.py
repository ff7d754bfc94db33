"""A value question's subject on a real index (tantivy + LanceDB + the offline MiniLM): a term in most passages of
the docs ("request" on a web framework's) says nothing of what a sentence is about, so a number beside it — a
signature's `receive=None` — does not state the value a near miss asks for (`asked_value.subject_terms`,
`COMMON_SHARE`; bench/history/sessions-38-39.md, "Abstention: a subject term every passage holds"). Docs written for this test,
in no measured corpus."""

from __future__ import annotations

import pytest
from offline_index import extractive_workspace
from ragls.embedding.embed import offline_model_dir

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

PAGES = {
    "requests.md": """# Requests

Starlette includes a `Request` class that gives you a nicer interface onto the incoming request.

## Request

Signature: `Request(scope, receive=None)`

Creates a request for an ASGI scope. Pass `receive` when the request body must be read.

## Method and URL

The request method is available as `request.method` and the request URL as `request.url`.

## Body

There are a few interfaces for returning the body of the request. The request body as bytes: `await
request.body()`. The request body parsed as JSON: `await request.json()`.

## Streaming

`request.stream()` streams the incoming data by default, meaning that only one chunk is held in memory at a time.

## Form data

Form data is parsed with `await request.form()`. A form request reads at most 1000 fields and 1000 files by
default; pass `max_fields` and `max_files` to change the limits.
""",
    "responses.md": """# Responses

A response is returned for each request. `Response(content, status_code=200)` sends plain content for the
request.

## Headers

Response headers are set from a mapping; the request headers are read from `request.headers`.
""",
    "routing.md": """# Routing

Each route maps a request path to an endpoint that receives the request and returns a response.

## Path parameters

Path parameters are read from the request as `request.path_params`.
""",
    "middleware.md": "# Middleware\n\nMiddleware wraps the application and sees every request before the endpoint does.\n",
    "authentication.md": "# Authentication\n\nThe authenticated user of a request is `request.user`.\n",
    "websockets.md": "# WebSockets\n\nA WebSocket session starts from an upgrade request and sends messages both ways.\n",
    "testing.md": "# Testing\n\nThe test client sends a request to the application without a running server.\n",
    "exceptions.md": "# Exceptions\n\nAn exception handler receives the request and the exception and returns a response.\n",
    "templates.md": "# Templates\n\nA template response renders a template with the request in its context.\n",
}
# More pages, each about one endpoint and each holding "request": a share of the chunks says what is common only in a
# folder of at least COMMON_MIN_CHUNKS chunks (a handful of chunks is one file's topic)
ENDPOINTS = ("apple", "birch", "cedar", "daisy", "ember", "fjord", "grove", "heron", "iris", "juniper", "kestrel",
             "lotus", "maple", "nectar", "orchid", "pebble", "quartz", "raven", "sage", "thistle", "umber", "violet",
             "willow", "yarrow", "zinnia", "acorn", "bramble", "clover", "dune", "elm", "fern", "garnet")
PAGES.update({f"endpoints/{name}.md": f"# The {name} endpoint\n\nThe `/{name}` endpoint answers each request with "
                                      f"the {name} record and its owner.\n" for name in ENDPOINTS})


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    with extractive_workspace(tmp_path_factory.mktemp("subject"), PAGES, filler=False) as w:
        yield w


def test_a_number_beside_a_term_every_passage_holds_states_no_value(ws):
    """"request" is in every chunk: the signature's `receive=None` beside it is no answer to how large a JSON body
    may be (the docs never say), while the form limits, stated beside the question's own specific words, answer
    a question about them."""
    miss = ws.query("What is the largest JSON request body that request.json() will accept before it rejects it?")
    assert miss.hits.evidence.value_missing == 1.0 and miss.abstained, miss.hits.evidence
    found = ws.query("How many fields does request.form() read at most?")
    assert found.hits.evidence.value_missing == 0.0 and not found.abstained, found.hits.evidence


def test_a_common_term_stays_in_the_subject_when_it_is_what_is_measured():
    from ragls.retrieval.asked_value import subject_terms

    weights = {"request": 0.1, "json": 1.5, "bodi": 1.2, "thread": 0.2}
    dfs = {"request": 45, "json": 10, "bodi": 10, "thread": 40}
    names = {"request.json()": ["request", "json"]}
    assert subject_terms(weights, dfs, names) == ["request", "json", "bodi", "thread"]
    assert subject_terms(weights, dfs, names, chunks=50) == ["json", "bodi"]
    assert subject_terms(weights, dfs, names, measured=["thread"], chunks=50) == ["json", "bodi", "thread"]
    assert subject_terms({"request": 0.1}, {"request": 45}, chunks=50) == ["request"]  # nothing else: kept
    # over a handful of chunks a share is one file's topic: nothing is left out
    assert subject_terms(weights, {"request": 9, "json": 2, "bodi": 2, "thread": 8}, names, chunks=10) == [
        "request", "json", "bodi", "thread"]


def test_a_number_word_without_a_unit_states_no_size(ws):
    """"only one chunk is held in memory" counts chunks; it states no chunk size (`asked_value._BARE_NUMBER_WORD`),
    so the size question abstains while a count question about the form limits is still answered (above)."""
    miss = ws.query("What chunk size does request.stream() use when I don't pass one?")
    assert miss.hits.evidence.value_missing == 1.0 and miss.abstained, miss.hits.evidence


def test_a_number_word_states_a_count_or_with_its_unit_a_duration():
    from ragls.retrieval.asked_value import value_stated

    held = ["Only one chunk is held in memory at a time."]
    assert not value_stated("amount", ["chunk"], held)
    assert value_stated("amount", ["chunk"], held, count=True)
    assert value_stated("amount", ["idl"], ["Idle connections are closed after five seconds."])
