"""Extractive answers with the real offline model: a reST block quote that is code written without the literal-block
marker. "... you can add a special environment variable to your shell settings (e.g. ``.bashrc``):" over
"   export PIP_INDEX_URL=..." indented three spaces (devpi's pip quickstart, dv14): docutils renders a quotation, a
reader the line to type; `answer/blocks.py` read it as a paragraph of its own, too short to quote, so the answer
quoted the sentence announcing the variable without the variable."""

from __future__ import annotations

import pytest
from ragls.answer.blocks import parsed
from ragls.answer.extractive import extractive_answer
from ragls.core.ir import Chunk, Hit, LineSpan


@pytest.fixture
def embedder(offline_embedder):
    return offline_embedder


MIRROR = """Using the mirror for every install
==================================

To avoid typing the mirror's address on every call, you can configure the installer by setting the
``mirror-url`` entry in your ``~/.config/fetch/fetch.conf``::

    [global]
    mirror-url = http://localhost:4040/simple/

Alternatively, you can add a special environment variable
to your shell settings (e.g. ``.zshrc``):

   export FETCH_MIRROR_URL=http://localhost:4040/simple/

The mirror keeps a copy of every package it has served, so later installs do not reach the internet.
"""


def _hit(text: str, path: str) -> Hit:
    return Hit(chunk=Chunk(id=path, path=path, text=text, span=LineSpan(0, 0, text.count("\n"), 0), text_hash=path),
               score=1.0)


def test_the_variable_under_its_sentence(embedder):
    """The sentence announcing the variable carries the indented `export` line as its block."""
    answer = extractive_answer("Which environment variable can I put in my .zshrc so every install goes through my "
                               "local mirror?", [(1, _hit(MIRROR, "mirror.rst"))], embed=embedder.embed_documents)
    lines = answer.splitlines()
    at = lines.index("- Alternatively, you can add a special environment variable to your shell settings (e.g. "
                     "`.zshrc`) [1]:")
    assert lines[at + 1:at + 4] == ["  ```", "  export FETCH_MIRROR_URL=http://localhost:4040/simple/", "  ```"], answer


def test_a_quoted_sentence_stays_prose():
    """A block quote that ends a sentence, or holds no assignment, prompt or option, is read as text as before."""
    text = ("He said it best:\n\n   Readability counts, and so does a short build.\n\nAbout the warning:\n\n"
            "   Cache newer than the repository (several repositories with one ID)\n")
    assert [b.kind for b in parsed(text, markdown=False)] == ["para", "para", "para", "para"]
