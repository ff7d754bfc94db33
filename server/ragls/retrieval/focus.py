"""`focusRange`: the lines of a hit that answer the query, inside the chunk's range; and its context window.

The context (`Hit.window`): a hit the vector signal found has its best window's lines (`stores/vectors.py`); a hit
only BM25 found the run of at most `MAX_FOCUS_LINES` lines holding the most distinct query terms (stemmed as BM25
stems them), trimmed to the first and last line with a term (`keyword_focus`).

The focus (`Hit.focus`, `sentence_focus`): within the context, the answering sentence — the passage
(`answer/passages.py`: a sentence read across hard line wraps, or a whole list item) that scores best for the
question as an extractive answer without a model scores it (`extractive.passage_scores`: the question's content
words it holds, each weighted by its rarity among the window's passages, and a named identifier the question points
at) — at most `FOCUS_SENTENCE_LINES` lines, widened to the whole list or code block the sentence introduces (ends in
":") within `MAX_FOCUS_LINES`. The window itself is the focus when no passage shares a word with the question. The
sentences' cosine with the question is not used: measured on the Flask and urllib3 sets it placed the focus no better
(Focus@5 17/50 with cosine for every passage, 16/50 without) and costs a MiniLM pass per sentence on every query
(docs/benchmarks.md, "Sentence focus"); the window the vector signal chose already carries the meaning. Columns are
exact UTF-16 positions within the chunk text.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import replace

from ragls.core.analysis import stems
from ragls.core.ir import Chunk, Hit, LineSpan

MAX_FOCUS_LINES = 12  # about one 256-wordpiece window of prose
FOCUS_SENTENCE_LINES = 6  # the most lines a focus sentence (or list item) spans on its own


def _line_len_utf16(line: str) -> int:
    return len(line) + sum(1 for ch in line if ord(ch) > 0xFFFF)


def line_span(chunk: Chunk, start_line: int, end_line: int) -> LineSpan:
    """The range of file lines `start_line`..`end_line` (inclusive) clamped to the chunk: from the start of the
    first line (or the chunk's start) to the end of the last line's text (or the chunk's end)."""
    span = chunk.span
    s = min(max(start_line, span.start_line), span.end_line)
    e = min(max(end_line, s), span.end_line)
    lines = chunk.text.splitlines() or [""]
    last_rel = min(e - span.start_line, len(lines) - 1)
    start_char = span.start_char if s == span.start_line else 0
    if e == span.end_line:
        end = (span.end_line, span.end_char)
        if span.end_char == 0 and e > s:  # the chunk ends at a line start: end on the line before
            end = (e - 1, _line_len_utf16(lines[min(last_rel, len(lines) - 1)]) if last_rel >= 0 else 0)
    else:
        end_col = _line_len_utf16(lines[last_rel])
        if last_rel == 0:
            end_col += span.start_char
        end = (e, end_col)
    return LineSpan(s, start_char, end[0], end[1])


def keyword_focus(chunk: Chunk, query_stems: frozenset[str] | set[str]) -> LineSpan | None:
    """The lines of `chunk` holding the most distinct `query_stems` (BM25 terms, `analysis.stems`) within
    MAX_FOCUS_LINES consecutive lines, ties to the earliest; None when no line holds any."""
    if not query_stems:
        return None
    lines = chunk.text.splitlines()
    found = [set(stems(line)) & query_stems for line in lines]
    if not any(found):
        return None
    best = (0, 0, 0, 0)  # (distinct terms, -length, start, end)
    for i, terms in enumerate(found):
        if not terms:
            continue
        seen: set[str] = set()
        for j in range(i, min(len(lines), i + MAX_FOCUS_LINES)):
            if found[j]:
                seen |= found[j]
                cand = (len(seen), -(j - i), i, j)
                if cand[:2] > best[:2]:
                    best = cand
    _, _, i, j = best
    return line_span(chunk, chunk.span.start_line + i, chunk.span.start_line + j)



def sentence_focus(hits: Sequence[Hit], question: str) -> list[Hit]:
    """`hits` with each `focus` narrowed to its answering sentence within its context (`Hit.window`, set here from
    the incoming `focus` when missing; see the module docstring). Hits without a focus are returned as they are."""
    from ragls.answer.cite import content_words
    from ragls.answer.extractive import passage_scores
    from ragls.answer.passages import units

    query = frozenset(content_words(question))
    out = []
    for hit in hits:
        window = hit.window or hit.focus
        if window is None:
            out.append(hit)
            continue
        base = hit.chunk.span.start_line
        found = units(hit.chunk.text, (window.start_line - base, window.end_line - base))
        scores = passage_scores(query, found, [_words(u.scored_text) for u in found])
        ranked = sorted((-x, i) for i, x in enumerate(scores) if x is not None)
        if not ranked:  # no passage shares a word with the question (or the window is code): the window
            out.append(replace(hit, focus=window, window=window))
            continue
        u = found[ranked[0][1]]
        last = min(u.end, u.line + FOCUS_SENTENCE_LINES - 1)
        if u.block_end > u.end:  # the sentence introduces a list or code block: it answers with it
            last = min(u.block_end, u.line + MAX_FOCUS_LINES - 1)
        out.append(replace(hit, focus=line_span(hit.chunk, base + u.line, base + last), window=window))
    return out


@functools.lru_cache(maxsize=8192)
def _words(text: str) -> frozenset[str]:
    """The content words of a passage (`cite.content_words`), memoised like the passages themselves."""
    from ragls.answer.cite import content_words

    return frozenset(content_words(text))
