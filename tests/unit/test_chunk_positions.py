"""chunking: exact spans and LSP positions for every line ending (LF, CRLF, CR) and UTF-16 column."""

from __future__ import annotations

import pytest
from chunkkit import assert_covers, assert_exact, doc
from ragls.index.chunking import chunk_document
from ragls.index.lines import offset_to_position, position_to_offset

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
