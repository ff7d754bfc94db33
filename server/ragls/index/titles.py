"""The title a citation shows: the heading of the section that holds a chunk's focus lines, which for a chunk
packing several sections is not always the chunk's own title (`index.chunking` titles a chunk by the section in
force at its start, or by the common parent of merged sibling sections)."""

from __future__ import annotations

import bisect
import os
import stat
from functools import lru_cache
from pathlib import Path

from ragls.core.errors import Skipped
from ragls.core.ir import HEADING_SEP, Chunk, LineSpan, heading_path, title_headings
from ragls.core.lru import LRU
from ragls.core.uris import key_path
from ragls.index.front_matter import front_matter_title, leading_front_matter
from ragls.index.headings import heading_paths, heading_text, markdown_parser, text_headings, text_titles, title_at
from ragls.index.lines import LineIndex


def focus_title(chunk: Chunk, line: int) -> str:
    """The title a source shows: the heading path of the section holding 0-based file line `line` of `chunk`.

    For a chunk of a text document (reST, AsciiDoc, Org, plain text: `sources.load.kind_for`), the section is the
    nearest heading (`text_titles`) at or above `line` within the chunk, else `chunk.title`. A text chunk packs
    sibling sections together and is titled by the section in force at its start, so "[n] options.rst:230-239"
    citing the section "Counting" would otherwise read "Tuples as Multi Value Options". Its path ("Options >
    Counting") is read from the file itself (`_file_path`: the one read-back path, bounded), at display time only:
    the chunk's indexed title stays the leaf section (a path there changed retrieval, bench/history/held-out-sets-4-to-6.md
    "reST heading paths and plain-word titles"); without a readable file whose heading at `line` is that section (changed since it was indexed;
    a FIFO, device, symlink out of the folder, or a file over a bound) the section alone. A Markdown chunk of
    merged sibling sections (titled by their common parent, "A" for "A > x" and "A > y") gets the heading path of
    the section holding `line` ("A > y", `_markdown_focus_title`). Converted documents with heading paths and code
    chunks keep `chunk.title`."""
    from ragls.sources.load import kind_for

    kind = kind_for(chunk.path)
    if kind == "markdown":
        return _markdown_focus_title(chunk.text, chunk.title, max(0, line - chunk.span.start_line),
                                     front=chunk.span.start_line == 0)
    if HEADING_SEP in chunk.title or kind != "text":
        return chunk.title
    section = chunk.title
    if line > chunk.span.start_line:
        text = chunk.text
        index = LineIndex(text)
        offset = index.starts[min(line - chunk.span.start_line, len(index.starts) - 1)]
        section = title_at([t for t in text_titles(text, index, chunk.path) if t[0] <= offset], offset, offset) \
            or chunk.title
    return (_file_path(chunk, line, section) if section else "") or section


def source_title(chunk: Chunk, focus: LineSpan | None) -> str:
    """The title a source of `chunk` shows: of the section holding its `focus` lines (`focus_title`), else (no
    focus) the chunk's own. Every front titles a source so (LSP/HTTP `to_wire_source`, MCP `agent_tools`)."""
    return _once(chunk.title) if focus is None else focus_title(chunk, focus.start_line)


# A source's heading path is read from its file at display time (`_file_path`), so that read is bounded: files over
# FILE_PATH_MAX_BYTES or FILE_PATH_MAX_LINES lines, or with more than FILE_PATH_MAX_HEADINGS headings or
# FILE_PATH_MAX_CHARS characters of heading paths (Org levels are unbounded: n nested headings make ~n^2/2
# characters of paths), show the section alone. Real documentation is far below: Flask's largest reST page is 30 KB
# with 23 headings (466 characters of paths); a hostile 1 MB file costs one bounded read and parse per version.
FILE_PATH_MAX_BYTES = 1_000_000
FILE_PATH_MAX_LINES = 100_000
FILE_PATH_MAX_HEADINGS = 5_000
FILE_PATH_MAX_CHARS = 500_000
# The files' heading paths kept between displays: at most this much weight (a path's characters + 64 per heading,
# ~bytes), least recently used first out; a file whose read failed or was over a bound is kept as () (weight 1).
FILE_PATH_CACHE_WEIGHT = 8_000_000
_HEADING_WEIGHT = 64


def _weight(paths: tuple[tuple[int, str], ...]) -> int:
    return 1 + sum(len(p) + _HEADING_WEIGHT for _, p in paths)


_FILE_PATHS: LRU[tuple[tuple[int, str], ...]] = LRU(FILE_PATH_CACHE_WEIGHT, weigh=_weight)


def _file_path(chunk: Chunk, line: int, section: str) -> str | None:
    """The heading path (`index.headings.heading_paths`) of the last heading at or above 0-based line `line` of
    `chunk`'s file, read now; None when the chunk has no folder, the file cannot be read through the one read-back
    path (`sources.passage.read_back`: a regular file inside the folder, no symlink escape, secrets masked), is over
    a bound (FILE_PATH_MAX_*), or that heading is not `section` (the file changed since it was indexed)."""
    if not chunk.folder:
        return None
    paths = _file_paths(chunk.folder, chunk.path)
    at = bisect.bisect_right(paths, (line, "\uffff")) - 1
    if at < 0 or paths[at][1].rpartition(HEADING_SEP)[2] != section:
        return None
    return paths[at][1]


def _file_paths(folder: str, rel: str) -> tuple[tuple[int, str], ...]:
    """(0-based line, heading path) of the headings of indexed file `rel` (an index key) of `folder`, as of now
    (cached by the real file's identity, modification time and size); () when it lies outside the folder, is no
    regular file, cannot be read or is over a bound (see FILE_PATH_MAX_BYTES)."""
    from ragls.sources.passage import read_back
    from ragls.sources.walk import inside_folder

    real = inside_folder(Path(folder), Path(key_path(rel)))  # the identity: checked again by read_back when read
    if real is None:
        return ()
    try:
        st = os.stat(Path(folder) / real)
    except OSError:
        return ()
    if not stat.S_ISREG(st.st_mode) or st.st_size > FILE_PATH_MAX_BYTES:
        return ()
    key = (os.path.realpath(folder), real, st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size)
    paths = _FILE_PATHS.get(key)
    if paths is None:
        doc = read_back(folder, rel, FILE_PATH_MAX_BYTES)
        paths = () if isinstance(doc, Skipped) else _bounded_paths(doc.text, rel)
        _FILE_PATHS.put(key, paths)
    return paths


def _bounded_paths(text: str, rel: str) -> tuple[tuple[int, str], ...]:
    """`heading_paths` of `text` by 0-based line; () over FILE_PATH_MAX_LINES lines, FILE_PATH_MAX_HEADINGS
    headings or FILE_PATH_MAX_CHARS characters of paths."""
    if text.count("\n") > FILE_PATH_MAX_LINES or text.count("\r") > FILE_PATH_MAX_LINES:
        return ()
    starts = LineIndex(text).starts
    found = heading_paths(text, starts, rel)
    if len(found) > FILE_PATH_MAX_HEADINGS or sum(len(p) for _, p in found) > FILE_PATH_MAX_CHARS:
        return ()
    return tuple((bisect.bisect_right(starts, offset) - 1, p) for offset, p in found)


@lru_cache(maxsize=256)
def _markdown_headings(text: str, front: bool = False) -> tuple[tuple[int, int, str], ...]:
    """(0-based line, level, text) of the headings of a Markdown text (ATX and setext; not "#" lines in code).
    `front`: the text opens its file, so a front matter block it opens with (`leading_front_matter`) is no
    heading (markdown-it reads "title: x" over its closing "---" as a setext heading)."""
    n = leading_front_matter(text) if front else 0
    tokens = markdown_parser().parse("\n" * n + "".join(text.splitlines(keepends=True)[n:]) if n else text)
    return tuple((tok.map[0], int(tok.tag[1:]), heading_text(tokens[i + 1]) if i + 1 < len(tokens) else "")
                 for i, tok in enumerate(tokens) if tok.type == "heading_open" and tok.map is not None)


def _first_text_line(text: str, front: bool) -> int:
    """0-based line of the first non-blank line of a Markdown chunk `text`, after the front matter block a chunk
    opening its file (`front`) starts with: a page's "# x" under its front matter heads the chunk as much as one on
    its first line (lefthook's "parallel" page, front matter `title: "parallel"` over "# `parallel`", showed
    "parallel > parallel")."""
    lines = text.splitlines()
    at = leading_front_matter(text) if front else 0
    while at < len(lines) and not lines[at].strip():
        at += 1
    return at


def _markdown_focus_title(text: str, title: str, line: int, front: bool = False) -> str:
    """The heading path of the section holding 0-based line `line` of a Markdown chunk `text` titled `title`: the
    chunk's headings above `line` (a stack by level) after the part of `title` above the chunk's first heading
    (`_group_title` titles merged sections by their common parent, or by the first one's path when the others are
    its subsections). `title` when no heading of the chunk is above `line`; for a chunk that opens its file
    (`front`) without a title, its front matter's `title` (`front_matter_title`), else ""."""
    headings = [h for h in _markdown_headings(text, front) if h[0] <= line]
    if not headings:
        return _once(title or (front_matter_title(text) if front else ""))
    prefix = title_headings(title)
    if headings[0][0] == _first_text_line(text, front) and prefix and prefix[-1] == headings[0][2]:
        prefix = prefix[:-1]  # the title is the first heading's path: its own name comes from the chunk
    stack: list[tuple[int, str]] = []
    for _, level, name in headings:
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, name))
    return _once(heading_path([*prefix, *(n for _, n in stack if n)]))


def _once(path: str) -> str:
    """Heading path `path` with a heading that repeats the one above it left out: a page titled by its front matter
    and headed by the same words ("lefthook run" over "## `lefthook run`") read "lefthook run > lefthook run"."""
    parts = title_headings(path)
    kept = [p for i, p in enumerate(parts) if i == 0 or p.casefold() != parts[i - 1].casefold()]
    return heading_path(kept)


def document_headings(text: str, path: str) -> list[tuple[int, str]]:
    """(0-based line, plain name) of the headings of a document `text` named `path`, in order, read as the chunker
    reads them. Markdown (`sources.load.kind_for`): markdown-it's ATX and setext headings, so a "# comment" line in
    fenced or indented code is none; other text: `index.headings.text_headings` ("# x", "= x", Org "* x", titles
    underlined with a punctuation row at least as long); code files: []. Headings without words are left out.
    Used where only part of a file is at hand (the added lines of a diff, `commit.message.added_sections`)."""
    from ragls.sources.load import kind_for

    kind = kind_for(path)
    if kind == "markdown":
        return [(line, name) for line, _, name in _markdown_headings(text) if name]
    if kind != "text":
        return []
    starts = LineIndex(text).starts
    return [(bisect.bisect_right(starts, offset) - 1, name) for offset, name in text_headings(text, starts, path)]
