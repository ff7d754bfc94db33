"""Markdown chunk texts read as blocks by markdown-it (answer/blocks.py `markdown_blocks`): exact source lines, list
items apart from the blocks nested in them, blockquotes read as what they hold, and chunk windows that cut a table
or a definition list."""

from __future__ import annotations

from ragls.answer.blocks import is_markdown, markdown_blocks
from ragls.answer.passages import units


def _shape(text: str) -> list[tuple[str, int, int]]:
    return [(b.kind, b.start, b.start + len(b.lines) - 1) for b in markdown_blocks(text)]


def test_list_item_apart_from_the_fence_in_it():
    text = ("Steps:\n\n"
            "1. Install the package with pip:\n"
            "   ```\n"
            "   pip install x\n"
            "   ```\n"
            "2. Run it\n"
            "   with care.\n\n"
            "   A second paragraph of the item.\n"
            "   - nested a\n"
            "   - nested b\n")
    assert _shape(text) == [("para", 0, 0), ("list", 2, 2), ("code", 3, 5), ("list", 6, 7), ("para", 9, 9),
                            ("list", 10, 11)]
    install = next(u for u in units(text) if u.sentence.startswith("Install"))
    assert (install.line, install.block_end) == (2, 5) and "pip install x" in install.attached


def test_blockquote_is_read_as_the_blocks_it_holds():
    text = ("> ### Keywords\n"
            ">\n"
            "> The language reserves these words:\n"
            ">\n"
            "> - `fn` declares a function\n"
            "> - `let` binds a variable\n")
    assert _shape(text) == [("skip", 0, 0), ("para", 2, 2), ("list", 4, 5)]
    lead = units(text)[0]
    assert lead.sentence == "The language reserves these words:" and ">" not in lead.attached


def test_cut_table_and_cut_definition_list():
    rows = "| `&=` | `var &= expr` | Bitwise AND and assignment |\n| `*` | `*expr` | Dereference |\n"
    assert _shape(rows) == [("table", 0, 1)]
    assert [u.sentence for u in units(rows)][1] == "`*` | `*expr` | Dereference"
    cut = ": Is the default if Rich is not installed.\n  It renders a plain traceback.\n\n: Another definition.\n"
    assert _shape(cut) == [("deflist", 0, 3)]
    whole = "`plain_traceback`\n\n: Is the default if Rich is not installed.\n"
    assert [u.sentence for u in units(whole)] == ["`plain_traceback`: Is the default if Rich is not installed."]


def test_html_paragraphs_are_not_prose():
    text = ('<img alt="Two tables: the first table holds\n'
            'the stack data." src="a.svg" />\n\n'
            '<span class="caption">Figure 4-1: A string</span>\n\n'
            "<kbd>Ctrl</kbd>-<kbd>C</kbd> stops the running program.\n")
    assert _shape(text) == [("skip", 0, 1), ("skip", 3, 3), ("para", 5, 5)]


def test_markdown_paths():
    assert is_markdown("docs/guide.md") and is_markdown("page.html") and is_markdown("[selection]")
    assert not is_markdown("docs/api.rst") and not is_markdown("docs/topics/http.TXT")


def test_shortcut_reference_links_read_as_their_text():
    """"[Rich]" is a link whose definition is mostly outside the chunk (at the end of the file): its text is read,
    without brackets; "httpx[http2]" and "[x]" stay as written."""
    text = "Uses [Rich] to render a colorful traceback, see [*orjson*] and httpx[http2] or [x].\n"
    assert [u.sentence for u in units(text)] == [
        "Uses Rich to render a colorful traceback, see *orjson* and httpx[http2] or [x]."]
