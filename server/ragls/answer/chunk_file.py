"""A retrieved chunk's file read back at answer time, as the index read it: the one path for the extractive answer's
readers that look past a chunk's own text (`across_chunks`: the rest of a code block or option entry the chunk cut;
`openings`: a reST section title cut from its underline; `table_columns`: the header of a pipe table a chunk opens
inside).
"""

from __future__ import annotations

import functools
import os

from ragls.core.ir import Chunk
from ragls.core.uris import key_path
from ragls.sources.convert import CONVERTED_EXTENSIONS, extension
from ragls.sources.load import kind_for
from ragls.sources.passage import ANSWER_READ_BACK_MAX_BYTES

__all__ = ["chunk_file_lines"]


def chunk_file_lines(chunk: Chunk, line: int = 0) -> list[str] | None:
    """The lines of `chunk`'s file as it is now ("\\n"-split text), when the chunk's 0-based line `line` is still
    that line of the file (its span's start line + `line`, compared without trailing blanks); None otherwise: a web
    page, a code file, a converted document, a chunk without a folder, the file gone, changed since it was indexed,
    or not read (`sources.passage.read_back`: inside the folder, no secret file, at most
    `sources.passage.ANSWER_READ_BACK_MAX_BYTES`). Memoised per version of the file (`_file_lines`: size and mtime)."""
    if "://" in chunk.path or not chunk.folder or kind_for(chunk.path) == "code" \
            or extension(chunk.path) in CONVERTED_EXTENSIONS:
        return None
    try:
        st = os.stat(os.path.join(chunk.folder, key_path(chunk.path)))
    except (OSError, ValueError):
        return None
    file_lines = _file_lines(str(chunk.folder), chunk.path, st.st_size, st.st_mtime_ns)
    lines = chunk.text.split("\n")
    at = chunk.span.start_line + line
    if file_lines is None or not 0 <= line < len(lines) or not 0 <= at < len(file_lines) \
            or file_lines[at].rstrip() != lines[line].rstrip():
        return None
    return file_lines


@functools.lru_cache(maxsize=64)
def _file_lines(folder: str, path: str, size: int, mtime_ns: int) -> list[str] | None:
    """The lines of `folder`/`path` as the index read it (`sources.passage.read_back`), None when it is not read
    (outside the folder, a secret file, too large, gone). Memoised per (file, `size` in bytes, `mtime_ns`)."""
    from ragls.core.errors import Skipped
    from ragls.sources.passage import read_back

    doc = read_back(folder, path, ANSWER_READ_BACK_MAX_BYTES)
    return None if isinstance(doc, Skipped) else doc.text.split("\n")
