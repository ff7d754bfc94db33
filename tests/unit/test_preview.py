"""answer/preview.py: the one line a search result shows of its focus lines reads as the rendered page, not as markup.

The texts are shaped as the pages a newcomer searched (break50: HTTPie's README, the Helix book's keymap tables,
fish-shell's Sphinx pages): before, `ragls search` showed "To install [MacPorts](https://www.macports.org/), see [its
installation](...)", "fish variables are all :ref:`lists <variables-lists>`", "| `d` | Go to definition (**LSP**) |"
and a grid table's "+------+" borders."""

from dataclasses import replace

from ragls.answer.preview import chunk_preview
from ragls.core.ir import Chunk, LineSpan


def _chunk(path: str, text: str, first_line: int = 0) -> Chunk:
    n = text.count("\n")
    return Chunk(id="c", path=path, text=text, span=LineSpan(first_line, 0, first_line + n, 0), text_hash="h")


def _lines(first: int, last: int) -> LineSpan:
    return LineSpan(first, 0, last, 0)


def test_markdown_links_emphasis_fences_and_table_pipes_are_read_as_text():
    text = ("#### MacPorts\n\nTo install [MacPorts](https://www.macports.org/), see [its\ninstallation]"
            "(https://www.macports.org/install.php).\n\n```bash\n# Install httpie\n$ port install httpie\n```\n\n"
            "| Key | Description | Command |\n| --- | --- | --- |\n| `d` | Go to definition (**LSP**) | `goto_definition` |\n")
    chunk = _chunk("docs/README.md", text, first_line=95)
    assert chunk_preview(chunk, _lines(97, 98)) == "To install MacPorts, see its installation."
    # the code a sentence introduces is shown as written (its shell comment too), without its fence
    assert chunk_preview(chunk, _lines(97, 103)) == ("To install MacPorts, see its installation. # Install httpie "
                                                     "$ port install httpie")
    assert chunk_preview(chunk, _lines(107, 107)) == "`d` | Go to definition (LSP) | `goto_definition`"
    # no focus: the chunk's text from below its heading
    assert chunk_preview(chunk, None).startswith("To install MacPorts, see its installation. # Install httpie")


def test_rest_roles_literals_grid_tables_and_literal_markers_are_read_as_sphinx_shows_them():
    text = ("Quoting variables\n-----------------\n\n"
            "fish variables are all :ref:`lists <variables-lists>`, split when they are *set*, see\n"
            ":doc:`set <cmds/set>` and ``set -x``. For example::\n\n"
            "    # a comment of the example\n    > set foo 1 2 3\n\n"
            "+--------------+----------------+\n| Variable     | Meaning        |\n+==============+================+\n"
            "| ``$status``  | the exit code  |\n+--------------+----------------+\n")
    chunk = _chunk("doc_src/language.rst", text)
    assert chunk_preview(chunk, _lines(3, 4)) == ("fish variables are all lists, split when they are set, see set and "
                                                  "`set -x`. For example:")
    shown = chunk_preview(chunk, _lines(9, 15))
    assert "`$status`" in shown and "the exit code" in shown and "+--" not in shown and "==" not in shown, shown
    # in reST a line of a literal block opening with "#" or ">" is the example's text, not a heading or a quote
    assert chunk_preview(chunk, _lines(6, 7)) == "# a comment of the example > set foo 1 2 3"
    # no focus: below the section title and its underline
    assert chunk_preview(chunk, None).startswith("fish variables are all lists")
    # a footnote is shown (fish's "Piping" page: the preview of its footnote line was empty)
    note = _chunk("doc_src/language.rst", "The ``less`` pager. [#]_\n\n.. [#] A \"pager\" here is a program that"
                  " paginates output.\n")
    assert chunk_preview(note, _lines(2, 2)) == 'A "pager" here is a program that paginates output.'



def test_every_item_of_a_list_and_row_of_a_table_is_shown_apart():
    """HTTPie's auth plugins: the answer's passages leave out list items under four words; the preview shows the
    lines its location names, each item, " · " between them; a package named by a link reads as code
    (`inline._named`), one in emphasis as written."""
    text = ("Additional auth plugins:\n\n- [httpie-aws-auth](https://github.com/x): AWS / Amazon S3\n"
            "- [httpie-edgegrid](https://github.com/y): EdgeGrid\n- *httpie-hmac-auth*: HMAC\n\n"
            "| Key | Action |\n|-----|--------|\n| `Ctrl-i` | Jump forward |\n| `Ctrl-o` | Jump backward |\n")
    chunk = _chunk("docs/README.md", text)
    assert chunk_preview(chunk, _lines(2, 4)) == ("`httpie-aws-auth`: AWS / Amazon S3 · `httpie-edgegrid`: EdgeGrid · "
                                                  "httpie-hmac-auth: HMAC")
    assert chunk_preview(chunk, _lines(8, 9)) == "`Ctrl-i` | Jump forward · `Ctrl-o` | Jump backward"


def test_a_code_file_is_shown_as_written_and_a_long_preview_is_cut():
    code = _chunk("src/app.py", "def f(x):\n    return x ** 2  # *squared*\n")
    assert chunk_preview(code, _lines(0, 1)) == "def f(x): return x ** 2 # *squared*"
    long = _chunk("guide.md", "word " * 100 + "\n")
    shown = chunk_preview(long, _lines(0, 0), limit=40)
    assert len(shown) == 40 and shown.endswith("…")


def test_pymdownx_keys_read_as_the_keys_the_page_shows():
    """Textual's pages (108 pymdownx.keys combinations): the preview and the answer showed "binds the keys ++r++,
    ++g++, and ++b++" and "the Command Palette (++ctrl+p++)"; they read as the rendered page's keys, in code spans
    as a `<kbd>` reads. C++ and a code span's "++" stay as written."""
    from ragls.answer.passages import units

    text = ("## Bindings\n\nThe following example binds the keys ++r++, ++g++, and ++b++ to an action.\n\n"
            "The theme can be changed at runtime via the Command Palette (++ctrl+p++) or ++shift+page-up++.\n\n"
            "Write C++ and g++ as they are, and `i++ + ++j` too.\n")
    chunk = _chunk("docs/guide/input.md", text)
    assert chunk_preview(chunk, _lines(2, 2)) == "The following example binds the keys `R`, `G`, and `B` to an action."
    assert chunk_preview(chunk, _lines(4, 4)) == ("The theme can be changed at runtime via the Command Palette "
                                                  "(`Ctrl+P`) or `Shift+Page Up`.")
    assert chunk_preview(chunk, _lines(6, 6)) == "Write C++ and g++ as they are, and `i++ + ++j` too."
    assert [u.sentence for u in units(text)][:2] == [
        "The following example binds the keys `R`, `G`, and `B` to an action.",
        "The theme can be changed at runtime via the Command Palette (`Ctrl+P`) or `Shift+Page Up`."]


def test_a_focus_opening_on_the_hits_own_title_does_not_repeat_it():
    """A hit no word of the query singled out lines of (a closest match) has its whole chunk as focus, its section
    title first; result lists show the title beside the preview: "Where to go next — Where to go next The ..."."""
    text = "## Where to go next\n\n- The frobnicator guide explains merging.\n- The FAQ answers questions.\n"
    chunk = replace(_chunk("README.md", text, first_line=10), title="Quillmark > Where to go next")
    assert chunk_preview(chunk, _lines(10, 13)) == "The frobnicator guide explains merging. · The FAQ answers questions."
    assert chunk_preview(chunk, _lines(10, 10)) == "Where to go next"  # a heading alone stays
    # another section's title inside the focus stays: it is not what the result list shows
    other = replace(_chunk("README.md", "## Install\n\nRun it.\n\n## Where to go next\n\nRead the guide.\n"),
                    title="Quillmark > Install")
    assert chunk_preview(other, _lines(2, 6)) == "Run it. Where to go next Read the guide."
    other = replace(other, title="Quillmark > Where to go next")  # (not its first heading: nothing dropped)
    assert chunk_preview(other, _lines(0, 2)) == "Install Run it."
