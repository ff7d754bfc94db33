"""`focusRange`: the lines of a hit that answer the query, inside the chunk's range; and its context window.

The context (`Hit.window`): a hit the vector signal found has its best window's lines (`stores/vectors.py`); a hit
only BM25 found the run of at most `MAX_FOCUS_LINES` lines holding the most distinct query terms (stemmed as BM25
stems them), trimmed to the first and last line with a term (`keyword_focus`).

The focus (`Hit.focus`, `sentence_focus`): within the context, the answering sentence — the passage
(`answer/passages.py`: a sentence read across hard line wraps, or a whole list item) that scores best for the
question as an extractive answer scores it (`extractive.passage_scores`: cosine of the sentence with the question,
shared content words, a named identifier the question points at) — at most `FOCUS_SENTENCE_LINES` lines, widened to
the whole list or code block the sentence introduces (ends in ":") within `MAX_FOCUS_LINES`. Cosines are computed for
the best `FOCUS_EMBED_HITS` hits only, and only for their passages scoring at least half the best lexical score of
their hit (all of a hit's passages, at most `FOCUS_EMBED_PASSAGES`, when none shares a word with the question): the
other passages and hits are scored by shared words alone, so a query embeds a handful of sentences. A context
without any passage (code only) is its own focus. Columns are exact UTF-16 positions within the chunk text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from ragls.analysis import stems
from ragls.ir import Chunk, Hit, LineSpan

MAX_FOCUS_LINES = 12  # about one 256-wordpiece window of prose
FOCUS_SENTENCE_LINES = 6  # the most lines a focus sentence (or list item) spans on its own
FOCUS_EMBED_HITS = 3  # hits whose passages are compared to the question by cosine
FOCUS_EMBED_PASSAGES = 6  # passages embedded per hit at most
FOCUS_SCOPE = "window"
WINDOW_BONUS = 0.05


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



def sentence_focus(hits: Sequence[Hit], question: str, query_vector: Any = None,
                   embed: Callable[[list[str]], Any] | None = None) -> list[Hit]:
    """`hits` with each `focus` narrowed to its answering sentence within its context (`Hit.window`, set here from
    the incoming `focus` when missing; see the module docstring). `query_vector` (normalised, the question's) and
    `embed` (texts -> normalised vectors, `Embedder.embed_documents`) enable the cosine; without either, passages
    are scored by shared words. Hits without a focus are returned as they are."""
    from ragls.answer.cite import content_words
    from ragls.answer.extractive import passage_scores
    from ragls.answer.passages import units

    query = set(content_words(question))
    plans = []  # (hit, window, passages, words, lexical scores)
    for hit in hits:
        window = hit.window or hit.focus
        if window is None:
            plans.append((hit, None, [], [], []))
            continue
        base = hit.chunk.span.start_line
        found = units(hit.chunk.text, None if FOCUS_SCOPE == "chunk" else
                      (window.start_line - base, window.end_line - base))
        words = [set(content_words(u.text)) for u in found]
        plans.append((hit, window, found, words, _in_window(passage_scores(query, found, words), found, window,
                                                             base)))
    wanted: list[tuple[int, int]] = []  # (plan, passage) pairs to embed
    if embed is not None and query_vector is not None:
        for p, (_, window, found, _, lexical) in enumerate(plans[:FOCUS_EMBED_HITS]):
            best = max((x for x in lexical if x is not None), default=None)
            pick = [i for i, x in enumerate(lexical) if x is not None and x >= best / 2] if best else \
                list(range(len(found)))
            wanted += [(p, i) for i in pick[:FOCUS_EMBED_PASSAGES]]
    cosines: dict[tuple[int, int], float] = {}
    if wanted:
        vecs = embed([plans[p][2][i].sentence for p, i in wanted])
        cosines = dict(zip(wanted, (float(v) for v in vecs @ query_vector)))
    out = []
    for p, (hit, window, found, words, lexical) in enumerate(plans):
        if window is None:
            out.append(hit)
            continue
        scores = lexical
        embedded = [i for i in range(len(found)) if (p, i) in cosines]
        if embedded:
            sub = passage_scores(query, [found[i] for i in embedded], [words[i] for i in embedded],
                                 [cosines[(p, i)] for i in embedded])
            sub = _in_window(sub, [found[i] for i in embedded], window, hit.chunk.span.start_line)
            scores = [None] * len(found)
            for i, x in zip(embedded, sub):
                scores[i] = x
        ranked = sorted((-x, i) for i, x in enumerate(scores) if x is not None)
        if not ranked:
            out.append(replace(hit, focus=window, window=window))
            continue
        u = found[ranked[0][1]]
        last = min(u.end, u.line + FOCUS_SENTENCE_LINES - 1)
        if u.block_end > u.end:  # the sentence introduces a list or code block: it answers with it
            last = min(u.block_end, u.line + MAX_FOCUS_LINES - 1)
        base = hit.chunk.span.start_line
        out.append(replace(hit, focus=line_span(hit.chunk, base + u.line, base + last), window=window))
    return out


def _in_window(scores: list, found: list, window: LineSpan, base: int) -> list:
    if FOCUS_SCOPE != "chunk":
        return scores
    a, b = window.start_line - base, window.end_line - base
    return [None if x is None else x + (WINDOW_BONUS if u.line <= b and u.end >= a else 0.0)
            for x, u in zip(scores, found)]
