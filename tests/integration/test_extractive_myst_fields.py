"""Extractive answers over MyST Markdown pages with a field list (":depth: text" lines, myst-parser's `fieldlist`
extension, as reST writes them) and comment lines ("% text"): each field reads as an item of its own, never one
sentence running the fields together, and a commented-out line is never quoted (answer/rest.py `fields`,
answer/markup.py `_MYST_COMMENT`); a link with no text ("[](#pkg.func)", MyST's implicit text) reads as its target
(answer/inline.py `_link`). Real stores (tantivy, LanceDB), the offline model, `RagWorkspace.ask` without
an LLM."""

from __future__ import annotations

import pytest
from offline_index import extractive_workspace, file_lines, line_of
from ragls.answer.markup import clean_markup

CONTENTS = """# Tables of contents

A page can show its own table of contents with the `contents` directive.
The directive accepts these options:

:depth: Limits the table of contents to this many levels of headings.
:local: Lists only the headings of the current section, not the whole page.
:backlinks: Adds a link back to the table of contents at the end of every section.

Themes often show the same table in a sidebar.
"""

ARCHIVE = """# Archives

% TODO: the archive is compressed with zstandard once the release pipeline supports it.
% The archive format is chosen with the `--compression` flag.

The `bundle` command writes the archive of the site to the `dist/` folder.
The layout of the archive is described by [](#bundle.layout.describe), and its manifest by [](manifest.md).

```console
% bundle --out dist/
```
"""

LINKS = """# Writing links

Write a link with no text as `[](#target)`, and the title of its target becomes the text of the link.
A table cell is addressed as `grid[row][column]` in the templates.
"""


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    with extractive_workspace(tmp_path_factory.mktemp("mystfields"),
                              {"contents.md": CONTENTS, "archive.md": ARCHIVE, "links.md": LINKS}) as ws:
        yield ws


def test_each_field_of_a_field_list_is_an_item_of_its_own(ws):
    """The `depth` field answers as an item of its own led by its name (here under the ":" sentence before the
    list, the list quoted whole); before, the three fields (one paragraph to
    Markdown) were quoted as one sentence ":depth: Limits ... :local: Lists ... :backlinks: ...". Its citation
    holds its own line."""
    result = ws.ask("How do I limit how many levels of headings the table of contents shows?")
    items = [line.strip() for line in result.text.splitlines() if line.strip().startswith("- ")]
    assert any(b.startswith("- depth: Limits the table of contents to this many levels of headings.") for b in items), \
        result.text
    assert ":local:" not in result.text and ":depth:" not in result.text, result.text
    hit = next(h for n, h in result.sources if n == 1)
    start, end = file_lines(hit.focus)
    assert start <= line_of(CONTENTS, ":depth:") <= end, (start, end)


def test_field_lists_stay_as_written_where_they_are_no_list():
    """An indented field is a directive's option (mkdocs-click's "    :module: x"), a field under a line of text
    is that paragraph's, a lone field at a line's start is Markdown's emoji, and a field in a code fence is code:
    all stay as written."""
    for text in ("::: mkdocs-click\n    :module: mkdocs.__main__\n    :command: cli\n",
                 "A paragraph\n:depth: 2\n:local: yes\n",
                 ":warning: Back up the database first.\n",
                 "```{mydirective}\n:key1: val1\n:key2: val2\n```\n"):
        assert clean_markup(text) == text.replace("::: mkdocs-click", ""), text


def test_a_commented_out_line_is_never_quoted(ws):
    """The two "% ..." lines are MyST comments, not rendered: the answer quotes the `bundle` sentence and neither
    the TODO nor the flag it names; the "% bundle" prompt in the console block is code and stays."""
    answer = ws.ask("Where does the bundle command write the archive, and how is it compressed?").text
    assert "writes the archive of the site to the `dist/` folder" in answer, answer
    assert "zstandard" not in answer and "--compression" not in answer and "TODO" not in answer, answer
    assert clean_markup(ARCHIVE).splitlines()[2:4] == ["", ""]
    assert "% bundle --out dist/" in clean_markup(ARCHIVE)


def test_a_link_without_text_reads_as_its_target(ws):
    """MyST fills "[](#bundle.layout.describe)" with the target's title when it builds; ragls cannot resolve it, so
    the answer names the target (an object as code, a page as its path) where it read "described by , and its
    manifest by ."."""
    answer = ws.ask("What describes the layout of the archive?").text
    assert "is described by `bundle.layout.describe`, and its manifest by manifest.md" in answer, answer


def test_a_link_in_a_code_span_is_code(ws):
    """"`[](#target)`" shows the syntax: it is quoted as written (it read "`target`"), and so is "`grid[row][column]`"
    (read as a reference link "[row][column]": "`gridrow`")."""
    answer = ws.ask("How do I write a link with no text, so that the title of its target is used?").text
    assert "Write a link with no text as `[](#target)`, and the title" in answer, answer
    answer = ws.ask("How is a table cell addressed in the templates?").text
    assert "`grid[row][column]`" in answer, answer
