"""Extractive answers with the offline model: a ":" lead-in whose block the chunker put in the next chunk of the file
is quoted with that block when the next chunk is a source too (`across_chunks.block_across`)."""

from __future__ import annotations

import pytest
from ragls.answer.ask import extractive_answer
from ragls.core.ir import Chunk, Hit, LineSpan


@pytest.fixture(scope="module")
def embedder(offline_embedder):
    return offline_embedder


GUIDE = """Automatic Retries
^^^^^^^^^^^^^^^^^

By default, the client does not retry failed connections. However, it is possible
to implement automatic retries with backoff within a client ``Session`` using the
``Retry`` class::

    from client.retry import Retry
    from client import Session

    s = Session()
    s.mount('https://', Adapter(max_retries=Retry(total=3, backoff_factor=0.1)))

Blocking or Non-Blocking?
^^^^^^^^^^^^^^^^^^^^^^^^^

The client does not provide any kind of non-blocking IO.
"""


def _chunk(text: str, first: int, last: int, path: str = "advanced.rst") -> Hit:
    """The 0-based lines first..last of `text` as one chunk of `path` (its span in the file)."""
    body = "\n".join(text.split("\n")[first:last + 1]) + "\n"
    return Hit(chunk=Chunk(id=f"{path}:{first}", path=path, text=body, span=LineSpan(first, 0, last + 1, 0),
                           text_hash=f"{path}:{first}"), score=1.0)


def test_a_lead_in_is_quoted_with_its_block_from_the_next_chunk(embedder):
    """The chunk ending "... using the ``Retry`` class::" holds no code; the next chunk, which opens on that line,
    holds the example (main quoted the sentence ending in "." and no `max_retries`)."""
    lead, block = _chunk(GUIDE, 0, 5), _chunk(GUIDE, 5, 17)
    answer = extractive_answer("How do I make a session retry with backoff when a connection fails?",
                               [(1, lead), (2, block)], embed=embedder.embed_documents)
    lines = answer.splitlines()
    at = next(i for i, x in enumerate(lines) if "it is possible to implement automatic retries" in x)
    assert lines[at].endswith("using the `Retry` class [1]:"), answer
    assert lines[at + 1:at + 3] == ["  ```", "  from client.retry import Retry"], answer
    assert "Adapter(max_retries=Retry(total=3, backoff_factor=0.1))" in answer
    # the next chunk of another file, or no next chunk among the sources: the sentence as before
    alone = extractive_answer("How do I make a session retry with backoff when a connection fails?", [(1, lead)],
                              embed=embedder.embed_documents)
    assert "using the `Retry` class [1]." in alone and "max_retries" not in alone, alone
    other = _chunk(GUIDE, 5, 17, "other.rst")
    elsewhere = extractive_answer("How do I make a session retry with backoff when a connection fails?",
                                  [(1, lead), (2, other)], embed=embedder.embed_documents)
    assert "using the `Retry` class [1]." in elsewhere, elsewhere


def test_an_empty_fence_in_the_next_chunk_is_no_block():
    """An mdBook fence holding only an include line is empty once the markup is cleaned: the lead-in is not shown
    with an empty block (the Rust book's workspace chapter)."""
    from ragls.answer.across_chunks import block_across
    from ragls.answer.passages import chunk_units

    text = ("# Workspaces\n\nRunning `cargo new` inside a workspace also adds the new package to the `members` key in "
            "the `[workspace]` definition, like this:\n\n```toml\n{{#include ../listings/Cargo.toml}}\n```\n\n"
            "At this point, we can build the workspace.\n")
    lead, block = _chunk(text, 0, 3, "ch14.md"), _chunk(text, 3, 8, "ch14.md")
    unit = chunk_units(lead.chunk)[-1]
    assert unit.sentence.endswith("like this.") and block_across(1, unit, {1: lead, 2: block}) == unit


OAUTH = """Third party authentication
~~~~~~~~~~~~~~~~~~~~~~~~~~

Here is an example handler that uses Google for authentication, saving
the Google credentials in a cookie for later access:

.. testcode::

    class GoogleOAuth2LoginHandler(RequestHandler, GoogleOAuth2Mixin):
        async def get(self):
            user = await self.get_authenticated_user(code=self.get_argument('code'))

See the auth module documentation for more details.
"""


def test_a_directive_line_left_with_the_lead_in_does_not_keep_its_block_away():
    """Tornado's "Here is an example handler that uses Google for authentication ...:" ended one chunk with the
    `.. testcode::` line under it, and the example opened the next chunk: the sentence was quoted with "." and no
    code, though the next chunk was a source too. A directive line (and its options) between the lead-in and the
    chunk's end is no block of its own."""
    from ragls.answer.across_chunks import block_across
    from ragls.answer.passages import chunk_units

    lead, block = _chunk(OAUTH, 0, 6, "guide/security.rst"), _chunk(OAUTH, 4, 13, "guide/security.rst")
    unit = next(u for u in chunk_units(lead.chunk) if "Google" in u.sentence)
    assert unit.sentence.endswith("for later access.")
    carried = block_across(1, unit, {1: lead, 2: block})
    assert carried.sentence.endswith("for later access:"), carried
    assert carried.attached.split("\n")[:2] == ["```", "class GoogleOAuth2LoginHandler(RequestHandler, GoogleOAuth2Mixin):"]
