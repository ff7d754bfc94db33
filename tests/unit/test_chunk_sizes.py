"""chunking: sizes and overlap (rounded to line starts), long and minified lines, whitespace runs, blank
documents, stable ids."""

from __future__ import annotations

import itertools

import pytest
from chunkkit import assert_covers, assert_exact, doc, naive_line_starts, naive_offset
from ragls.core.hashing import chunk_id, text_hash
from ragls.index.chunking import chunk_document

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


def test_long_whitespace_runs_are_skipped():
    text = "alpha\n" + "   \n" * 500 + "\t" * 900 + "omega\n"
    chunks = chunk_document(doc(text), chunk_size=200, overlap=50)
    assert [c.text for c in chunks] == ["alpha", "omega"]
    assert (chunks[1].span.start_line, chunks[1].span.start_char) == (501, 900)
    assert_exact(text, chunks)
    assert_covers(text, chunks)


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
