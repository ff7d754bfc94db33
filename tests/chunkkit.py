"""The chunking tests' reference checks (index/chunking.py): an independent reading of LSP positions (a character
loop, UTF-16 columns via the codec) and the exact-span and coverage invariants every chunk list must keep."""

from __future__ import annotations

import itertools
import re

from markdown_it import MarkdownIt
from ragls.core.ir import Document
from ragls.index.chunking import is_markup_only
from ragls.index.html_blocks import read_html_blocks
from ragls.sources.load import load_text

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
    """A Document of `text` as given, lone CRs too: text reaches the chunker with them as "\\n"
    (`ir.normalize_line_ends`, in `load_text`), but the chunker's own line model (a line ends at "\\n", "\\r\\n" or
    "\\r") is what these tests check."""
    d = load_text(path, text, folder="/ws")
    return Document(d.folder, d.path, text.removeprefix("\ufeff"), d.content_hash, kind or d.kind, d.size,
                    d.mtime_ns)


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
