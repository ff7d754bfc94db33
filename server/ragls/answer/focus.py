"""The focus of a hit and of a quoted passage (`focusRange`): the lines a citation points at — the answering
sentence(s) of a hit's chunk (`sentence_focus`, `Hit.focus`), and the lines each passage of an extractive answer
quotes (`quoted_focus`), at most FOCUS_SENTENCE_LINES lines. The rule and its measurements: retrieval/focus.py;
the passages and their scores are the extractive answer's (`answer/extractive.py`, `answer/passages.py`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from ragls.answer.blocks import block_end, parsed, section_titles
from ragls.answer.candidates import Candidate, candidate_passages
from ragls.answer.cite import content_words
from ragls.answer.extractive import passage_scores
from ragls.answer.identifiers import identifier_words, literal_terms, passage_words, pointed_at
from ragls.answer.includes import FileFilters
from ragls.answer.neighbours import FOCUS_SENTENCE_LINES, antecedent, explains, with_code_after
from ragls.answer.passages import Unit, chunk_markdown
from ragls.core.analysis import STOPWORDS, stems
from ragls.core.ir import Hit, LineSpan
from ragls.retrieval.focus import MAX_FOCUS_LINES, context_span, keyword_focus, line_span

__all__ = ["FOCUS_SENTENCE_LINES", "focus_lines", "quote_span", "quoted_focus", "sentence_focus"]

NEIGHBOUR_SHARE = 0.5  # a passage next to the focus scoring this share of it joins it (sentence_focus)
# with the question's vector: a passage's score is its word score over the chunk's best one plus this many times the
# cosine of its sentence with the question (`_with_meaning`; measured: bench/history/session-62.md, "Focus: the
# answering sentence's meaning beside its words")
COSINE_WEIGHT = 3.0
# a neighbour sharing only the words every passage of its chunk holds joins by its score only when its cosine is
# not among the lowest 1/OFF_POINT_SHARE of the chunk's (`_on_point`; bench/history/session-68.md)
OFF_POINT_SHARE = 4


def quoted_focus(sources: list[tuple[int, Hit]], picked: list[tuple[int, Unit]], question: str = ""
                 ) -> tuple[list[tuple[int, Hit]], list[tuple[int, Unit]]]:
    """`sources` and the passages `picked` from them, so that every `[n]` leads to the lines it quotes: each
    quoted passage is cited as `focus_lines` cites it (at most FOCUS_SENTENCE_LINES lines: a long block it carries
    is cut as the hit's focus is; `question` gives the terms that rule reads), and a source's passages are grouped
    in pick order while a group fits in `focus.MAX_FOCUS_LINES` lines. A quoted source's `focus` (`focusRange`, the
    lines it opens at) is the group of its first pick and `more_focus` the others in line order (`focusRanges`):
    one source per chunk, so `ask --top-k 1` lists one source, and every quoted place is shown in it — neither a
    second entry of the same chunk for a far passage, nor one span from the first quote to the last (two quotes 40
    lines apart made a 40-line citation). Returns (sources, picks), numbers unchanged. The focus was chosen by
    shared words (`sentence_focus`), the passages by meaning: a user following "[2] utils.md:321-322" must find the
    sentence quoted with [2] there."""
    groups: dict[int, list[list[int]]] = {}  # n -> groups of [first, last] 0-based chunk lines, in pick order
    quotes: dict[int, list[LineSpan]] = {}  # n -> each quoted passage's span (`quote_span`), in pick order
    hits = dict(sources)
    query, _, named = _citation_terms(question)
    for n, unit in picked:
        if unit.line < 0:  # a pointer to the source, not a quoted passage
            continue
        a, b = focus_lines(hits[n], unit, named, query)
        chunk = hits[n].chunk
        _join_quote(groups.setdefault(n, []), a, b, [k for k, _ in section_titles(chunk.text, chunk_markdown(chunk))])
        quotes.setdefault(n, []).append(quote_span(hits[n], unit, a, b))
    out: list[tuple[int, Hit]] = []
    for n, hit in sources:
        mine = groups.get(n)
        if not mine:
            out.append((n, hit))
            continue
        base = hit.chunk.span.start_line
        spans = [line_span(hit.chunk, base + first, base + last) for first, last in mine]
        focus = spans[0]
        window = context_span(focus, hit.window) if hit.window is not None else None  # covers the new focus
        more = tuple(sorted(spans[1:], key=lambda s: s.start_line))
        out.append((n, replace(hit, focus=focus, window=window, more_focus=more, quotes=tuple(quotes[n]))))
    return out, list(picked)


_WORD = re.compile(r"\w+")
QUOTE_START_WORDS = 3  # the quoted sentence's first words found on its first line place its column (quote_span)


def quote_span(hit: Hit, unit: Unit, first: int, last: int) -> LineSpan:
    """The span of `hit`'s chunk a quote of `unit` cites (0-based chunk lines `first`..`last`, `focus_lines`),
    starting at the quoted sentence's first character when it starts on `first` after other text (a sentence that
    follows another on its line: "... to update the rest. To roll back, run"), so a `[n]` puts the cursor on the
    sentence it quotes. The column is where the sentence's first QUOTE_START_WORDS words (fewer for a shorter
    sentence) follow each other on that line, word characters only (markup between them, as in "`beacon push`",
    does not matter); or where its first words end the line (a sentence wrapped right after them); else the line's
    start, as `line_span` gives it. Columns are UTF-16 units, as every wire position."""
    span = line_span(hit.chunk, hit.chunk.span.start_line + first, hit.chunk.span.start_line + last)
    lines = hit.chunk.text.splitlines()
    if first != unit.line or not 0 <= first < len(lines):
        return span
    col = _sentence_column(lines[first], [w.group() for w in _WORD.finditer(unit.sentence)][:QUOTE_START_WORDS])
    if not col:
        return span
    col16 = col + sum(1 for ch in lines[first][:col] if ord(ch) > 0xFFFF)
    return replace(span, start_char=col16 + (hit.chunk.span.start_char if first == 0 else 0))


def _sentence_column(line: str, words: list[str]) -> int:
    """The index in `line` where `words` (a sentence's first words) start: where all of them follow each other
    (word tokens only), else where the longest run of their first ones ends the line; 0 when neither."""
    tokens = list(_WORD.finditer(line))
    texts = [t.group() for t in tokens]
    for k in range(len(words), 0, -1):
        for i in range(len(texts) - k + 1):
            if texts[i:i + k] == words[:k] and (k == len(words) or i + k == len(texts)):
                return tokens[i].start()
    return 0


def _join_quote(groups: list[list[int]], a: int, b: int, headings: Sequence[int] = ()) -> None:
    """Quoted lines `a`..`b` (0-based, inclusive) added to a source's `groups` of quoted lines ([first, last], in
    pick order; changed in place): into a group they overlap or touch, else the first group the union fits in
    `focus.MAX_FOCUS_LINES` lines with and holds none of the section `headings` (0-based lines: a citation's title
    is its first line's section, so one range never runs into the next section), else as a group of their own; a
    group grown over another it now overlaps or touches takes it in. No two groups overlap: a quote joining a group
    it merely fitted with, beside one it overlapped, was cited "348-349, 349-360" (Sphinx's build-finished event)."""
    touching = [g for g in groups if a <= g[1] + 1 and b >= g[0] - 1]
    fits = [g for g in groups if max(b, g[1]) - min(a, g[0]) + 1 <= MAX_FOCUS_LINES
            and not any(min(a, g[0]) < k <= max(b, g[1]) for k in headings)]
    if not touching and not fits:
        groups.append([a, b])
        return
    into = (touching or fits)[0]
    into[0], into[1] = min(a, into[0]), max(b, into[1])
    for g in [g for g in groups if g is not into and into[0] <= g[1] + 1 and into[1] >= g[0] - 1]:
        into[0], into[1] = min(g[0], into[0]), max(g[1], into[1])
        groups.remove(g)


def sentence_focus(hits: Sequence[Hit], question: str, files: FileFilters | None = None,
                   embed: Callable[[list[str]], Any] | None = None, query_vector: Any = None) -> list[Hit]:
    """`hits` with each `focus` narrowed to its answering passage(s) (see retrieval/focus.py): the passage of its
    chunk an extractive answer without a model would quote from it — every passage of the chunk, scored by
    `passage_scores`, those outside its best window weighted by OUTSIDE_WINDOW, as `extractive_picks` ranks them
    (`candidate_passages`), plus what the heading of its section adds (`_titled`) — with the code after
    it when the answer shows it (`with_code_after`), narrowed to at most FOCUS_SENTENCE_LINES lines
    (`focus_lines`), then joined by the passages right before and after it that answer too (`_neighbours`) while
    the whole fits in FOCUS_SENTENCE_LINES lines, and by the passage ranked second with the lines between them when
    the whole still fits (`_with_runner_up`); `Hit.quotes` holds that passage alone (`quote_span`, where a
    source opens) when it is not the whole focus. The best window (`Hit.best_window`, set here from the incoming
    `window`, else `focus`) is kept and the context (`Hit.window`) is widened to cover the focus (`context_span`),
    so calling it again gives the same hits. Hits without a window or focus are returned as they are. `files`: the
    open indexes' file filters by folder (what a page's literalinclude may show, `passages.chunk_units`). With
    `embed` (passage texts -> normalised vectors, (len, dim), or None when they are not all at hand: the vectors
    the index's sentence pass stored, `Embedder.known_vectors`) and
    `query_vector` (the question's, normalised, (dim,)), the passages the words score are ranked by their meaning
    too (`_with_meaning`), and the neighbours and the runner-up are judged on that ranking."""
    query, terms, named = _citation_terms(question)
    out = []
    for hit in hits:
        window = hit.best_window or hit.window or hit.focus
        if window is None:
            out.append(hit)
            continue
        hit = replace(hit, window=window, best_window=window)
        candidates, _ = candidate_passages([(1, hit)], literal_terms(question), files=files)
        words = [c.words for c in candidates]
        scores = passage_scores(query, [c.unit for c in candidates], words)
        titled = _titled(hit.chunk.text, candidates, query, chunk_markdown(hit.chunk))
        weighted = [None if x is None else (x + t) * c.weight for x, t, c in zip(scores, titled, candidates)]
        ranking = weighted
        cosines: list[float | None] = [None] * len(candidates)
        if embed is not None and query_vector is not None:  # the passages by meaning too
            meant, titled_share, cosines = _with_meaning(scores, titled, candidates, embed, query_vector)
            ranking = [None if x is None else (x + t) * c.weight for x, t, c in zip(meant, titled_share, candidates)]
        ranked = sorted((-x, i) for i, x in enumerate(ranking) if x is not None)
        if not ranked:  # no passage shares a word with the question (or the chunk is code): the window's
            # lines holding the most query terms (a name in a code block or a table), else the window itself; a run
            # of lines never goes over a section title (a small page is one chunk of several sections)
            headings = frozenset(k for k, _ in section_titles(hit.chunk.text, chunk_markdown(hit.chunk)))
            lines = keyword_focus(hit.chunk, terms, FOCUS_SENTENCE_LINES, window, headings) if terms else None
            out.append(replace(hit, focus=lines or window))  # both within the window
            continue
        best = ranked[0][1]
        u = with_code_after(candidates[best].unit, query)
        own = focus_lines(hit, u, named, query)
        first, last = _neighbours(candidates, words, ranking, best, own, query, cosines)
        if len(ranked) > 1:  # the runner-up joins when both fit in one focus (`_with_runner_up`)
            first, last = _with_runner_up(hit, candidates[ranked[1][1]].unit, (first, last), named, query)
        base = hit.chunk.span.start_line
        focus = line_span(hit.chunk, base + first, base + last)  # its block can run on past the window
        # the answering passage itself, where the cursor goes: the neighbours joined to it may start lines earlier
        quote = quote_span(hit, u, *own)
        out.append(replace(hit, focus=focus, window=context_span(focus, window), best_window=window,
                           quotes=() if quote == focus else (quote,)))
    return out


def _with_runner_up(hit: Hit, unit: Unit, span: tuple[int, int], named: frozenset[str],
                    query: set[str] | frozenset[str]) -> tuple[int, int]:
    """`span` (the 0-based chunk lines (first, last) of `hit`'s focus) grown to cover `unit`, the passage ranked
    second in `sentence_focus`, with what `focus_lines` cites of it (its block as the answer shows it,
    `with_code_after`), and the lines between them, when the whole spans at most FOCUS_SENTENCE_LINES lines; else
    `span`. The two passages a chunk reads closest to the question are as often the answer's two halves (a default,
    then how to change it) as a restatement of the question and its answer, and the one the user needs is as often
    the second as the first; two passages a few lines apart are one citation. Measured on the recorded hits of 53
    dev sets with `_neighbours` judging on the mixed ranking (bench/history/session-67.md, "Focus: the two best
    passages of a chunk"): Focus@5 924 -> 944/1591, one focus lost."""
    first, last = span
    a, b = focus_lines(hit, with_code_after(unit, query), named, query)
    lo, hi = min(first, a), max(last, b)
    return (lo, hi) if hi - lo + 1 <= FOCUS_SENTENCE_LINES else span


def _with_meaning(scores: list[float | None], titled: list[float], candidates: list[Candidate],
                  embed: Callable[[list[str]], Any], query_vector: Any
                  ) -> tuple[list[float | None], list[float], list[float | None]]:
    """(scores, titled, cosines) of `sentence_focus` for one chunk's `candidates` with their meaning weighed: each scored
    passage's word score (`passage_scores`) and heading share (`_titled`) over the best word score, plus
    COSINE_WEIGHT times the cosine of its sentence (without the block it introduces, as the extractive answer embeds
    it) with `query_vector`; a passage the words leave out (None) stays out. Words alone rank a sentence repeating
    the question's common words above the one that answers in its own: "Strong recommendations are accepted
    automatically ..." over "For example, if you want to automatically accept any matches above 90% similarity,
    use:" for a question on accepting 90 % matches. The best passage is chosen on these scores, and since session 67
    the neighbours joining it (`_neighbours`) and the runner-up (`_with_runner_up`) are judged on them too (session
    62 judged the neighbours on the words': cosines of one topic's sentences lie close together, so more neighbours
    reach NEIGHBOUR_SHARE and the focus grows, 3.95 -> 4.33 lines on average with the runner-up; on 53 dev sets it
    placed more focus than it lost, bench/history/session-67.md, "Focus: the two best passages of a chunk"). Measured on the 26 embedded dev sets
    (recorded hits, Focus@5): 434 -> 471/784, the mean focus 4.03 -> 3.95 lines (bench/history/session-62.md,
    "Focus: the answering sentence's meaning beside its words"); the cosine alone in the extractive answer's rule
    placed 472 with more lost, the three or five best by words re-ranked by it 458 and 468. `cosines`: each scored
    passage's cosine with the question (None for the others, and for all when the words alone choose), which
    `_neighbours` reads."""
    scored = [i for i, x in enumerate(scores) if x is not None]
    top = max((scores[i] or 0.0 for i in scored), default=0.0)
    none: list[float | None] = [None] * len(scores)
    if not scored or top <= 0:
        return scores, titled, none
    vecs = embed([candidates[i].unit.sentence for i in scored])
    if vecs is None:  # a sentence without its vector at hand (`Embedder.known_vectors`): the words alone choose
        return scores, titled, none
    out: list[float | None] = [None] * len(scores)
    cosines: list[float | None] = [None] * len(scores)
    for i, v in zip(scored, vecs):
        cosines[i] = float(v @ query_vector)
        out[i] = (scores[i] or 0.0) / top + COSINE_WEIGHT * cosines[i]
    return out, [t / top for t in titled], cosines


def _titled(text: str, candidates: list[Candidate], query: set[str] | frozenset[str], markdown: bool = True
            ) -> list[float]:
    """What the heading of its section adds to each candidate passage's score (`candidate_passages`) of chunk `text`
    in `sentence_focus`: the question's words that the nearest heading above it in the chunk holds
    (`blocks.section_titles`), each weighted by its rarity among the passages as `passage_scores` weighs words,
    ln(1 + N / df) (df counts the passages holding the word themselves, at least 1). A heading says what every
    sentence under it is about: "## Can I run Black with PyPy?" over "Yes, there is support for PyPy 3.8 and
    higher." — without it, a sentence of another section sharing the question's common words ("running _Black_")
    outscored the one answering under the heading that asks it. Every passage of a section gains the same, so the
    order within a section is its own words' (a heading word added to the passages' words instead changed it)."""
    titles = section_titles(text, markdown)
    if not titles:
        return [0.0] * len(candidates)
    df: dict[str, int] = {}
    for c in candidates:
        for w in c.words & query:
            df[w] = df.get(w, 0) + 1
    total = max(1, len(candidates))
    out = []
    for c in candidates:
        heading = next((t for line, t in reversed(titles) if line < c.unit.line), "")
        shared = passage_words(heading) & query if heading else frozenset()
        out.append(math.fsum(math.log(1 + total / df.get(w, 1)) for w in shared))
    return out


def _neighbours(candidates: list[Candidate], words: list[frozenset[str]], scores: list[float | None], best: int,
                span: tuple[int, int], query: set[str] | frozenset[str],
                cosines: Sequence[float | None] = ()) -> tuple[int, int]:
    """The focus lines `span` (0-based chunk lines of passage `candidates[best]`) joined by the passages right
    before and after it (in text order) that answer too — sharing a word with the question and either adding one
    of the question's words the focus does not hold yet, or scoring at least NEIGHBOUR_SHARE of the best score —
    while the whole spans at most FOCUS_SENTENCE_LINES lines — also across a section title: an FAQ's question
    joined by the answer under its "#### Answer", an intro by the "## Tools" sentence naming what was asked (kept in
    the section, 2 focus hits of 22 dev sets were lost and none gained: bench/history/session-60.md, "Focus across
    a section title") — a neighbour after it comes with its sentence and as
    much of the list or code block it carries as fits (its whole block had to fit, which kept "Usage of netrc file
    can be disabled by setting `trust_env` to `False` in the Requests session:", over an 8-line example, out of a
    focus on the sentence before it saying where the netrc file is read; bench/history/sessions-48-49.md, "Focus: a
    neighbour's block no longer keeps its sentence out"): the answer is often two sentences ("By default ...
    cached for 10 seconds." / "This can be changed ... `ttl_dns_cache=300`"; "PEP 8 recommends spaces over tabs."
    / "_Black_ provides no options to configure the indentation style"), and the better of them by shared words
    is as often the second as the first. A neighbour the extractive answer would read with the sentence joins
    whatever words it shares (`neighbours.antecedent`: the sentence the focus refers back to; `neighbours.explains`:
    the next one naming the means of the need it states, "Alembic makes this easy via the `--sql` option", which
    shares no word with a question asked in the words of the need). The better-scored neighbour is tried first.
    The words the focus holds are the lines it shows: a sentence's block that does not fit in it (`focus_lines`,
    `_shown`) adds none (coverage.py's "add this to your configuration file:" over a block 13 lines below: the
    "disable_warnings" of its TOML kept "Individual warnings can be disabled with ..." out of the focus). With
    `cosines` (each scored passage's cosine with the question, `_with_meaning`; `scores` then the mixed ranking), a
    neighbour joins by its score only when it is on the question's point (`_on_point`: not only sharing the words
    every passage of the chunk shares, or not among the quarter of the chunk reading farthest from the question), and
    a scored neighbour on lines the focus already shows (another sentence of its line) joins whatever it scores: it
    adds no line, and left out it kept the passages past it out."""
    first, last = span
    unit = candidates[best].unit
    shown = words[best] if last > unit.end or unit.block_end <= unit.end else passage_words(unit.sentence)
    covered = set(shown & query)  # a block past the focus (`_shown`) holds no word the focus shows
    top = scores[best] or 0.0
    on_point = _on_point(words, scores, query, cosines)
    lo = hi = best
    while True:
        options = []
        for i in (lo - 1, hi + 1):
            if not 0 <= i < len(candidates):
                continue
            unit = candidates[i].unit
            refers = explains(candidates[hi].unit, unit) if i > hi else antecedent(unit, candidates[lo].unit)
            if scores[i] is None and not refers:
                continue
            score = scores[i] or 0.0
            a, b = min(first, unit.line), max(last, unit.block_end if i > hi else unit.end)
            if b - a + 1 > FOCUS_SENTENCE_LINES and i > hi:  # its sentence, and as much of its block as fits
                b = max(last, unit.end, min(unit.block_end, a + FOCUS_SENTENCE_LINES - 1))
            new = (words[i] & query) - covered
            close = score >= NEIGHBOUR_SHARE * top and on_point[i]
            shown_already = (a, b) == (first, last)  # on lines the focus shows: it adds none, nor keeps others out
            if b - a + 1 <= FOCUS_SENTENCE_LINES and (refers or new or close or shown_already):
                options.append((-score, i, a, b))
        if not options:
            return first, last
        _, i, first, last = min(options)
        covered |= words[i] & query
        lo, hi = min(lo, i), max(hi, i)


def _on_point(words: list[frozenset[str]], scores: list[float | None], query: set[str] | frozenset[str],
              cosines: Sequence[float | None] = ()) -> list[bool]:
    """Per candidate passage of one chunk (`words`: each one's words, `scores`: `sentence_focus`'s ranking, None for
    a passage it leaves out; `cosines`: each scored one's cosine with the question, `_with_meaning`): whether it
    says something of the question's own point rather than only of the chunk's topic — it holds a question word
    that not every scored passage of the chunk holds, or its cosine is not among the lowest quarter of the chunk's
    scored passages' (1/OFF_POINT_SHARE of them, rounded down: none of 3, the lowest of 4 to 7). `_neighbours` lets
    a neighbour join by its score (NEIGHBOUR_SHARE of the best) only then.
    With the meaning weighed in, every sentence of one topic scores near the best (COSINE_WEIGHT x cosines that lie
    close together, plus the section title's share every passage gets): "Never deploy during a storm warning; the
    beacons must stay lit while they reboot." joined the focus of "How do I roll back beacon firmware?" at 0.56 of
    the best score, sharing only "beacon", which every sentence of that page holds, and reading farther from the
    question than any of them (cosine 0.42; the others 0.44-0.72). The chunk's median as the bar instead dropped
    neighbours that answer too and left a Requests question refused (the meaning veto reads the focus sentences).
    Without the cosines (the words alone rank) every passage counts as on the point, as before. Measured:
    bench/history/session-68.md, "Focus: a neighbour that only shares the chunk's topic"."""
    scored = [i for i, x in enumerate(scores) if x is not None]
    common = frozenset(query).intersection(*(words[i] for i in scored)) if scored else frozenset()
    known = sorted(c for c in cosines if c is not None)
    floor = known[len(known) // OFF_POINT_SHARE] if known else None  # below it: the lowest quarter
    out = []
    for i, w in enumerate(words):
        cosine = cosines[i] if i < len(cosines) else None
        out.append(floor is None or bool((w & query) - common) or (cosine is not None and cosine >= floor))
    return out


def _citation_terms(question: str) -> tuple[set[str], frozenset[str], frozenset[str]]:
    """What `focus_lines` reads of `question`, for `quoted_focus` and `sentence_focus` alike: its content words and
    dotted numbers as `passage_scores` counts them, its BM25 terms (`analysis.stems`), and those terms without stop
    words (all of them when every term is one)."""
    terms = frozenset(stems(question))
    return set(content_words(question)) | literal_terms(question), terms, frozenset(terms - STOPWORDS) or terms


def _shown(hit: Hit, unit: Unit, last: int) -> int:
    """`last`, the last line of `unit`'s focus, moved up to the last line before it that shows something: the
    sentence's own, or a line of the block it carries (a list, code). The lines between a sentence and its block can
    show nothing once markup is read (a reST comment or a directive line: coverage.py's pages put a 12-line cog
    comment between "add this to your configuration file:" and the TOML it shows); a focus cut there ended in those
    lines, and the sentence right before it, which answers too, no longer fitted beside it."""
    if last <= unit.end:
        return last
    blocks = parsed(hit.chunk.text, chunk_markdown(hit.chunk))
    return max((min(last, block_end(b)) for b in blocks if b.kind != "skip" and unit.end < b.start <= last),
               default=unit.end)


def focus_lines(hit: Hit, unit: Unit, terms: frozenset[str] | set[str],
                query: set[str] | frozenset[str]) -> tuple[int, int]:
    """The 0-based lines (first, last) of `hit`'s chunk text that a citation of its passage `unit` points at, at
    most FOCUS_SENTENCE_LINES lines. The sentence (its first FOCUS_SENTENCE_LINES lines) with the list or code block
    it carries (`Unit.block_end`: a ":" sentence's block, or the code `with_code_after` shows under it) when the
    whole fits. A longer block is cut (a 12-line list or a 30-line example is not the line the user needs): the
    sentence and the block's first lines — the sentence says what the block shows, and the line a user copies
    mostly follows it closely — unless the sentence shares no word with the question `query` (content words as
    `passage_scores` counts them: it was chosen for its block's words); then the FOCUS_SENTENCE_LINES lines ending
    at the last of the block's lines naming the most of `terms` (BM25 terms of the question without stop words,
    `keyword_focus`). Measured on five dev sets: ending at those lines whenever they keep the sentence's last line
    instead placed one focus better and two worse (bench/history/held-out-sets-4-to-6.md, "Focus on the answering passage")."""
    first = unit.line
    cap = first + FOCUS_SENTENCE_LINES - 1
    if unit.block_end <= cap or not terms or passage_words(unit.sentence) & query \
            or pointed_at(identifier_words(unit.sentence), query):
        return first, _shown(hit, unit, min(unit.block_end, cap))
    base = hit.chunk.span.start_line
    block = LineSpan(base + unit.end + 1, 0, base + unit.block_end, 0)
    run = keyword_focus(hit.chunk, terms, FOCUS_SENTENCE_LINES, block)
    if run is None or run.end_line - base <= cap:
        return first, cap
    last = run.end_line - base
    return max(first, last - FOCUS_SENTENCE_LINES + 1), last
