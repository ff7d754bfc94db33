"""`retrieval.parent_document`: a hit grows to its whole section.

The section of a chunk is the run of consecutive chunks of its file that share its heading path (title); chunks
overlap by `chunking.overlap` characters, so their lines are merged by line number (each file line once). The
section is bounded by `generation.max_context_chars`: chunks are added alternately after and before the hit's
chunk while they fit. The hit keeps its id, score, signals and focus; its text, range and title become the
section's.
"""

from __future__ import annotations

from dataclasses import replace

from ragls.core.ir import Chunk, Hit, LineSpan


def _section(chunks: list[Chunk], pos: int, max_chars: int) -> list[Chunk]:
    """The chunks of the hit's section (in file order) that fit in `max_chars` around chunks[pos]."""
    title = chunks[pos].title
    lo = hi = pos
    size = len(chunks[pos].text)
    while True:
        grew = False
        for cand in (hi + 1, lo - 1):
            if 0 <= cand < len(chunks) and chunks[cand].title == title and size + len(chunks[cand].text) <= max_chars:
                size += len(chunks[cand].text)
                lo, hi = min(lo, cand), max(hi, cand)
                grew = True
        if not grew:
            return chunks[lo:hi + 1]


def merge_chunks(chunks: list[Chunk]) -> tuple[str, LineSpan]:
    """Text and range of consecutive, possibly overlapping chunks of one file: each file line once (the first
    chunk holding a line gives its text)."""
    lines: dict[int, str] = {}
    for c in chunks:
        for k, line in enumerate(c.text.split("\n")):
            lines.setdefault(c.span.start_line + k, line)
    first, last = chunks[0].span, chunks[-1].span
    text = "\n".join(lines[i] for i in sorted(lines))
    return text, LineSpan(first.start_line, first.start_char, last.end_line, last.end_char)


def expand_hits(hits: list[Hit], chunks_of, max_chars: int) -> list[Hit]:
    """Each hit with its chunk replaced by its section (see module docstring). `chunks_of(hit)` returns the
    chunks of the hit's file in order (from the manifest). A hit whose chunk is no longer there stays as is."""
    out = []
    for hit in hits:
        chunks = chunks_of(hit)
        pos = next((i for i, c in enumerate(chunks) if c.id == hit.chunk.id), None)
        if pos is None:
            out.append(hit)
            continue
        section = _section(chunks, pos, max_chars)
        if len(section) == 1:
            out.append(hit)
            continue
        text, span = merge_chunks(section)
        out.append(replace(hit, chunk=replace(hit.chunk, text=text, span=span)))
    return out
