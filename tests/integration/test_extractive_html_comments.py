"""HTML comments in code examples are what the reader must type (answer/markup.py `_html_comments`), with the real
offline model: Ruff's formatter docs show "<!-- fmt:off -->" around a Markdown code block and name
"`<!-- blacken-docs:off -->`" in prose; the extractive answer quoted both without the comments (break51)."""

from __future__ import annotations

import pytest
from askkit import extractive_over
from ragls.answer.markup import clean_markup


@pytest.fixture(scope="module")
def embedder(offline_embedder):
    return offline_embedder


RUFF = """## Markdown code formatting

While formatting suppression comments will be handled as
usual within code blocks, the formatter will also skip formatting any code block
surrounded by appropriate HTML comments, such as:

````markdown
<!-- fmt:off -->
```py
print( 'hello' )
```
<!-- fmt:on -->
````

<!-- This note is for the docs' editors: keep the example above in sync. -->

The Ruff formatter will also recognize HTML comments from blacken-docs,
`<!-- blacken-docs:off -->` and `<!-- blacken-docs:on -->`, which are equivalent
to `<!-- fmt:off -->` and `<!-- fmt:on -->` respectively.
"""


def _answer(question: str, text: str, path: str, embedder) -> str:
    return extractive_over(question, text, path, embedder.embed_documents)


def test_comments_in_a_code_block_and_a_code_span_are_quoted(embedder):
    answer = _answer("How do I keep the formatter from formatting a code block in a Markdown file?", RUFF,
                     "formatter.md", embedder)
    assert "  <!-- fmt:off -->\n  ```py\n  print( 'hello' )\n  ```\n  <!-- fmt:on -->" in answer, answer
    answer = _answer("Which blacken-docs comments does the formatter recognize?", RUFF, "formatter.md", embedder)
    assert "`<!-- blacken-docs:off -->` and `<!-- blacken-docs:on -->`" in answer, answer


def test_comments_in_prose_stay_hidden_and_lines_do_not_move():
    """A comment in prose is no text, in Markdown and reST alike; a reST literal block keeps its comment; every
    line stays where it was (citations are line numbers)."""
    cleaned = clean_markup(RUFF)
    assert "docs' editors" not in cleaned and cleaned.count("\n") == RUFF.count("\n"), cleaned
    rest = "Templates\n=========\n\nA base template::\n\n    <!-- header -->\n    <h1>{{ title }}</h1>\n\nDone <!-- x -->.\n"
    cleaned = clean_markup(rest, markdown=False)
    assert "    <!-- header -->" in cleaned.split("\n") and "x -->" not in cleaned, cleaned
