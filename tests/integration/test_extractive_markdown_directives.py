"""Extractive answers on Markdown written with mistune's reST-style directives (".. column::" over an indented body
of Markdown): Sanic's user guide (sanic-org/sanic guide/content, MIT) lays out every page as pairs of columns, prose
beside its code. The bodies read as indented code blocks, so the answer to "How do I attach a database to the app?"
quoted the page's title over a code block holding the paragraph, and no sentence of the guide's prose was read."""

from __future__ import annotations

import pytest
from askkit import extractive_over
from ragls.answer.passages import units

APP = """# Sanic Application

## Instance

.. column::

    The most basic building block is the :class:`sanic.app.Sanic` instance. It is not required, but the custom is to instantiate this in a file called `server.py`.

.. column::

    ```python
    # /path/to/server.py

    from sanic import Sanic

    app = Sanic("MyHelloWorldApp")
    ```

## Application context

.. column::

    The most common pattern is to attach a database instance to the application.

.. column::

    ```python
    app = Sanic("MyApp")
    app.ctx.db = Database()
    ```

.. mermaid::

    graph LR
    A[Request] --> B[Handler]
"""


@pytest.fixture(scope="module")
def embedder(offline_embedder):
    return offline_embedder


def test_a_columns_body_is_prose_and_its_neighbours_code_is_its_example():
    found = units(APP)
    assert not any("most basic building block" in (u.attached + u.code_after) for u in found), found
    lead = next(u for u in found if "attach a database" in u.sentence)
    assert lead.sentence == "The most common pattern is to attach a database instance to the application."
    assert lead.code_after == '```python\napp = Sanic("MyApp")\napp.ctx.db = Database()\n```', lead
    assert not any("Request" in u.sentence for u in found)  # a diagram's body is no prose


def test_the_answer_quotes_the_columns_prose_with_its_code(embedder):
    answer = extractive_over("How do I attach a database to my Sanic app?", APP, "guide/basics/app.md",
                             embedder.embed_documents)
    assert "The most common pattern is to attach a database instance to the application [1]" in answer, answer
    assert "app.ctx.db = Database()" in answer and ".. column::" not in answer, answer
    assert "```\nThe most" not in answer, answer
