"""Extractive answers on a real index with the offline model (`RagWorkspace.ask`): the sentence closest by meaning of
a top source the answer quotes nothing from is quoted too when it names an identifier
(`extractive._closest_elsewhere`): a guide ranked first fills every pick with sentences restating the user's
situation, and the reference page that names what to use (the `cookiejar` request meta key) is cited, never
quoted."""

from __future__ import annotations

import pytest
from offline_index import extractive_workspace

GUIDE = """# Sessions and cookies

A spider keeps its cookies between requests, as a browser does: a cookie a site sets on one response is sent back
with every later request to that site. Most sites use cookies to keep a visitor's session, so a spider that logs in
once stays logged in for the rest of the crawl. Cookies are kept per spider and dropped when the spider closes.

A login form usually sets a session cookie. After a spider submits it, the session cookie comes back with each
request, and pages behind the login open as they do in a browser. If a site ends the session, log in again: the new
session cookie replaces the old one for the following requests.

Sessions of a spider are not shared with other spiders: each spider starts with no cookies. Two spiders crawling the
same site keep separate sessions, even when they run in the same process.
"""

REFERENCE = """# Downloader middleware reference

## CookiesMiddleware

This middleware enables working with sites that require cookies, such as those that use sessions. It keeps track of
cookies sent by web servers, and sends them back on subsequent requests from that spider, just like web browsers do.

### Multiple cookie sessions per spider

There is support for keeping multiple cookie sessions per spider by using the `cookiejar` request meta key. By
default it uses a single cookie jar (session), but you can pass an identifier to use different ones.

### Retry middleware

Failed pages are retried a few times before they are given up, with the `RETRY_TIMES` setting.
"""


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    with extractive_workspace(tmp_path_factory.mktemp("elsewhere"), {"guide.md": GUIDE, "reference.md": REFERENCE}) as w:
        yield w


def test_a_source_the_answer_leaves_out_gives_its_closest_sentence_naming_the_means(ws):
    """The guide ranks first and its sentences on sessions take every pick (rank prior); the reference page's
    "... by using the `cookiejar` request meta key." is the second source's closest sentence and comes after them,
    under its own citation; the guide's picks stay (added, never in a pick's place)."""
    answer = ws.ask("My spider logs in with two accounts on one site; how do I keep a separate session for each "
                    "account?")
    paths = [h.chunk.path for _, h in answer.sources]
    assert paths[:2] == ["guide.md", "reference.md"], paths
    assert "keep separate sessions, even when they run in the same process [1]" in answer.text, answer.text
    assert "multiple cookie sessions per spider by using the `cookiejar` request meta key [2]" in answer.text, answer.text


def test_a_question_no_passage_scores_for_is_answered_not_crashed(offline_embedder):
    # every candidate shares no word with the question and reads far from it (cosine under 0.3): nothing scores,
    # and the answer falls back to the first sentences instead of raising (`_closest_elsewhere` had no list to read)
    from ragls.answer.ask import extractive_answer
    from ragls.core.ir import Chunk, Hit, LineSpan

    text = "The kettle boils water quickly. Descale it every month with citric acid."
    hit = Hit(chunk=Chunk(id="k", path="kettle.md", text=text, span=LineSpan(0, 0, 1, 0), text_hash="k"), score=1.0)
    answer = extractive_answer("Which quarterback won the 1987 Super Bowl?", [(1, hit)],
                               embed=offline_embedder.embed_documents)
    assert "The kettle boils water quickly" in answer, answer
