"""`focusRange`: the lines of a hit that answer the query, inside the chunk's range; and its context window.

The context (`Hit.window`): a hit the vector signal found has its best window's lines (`stores/vectors.py`); a hit
only BM25 found the run of at most `MAX_FOCUS_LINES` lines holding the most distinct query terms (stemmed as BM25
stems them), trimmed to the first and last line with a term (`keyword_focus`).

The focus (`Hit.focus`, `answer/focus.sentence_focus`, beside the passage scoring it uses) is the answering
passage — the one an extractive answer without a model would quote from the hit, by the same rule
(`candidates.candidate_passages`, `extractive.passage_scores`): every passage of the chunk (`answer/passages.py`: a
sentence read across hard line wraps, or a whole list item), scored by the question's content words it holds, each
weighted by its rarity among the chunk's passages, and a named identifier the question points at; a passage outside
the best window (`Hit.best_window`) weighs `candidates.OUTSIDE_WINDOW` (the window is where the chunk reads closest
to the question, not always where the sentence naming the answer sits); the question's words in the heading of a
passage's section add to its score (`answer/focus._titled`: "## Can I run Black with PyPy?" over "Yes, there is
support for PyPy 3.8"), the same for every passage of the section. The passage comes with the list or code
block its ":" sentence introduces, or the code right after it when that code names what the question asks for
(`neighbours.with_code_after`, as the answer shows it), and its citation is at most `FOCUS_SENTENCE_LINES` (6)
lines (`answer/focus.focus_lines`): a longer sentence-and-block is cut to the sentence and the block's first lines
(the block's lines naming the question's terms when the sentence itself shares no word with it). The passages
right before and after it join it while the whole fits in `FOCUS_SENTENCE_LINES` lines (one after it with as much of
the block it carries as fits), when they share a word with
the question and add one the focus lacks or score at least half as well (`answer/focus._neighbours`): the answer is
often two sentences (a default, then how to change it); so do the neighbours the extractive answer reads a quoted
sentence with whatever words they share — the sentence it refers back to (`neighbours.antecedent`) and the next one
naming the means of the need it states (`neighbours.explains`: "... must be handed off to DBAs." / "Alembic makes
this easy via the ``--sql`` option"), so the focus holds the line the answer quotes. When no passage
shares a word with the question (a chunk of code or a table), the focus is the window's run of at most
`FOCUS_SENTENCE_LINES` lines holding the most query terms (`keyword_focus`), else the window itself. The focus
can lie outside the best window; the hit's context (`Hit.window`, and so every front's context) is the best window
widened to cover the focus (`context_span`, applied where the focus is set), so it always contains the focus.

Measured with `ragls eval` (Focus@5: a top-5 hit whose focus overlaps the gold lines within 6 lines; 2026-12-03,
bench/history/held-out-sets-4-to-6.md "Focus on the answering passage"): the focus inside the window, widened to a whole list or code
block up to 12 lines, placed 79 of 184 questions (aiohttp 10/30, black 26/55, urllib3 4/16, Flask 15/34, Rust
book 24/49); cutting the block to 6 lines as above, 94; candidates from the whole chunk as the answer takes them,
99 (17, 27, 9, 19, 27), every retrieval, Key and abstention figure unchanged; the section heading and the
neighbouring sentences raised it to 111 (20, 32, 9, 21, 29), none lost (bench/history/sessions-36-37.md, "Focus: the answering
sentences and the heading above them"); the neighbours the answer reads with its sentence, 3 more over 21 sets (Alembic
6 -> 7, requests 15 -> 16, attrs 14 -> 15), none lost (bench/history/sessions-44-45.md, "The focus reads what the answer reads"). With the question's vector (every search that
embeds the query), the passages the words score are ranked by their meaning too (`answer/focus._with_meaning`):
the word score over the chunk's best plus `answer/focus.COSINE_WEIGHT` (3) times the cosine of the passage's
sentence with the question, where the sentences' vectors are at hand (`Embedder.known_vectors`: stored by the
index's sentence pass for the extractive answer, or memoised by an answer; the model never runs here, and a chunk
with one sentence's vector missing is focused by words alone); the neighbours joining it are judged on the same
ranking, and the passage ranked second joins the focus with the lines between them when the whole fits in
`FOCUS_SENTENCE_LINES` lines (`answer/focus._with_runner_up`: the two halves of an answer, or a restatement of the
question and its answer, a few lines apart; on the recorded hits of 53 dev sets Focus@5 924 -> 944/1591, one lost,
bench/history/session-67.md, "Focus: the two best passages of a chunk"). On that ranking every sentence of one topic
scores near the best (cosines of one topic's sentences lie close), so a neighbour joins by its score only when it is
on the question's point (`answer/focus._on_point`: it holds a question word not every scored passage of the chunk
holds, or its cosine is not among the chunk's lowest quarter): a page's closing warning that shares only its topic word no
longer joins the answer above it (bench/history/session-68.md, "Focus: a neighbour that only shares the chunk's
topic").
Words alone rank a sentence that restates the question's common words above the one that answers in its own
("By default httpx will verify HTTPS connections, and raise an error for invalid SSL cases..." over "You can disable
SSL verification completely ..." and its `verify=False`). On the 26 embedded dev sets (recorded hits, Focus@5):
434 -> 471/784, 70 gained, 33 lost, the mean focus 4.03 -> 3.95 lines; the cosine alone, in the extractive
answer's rule, 472 (92 gained, 54 lost); re-ranking only the three or five best by words, 458 and 468 (bench/history/session-62.md, "Focus: the answering sentence's meaning
beside its words"). Earlier, the cosine alone for every passage placed the Flask and urllib3 focus no better (17/50
against 16/50, bench/history/early-retrieval-quality.md, "Sentence focus"), when answers embedded no sentences. Columns are
exact UTF-16 positions within the chunk text.
"""

from __future__ import annotations

from ragls.core.analysis import stems
from ragls.core.ir import Chunk, LineSpan

MAX_FOCUS_LINES = 12  # about one 256-wordpiece window of prose


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


def context_span(focus: LineSpan | None, window: LineSpan | None) -> LineSpan | None:
    """The context a hit reports around its focus (`contextRange`, MCP `context_*`): its window (`Hit.window`)
    widened to cover the focus, so the context always contains the focus. The focus can reach past the window:
    the answering sentence is chosen among the passages of the blocks that overlap the window
    (`answer/passages.units`), and a paragraph, list or code block can run on past the window's last line (a
    sentence wrapped over the window's edge, a list a ":" sentence introduces, a hit found only by keywords whose
    window is the few lines holding the query terms). Both spans lie in the chunk, so their cover does too. Returns
    the focus without a window, the window without a focus, None without either."""
    if focus is None or window is None:
        return window or focus
    start = min((focus.start_line, focus.start_char), (window.start_line, window.start_char))
    end = max((focus.end_line, focus.end_char), (window.end_line, window.end_char))
    return LineSpan(start[0], start[1], end[0], end[1])


def keyword_focus(chunk: Chunk, query_stems: frozenset[str] | set[str], max_lines: int = MAX_FOCUS_LINES,
                  within: LineSpan | None = None, breaks: frozenset[int] | set[int] = frozenset()) -> LineSpan | None:
    """The lines of `chunk` holding the most distinct `query_stems` (BM25 terms, `analysis.stems`) within
    `max_lines` consecutive lines (default MAX_FOCUS_LINES), ties to the earliest, only among the file lines of
    `within` when given, and never running over one of `breaks` (0-based chunk lines that open a section: its title;
    a run may start on one); None when no line holds any."""
    if not query_stems:
        return None
    lines = chunk.text.splitlines()
    found = [set(stems(line)) & query_stems for line in lines]
    if within is not None:
        base = chunk.span.start_line
        found = [f if within.start_line <= base + i <= within.end_line else set() for i, f in enumerate(found)]
    if not any(found):
        return None
    best = (0, 0, 0, 0)  # (distinct terms, -length, start, end)
    for i, terms in enumerate(found):
        if not terms:
            continue
        seen: set[str] = set()
        for j in range(i, min(len(lines), i + max_lines)):
            if j > i and j in breaks:
                break
            if found[j]:
                seen |= found[j]
                cand = (len(seen), -(j - i), i, j)
                if cand[:2] > best[:2]:
                    best = cand
    _, _, i, j = best
    return line_span(chunk, chunk.span.start_line + i, chunk.span.start_line + j)
