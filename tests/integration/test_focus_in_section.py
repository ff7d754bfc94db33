"""A hit's focus (`focusRange`) on a small page, one chunk of several sections: a question one section answers is
focused inside that section; a question whose two parts two sections answer is focused on both, across the
subsection's title (kept inside one section, 2 focus hits of the 22 dev sets were lost and none gained — an FAQ's
question and the answer under its "#### Answer" title: bench/history/session-60.md, "Focus across a section
title"). Real stores (tantivy, LanceDB, SQLite manifest) and the offline all-MiniLM-L6-v2, through
`RagWorkspace.query` as every front calls it."""

from __future__ import annotations

import pytest
from offline_index import extractive_workspace, file_lines, line_of

REST = """Setup
=====

Install the tool with pip and run the init command.
The config file lives in the home directory.

Usage
-----

Run the serve command to start the daemon.
It listens on port 8080 by default.
"""
MARKDOWN = REST.replace("Setup\n=====", "# Setup").replace("Usage\n-----", "## Usage")


@pytest.fixture(scope="module", params=["guide.rst", "guide.md"])
def page(request, tmp_path_factory):
    """(workspace, path, text): one page per workspace (the two pages' text is the same: one would hide the other)."""
    text = REST if request.param == "guide.rst" else MARKDOWN
    with extractive_workspace(tmp_path_factory.mktemp("sections"), {request.param: text}) as w:
        yield w, request.param, text


@pytest.mark.parametrize("question", [
    "where is the config file and how do I run the daemon",
    "what command starts the daemon and where does the config file live",
])
def test_a_two_part_question_is_focused_on_both_sections(page, question):
    ws, path, text = page
    hit = next(h for h in ws.query(question, top_k=5).hits if h.chunk.path == path)
    first, last = file_lines(hit.focus)
    assert first <= line_of(text, "The config file lives") and line_of(text, "Run the serve command") <= last, \
        (first, last)


def test_a_question_one_section_answers_is_focused_inside_it(page):
    ws, path, text = page
    hit = next(h for h in ws.query("which port does the daemon listen on", top_k=5).hits if h.chunk.path == path)
    first, last = file_lines(hit.focus)
    assert first > line_of(text, "Usage"), (first, last)  # the Usage section's lines only
    assert first <= line_of(text, "listens on port 8080") <= last
