"""A reST chunk that opens at its section title's underline: the chunker starts a chunk at a line start within the
last `index.chunking.DEFAULT_OVERLAP` characters of the one before, and it can cut between a title and its underline
("``commit_author``" / its line of double quotes, Python Semantic Release's configuration.rst). The passages under the
title were then read without the name their heading gives them (`labels.heading_label`: "Author used in commits in
the format ``name <email>``." for "Which setting changes the author PSR commits as?"). `opening_lines` reads the
title line back from the file, so `passages.chunk_units` reads the section as a chunk holding its title does.
"""

from __future__ import annotations

import re

from ragls.answer.blocks import chunk_markdown
from ragls.answer.chunk_file import chunk_file_lines
from ragls.core.ir import Chunk

__all__ = ["opening_lines"]

_UNDERLINE = re.compile(r"^([=\-`:'\"~^_*+#<>])\1{2,}\s*$")  # a reST section title's underline ("=====", "~~~~~")


def opening_lines(chunk: Chunk) -> list[str]:
    """[the section title's line] when `chunk`, of a reST (or plain text) file, opens at that title's underline
    (`_UNDERLINE`, at least as long as the title, the title right above it in the file); [] otherwise, and when the
    file is not a document read as indexed (a web page, a code file, a converted document, or the file changed
    since: its line at the chunk's start is not the chunk's first line). The file is read as the index read it,
    once per version of it (`chunk_file.chunk_file_lines`). Measured: bench/history/session-68.md, "a title cut
    from its underline"."""
    at = chunk.span.start_line
    first = chunk.text.split("\n", 1)[0]
    if at <= 0 or not _UNDERLINE.match(first) or chunk_markdown(chunk):
        return []
    lines = chunk_file_lines(chunk)
    if lines is None:
        return []
    title = lines[at - 1]
    if not title.strip() or _UNDERLINE.match(title) or len(title.rstrip()) > len(first.rstrip()):
        return []
    return [title]
