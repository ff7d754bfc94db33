"""chunking: exact spans (LF, CRLF, CR, UTF-16 columns), markdown sections, fences, overlap, ids, big lines."""

from __future__ import annotations

import itertools
import re
import shutil
from pathlib import Path

import pytest
from bench_datasets import dataset_or_skip
from markdown_it import MarkdownIt
from ragls.core.hashing import chunk_id, text_hash
from ragls.core.ir import Document
from ragls.index.chunking import chunk_document, is_markup_only, no_text_reason
from ragls.index.html_blocks import read_html_blocks
from ragls.index.lines import offset_to_position, position_to_offset
from ragls.sources.load import load_file, load_text

# -- an independent reference for LSP positions (character loop, UTF-16 via the codec) --------------------------

FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})[^\n]*$")


def naive_line_starts(text: str) -> list[int]:
    starts = [0]
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\r" and i + 1 < len(text) and text[i + 1] == "\n":
            starts.append(i + 2)
            i += 2
            continue
        if ch in "\r\n":
            starts.append(i + 1)
        i += 1
    return starts


def naive_offset(text: str, starts: list[int], line: int, col: int) -> int:
    start = starts[line]
    end = starts[line + 1] if line + 1 < len(starts) else len(text)
    units = text[start:end].encode("utf-16-le")[: 2 * col]
    return start + len(units.decode("utf-16-le"))


def assert_exact(doc_text: str, chunks, markdown: bool = False) -> None:
    """Every chunk's text is the slice of the document between its span positions, but for the fence lines that
    balance a split code block: an opening line in place of the span's first line (the block's opening line or
    a code line before the chunk's own), a closing fence after; and, in a `markdown` document, for the lines of its
    HTML blocks, read as Markdown (`index.html_blocks.read_html_blocks`)."""
    starts = naive_line_starts(doc_text)
    for c in chunks:
        s = naive_offset(doc_text, starts, c.span.start_line, c.span.start_char)
        e = naive_offset(doc_text, starts, c.span.end_line, c.span.end_char)
        first, _, rest = c.text.partition("\n")
        if FENCE_RE.match(first) and not doc_text[s:e].startswith(c.text[:len(first) + 1]):
            s = doc_text.index("\n", s) + 1  # an added opener stands in for the span's first line
            assert without_added_fences(rest, doc_text[s:e]) == doc_text[s:e], (c.ordinal, c.span)
        elif without_added_fences(c.text, doc_text[s:e]) != doc_text[s:e] and markdown:
            # a Markdown chunk holds its HTML blocks' lines read as Markdown (index/html_blocks.py), line for line:
            # each line of the chunk is its file line or that line's reading
            reading = re.split(r"\r\n|\r|\n", read_html_blocks(doc_text))
            lines = [x.rstrip("\r") for x in c.text.split("\n")]
            own = re.split(r"\r\n|\r|\n", doc_text[s:e])
            assert len(lines) == len(own), (c.ordinal, c.span)
            for k, (line, file_line) in enumerate(zip(lines, own, strict=True)):
                assert line in (file_line, reading[c.span.start_line + k]), (c.ordinal, c.span, k)
            assert lines != own, (c.ordinal, c.span)
        else:
            assert without_added_fences(c.text, doc_text[s:e]) == doc_text[s:e], (c.ordinal, c.span)


def without_added_fences(text: str, expected: str) -> str:
    if text == expected:
        return text
    first, _, rest = text.partition("\n")
    if FENCE_RE.match(first) and expected in rest:
        text = rest
    head, _, last = text.rpartition("\n")
    if FENCE_RE.match(last) and head.endswith(expected) or head == expected:
        text = head
    return text


def assert_covers(doc_text: str, chunks, markdown: bool = False) -> None:
    """Nothing but whitespace and markup-only text (dropped chunks such as a lone "```"; in a `markdown` document,
    HTML that reads as nothing, such as a lone "</figure>", `index.html_blocks`) is lost between chunks."""
    starts = naive_line_starts(doc_text)
    ranges = sorted(
        (naive_offset(doc_text, starts, c.span.start_line, c.span.start_char),
         naive_offset(doc_text, starts, c.span.end_line, c.span.end_char)) for c in chunks)
    pos = 0
    for s, e in ranges:
        if s > pos:
            assert lost_nothing(doc_text[pos:s], markdown), repr(doc_text[pos:s][:80])
        pos = max(pos, e)
    assert lost_nothing(doc_text[pos:], markdown)
    ends = [e for _, e in ranges]
    assert all(a < b for a, b in itertools.pairwise(ends)), "a chunk adds nothing after its predecessor"


def lost_nothing(gap: str, markdown: bool) -> bool:
    """`gap` (text between chunks) holds nothing to find or cite."""
    return is_markup_only(gap) or (markdown and is_markup_only(read_html_blocks(gap)))


def doc(text: str, path: str = "notes.txt", kind: str | None = None) -> Document:
    d = load_text(path, text, folder="/ws")
    if kind is not None:
        d = Document(d.folder, d.path, d.text, d.content_hash, kind, d.size, d.mtime_ns)
    return d


# -- positions --------------------------------------------------------------------------------------------------

def test_offset_to_position_line_endings():
    text = "ab\ncd\r\nef\rgh"
    assert offset_to_position(text, 0) == (0, 0)
    assert offset_to_position(text, 2) == (0, 2)
    assert offset_to_position(text, 3) == (1, 0)
    assert offset_to_position(text, 7) == (2, 0)   # after "\r\n"
    assert offset_to_position(text, 10) == (3, 0)  # after lone "\r"
    assert offset_to_position(text, len(text)) == (3, 2)
    assert offset_to_position("x\n", 2) == (1, 0)
    with pytest.raises(ValueError):
        offset_to_position(text, len(text) + 1)


def test_offset_to_position_utf16_columns():
    text = "a😀b\n𝄞é😀x"
    assert offset_to_position(text, 1) == (0, 1)
    assert offset_to_position(text, 2) == (0, 3)  # after the emoji: 2 code units
    assert offset_to_position(text, 3) == (0, 4)
    assert offset_to_position(text, 4) == (1, 0)
    assert offset_to_position(text, 5) == (1, 2)  # 𝄞 is astral too
    assert offset_to_position(text, 6) == (1, 3)  # é is in the BMP: 1 unit
    assert offset_to_position(text, 7) == (1, 5)
    assert offset_to_position(text, 8) == (1, 6)
    for off in range(len(text) + 1):
        assert position_to_offset(text, *offset_to_position(text, off)) == off


def test_other_unicode_breaks_are_not_line_ends():
    text = "a\u2028b\x0cc\x85d\ne"
    assert offset_to_position(text, len(text)) == (1, 1)


# -- exact ranges for every kind of line end -----------------------------------------------------------------

PARAS = "\n\n".join(
    "\n".join(f"Paragraph {p} line {i}: some words about retries and timeouts." for i in range(6))
    for p in range(8))


@pytest.mark.parametrize("eol", ["\n", "\r\n", "\r"])
def test_text_ranges_exact_for_line_endings(eol):
    text = PARAS.replace("\n", eol)
    chunks = chunk_document(doc(text), chunk_size=600, overlap=0)
    assert len(chunks) > 3
    assert_exact(text, chunks)
    assert_covers(text, chunks)
    # Same line numbers whatever the line ending: each paragraph is 6 lines + 1 blank.
    lf_chunks = chunk_document(doc(PARAS), chunk_size=600, overlap=0)
    assert [(c.span.start_line, c.span.end_line) for c in chunks] == \
        [(c.span.start_line, c.span.end_line) for c in lf_chunks]
    first = chunks[0]
    assert (first.span.start_line, first.span.start_char) == (0, 0)
    assert first.text.startswith("Paragraph 0 line 0:")
    # Breaks prefer blank lines: chunks start at paragraph starts (lines 0, 7, 14, ...).
    assert all(c.span.start_line % 7 == 0 and c.span.start_char == 0 for c in chunks)
    assert all(len(c.text) <= 600 for c in chunks)


def test_markdown_ranges_exact_with_crlf_and_cr():
    md = "# Title\n\nIntro text.\n\n## Part A\n\n" + "alpha line\n" * 40 + "\n## Part B\n\nbeta\n"
    for eol in ("\n", "\r\n", "\r"):
        text = md.replace("\n", eol)
        chunks = chunk_document(doc(text, "a.md"), chunk_size=200, overlap=30)
        assert_exact(text, chunks)
        assert_covers(text, chunks)
        part_b = [c for c in chunks if c.title == "Title > Part B"]
        assert len(part_b) == 1
        assert part_b[0].span.start_line == 47
        assert part_b[0].text.replace("\r\n", "\n").replace("\r", "\n") == "## Part B\n\nbeta"


def test_astral_columns_in_chunk_spans():
    # One long line of emoji, split by characters: columns must count 2 UTF-16 units per emoji.
    text = "😀" * 250 + "\nend"
    chunks = chunk_document(doc(text), chunk_size=100, overlap=0)
    assert chunks[0].span == chunks[0].span.__class__(0, 0, 0, 200)
    assert (chunks[1].span.start_line, chunks[1].span.start_char) == (0, 200)
    assert (chunks[-1].span.end_line, chunks[-1].span.end_char) == (1, 3)
    assert [len(c.text) for c in chunks] == [100, 100, 54]
    assert "".join(c.text for c in chunks) == text
    assert_exact(text, chunks)


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


def fence_ranges(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of each fenced block, from markdown-it token maps (end = last char of the fence)."""
    starts = naive_line_starts(text)
    out = []
    for tok in MarkdownIt("commonmark").parse(text):
        if tok.type == "fence" and tok.map:
            first, last = tok.map
            end = starts[last] if last < len(starts) else len(text)
            out.append((starts[first], starts[first] + len(text[starts[first]:end].rstrip())))
    return out


def test_fence_kept_whole():
    fence = "```rust\n" + "".join(f"let x{i} = {i};\n" for i in range(40)) + "\n// after blank\n```\n"
    assert 300 < len(fence) < 1000
    text = "# Code\n\n" + "Intro sentence here.\n" * 20 + "\n" + fence + "\nAfter the fence.\n"
    chunks = chunk_document(doc(text, "c.md"), chunk_size=1000, overlap=100)
    assert len(chunks) >= 2
    (fs, fe), = fence_ranges(text)
    holders = [c for c in chunks if text.find(c.text) <= fs and fe <= text.find(c.text) + len(c.text)]
    assert holders, "fence split across chunks"
    for c in chunks:
        assert c.text.count("```") in (0, 2), c.text
    assert_exact(text, chunks)
    assert_covers(text, chunks)


def test_oversized_fence_is_split_within_size():
    fence = "```\n" + "".join(f"line {i:04d} of a very long listing\n" for i in range(200)) + "```\n"
    text = "# Big\n\nBefore.\n\n" + fence + "\nAfter.\n"
    chunks = chunk_document(doc(text, "big.md"), chunk_size=500, overlap=50)
    assert len(chunks) > len(fence) // 500
    assert all(len(c.text) <= 500 for c in chunks)
    assert all(c.title == "Big" for c in chunks)
    assert_exact(text, chunks)
    assert_covers(text, chunks)
    # Split at line starts only.
    starts = set(naive_line_starts(text))
    assert all(c.span.start_char == 0 for c in chunks)
    assert all(text.find(without_added_fences(c.text, c.text.partition("\n")[2].rpartition("\n")[0])) in starts
               for c in chunks)


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


# -- overlap, big lines, ids ----------------------------------------------------------------------------------

def numbered(n: int) -> str:
    return "".join(f"line {i:04d} with some filler text\n" for i in range(n))


def test_overlap_rounded_to_line_starts():
    text = numbered(100)  # 31 chars per line
    chunks = chunk_document(doc(text), chunk_size=310, overlap=70)
    assert len(chunks) > 5
    starts = naive_line_starts(text)
    for prev, nxt in itertools.pairwise(chunks):
        prev_end = naive_offset(text, starts, prev.span.end_line, prev.span.end_char)
        nxt_start = naive_offset(text, starts, nxt.span.start_line, nxt.span.start_char)
        assert 0 < prev_end - nxt_start <= 70
        assert nxt.span.start_char == 0
        assert nxt.span.start_line == prev.span.end_line - 1  # the last 2 lines (62 chars) are re-used
        assert nxt.text.startswith(text[nxt_start:prev_end])
    assert_exact(text, chunks)
    no_overlap = chunk_document(doc(text), chunk_size=310, overlap=0)
    assert "\n".join(c.text for c in no_overlap) == text.rstrip()


def test_overlap_is_never_a_chunk_of_its_own():
    p1 = "".join(f"first paragraph line {i:02d} with words\n" for i in range(50))  # ~1850 chars
    p2 = "".join(f"second paragraph line {i:03d} has more words\n" for i in range(150))
    text = p1 + "\n" + p2
    chunks = chunk_document(doc(text), chunk_size=2000, overlap=100)
    assert chunks[0].text == p1.rstrip()
    assert chunks[1].text.startswith("first paragraph line 48")  # two lines (71 chars) of overlap
    assert "second paragraph line 000" in chunks[1].text
    assert_covers(text, chunks)
    assert_exact(text, chunks)


def test_overlap_never_stalls_on_long_lines():
    text = ("x" * 150 + "\n") * 20
    chunks = chunk_document(doc(text), chunk_size=200, overlap=100)
    assert all(len(c.text) <= 200 for c in chunks)
    assert_covers(text, chunks)
    assert len(chunks) < 40


def test_minified_line_split_at_whitespace():
    text = "function f(a){return a+1};" * 10_000  # 260 KB on one line
    chunks = chunk_document(doc(text, "app.min.js"), chunk_size=2000, overlap=100)
    assert all(1000 < len(c.text) <= 2000 for c in chunks[:-1])
    starts = naive_line_starts(text)
    for c in chunks[1:]:
        assert text[naive_offset(text, starts, 0, c.span.start_char) - 1] == " "  # broken after a space
    assert_covers(text, chunks)
    assert_exact(text, chunks[:20])


def test_minified_line_split_by_characters():
    text = "function(a){return(a+1)};" * 200_000  # 5 MB, one line, no whitespace
    chunks = chunk_document(doc(text, "app.min.js"), chunk_size=2000, overlap=100)
    assert "".join(c.text for c in chunks) == text
    assert all(len(c.text) == 2000 for c in chunks[:-1])
    assert chunks[1].span.start_line == 0 and chunks[1].span.start_char == 2000
    assert chunks[-1].span.end_char == len(text)


def test_huge_single_line_with_emoji_never_splits_a_character():
    text = ("ab😀" * 400_000)  # 1.2 M code points, 1.6 M UTF-16 units
    chunks = chunk_document(doc(text), chunk_size=2000, overlap=100)
    assert "".join(c.text for c in chunks) == text
    for c in chunks[:3]:
        c.text.encode("utf-8")  # no lone surrogates
    c = chunks[1]
    assert c.span.start_char == len(text[:2000].encode("utf-16-le")) // 2
    assert chunks[-1].span.end_char == len(text.encode("utf-16-le")) // 2


def test_blank_documents_give_no_chunks():
    assert chunk_document(doc("")) == []
    assert chunk_document(doc(" \n\r\n\t\n")) == []
    assert chunk_document(doc("\n\n\n", "a.md")) == []
    chunks = chunk_document(doc("\n\n   \n\nhello\n\n\n"))
    assert [c.text for c in chunks] == ["hello"]
    assert chunks[0].span.start_line == 4 and chunks[0].span.end_line == 4


def test_ids_stable_and_derived():
    text = numbered(300)
    a = chunk_document(doc(text, "docs/a.txt"), chunk_size=500)
    b = chunk_document(doc(text, "docs/a.txt"), chunk_size=500)
    assert [c.id for c in a] == [c.id for c in b]
    assert len({c.id for c in a}) == len(a)
    for i, c in enumerate(a):
        assert c.ordinal == i
        assert c.text_hash == text_hash(c.text)
        assert c.id == chunk_id("docs/a.txt", i, c.text_hash)
        assert c.path == "docs/a.txt" and c.folder == "/ws"
    other = chunk_document(doc(text, "docs/b.txt"), chunk_size=500)
    assert {c.id for c in other}.isdisjoint({c.id for c in a})
    assert [c.text_hash for c in other] == [c.text_hash for c in a]
    edited = chunk_document(doc(text.replace("line 0299", "LINE 0299"), "docs/a.txt"), chunk_size=500)
    assert edited[0].id == a[0].id and edited[-1].id != a[-1].id


def test_invalid_sizes():
    with pytest.raises(ValueError):
        chunk_document(doc("x"), chunk_size=0)
    with pytest.raises(ValueError):
        chunk_document(doc("x"), overlap=-1)


# -- property check on a real corpus --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def rust_book(tmp_path_factory) -> Path:
    book = dataset_or_skip("rust-book")
    dest = tmp_path_factory.mktemp("rust-book")
    for p in sorted(book.iterdir()):
        if p.is_file():
            shutil.copyfile(p, dest / p.name)
            crlf = p.read_bytes().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
            (dest / f"crlf-{p.name}").write_bytes(crlf)
    return dest


@pytest.mark.parametrize("chunk_size,overlap", [(2000, 100), (500, 50)])
def test_rust_book_chunks_are_exact(rust_book, chunk_size, overlap):
    files = sorted(p.name for p in rust_book.iterdir())
    assert len(files) > 200
    total = 0
    for name in files:
        d = load_file(rust_book, name, 2_000_000)
        assert isinstance(d, Document), d
        chunks = chunk_document(d, chunk_size, overlap)
        assert chunks, name
        total += len(chunks)
        assert_exact(d.text, chunks, markdown=d.kind == "markdown")
        assert_covers(d.text, chunks, markdown=d.kind == "markdown")
        assert all(0 < len(c.text) <= chunk_size for c in chunks), name
        assert [c.ordinal for c in chunks] == list(range(len(chunks)))
        if d.kind == "markdown" and not name.startswith("crlf-"):
            starts = naive_line_starts(d.text)  # each chunk's span (its text may hold HTML blocks read as Markdown)
            spans = [(naive_offset(d.text, starts, c.span.start_line, c.span.start_char),
                      naive_offset(d.text, starts, c.span.end_line, c.span.end_char)) for c in chunks]
            # markdown with code blocks is packed smaller by the room its balancing fence lines may need
            reserve = max((2 * len(m.group(0).strip()) + 2 for m in re.finditer(
                r"^ {0,3}(?:`{3,}|~{3,})[^\r\n]*", d.text, re.MULTILINE)), default=0)
            for fs, fe in fence_ranges(d.text):
                if fe - fs <= chunk_size - overlap - reserve:
                    assert any(s <= fs and fe <= e for s, e in spans), (name, fs)
    assert total > len(files)


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


def test_long_whitespace_runs_are_skipped():
    text = "alpha\n" + "   \n" * 500 + "\t" * 900 + "omega\n"
    chunks = chunk_document(doc(text), chunk_size=200, overlap=50)
    assert [c.text for c in chunks] == ["alpha", "omega"]
    assert (chunks[1].span.start_line, chunks[1].span.start_char) == (501, 900)
    assert_exact(text, chunks)
    assert_covers(text, chunks)


def random_text(rng) -> str:
    pieces = []
    for _ in range(rng.randint(5, 120)):
        r = rng.random()
        if r < 0.1:
            pieces.append("")  # blank line
        elif r < 0.15:
            pieces.append("```\n" + "\n".join("code " * rng.randint(0, 9) for _ in range(rng.randint(1, 40))) + "\n```")
        elif r < 0.2:
            pieces.append("#" * rng.randint(1, 4) + " Heading " + str(rng.randint(0, 99)))
        elif r < 0.25:
            pieces.append("x" * rng.randint(100, 1500))  # long line
        elif r < 0.3:
            pieces.append("😀é " * rng.randint(1, 200))
        elif r < 0.33:
            pieces.append(" \t " * rng.randint(1, 100))  # whitespace-only line
        else:
            pieces.append(" ".join(rng.choice(["word", "retry", "ä", "z"]) for _ in range(rng.randint(1, 30))))
    eol = rng.choice(["\n", "\r\n", "\r"])
    return eol.join(pieces) + rng.choice(["", eol, eol * 3])


@pytest.mark.parametrize("kind,path", [("markdown", "r.md"), ("text", "r.txt"), ("code", "r.py")])
def test_random_documents_keep_all_invariants(kind, path):
    import random

    rng = random.Random(20240611)
    for _ in range(60):
        text = random_text(rng)
        size = rng.choice([100, 250, 700, 2000])
        overlap = rng.choice([0, 10, size // 20, size // 2])
        chunks = chunk_document(doc(text, path, kind), chunk_size=size, overlap=overlap)
        assert_exact(text, chunks)
        assert_covers(text, chunks)
        assert all(0 < len(c.text) <= size and c.text.strip() for c in chunks)
        assert [c.ordinal for c in chunks] == list(range(len(chunks)))




def test_split_fenced_block_is_balanced_in_every_chunk():
    code = "\n".join(f"let value_{n} = compute({n});" for n in range(60))
    text = f"# Build\n\nIntro text before the code.\n\n```rust\n{code}\n```\n\nAfter the fence: the manatee.\n"
    chunks = chunk_document(doc(text, "b.md"), chunk_size=400, overlap=0)
    assert len(chunks) >= 3
    for c in chunks:
        fences = [ln for ln in c.text.splitlines() if FENCE_RE.match(ln)]
        assert len(fences) % 2 == 0, c.text  # every opened fence is closed in the chunk
        assert c.text.strip() not in ("```", "```rust")
    inner = next(c for c in chunks if "compute(30)" in c.text)
    assert inner.text.startswith("```rust\n") and inner.text.endswith("\n```")
    assert any("manatee" in c.text for c in chunks)


def test_a_chunk_starting_inside_a_code_block_keeps_its_lines_on_the_file_lines():
    """Line k of a chunk's text is line k of its span (how windows and the focus cite a chunk's lines), also for
    a chunk that starts inside a code block: its prepended opening line stands in for the file line before its
    first line of code. The opener was prepended before a span starting on that code line, so every line of the
    chunk, and every focus on it, was cited one line early."""
    code = "\n".join(f"let value_{n} = compute({n});" for n in range(60))
    text = f"# Build\n\nIntro text before the code.\n\n```rust\n{code}\n```\n\nAfter the fence: the manatee.\n"
    lines = text.split("\n")
    chunks = chunk_document(doc(text, "b.md"), chunk_size=400, overlap=0)
    inner = [c for c in chunks if c.text.startswith("```rust\n") and "Intro" not in c.text]
    assert len(inner) >= 2
    for c in chunks:
        own = c.text.split("\n")
        for k, line in enumerate(own):
            if FENCE_RE.match(line) and k in (0, len(own) - 1):
                continue  # an added fence line
            assert lines[c.span.start_line + k] == line, (c.ordinal, k, line)
    second = next(c for c in chunks if "compute(30)" in c.text)
    at = second.text.split("\n").index("let value_30 = compute(30);")
    assert lines[second.span.start_line + at] == "let value_30 = compute(30);"


def test_text_after_an_unterminated_fence_is_still_quoted():
    body = "\n".join(f"echo step {n} of the install script" for n in range(40))
    text = f"# Install\n\nRun this:\n\n~~~~bash\n{body}\n"
    chunks = chunk_document(doc(text, "i.md"), chunk_size=300, overlap=0)
    assert len(chunks) >= 3
    assert chunks[0].text.endswith("Run this:")  # the dangling opener goes to the next chunk
    for c in chunks[1:]:
        assert c.text.startswith("~~~~bash\n") and c.text.endswith("\n~~~~"), c.text
        assert len(c.text) <= 300
    assert_exact(text, chunks)


@pytest.mark.parametrize(("text", "reason"), [
    ("\u200b\u200b\n\u200d\u2060\n", "markup only (no text)"),  # zero-width characters
    ("\x01\x02\x1b\x7f\n", "markup only (no text)"),  # control characters
    ("\ufeff\u00ad# \n", "markup only (no text)"),
    ("---\ntitle: Notes\ntags: [a, b]\n---\n", "front matter only (no text)"),
    ("+++\ntitle = 'Notes'\n+++\n\n# \n", "front matter only (no text)"),
    ("---\ntitle: Notes\n---\nThe walrus basks.\n", None),
    ("\u200bThe walrus basks.\n", None),
    ("---\n\nA thematic break, then text.\n", None),
])
def test_files_without_text_are_named(text, reason):
    """Junk files (issue 29: control-character, zero-width and front-matter-only files became chunks) say why."""
    assert no_text_reason(text) == reason


_ROWS = "".join(f"| feature-{i} | yes | yes | no | yes |\n" for i in range(5_000))  # a table of numbered rows: 18x
_LINKS = ["".join(f"[{i}](https://github.com/o/r{i * j}/blob/{i * j * 7919:040x}/pyproject.toml#L1-L3)|"
                  for i in range(5)) for j in range(80)]
_CJK = "".join(chr(0x4E00 + i * 7919 % 20_000) + ("。" if i % 23 == 22 else "") for i in range(8_000))  # no spaces


@pytest.mark.parametrize(("text", "reason"), [
    ("a" * 1_900_000, "degenerate text (too few distinct characters: 0.0 bits per character)"),
    ("ab" * 5_000 + "ba" * 5_000, "degenerate text (too few distinct characters: 1.0 bits per character)"),
    ("The same log line, again and again.\n" * 3_000, "degenerate text (repetitive: compresses "),
    ("a" * 9_999, None),  # short: costs a few chunks, judged by nothing
    (_ROWS, None),
    ("# Users\n\n" + "".join(f"Project {j} builds its wheels with Hatch, as its pyproject.toml shows: {links}\n\n"
                             for j, links in enumerate(_LINKS)), None),  # 80 % in long runs of links
    (_CJK, None),
    ("# Data\n\n" + "".join(f"{i * 7919 % 65536:04x}" for i in range(5_000)),
     ("degenerate text (no word breaks: 100% in runs of 256+ characters without a space, such as minified code or "
     "encoded data)")),
])
def test_degenerate_text_is_named(text, reason):
    """Text not worth embedding (sources.load.degenerate_reason), and long text that is: real shapes with long runs
    (a page of link lists, CJK prose without spaces, a table of similar rows) are not judged degenerate."""
    got = no_text_reason(text)
    assert got == reason or (reason and got and reason.endswith(" ") and got.startswith(reason)), got


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
