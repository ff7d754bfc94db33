"""The focus is the answering sentence(s) (issue 27), on real stores (tantivy, LanceDB, the SQLite manifest) and
the offline all-MiniLM-L6-v2: a two-part answer in two adjacent sentences is cited whole (at most 6 lines), and
the sentence under the heading that asks the question beats a sentence of another section of the same chunk that
shares only the question's common words.
"""

from __future__ import annotations

import pytest
from offline_index import file_lines, folder_index, line_of
from ragls.embedding.embed import offline_model_dir
from ragls.retrieval.search import search

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

# The default (one sentence) and how to change it (the next one) answer one question together.
RESOLVER = """# Name resolution

The client resolves host names itself instead of asking the operating system,
so that lookups never block the event loop. Lookups go through a small table
kept in memory.
By default every lookup is cached for ten seconds before it is made again.
The lifetime of an entry can be changed with the `ttl_cache` option of the
client, or set to zero to turn the table off.

A resolver that talks to a custom name server is set with the `resolver`
option; it must be an object with an async `resolve` method.
"""

# One chunk, three FAQ sections: the answer sits under the heading that asks the question, and a sentence of the
# first section shares the question's common words ("run", "tool") but not the one that matters.
FAQ = """# Frequently asked questions

## Which operating systems does the tool support?

The tool is tested on Linux, macOS and Windows, and every release is built for
all three. You can run the tool on any of them with the same configuration file.

## Is the tool free to use?

Yes, it is released under the MIT licence, also for commercial projects.

## Can I run the tool on a Raspberry Pi?

Yes, ARM boards such as the Pi are supported since version 2.1.
"""


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    idx, s = folder_index(tmp_path_factory.mktemp("focus_neighbours"), {"resolver.md": RESOLVER, "faq.md": FAQ})
    yield idx, s
    idx.close()


def test_a_two_sentence_answer_is_cited_whole(indexed):
    idx, s = indexed
    question = "How long is a DNS lookup cached by default, and how do I change that time?"
    hits = search([idx], idx.embedder, question, settings=s.retrieval, top_k=2)
    top = hits[0]
    assert top.chunk.path == "resolver.md"
    first, last = file_lines(top.focus)
    assert last - first + 1 <= 6
    assert first <= line_of(RESOLVER, "By default every lookup is cached") <= last  # the default
    assert first <= line_of(RESOLVER, "can be changed with the `ttl_cache`") <= last  # how to change it
    assert first > line_of(RESOLVER, "so that lookups never block")  # not the paragraph's opening
    w_first, w_last = file_lines(top.window)  # the context still holds the focus
    assert w_first <= first and last <= w_last


def test_the_sentence_under_the_heading_that_asks_wins(indexed):
    idx, s = indexed
    hits = search([idx], idx.embedder, "Can I run the tool on a Raspberry Pi?", settings=s.retrieval, top_k=2)
    top = hits[0]
    assert top.chunk.path == "faq.md"
    assert file_lines(top.focus) == (line_of(FAQ, "ARM boards"),) * 2
