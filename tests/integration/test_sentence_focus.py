"""The answering sentence, not the chunk (issue 27), on real stores (tantivy, LanceDB, the SQLite manifest) and the
offline all-MiniLM-L6-v2: a hit's focus is the sentence that answers inside its window (which stays as the context),
at most 6 lines; a hard-wrapped list item answers whole, with the identifier on its second line; "..." stays "...";
the code line a sentence introduces (or that the answer shows under it) is in the focus, even when its block is too
long to cite whole.
"""

from __future__ import annotations

import pytest
from offline_index import file_lines, folder_index, line_of
from ragls.answer.extractive import extractive_answer, extractive_picks
from ragls.answer.focus import quoted_focus
from ragls.embedding.embed import offline_model_dir
from ragls.retrieval.search import search

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

# A 28-line section, hard-wrapped at ~75 columns; one sentence (lines 13-14 of the file, 1-based) answers the
# question below, the others are about the same ferry.
FERRY = """# The island ferry

The island ferry leaves the harbour at seven in the morning and at four in
the afternoon, every day except on the first of January. The crossing takes
about ninety minutes in calm weather and up to two hours when the wind comes
from the west. The ship carries up to forty cars and three hundred foot
passengers; the car deck closes ten minutes before departure.
The timetable for the whole year is printed on the back of every ticket.
The upper deck has a cafe that serves soup, sandwiches and hot drinks, and a
small shop that sells maps of the island and postcards. Dogs are welcome on
the outer decks but must stay on a lead, and bicycles travel free of charge.
Children under twelve travel at half price when they sit with an adult.
Tickets bought on board cost twice the harbour office price, so passengers
should buy them at the office before they board the ship.
In winter the afternoon crossing is sometimes cancelled because of storms;
the harbour office puts a notice on its door by noon when that happens. The
captain may also turn back halfway when the waves grow higher than three
metres, and the passengers then get a free ticket for another day. Lost
property is kept at the harbour office for one month and then given to the
island's charity shop. The ferry company was founded in 1923 by two brothers
from the mainland, and its first ship was a converted fishing boat with room
for twelve passengers. Today the company runs two ships, which take turns so
that one of them can be serviced in the dry dock every spring. Their names
are painted in white letters on the blue hull, and the older ship has a brass
bell that the crew rings when the ship leaves the harbour. The crew also
sounds the horn twice when another boat crosses the harbour mouth, and once
more when the ship reaches the pier on the island. Wait for the third ring
of the bell before you stand up...
"""

TIMEOUTS = """# Client timeouts

The client has four timeouts, each set in seconds on the client or per request:

- The **connect** timeout is the longest wait for a socket connection to the
  host; when it runs out a `ConnectTimeout` exception is raised.
- The **read** timeout is the longest wait for a chunk of the response body
  to arrive; when it runs out a `ReadTimeout` exception is raised.
- The **pool** timeout specifies the maximum duration to wait for acquiring
  a connection from the connection pool; when it runs out a `PoolTimeout`
  exception is raised.
- The **write** timeout is the longest wait for a chunk of the request body
  to be sent; when it runs out a `WriteTimeout` exception is raised.
"""


# A ":" sentence introduces a 14-line example whose second code line is the answer; a sentence not ending in ":"
# is followed by the one line of code that names what the second question asks for.
CLIENT = """# Reading JSON responses

The client decodes a JSON body with `Response.json()`. It checks the content type
of the response first and raises `ContentTypeError` when the server sends anything
but `application/json`. To skip the content type check for one call, pass `None` as its
`content_type`:

```python
async with session.get("https://example.org/api/items") as resp:
    items = await resp.json(content_type=None)
    for item in items:
        print(item["name"])
        if item.get("tags"):
            print(", ".join(item["tags"]))
    print(len(items), "items")
    print(resp.headers.get("ETag"))
    print(resp.headers.get("Last-Modified"))
    print(resp.status)
    print(resp.reason)
    print(resp.url)
```

## Connection pools

Each host gets a pool of connections that stays open between requests. A crawler
that talks to many hosts at once may go faster with more of them.

```python
http = PoolManager(num_pools=50)
```
"""


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    idx, s = folder_index(tmp_path_factory.mktemp("focus"),
                          {"ferry.md": FERRY, "timeouts.md": TIMEOUTS, "client.md": CLIENT})
    yield idx, s
    idx.close()


def test_focus_is_the_answering_sentence_inside_its_window(indexed):
    idx, s = indexed
    hits = search([idx], idx.embedder, "Is a ferry ticket cheaper if I buy it before boarding?",
                  settings=s.retrieval, top_k=2)
    top = hits[0]
    assert top.chunk.path == "ferry.md"
    answer = next(i for i, line in enumerate(FERRY.splitlines(), 1) if line.startswith("Tickets bought on board"))
    first, last = file_lines(top.focus)
    assert (first, last) == (answer, answer + 1)  # the sentence's two lines, not the 28-line section
    w_first, w_last = file_lines(top.window)  # the window stays as the context, around the focus
    assert w_first <= first and last <= w_last and w_last - w_first > last - first
    c_first, c_last = file_lines(top.chunk.span)
    assert c_last - c_first + 1 == 28


def test_hard_wrapped_list_item_answers_whole_with_its_identifier(indexed):
    idx, s = indexed
    question = "What is raised when no connection can be acquired from the pool in time?"
    hits = search([idx], idx.embedder, question, settings=s.retrieval, top_k=2)
    top = hits[0]
    assert top.chunk.path == "timeouts.md"
    item = next(i for i, line in enumerate(TIMEOUTS.splitlines(), 1) if "**pool**" in line)
    assert file_lines(top.focus) == (item, item + 2)  # the whole item: its three source lines
    answer = extractive_answer(question, list(enumerate(hits, 1)), embed=idx.embedder.embed_documents)
    bullets = [line for line in answer.splitlines() if line.startswith("- ")]
    assert bullets[0] == ("- The **pool** timeout specifies the maximum duration to wait for acquiring a connection "
                          "from the connection pool; when it runs out a `PoolTimeout` exception is raised [1].")


def test_an_ellipsis_stays_three_dots(indexed):
    idx, s = indexed
    question = "When should I stand up after the ship's bell rings?"
    hits = search([idx], idx.embedder, question, settings=s.retrieval, top_k=1)
    answer = extractive_answer(question, list(enumerate(hits, 1)), embed=idx.embedder.embed_documents)
    assert "- Wait for the third ring of the bell before you stand up... [1]" in answer.splitlines()


def test_the_code_line_a_sentence_introduces_is_in_the_focus_even_in_a_long_block(indexed):
    """The sentence ends in ":" and its 14-line example holds the answer on its second line: the focus is the
    sentence and the block's first lines (at most 6), not the 17-line sentence-and-block (cut at 12 lines before,
    which no citation of 6 lines could be), so the line the user copies is in it."""
    idx, s = indexed
    question = "How do I skip the content type check when reading a JSON response?"
    hits = search([idx], idx.embedder, question, settings=s.retrieval, top_k=2)
    top = hits[0]
    assert top.chunk.path == "client.md"
    first, last = file_lines(top.focus)
    assert first == line_of(CLIENT, "To skip the content type check")
    assert last - first + 1 <= 6
    assert first <= line_of(CLIENT, "content_type=None") <= last
    w_first, w_last = file_lines(top.window)  # the context still holds the focus
    assert w_first <= first and last <= w_last
    # the extractive answer quotes the sentence with its whole example; its [1] cites it as the focus does (with
    # the sentence before it when the answer quotes that too), not the 12 lines it cited before
    numbered = list(enumerate(hits[:1], 1))
    picked = extractive_picks(question, numbered, embed=idx.embedder.embed_documents)
    assert any(u.sentence.startswith("To skip the content type check") and u.attached for _, u in picked)
    sources, _ = quoted_focus(numbered, picked, question)
    q_first, q_last = file_lines(sources[0][1].focus)
    assert q_first <= first and q_last == last


def test_the_code_the_answer_shows_after_a_sentence_is_in_the_focus(indexed):
    """A sentence not ending in ":" whose next code line names what the question asks for (`num_pools` for "the
    number of pools") is answered with that code (`with_code_after`), and its citation covers the code line."""
    idx, s = indexed
    question = "How do I raise the number of connection pools for a crawler that talks to many hosts?"
    hits = search([idx], idx.embedder, question, settings=s.retrieval, top_k=2)
    top = hits[0]
    assert top.chunk.path == "client.md"
    first, last = file_lines(top.focus)
    assert last - first + 1 <= 6
    assert first <= line_of(CLIENT, "num_pools=50") <= last
    assert first >= line_of(CLIENT, "Each host gets a pool")
