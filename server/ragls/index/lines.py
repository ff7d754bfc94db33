"""Offsets <-> LSP positions of a text (`LineIndex`): 0-based lines ending only at "\\n", "\\r\\n" or "\\r", columns in
UTF-16 code units. Shared by the chunker (index/chunking.py), front matter (index/front_matter.py), the embedding
windows and the titles of cited lines."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from functools import lru_cache

_EOL = re.compile(r"\r\n|\r|\n")
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


class LineIndex:
    """Offsets <-> LSP positions for one text, precomputed once (line starts and astral-plane characters), so each
    lookup is O(log n). Lines end at "\\n", "\\r\\n" or "\\r" only."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0, *(m.end() for m in _EOL.finditer(text))]
        # Characters outside the BMP take two UTF-16 code units.
        self.astral = [m.start() for m in _ASTRAL.finditer(text)] if not text.isascii() else []

    def line_of(self, offset: int) -> int:
        """0-based line containing `offset` (0 <= offset <= len(text))."""
        return bisect_right(self.starts, offset) - 1

    def position(self, offset: int) -> tuple[int, int]:
        """(line, UTF-16 column) of a character offset. Raises ValueError if the offset is out of range."""
        if not 0 <= offset <= len(self.text):
            raise ValueError(f"offset {offset} outside 0..{len(self.text)}")
        line = self.line_of(offset)
        start = self.starts[line]
        col = offset - start
        if self.astral:
            col += bisect_left(self.astral, offset) - bisect_left(self.astral, start)
        return line, col

    def offset(self, line: int, utf16_col: int) -> int:
        """Character offset of an LSP position (inverse of `position`); the column is clamped to the line."""
        if not 0 <= line < len(self.starts):
            raise ValueError(f"line {line} outside 0..{len(self.starts) - 1}")
        start = self.starts[line]
        end = self.starts[line + 1] if line + 1 < len(self.starts) else len(self.text)
        units = 0
        for i in range(start, end):
            if units >= utf16_col or self.text[i] in "\r\n":
                return i
            units += 2 if ord(self.text[i]) > 0xFFFF else 1
        return end


@lru_cache(maxsize=4)
def _line_index(text: str) -> LineIndex:
    return LineIndex(text)


def offset_to_position(text: str, offset: int) -> tuple[int, int]:
    """(0-based line, UTF-16 column) of character `offset` in `text`. The line index of the last few texts is
    cached, so calling this repeatedly on one document is O(log n) per call."""
    return _line_index(text).position(offset)


def position_to_offset(text: str, line: int, utf16_col: int) -> int:
    """Character offset in `text` of an LSP position (0-based line, UTF-16 column)."""
    return _line_index(text).offset(line, utf16_col)
