"""HTML blocks of a Markdown text read as the Markdown they render as, line for line (index/html_blocks.py), and the
chunks of such a page: their text holds no tag or attribute, their spans are the file's lines."""

from __future__ import annotations

import pytest
from ragls.core.ir import Document
from ragls.index.chunking import chunk_document
from ragls.index.html_blocks import read_html_blocks

# The shape of Cargo's generated command pages (rust-lang/cargo, src/doc/src/commands/cargo-add.md, MIT OR
# Apache-2.0): every option a <dt>/<dd> pair, some definitions over several lines, one holding a list.
OPTIONS = """## OPTIONS

<dl>

<dt class="option-term" id="option-cargo-add---dev"><a class="option-anchor" href="#option-cargo-add---dev"><code>--dev</code></a></dt>
<dd class="option-desc"><p>Add as a <a href="../reference/specifying-dependencies.html#development-dependencies">development dependency</a>.</p>
</dd>


<dt class="option-term" id="option-cargo-add---registry"><a class="option-anchor" href="#option-cargo-add---registry"><code>--registry</code> <em>registry</em></a></dt>
<dd class="option-desc"><p>Name of the registry to use. If not specified, the default registry is used,
which is defined by the <code>registry.default</code> config key.</p>
<p>Unstable &amp; nightly-only.</p>
</dd>


<dt class="option-term" id="option-cargo-build---color"><code>--color</code> <em>when</em></dt>
<dd class="option-desc"><p>Control when colored output is used. Valid values:</p>
<ul>
<li><code>auto</code> (default): Automatically detect if color support is available.</li>
<li><code>never</code>: Never display colors.</li>
</ul>
</dd>

</dl>
"""


def test_a_definition_list_reads_as_terms_and_definitions_on_the_source_lines():
    read = read_html_blocks(OPTIONS)
    assert read.count("\n") == OPTIONS.count("\n")
    lines = read.split("\n")
    assert lines[:4] == ["## OPTIONS", "", "", ""]
    assert lines[4:7] == ["`--dev`", ": Add as a development dependency.", ""]
    assert lines[9:14] == ["`--registry` registry",
                           ": Name of the registry to use. If not specified, the default registry is used,",
                           "  which is defined by the `registry.default` config key.",
                           "  Unstable & nightly-only.", ""]
    assert lines[16:22] == ["`--color` when", ": Control when colored output is used. Valid values:", "",
                            "  - `auto` (default): Automatically detect if color support is available.",
                            "  - `never`: Never display colors.", ""]
    for word in ("<", "class", "option-term", "href", "&amp;"):
        assert word not in read, word


def test_other_blocks_read_as_their_text_and_structure():
    """A summary, a table (each row on the line of its first cell's text), an HTML heading, an image (a Markdown
    image: its alt text searchable, never quoted), line breaks; a script and a wrapper's tags are nothing."""
    text = ("Intro.\n\n<details>\n<summary>Example <code>pyproject.toml</code></summary>\n\n"
            "<table>\n<tr><th>Key</th><th>Meaning</th></tr>\n<tr>\n<td><code>ssl</code></td>\n<td>Skip | verify</td>\n"
            "</tr>\n</table>\n\n<h3 id=\"x\">Validation</h3>\n<p align=\"center\"><img src=\"logo.svg\" alt=\"The logo\">"
            "<br>Fast<br/>and small</p>\n<script>var x = 1;\n</script>\n<div class=\"termy\">\n\n</div>\n")
    read = read_html_blocks(text).split("\n")
    assert read == ["Intro.", "", "", "Example `pyproject.toml`", "", "", "| Key | Meaning |", "",
                    "| `ssl` | Skip \\| verify |", "", "", "", "", "### Validation", "![The logo]() Fast and small", "", "", "", "", "", ""]


def test_a_pre_block_reads_as_an_indented_code_block_unless_it_follows_a_paragraph_line_or_a_list():
    alone = "Run:\n\n<pre><code class=\"cmd bash\">caddy run &lt;config&gt;\n\t--watch</code></pre>\nThen.\n"
    assert read_html_blocks(alone).split("\n") == ["Run:", "", "    caddy run <config>", "    \t--watch", "Then.", ""]
    tagged = "<pre>\n<code>let <em>PATTERN</em> = 1;</code>\n</pre>\n"
    assert read_html_blocks(tagged) == "\n    let PATTERN = 1;\n\n"
    for no_room in ("Run:\n<pre><code>caddy run</code></pre>\nThen.\n",  # answer/blocks.py reads it as code
                    "- Run:\n\n<pre><code>caddy run</code></pre>\n"):  # indented, it would continue the item
        assert read_html_blocks(no_room) == no_room


def test_components_comments_code_and_nested_blocks_stay_as_written():
    for text in ('<Listing number="1-1" file-name="src/main.rs" caption="Hello">\n\n```rust\nfn main() {}\n```\n\n</Listing>\n',
                 "<Note>\nA note.\n</Note>\n",
                 "<!-- md:version 9.0.0 -->\n<!-- md:default `true` -->\n",
                 "```html\n<dl><dt>a</dt></dl>\n```\n",
                 "> <div>\n> quoted\n> </div>\n",
                 "- item\n\n  <div>nested</div>\n",
                 "Press <kbd>Ctrl</kbd>+<kbd>C</kbd> in a paragraph.\n"):
        assert read_html_blocks(text) == text, text


def test_line_breaks_are_kept_as_written():
    text = "# T\r\n\r\n<dl>\r\n<dt><code>-v</code></dt>\r\n<dd>Verbose.</dd>\r\n</dl>\r\nEnd\r"
    assert read_html_blocks(text) == "# T\r\n\r\n\r\n`-v`\r\n: Verbose.\r\n\r\nEnd\r"


def test_chunks_hold_the_read_text_and_the_file_lines():
    doc = Document(folder="/f", path="cargo-add.md", text=OPTIONS, content_hash="h", kind="markdown")
    chunks = chunk_document(doc)
    assert len(chunks) == 1
    chunk = chunks[0]
    assert "<" not in chunk.text and "`--dev`\n: Add as a development dependency." in chunk.text
    source = OPTIONS.split("\n")
    assert (chunk.span.start_line, chunk.span.start_char) == (0, 0)
    # the chunk ends on its last line of text, the "never" item: at that line's end as the file has it (the HTML
    # line is longer than its reading)
    end = next(k for k, x in enumerate(source) if "Never display" in x)
    assert (chunk.span.end_line, chunk.span.end_char) == (end, len(source[end]))


def test_the_preview_of_a_definition_reads_term_colon_definition():
    """A hit's one-line preview (answer/preview.py) of a definition list item, HTML or MyST alike: "term:
    definition", as the answer quotes it, not "term : definition"."""
    from ragls.answer.preview import chunk_preview
    from ragls.core.ir import LineSpan

    doc = Document(folder="/f", path="cargo-add.md", text=OPTIONS, content_hash="h", kind="markdown")
    chunk = chunk_document(doc)[0]
    assert chunk_preview(chunk, LineSpan(4, 0, 5, 10)) == "`--dev`: Add as a development dependency."


def test_a_definition_ending_in_a_colon_carries_the_list_under_it():
    """"`--color` when: Control when colored output is used. Valid values:" is quoted with its values (before, its
    ":" became "." and the values were items of their own, without the option they belong to), spanning the term's
    line through the last item's."""
    from ragls.answer.passages import units

    read = read_html_blocks(OPTIONS)
    unit = next(u for u in units(read) if u.sentence.startswith("`--color`"))
    assert unit.sentence == "`--color` when: Control when colored output is used. Valid values:"
    assert unit.attached == ("- `auto` (default): Automatically detect if color support is available.\n"
                             "- `never`: Never display colors.")
    source = OPTIONS.split("\n")
    assert (unit.line, unit.block_end) == (next(k for k, x in enumerate(source) if 'cargo-build---color"' in x),
                                           next(k for k, x in enumerate(source) if "Never display" in x))


@pytest.mark.timeout(60)
def test_a_hostile_html_block_reads_in_linear_time():
    """A folder's Markdown file is read whole at index time: html.parser scans on from every "<" it cannot end to
    the text's end (CPython 3.11, gh-135462: 20,000 `<a ` read for 200 s under load) and the reader looked through
    every open element at each tag (20,000 unclosed `<dl><dt>a</dt><dd>` took minutes) — a 2 MB file would have held
    up indexing for days (red team, session 53). A block that leaves a tag, a comment or a quoted value open is
    left as written; deep nesting reads as before. Seconds with the fix; the timeout is a hang guard."""
    for unit in ("<a ", '<a b="', "<!--", "<a x=y <"):
        block = "<div>\n" + unit * 20_000 + "\n"
        assert read_html_blocks(block) == block, unit
    assert read_html_blocks("<div>\n<p>a <b>b</b> <!-- c --> 1 < 2</p>\n</div>\n") == "\na b 1 < 2\n\n"
    deep = read_html_blocks("<div>\n" + "<dl><dt>a</dt><dd>b\n" * 20_000).split("\n")
    assert deep[1] == "a: b" and deep[2:-1] == ["  a: b"] * 19_999
    lists = read_html_blocks("<ul>\n" + "<li>x\n" * 20_000).split("\n")
    assert lists[1:-1] == ["- x"] * 20_000
    assert read_html_blocks("<p>" + "x<br>" * 50_000 + "\n") == " ".join(["x"] * 50_000) + "\n"
