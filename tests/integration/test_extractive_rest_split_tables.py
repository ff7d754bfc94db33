"""reST tables cut by a chunk boundary (answer/rest_tables.py `tables`, index/chunking.py `_Lines.pref`), with the real
offline model: a chunk that starts with the closing border of a simple table, one that starts inside a grid table,
and a long grid table split between its rows, never inside a row's wrapped cells (break51, Pelican's docs)."""

from __future__ import annotations

import pytest
from askkit import extractive_over
from ragls.answer.markup import clean_markup
from ragls.core.ir import Document
from ragls.index.chunking import chunk_document


@pytest.fixture(scope="module")
def embedder(offline_embedder):
    return offline_embedder


def _answer(question: str, text: str, embedder) -> str:
    return extractive_over(question, text, "themes.rst", embedder.embed_documents)


# A chunk of Pelican's themes.rst as the index cut it: it starts with the closing border of page.html's table.
AFTER_A_TABLE = """=============   ===================================================


tag.html
--------

This template will be processed for each tag, with output generated according
to the ``TAG_SAVE_AS`` setting (`Default:` ``tag/{slug}.html``). If pagination
is active, subsequent pages will by default reside at
``tag/{slug}{number}.html``.

======================  ===================================================
Variable                Description
======================  ===================================================
tag                     The name of the tag being processed
articles                Articles related to this tag
dates                   Articles related to this tag, but ordered by date,
                        ascending
articles_paginator      A paginator object for the list of articles
======================  ===================================================
"""


def test_prose_after_a_tables_closing_border_is_no_table(embedder):
    """The closing border at the chunk's start opens no table: the prose under it keeps its words whole (it read
    as the cells "to the ``TAG_SAV" | "E_AS``"), and the next table's rows read as rows, not as one run-on
    sentence "tag The name of the tag being processed articles Articles ..."."""
    lines = clean_markup(AFTER_A_TABLE, markdown=False).split("\n")
    assert lines[7] == "to the ``TAG_SAVE_AS`` setting (`Default:` ``tag/{slug}.html``). If pagination", lines
    assert "| tag | The name of the tag being processed |" in lines, lines
    answer = _answer("Which setting decides where the tag pages are saved?", AFTER_A_TABLE, embedder)
    assert "`TAG_SAVE_AS` setting (`Default:` `tag/{slug}.html`)" in answer, answer
    assert "TAG_SAV |" not in answer and "tag The name of the tag" not in answer, answer


GRID_ROWS = """|                    |          | will default to the URL of your GitHub     |        | Pages site.   |
|                    |          | Pages site, which is correct in most       |        |               |
|                    |          | cases.                                     |        |               |
+--------------------+----------+--------------------------------------------+--------+---------------+
| ``feed_domain``    | No       | The domain to be prepended to feed URLs    | string | The URL of    |
|                    |          | (Pelican's ``FEED_DOMAIN`` setting). If    |        | your GitHub   |
|                    |          | not passed this will default to the URL of |        | Pages site.   |
|                    |          | your GitHub Pages site.                    |        |               |
+--------------------+----------+--------------------------------------------+--------+---------------+
| ``deploy``         | No       | This is used to determine whether you will | bool   | ``true``      |
|                    |          | deploy the site or not to GitHub Pages.    |        |               |
+--------------------+----------+--------------------------------------------+--------+---------------+
"""


def test_a_chunk_starting_inside_a_grid_table_reads_its_rows_whole(embedder):
    """A chunk whose grid table's top border lies in the chunk before: each row reads whole, with its key, on its
    first line (it read line by line, "will default to the URL of your GitHub | Pages site"); the tail of a row
    whose key is in the chunk before is no row to quote."""
    lines = clean_markup(GRID_ROWS, markdown=False).split("\n")
    assert lines[4] == ("| ``feed_domain`` | No | The domain to be prepended to feed URLs (Pelican's ``FEED_DOMAIN`` "
                        "setting). If not passed this will default to the URL of your GitHub Pages site. | string | "
                        "The URL of your GitHub Pages site. |"), lines
    assert not any("will default to the URL of your GitHub" in x for x in lines[:3]), lines
    answer = _answer("What is the domain prepended to feed URLs?", GRID_ROWS, embedder)
    assert "`feed_domain` | No | The domain to be prepended to feed URLs (Pelican's `FEED_DOMAIN` setting)" in answer, \
        answer
    assert "Pages site, which is correct" not in answer, answer


def _grid_table(rows: int) -> str:
    border = "+" + "-" * 20 + "+" + "-" * 50 + "+"
    out = ["Inputs", "======", "", border, "| Name" + " " * 16 + "| Meaning" + " " * 43 + "|", border.replace("-", "=")]
    for k in range(rows):
        cells = [f"``input_{k}``", f"Input number {k} of the workflow: it is read", "when the site is built and",
                 "defaults to the empty string."]
        out += [f"| {cells[0]:<19}| {cells[1]:<49}|"] + [f"| {'':<19}| {c:<49}|" for c in cells[2:]]
        out.append(border)
    return "\n".join(out) + "\n\nAfter the table.\n"


def test_a_long_grid_table_is_chunked_between_rows():
    """A grid table longer than a chunk (no blank line in it) is split before a row border, never inside a row's
    wrapped cells: every row's lines are whole in the chunk that holds its first line (a chunk may start with the
    last line of the row before, its overlap), and that chunk reads the row whole, with its key."""
    text = _grid_table(30)
    lines = text.split("\n")
    chunks = chunk_document(Document(folder="f", path="workflow.rst", text=text, content_hash="x"))
    assert len(chunks) >= 3, [c.span for c in chunks]
    rows = [k for k, line in enumerate(lines) if line.startswith("| ``input_")]
    for row in rows:
        c = next(c for c in chunks if c.span.start_line <= row <= c.span.end_line)
        assert c.span.end_line >= row + 2, (row, c.span)
        cleaned = clean_markup(c.text, markdown=False).split("\n")
        k = row - c.span.start_line
        assert cleaned[k].endswith("when the site is built and defaults to the empty string. |"), cleaned[k]
