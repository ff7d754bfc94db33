"""A Markdown page that opens with front matter and has no "# " heading (FAQtory's questions, Jekyll/Hugo/Docusaurus
pages) is cited by its front matter's `title`, and its YAML lines are never quoted nor a focus line. Before, the
chunk's own markdown-it read titled the source 'title: "Why do my jobs run twice?" alt_titles: - "Duplicate jobs"'
(the closing "---" under the indented list made the YAML a setext heading), and a focus covered the YAML lines
when the list was not indented ("alt_titles:" / "  - ..."). Real stores (tantivy, LanceDB), the offline model,
`RagWorkspace.ask` without an LLM; `to_wire_source` is what every front shows."""

from __future__ import annotations

import pytest
from offline_index import extractive_workspace, file_lines
from ragls.answer.blocks import markdown_blocks
from ragls.index.front_matter import front_matter_title, leading_front_matter
from ragls.lsp.wire import to_wire_source

TWICE = """---
title: "Why do my jobs run twice?"
alt_titles:
    - "Duplicate jobs"
---

A job that exceeds its visibility timeout is handed to a second worker while the first one still runs it.

Raise `visibility_timeout` above the longest run time of your jobs to stop the duplicates.
"""

SILENT = """---
title: "The worker exits without a message."
alt_titles:
  - "Worker stops silently"
---

A worker started with `--quiet` logs nothing, not even the reason it exits.

Start it with `--log-level debug` to see why the worker stops.
"""


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    files = {"questions/twice.question.md": TWICE, "questions/silent.question.md": SILENT}
    with extractive_workspace(tmp_path_factory.mktemp("frontmatter"), files) as w:
        yield w


@pytest.mark.parametrize(("question", "path", "title", "needle"), [
    ("Why does the same job run twice on two workers?", "questions/twice.question.md",
     "Why do my jobs run twice?", "handed to a second worker"),
    ("Why does the worker exit without a message?", "questions/silent.question.md",
     "The worker exits without a message.", "logs nothing"),
])
def test_front_matter_page_is_cited_by_its_title_and_never_quoted(ws, question, path, title, needle):
    result = ws.ask(question)
    assert needle in result.text, result.text
    assert "title:" not in result.text and "alt_titles" not in result.text, result.text
    hit = next(h for _, h in result.sources if h.chunk.path == path)
    assert to_wire_source(hit.chunk, hit.focus)["title"] == title
    start, _ = file_lines(hit.focus)
    assert start > 5, (start, result.text)  # the focus starts below the closing "---" (line 5)


def test_front_matter_inside_a_file_is_two_thematic_breaks():
    """Only a block of YAML-looking lines is front matter: a chunk from inside a page that opens with "---", a
    "Note: ..." paragraph and prose before the next "---" keeps its paragraphs."""
    text = "---\nNote: the cache is per user.\n\nEvery user gets a cache folder of their own.\n\n---\n"
    assert leading_front_matter(text) == 0 and front_matter_title(text) == ""
    assert [b.kind for b in markdown_blocks(text) if b.kind == "para"] == ["para", "para"]
    assert leading_front_matter(TWICE) == 5 and front_matter_title(SILENT) == "The worker exits without a message."
    assert [b.start for b in markdown_blocks(SILENT)] == [6, 8]  # the YAML lines (0-4) are no block


SECTION = """+++
title = "Section"
weight = 20
+++

A section is created whenever a directory holds an `_index.md` file.

## Sorting pages

Set `sort_by` in the section's front matter. Pages without a date are ignored when the section sorts by date:
they are not rendered in the section's listing.

## Pagination

Set `paginate_by` to a positive number to split the listing into pages.
"""


def test_a_page_titled_by_its_front_matter_is_the_root_of_its_indexed_titles(tmp_path):
    """A page without a "# " title (Zola, Hugo) is indexed under its front matter's title: the section that
    answers is "Section > Sorting pages", its page's name searchable with its own (layout 7)."""
    with extractive_workspace(tmp_path, {"content/section.md": SECTION}) as w:
        hits = w.retrieve("Why did posts without a date vanish from the section sorted by date?", 5)
        top = next(h for h in hits if h.chunk.path == "content/section.md")
        assert top.chunk.title == "Section > Sorting pages"  # main: "Sorting pages"
