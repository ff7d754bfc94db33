"""chunking: each chunk's title (Markdown heading paths, front matter, reST and AsciiDoc titles, code
definitions) and the merging of small sections under the first one's title."""

from __future__ import annotations

import re

from chunkkit import assert_covers, assert_exact, doc
from ragls.index.chunking import chunk_document

# -- markdown structure -------------------------------------------------------------------------------------

def test_heading_paths_and_markup_stripped():
    text = (
        "---\ntitle: Not a heading\nlayout: page\n---\n\n"
        "# Install *ragls*\n\n" + "Install words. " * 20 + "\n\n"
        "## The `retries` [setting](cfg.md)\n\n" + "Retry words. " * 20 + "\n\n"
        "### Back-off\n\n" + "Backoff words. " * 20 + "\n\n"
        "## Timeouts\n\n" + "Timeout words. " * 20 + "\n\n"
        "Setext Heading\n==============\n\n" + "Setext words. " * 20 + "\n"
    )
    chunks = chunk_document(doc(text, "guide.md"), chunk_size=400, overlap=0)
    titles = [c.title for c in chunks]
    # The short front matter is merged into the first section; it never becomes a heading itself.
    assert titles == [
        "Install ragls",
        "Install ragls > The retries setting",
        "Install ragls > The retries setting > Back-off",
        "Install ragls > Timeouts",
        "Setext Heading",
    ]
    assert chunks[0].text.startswith("---\ntitle: Not a heading\nlayout: page\n---\n\n# Install *ragls*\n")
    assert (chunks[0].span.start_line, chunks[0].span.end_line) == (0, 7)
    assert (chunks[1].span.start_line, chunks[1].span.end_line) == (9, 11)
    assert chunks[1].text.startswith("## The `retries` [setting](cfg.md)")
    assert chunks[4].span.start_line == 21
    assert chunks[4].text.startswith("Setext Heading\n===")
    # Front matter alone before a big section stays untitled.
    big = "---\ntitle: Not a heading\n---\n# H\n\n" + "word " * 100 + "\n"
    parts = chunk_document(doc(big, "b.md"), chunk_size=200, overlap=0)
    assert parts[0].title == "" and parts[0].text == "---\ntitle: Not a heading\n---"
    assert {c.title for c in parts[1:]} == {"H"}
    assert_exact(text, chunks)


def test_small_sections_are_merged_with_first_title():
    text = "# Top\n\nshort\n\n## A\n\na text\n\n## B\n\nb text\n"
    chunks = chunk_document(doc(text, "x.md"))
    assert len(chunks) == 1
    assert chunks[0].title == "Top"
    assert chunks[0].text == text.rstrip()
    assert (chunks[0].span.start_line, chunks[0].span.end_line) == (0, 10)


def test_merge_stops_at_a_higher_level_heading():
    text = "## A\n\naaa\n\n### A1\n\nbbb\n\n# B\n\nccc\n"
    chunks = chunk_document(doc(text, "x.md"))
    assert [c.title for c in chunks] == ["A", "B"]
    assert chunks[0].text == "## A\n\naaa\n\n### A1\n\nbbb"


# -- code and text --------------------------------------------------------------------------------------------

def test_code_titles_and_blank_line_breaks():
    funcs = []
    for i in range(6):
        body = "".join(f"    total += {j} * factor  # step {j}\n" for j in range(8))
        funcs.append(f"def compute_{i}(factor):\n    total = 0\n{body}    return total\n")
    text = "import os\n\n\n" + "\n\n".join(funcs) + "\n\nclass Runner:\n    pass\n"
    chunks = chunk_document(doc(text, "mod.py"), chunk_size=700, overlap=0)
    assert len(chunks) >= 3
    assert_exact(text, chunks)
    assert_covers(text, chunks)
    for c in chunks:
        start = text.index(c.text)
        # Reference: the last def/class at or before the chunk's first line, else the first one inside it.
        names = re.findall(r"^(?:def|class) (\w+)", text[: start + len(c.text.split("\n")[0])], re.MULTILINE)
        inside = re.findall(r"^(?:def|class) (\w+)", c.text, re.MULTILINE)
        assert c.title == (names[-1] if names else inside[0] if inside else ""), c.text[:40]
    assert chunks[0].title == "compute_0"  # "import os" comes before any def: first def inside the chunk
    assert all(c.text.startswith(("import", "def ", "class ")) for c in chunks)  # breaks at blank lines
    long_func = "class Big:\n    def run(self):\n" + "        step()\n" * 100
    parts = chunk_document(doc(long_func, "big.py"), chunk_size=300, overlap=0)
    assert len(parts) > 3 and parts[1].text.startswith("        step()")
    assert [c.title for c in parts] == ["Big"] + ["run"] * (len(parts) - 1)


def test_code_title_of_go_and_rust():
    go = "package x\n\nfunc (s *Server) Handle(w http.ResponseWriter) {\n" + "\tdo()\n" * 100 + "}\n"
    chunks = chunk_document(doc(go, "s.go"), chunk_size=200, overlap=0)
    assert [c.title for c in chunks[1:]] == ["Handle"] * (len(chunks) - 1)
    rs = "pub(crate) async fn fetch_all<T>(n: usize) {\n" + "    go();\n" * 60 + "}\n"
    assert {c.title for c in chunk_document(doc(rs, "lib.rs"), chunk_size=200, overlap=0)} == {"fetch_all"}


def test_text_titles_rst():
    text = "Overview\n========\n\n" + "Words here.\n" * 30 + "\nDetails\n-------\n\n" + "More words.\n" * 30
    chunks = chunk_document(doc(text, "readme.rst"), chunk_size=300, overlap=0)
    assert chunks[0].title == "Overview"
    assert chunks[-1].title == "Details"
    assert "" not in {c.title for c in chunks}


def test_a_text_chunk_opening_on_a_heading_is_that_section():
    # The overlap starts the second piece on the blank line before "Beta" (the paragraph above is one long line):
    # trimmed, the chunk opens on "Beta", so it is titled "Beta", not by the section before the blank line (restic's
    # FAQ chunk "How to prioritize restic's IO and CPU time" was titled "How can I specify encryption passwords
    # automatically?").
    first = "Alpha\n=====\n\n" + " ".join(f"alpha{i}" for i in range(40)) + "\n\n"
    text = first + "Beta\n====\n\n" + " ".join(f"beta{i}" for i in range(40)) + "\n"
    chunks = chunk_document(doc(text, "page.rst"), chunk_size=len(first) + 5, overlap=100)
    assert [(c.text.split("\n")[0], c.title) for c in chunks] == [("Alpha", "Alpha"), ("Beta", "Beta")]
    # a section's label (and a comment) before its heading is no text of its own: a chunk opening on it is that
    # section (beets' "update" command, labelled ``.. _update-cmd:``, was titled "move")
    text = first + ".. _beta:\n\n.. a comment\n   on two lines\n\nBeta\n====\n\n" + " ".join(f"beta{i}" for i in range(40))
    chunks = chunk_document(doc(text, "page.rst"), chunk_size=len(first) + 5, overlap=100)
    assert [(c.text.split("\n")[0], c.title) for c in chunks] == [("Alpha", "Alpha"), (".. _beta:", "Beta")]
    # a directive is text: a chunk opening on a note before the next heading stays in its section
    text = first + ".. note::\n\n   Shown.\n\nBeta\n====\n\n" + " ".join(f"beta{i}" for i in range(40))
    chunks = chunk_document(doc(text, "page.rst"), chunk_size=len(first) + 5, overlap=100)
    assert [(c.text.split("\n")[0], c.title) for c in chunks] == [("Alpha", "Alpha"), (".. note::", "Alpha")]

# The shape of urllib3's v2-migration-guide.rst: an overlined document title, bold, literal and role titles.
MIGRATION_RST = """==================
v2 Migration Guide
==================

urllib3 2.x introduces a few breaking changes for users of 1.x.

**🚀 Migrating from 1.x to 2.x**
--------------------------------

Python 3.10+ is required and the default TLS version is now TLS 1.2.

``ImportError: cannot import name 'DEFAULT_CIPHERS' from 'urllib3.util.ssl_'``
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~

This happens when a package still imports a name that urllib3 2.x removed.

Using :class:`~urllib3.util.Retry` with backoff::
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~

Pass a Retry object with a backoff factor to the pool manager.
"""


def test_rest_titles_are_plain_words():
    chunks = chunk_document(doc(MIGRATION_RST, "v2-migration-guide.rst"), chunk_size=120, overlap=0)
    titles = {c.text.splitlines()[-1][:24]: c.title for c in chunks}
    assert titles["urllib3 2.x introduces a"] == "v2 Migration Guide"
    assert chunks[0].text.startswith("=====") and chunks[0].title == "v2 Migration Guide"  # overline: same title
    assert titles["Python 3.10+ is required"] == "🚀 Migrating from 1.x to 2.x"
    assert titles["This happens when a pack"] == "ImportError: cannot import name 'DEFAULT_CIPHERS' from 'urllib3.util.ssl_'"
    assert titles["Pass a Retry object with"] == "Using Retry with backoff"


def test_plain_heading_strips_inline_markup():
    from ragls.index.headings import plain_heading

    assert plain_heading("**✨ Optimized for Python 3.10+**") == "✨ Optimized for Python 3.10+"
    assert plain_heading("*Emphasis* and ``literal``") == "Emphasis and literal"
    assert plain_heading(":ref:`Retries <retries>` and :func:`urllib3.request`") == "Retries and urllib3.request"
    assert plain_heading("`Python docs <https://docs.python.org>`_ example::") == "Python docs example"
    assert plain_heading("C++ and 2*3*4 stay") == "C++ and 2*3*4 stay"


def test_front_matter_needs_a_key_line():
    # A leading thematic break is not front matter: the heading after it still counts.
    text = "---\n# Title\n\ntext\n\n---\n\n## Two\n\n" + "x " * 200 + "\n"
    chunks = chunk_document(doc(text, "t.md"), chunk_size=200, overlap=0)
    assert chunks[0].title == "Title"
    assert {c.title for c in chunks[1:]} == {"Title > Two"}
    toml = '+++\ntitle = "x"\n+++\n# H\n\n' + "w " * 200 + "\n"
    parts = chunk_document(doc(toml, "h.md"), chunk_size=200, overlap=0)
    assert parts[0].title == "" and parts[0].text == '+++\ntitle = "x"\n+++'
    assert {c.title for c in parts[1:]} == {"H"}


ZOLA_PAGE = """+++
title = "Section"
weight = 20
+++

A section is created whenever a directory holds an `_index.md` file.

## Front matter

""" + "The front matter sets the section's variables. " * 8 + """

## Pagination

Set `paginate_by` to a positive number.

## Sorting pages

""" + "Pages without a date are ignored when sorting by date. " * 8 + "\n"


def test_a_page_titled_by_its_front_matter_heads_its_heading_paths():
    """A page without a "# " title (Hugo, Zola, Jekyll, Docusaurus show the front matter's `title` as its heading)
    is titled by its front matter, as a page with a "# " title is by it: "Section > Pagination", not
    "Pagination". Merged sibling sections keep the first one's path under that title."""
    chunks = chunk_document(doc(ZOLA_PAGE, "content/section.md"), chunk_size=420, overlap=0)
    titles = [c.title for c in chunks]
    assert titles[0].startswith("Section")
    assert "Section > Front matter" in titles
    assert any(t in ("Section > Pagination", "Section > Sorting pages") for t in titles), titles
    assert all(t == "Section" or t.startswith("Section > ") for t in titles), titles
    assert "Section > Pagination" in {c.title for c in chunk_document(doc(ZOLA_PAGE, "s.md"), chunk_size=150,
                                                                            overlap=0)}
    # a page with its own "# " title keeps it as the root, front matter or not
    titled = ZOLA_PAGE.replace("A section is created", "# Sections\n\nA section is created")
    assert {c.title.split(" > ")[0] for c in chunk_document(doc(titled, "t.md"), chunk_size=420, overlap=0)
            if c.title} == {"Sections"}


def test_a_rest_line_of_equals_signs_and_words_is_no_heading():
    """reST has no marker headings: a simple table's border ("======  =====") and a line starting "== " (Pelican's
    settings: "== .html. ``{base_name}``") titled chunks as AsciiDoc headings would ("===================================
    ======================="); in an AsciiDoc file "== Install" is still one."""
    table = ("======  ==================\nprefix  namespace\n======  ==================\nre      regular expressions\n"
             "======  ==================\n\n")
    text = "Selectors\n=========\n\n" + "Selector words. " * 30 + "\n\n" + table + "== .html. ``{base_name}`` below\n\n" + \
        "More words. " * 30 + "\n"
    chunks = chunk_document(doc(text, "topics/selectors.rst"), chunk_size=300, overlap=0)
    assert {c.title for c in chunks} == {"Selectors"}, [c.title for c in chunks]
    adoc = chunk_document(doc("= Book\n\n== Install\n\n" + "Install words. " * 40 + "\n", "guide.adoc"), chunk_size=300,
                          overlap=0)
    assert adoc[-1].title == "Install"
