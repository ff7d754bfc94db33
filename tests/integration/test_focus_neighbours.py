"""The focus is the answering sentence(s) (issue 27), on real stores (tantivy, LanceDB, the SQLite manifest) and
the offline all-MiniLM-L6-v2: a two-part answer in two adjacent sentences is cited whole (at most 6 lines), and
the sentence under the heading that asks the question beats a sentence of another section of the same chunk that
shares only the question's common words, and the sentence naming the means of a need the question states in its
own words joins the focus as the answer quotes it (`neighbours.explains`).
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


# The need in one sentence, the means (an option the question never names) in the next, which refers back to it.
OFFLINE = """# Reviewed deployments

Shipwright can write a change as a script instead of applying it to the database.
Some teams cannot let a deployment tool connect to the production database, and every
change has to be reviewed and run by hand by a database administrator.   Shipwright makes
this possible with the `--emit-script` option of the `apply` command.   The script
is written to standard output.

## Logging

Shipwright writes its log to standard error, one line per step, with the time each step took.
"""


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    idx, s = folder_index(tmp_path_factory.mktemp("focus_neighbours"),
                          {"resolver.md": RESOLVER, "faq.md": FAQ, "deploy.md": OFFLINE})
    yield idx, s
    idx.close()


def _top_focus(indexed, question: str, path: str):
    """(top hit, first, last) for `question`: the top hit is `path`'s, its focus (file lines first..last) at most 6
    lines."""
    idx, s = indexed
    top = search([idx], idx.embedder, question, settings=s.retrieval, top_k=2)[0]
    assert top.chunk.path == path
    first, last = file_lines(top.focus)
    assert last - first + 1 <= 6
    return top, first, last


def test_a_two_sentence_answer_is_cited_whole(indexed):
    top, first, last = _top_focus(indexed, "How long is a DNS lookup cached by default, and how do I change that time?",
                                  "resolver.md")
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


def test_the_means_after_the_need_joins_the_focus(indexed):
    """The question states the need (an administrator who reviews every change, no connection to production); the
    next sentence names the means (`--emit-script`), refers back ("makes this possible") and shares no word with the
    question: the focus holds both, as the extractive answer quotes them (without it, it stopped at the need)."""
    _, first, last = _top_focus(indexed, "Our DBA will not let the tool connect to production; he wants to review and "
                                "run every change himself. How?", "deploy.md")
    assert first <= line_of(OFFLINE, "reviewed and run by hand") <= last  # the need
    assert first <= line_of(OFFLINE, "`--emit-script`") <= last  # the means


# What happens (one paragraph), then the means in a ":" sentence over a code block longer than a focus: the block
# is cut, the sentence is not.
NETRC = """# Credentials file

If no credentials are given, the client takes them from a netrc file in the home
directory of the user and sends the password with every request to a matching host.

Reading the netrc file is turned off by setting `use_netrc` to `False` on the
session:

```python
import client

session = client.Session()
session.use_netrc = False
session.get("https://example.com")
```

## Retries

Failed requests are retried three times, waiting one second between attempts.
"""


def test_a_neighbour_carrying_a_long_block_joins_with_its_sentence(netrc_indexed):
    """The two sentences answer together (the netrc file is used; `use_netrc` turns it off), but the second carries
    an 8-line example: the focus holds both sentences and as much of the block as fits in 6 lines (without it, the
    neighbour's whole block had to fit, so the focus stopped at one of the two)."""
    top, first, last = _top_focus(netrc_indexed, "The client keeps sending the password from my netrc file with every "
                                  "request; how do I stop it reading that file?", "netrc.md")
    assert first <= line_of(NETRC, "takes them from a netrc file") <= last  # what happens
    assert first <= line_of(NETRC, "by setting `use_netrc`") <= last  # the means
    w_first, w_last = file_lines(top.window)  # the context still holds the focus
    assert w_first <= first and last <= w_last


@pytest.fixture(scope="module")
def netrc_indexed(tmp_path_factory):
    idx, s = folder_index(tmp_path_factory.mktemp("focus_netrc"), {"netrc.md": NETRC, "faq.md": FAQ})
    yield idx, s
    idx.close()
