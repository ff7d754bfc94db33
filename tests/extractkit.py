"""Hits on whole chunks and the bullets of an extractive answer: the tests of extractive answers ranked by
meaning with the real offline model (answer/ask.extractive_answer)."""

from __future__ import annotations

from ragls.core.ir import Chunk, Hit, LineSpan


def _hit(text: str, path: str = "notes.md") -> Hit:
    return Hit(chunk=Chunk(id=path, path=path, text=text, span=LineSpan(0, 0, 3, 0), text_hash=path), score=1.0)


def _bullets(answer: str) -> list[str]:
    return [line for line in answer.splitlines() if line.startswith("- ")]


def _windowed(text: str, path: str, first: int, last: int) -> Hit:
    """A hit on `text` (file lines 0..) whose best window is file lines `first`..`last` (0-based)."""
    n = text.count("\n")
    return Hit(chunk=Chunk(id=path, path=path, text=text, span=LineSpan(0, 0, n, 0), text_hash=path), score=1.0,
               window=LineSpan(first, 0, last, 0))
