"""The sentences of a paragraph or list item (answer/passages.py): its source lines joined, line prefixes ("- ",
"> ") removed, split at sentence punctuation followed by a capital — never at a line break, nor after an abbreviation
that ends no sentence ("e.g.", "i.e.", "cf.", "vs.", "Fig.": `NO_SENTENCE_END`) — each sentence with the chunk lines
it spans (`joined_lines`, `sentence_spans`).

The one list of the abbreviations whose period belongs to the word is here (`ABBREVIATIONS`): the split reads it, an
extractive answer keeps their period (`ABBREVIATION_END`, answer/extractive.py) and a sentence ending in one that
announces an example carries the block after it (`EXAMPLE_ABBREVIATION`, answer/program_output.py)."""

from __future__ import annotations

import re

from ragls.answer.inline import plain

__all__ = ["ABBREVIATIONS", "ABBREVIATION_END", "EXAMPLE_ABBREVIATION", "EXAMPLE_ABBREVIATIONS", "NO_SENTENCE_END",
           "abbreviations_pattern", "item_sentences", "join_next", "joined_lines", "last_sentence", "sentence_spans"]

# a list item's marker or a blockquote's ">" opening a line
_LINE_PREFIX = re.compile(r"^\s*(?:>\s*)*(?:[-*+]\s+|\d+[.)]\s+|#\.\s+)?")

# The abbreviations whose period belongs to the word, as a dictionary spells them; either case of the first letter
# matches ("E.g.", "Fig."), and a space after an inner period ("e. g."). Those announcing an example carry the block
# after them (`EXAMPLE_ABBREVIATIONS`); none but "etc." ends a sentence (`NO_SENTENCE_END`: "very old (e.g. Python
# 3.6) and very new ..." is one sentence; Sphinx's "... by its figure number like "Fig. 1.1"." was cut after "Fig.");
# "etc." often does ("... logs, traces, etc. Then restart it."), so a sentence may end after it.
EXAMPLE_ABBREVIATIONS = ("e.g.", "i.e.")
NO_SENTENCE_END = (*EXAMPLE_ABBREVIATIONS, "cf.", "vs.", "fig.", "figs.")
ABBREVIATIONS = (*NO_SENTENCE_END, "etc.")


def _spelling(abbreviation: str, space: str) -> str:
    """A regular expression of `abbreviation` ("e.g.", one of `ABBREVIATIONS`) from a word boundary: either case of
    its first letter, `space` (a pattern: "", " " or an optional whitespace) after each inner period."""
    head, *parts = abbreviation[:-1].split(".")
    inner = "".join(rf"\.{space}{re.escape(p)}" for p in parts)
    return rf"\b[{head[0].lower()}{head[0].upper()}]{re.escape(head[1:])}{inner}\."


def abbreviations_pattern(abbreviations: tuple[str, ...]) -> str:
    """A regular expression (a non-capturing group, unanchored) matching any of `abbreviations` (as spelled in
    `ABBREVIATIONS`) written with either case of its first letter and at most one space after an inner period."""
    return "(?:" + "|".join(_spelling(a, r"\s?") for a in abbreviations) + ")"


# A text ending in an abbreviation: an extractive answer keeps its period ("... etc. [2]", not "... etc [2].")
ABBREVIATION_END = re.compile(abbreviations_pattern(ABBREVIATIONS) + "$")
# The abbreviations announcing an example, as a pattern (answer/program_output.EXAMPLE_END)
EXAMPLE_ABBREVIATION = abbreviations_pattern(EXAMPLE_ABBREVIATIONS)

# Sentence punctuation, whitespace, then a capital or digit; never after an abbreviation of `NO_SENTENCE_END` (a
# look-behind per spelling: look-behinds have a fixed width, so "e.g." and "e. g." are two).
_NOT_AFTER = "".join(f"(?<!{_spelling(a, space)})" for a in NO_SENTENCE_END
                     for space in (("", " ") if "." in a[:-1] else ("",)))
_SENTENCE_SPLIT = re.compile(rf"(?<=[.!?]){_NOT_AFTER}\s+(?=[\"'(\[`*_]?[A-Z0-9])")


def joined_lines(lines: list[str], start: int) -> tuple[str, list[tuple[int, int]]]:
    """The lines of a paragraph or list item as one text (line prefixes "- ", "> " removed, joined by a space),
    with (offset in the text, 0-based chunk line) of each line's first character."""
    parts, where, pos = [], [], 0
    for k, line in enumerate(lines):
        piece = _LINE_PREFIX.sub("", line.strip(), count=1)
        where.append((pos, start + k))
        parts.append(piece)
        pos += len(piece) + 1
    return " ".join(parts), where


def _line_at(where: list[tuple[int, int]], offset: int) -> int:
    """The chunk line of character `offset` of a `joined_lines` text (`where` as it returns)."""
    line = where[0][1]
    for pos, n in where:
        if pos > offset:
            break
        line = n
    return line


def sentence_spans(text: str, where: list[tuple[int, int]], markdown: bool = True) -> list[tuple[str, int, int]]:
    """(sentence, first line, last line) of a joined paragraph: split at sentence punctuation followed by a
    capital (never at a line break), markup reduced (`inline.plain`)."""
    out, begin = [], 0
    for m in [*_SENTENCE_SPLIT.finditer(text), None]:
        stop = m.start() if m else len(text)
        raw = text[begin:stop]
        if raw.strip():
            lead = len(raw) - len(raw.lstrip())
            out.append((plain(raw, markdown), _line_at(where, begin + lead), _line_at(where, begin + len(raw.rstrip()) - 1)))
        begin = m.end() if m else len(text)
    return out


def join_next(pieces: list[tuple[str, int, int]], pos: int) -> None:
    """Read sentence `pos` of `pieces` ((sentence, first line, last line), as `sentence_spans` gives them) with the
    one after it, in place: one piece, the two texts joined by a space, spanning the first's first line through the
    second's last. `pos` must be below len(pieces) - 1 (IndexError otherwise)."""
    (a, first, _), (z, _, last) = pieces[pos:pos + 2]
    pieces[pos:pos + 2] = [(f"{a} {z}", first, last)]


def item_sentences(lines: list[str], start: int, min_words: int, markdown: bool = True) -> list[tuple[str, int, int]]:
    """(sentence, first line, last line) of a list item's `lines` (its first at 0-based chunk line `start`) read as
    a paragraph's sentences (`sentence_spans`), one under `min_words` words read with the next, or the last with
    the one before ("... after a config reload. Default: no delay."): what answer/passages.py quotes of an item too
    long to quote whole."""
    pieces = sentence_spans(*joined_lines(lines, start), markdown)
    for pos in range(len(pieces) - 1, -1, -1):
        if len(pieces) > 1 and len(pieces[pos][0].split()) < min_words:
            join_next(pieces, min(pos, len(pieces) - 2))
    return pieces


def last_sentence(text: str) -> str:
    """The last sentence of a passage's `text` (split as `sentence_spans` splits a paragraph): the short lead-in
    "For example:" of "The policy may be set globally, using the `RATES` setting. For example:", which
    answer/passages.py reads with the sentence before it."""
    return _SENTENCE_SPLIT.split(text)[-1]  # no groups: split gives at least [text]
