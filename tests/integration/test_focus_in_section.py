"""A hit's focus (`focusRange`) stays inside one section of its chunk: a small page is one chunk of several
sections, and the answering sentence's neighbour joined it across the next section's title (a 12-line reST page:
focus 5-10 over "Usage" / "-----", half of it another section's). Real stores (tantivy, LanceDB, SQLite manifest)
and the offline all-MiniLM-L6-v2, through `RagWorkspace.query` as every front calls it."""

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


@pytest.mark.parametrize(("question", "needle"), [
    ("where is the config file and how do I run the daemon", "The config file lives"),
    ("what command starts the daemon and where does the config file live", "The config file lives"),
    ("which port does the daemon listen on", "listens on port 8080"),
])
def test_the_focus_never_runs_over_a_section_title(page, question, needle):
    ws, path, text = page
    hit = next(h for h in ws.query(question, top_k=5).hits if h.chunk.path == path)
    first, last = file_lines(hit.focus)
    usage = line_of(text, "Usage")
    assert last < usage or first > usage, (first, last)  # one section's lines: never across the title
    assert first <= line_of(text, needle) <= last
