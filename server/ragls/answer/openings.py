"""A reST chunk that opens at its section title's underline: the chunker starts a chunk at a line start within the
last `index.chunking.DEFAULT_OVERLAP` characters of the one before, and it can cut between a title and its underline
("``commit_author``" / its line of double quotes, Python Semantic Release's configuration.rst). The passages under the
title were then read without the name their heading gives them (`labels.heading_label`: "Author used in commits in
the format ``name <email>``." for "Which setting changes the author PSR commits as?"). `opening_lines` reads the
title line back from the file, so `passages.chunk_units` reads the section as a chunk holding its title does.
"""

from __future__ import annotations

import functools
import os
import re

from ragls.answer.blocks import is_markdown
from ragls.core.ir import Chunk
from ragls.sources.convert import CONVERTED_EXTENSIONS, extension
from ragls.sources.load import kind_for
from ragls.sources.passage import ANSWER_READ_BACK_MAX_BYTES

__all__ = ["opening_lines"]

_UNDERLINE = re.compile(r"^([=\-`:'\"~^_*+#<>])\1{2,}\s*$")  # a reST section title's underline ("=====", "~~~~~")


def opening_lines(chunk: Chunk) -> list[str]:
    """[the section title's line] when `chunk`, of a reST (or plain text) file, opens at that title's underline
    (`_UNDERLINE`, at least as long as the title, the title right above it in the file); [] otherwise, and when the
    file is not a document read as indexed (a web page, a code file, a converted document, or the file changed
    since: its line at the chunk's start is not the chunk's first line). The file is read as the index read it
    (`sources.passage.read_back`: inside the folder, no secret file, at most ANSWER_READ_BACK_MAX_BYTES), once per
    version of it (`_file_lines`). Measured: bench/history/session-68.md, "a title cut from its underline"."""
    at = chunk.span.start_line
    first = chunk.text.split("\n", 1)[0]
    if at <= 0 or not _UNDERLINE.match(first) or is_markdown(chunk.path) or "://" in chunk.path or not chunk.folder \
            or kind_for(chunk.path) == "code" or extension(chunk.path) in CONVERTED_EXTENSIONS:
        return []
    lines = _file_lines(chunk.folder, chunk.path, *_stamp(chunk.folder, chunk.path))
    if lines is None or at >= len(lines) or lines[at].rstrip() != first.rstrip():
        return []
    title = lines[at - 1]
    if not title.strip() or _UNDERLINE.match(title) or len(title.rstrip()) > len(first.rstrip()):
        return []
    return [title]


def _stamp(folder: str, path: str) -> tuple[int, int]:
    """(size, mtime in ns) of `folder`/`path` now, (-1, -1) when it cannot be read: `_file_lines`' memo key."""
    try:
        st = os.stat(os.path.join(folder, path))
    except (OSError, ValueError):
        return -1, -1
    return st.st_size, st.st_mtime_ns


@functools.lru_cache(maxsize=64)
def _file_lines(folder: str, path: str, size: int, mtime_ns: int) -> list[str] | None:
    """The lines of `folder`/`path` as the index read it (`sources.passage.read_back`), None when it is not read
    (outside the folder, a secret file, too large, gone: `size` -1). Memoised per (file, size, mtime)."""
    if size < 0:
        return None
    from ragls.core.errors import Skipped
    from ragls.sources.passage import read_back

    doc = read_back(folder, path, ANSWER_READ_BACK_MAX_BYTES)
    return None if isinstance(doc, Skipped) else doc.text.split("\n")
