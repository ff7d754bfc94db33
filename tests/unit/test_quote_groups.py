"""The lines an extractive answer's quotes from one source are cited as (answer/focus.py `_join_quote`): a quote
joins a group of quoted lines it overlaps or touches before one it merely fits with, so no two cited ranges of a
source overlap (Sphinx's build-finished event was cited "348-349, 349-360": a quote of lines 349-350 joined the
group of line 360, as it fit within MAX_FOCUS_LINES, beside the group 348-349 it overlaps)."""

from __future__ import annotations

import itertools

from ragls.answer.focus import _join_quote


def _groups(quotes: list[tuple[int, int]]) -> list[list[int]]:
    groups: list[list[int]] = []
    for a, b in quotes:
        _join_quote(groups, a, b)
    return groups


def test_a_quote_joins_the_group_it_overlaps():
    assert _groups([(360, 360), (348, 349), (349, 350), (352, 353)]) == [[352, 360], [348, 350]]


def test_no_two_groups_overlap():
    for quotes in ([(10, 10), (0, 1), (1, 9)], [(20, 20), (5, 6), (6, 12), (12, 15)], [(0, 3), (14, 16), (3, 14)]):
        spans = sorted(_groups(quotes))
        assert all(x[1] < y[0] for x, y in itertools.pairwise(spans)), (quotes, spans)


def test_quotes_far_apart_stay_apart_and_close_ones_join():
    assert _groups([(0, 1), (40, 41), (3, 4)]) == [[0, 4], [40, 41]]


def test_a_range_never_runs_into_the_next_section():
    """Quotes on both sides of a section heading are two ranges: the citation's title names the section of its
    first line (Sphinx's tutorial cited 125-133 under "Cross-referencing Python objects" for a figure caption and a
    sentence of "Including doctests", whose heading is line 129)."""
    groups: list[list[int]] = []
    for a, b in [(124, 124), (131, 132)]:
        _join_quote(groups, a, b, headings=[128])
    assert groups == [[124, 124], [131, 132]]
    _join_quote(groups, 126, 126, headings=[128])
    assert groups == [[124, 126], [131, 132]]


def _hit(text: str, start_line: int = 0, start_char: int = 0):
    from ragls.core.ir import Chunk, Hit, LineSpan

    lines = text.split("\n")
    span = LineSpan(start_line, start_char, start_line + len(lines) - 1, len(lines[-1]))
    return Hit(Chunk(id="c", path="docs/deploy.md", text=text, span=span, text_hash="h"), score=1.0)


def test_a_quote_starts_at_its_sentence_mid_line():
    """Each quoted passage's span starts at its sentence (quote_span, wire `quoteRanges`), so a `[n]` lands on the
    sentence its item quotes: "To roll back" starts after the sentence before it on its line."""
    from ragls.answer.focus import quote_span
    from ragls.answer.passages import chunk_units

    text = ("# Deploying\n\nRun `beacon push --canary 5` first: it updates five beacons and waits an hour. If no\n"
            "beacon reports a fault, run `beacon push --all`. To roll back, run `beacon push --previous`.\n")
    hit = _hit(text, start_line=10)
    roll = next(u for u in chunk_units(hit.chunk) if u.sentence.startswith("To roll back"))
    span = quote_span(hit, roll, roll.line, roll.end)
    line = text.split("\n")[roll.line]
    assert (span.start_line, line[span.start_char:]) == (10 + roll.line, "To roll back, run `beacon push --previous`.")
    wrapped = next(u for u in chunk_units(hit.chunk) if u.sentence.startswith("If no"))  # wraps after "If no"
    assert text.split("\n")[wrapped.line][quote_span(hit, wrapped, wrapped.line, wrapped.end).start_char:] == "If no"
    first = next(u for u in chunk_units(hit.chunk) if u.sentence.startswith("Run"))
    assert quote_span(hit, first, first.line, first.end).start_char == 0


def test_a_quote_column_counts_utf16_and_the_chunk_start():
    """Columns are UTF-16 units (an emoji is two), and on the chunk's first line count from the file line's start
    (a chunk that starts mid-line)."""
    from ragls.answer.focus import quote_span
    from ragls.answer.passages import chunk_units

    hit = _hit("Wave 😀 at the beacon first. Then restart the daemon.", start_line=3, start_char=7)
    then = next(u for u in chunk_units(hit.chunk) if u.sentence.startswith("Then"))
    assert quote_span(hit, then, then.line, then.end).start_char == 7 + len("Wave 😀 at the beacon first. ") + 1
