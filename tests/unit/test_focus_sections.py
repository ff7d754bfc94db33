"""A focus found by keywords (`retrieval.focus.keyword_focus`, `answer.focus.sentence_focus` when no passage shares a
word with the question: code, a table) stays in one section too: its run of lines never runs over a section title.
Real chunker, no model."""

from __future__ import annotations

from ragls.answer.blocks import section_titles
from ragls.answer.focus import sentence_focus
from ragls.core.analysis import stems
from ragls.core.ir import Hit
from ragls.index.chunking import chunk_document
from ragls.retrieval.focus import keyword_focus
from ragls.sources.load import load_text

PAGE = """# Setup

    tool init --fast

## Usage

    tool serve --port 8080
"""


def test_a_keyword_run_stops_at_a_section_title():
    [chunk] = chunk_document(load_text("page.md", PAGE))
    terms = frozenset(stems("init serve"))
    lines = PAGE.splitlines()
    init, serve = lines.index("    tool init --fast"), lines.index("    tool serve --port 8080")
    assert serve - init < 6  # both fit in one run of FOCUS_SENTENCE_LINES: only the title keeps them apart
    span = keyword_focus(chunk, terms, 6)
    assert (span.start_line, span.end_line) == (init, serve)  # no breaks: the run over "## Usage"
    breaks = frozenset(k for k, _ in section_titles(chunk.text))
    span = keyword_focus(chunk, terms, 6, breaks=breaks)
    assert (span.start_line, span.end_line) == (init, init)  # ties to the earliest, inside "# Setup"
    [hit] = sentence_focus([Hit(chunk=chunk, score=1.0, window=chunk.span)], "init serve")
    assert hit.focus.start_line >= serve or hit.focus.end_line < lines.index("## Usage"), hit.focus
