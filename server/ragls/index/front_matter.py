"""Front matter (a YAML "---" or TOML "+++" block a Markdown page opens with): its length in lines and its `title`.
The chunker keeps it out of heading sections (index/chunking.py); the answer layer reads chunk texts without it
(answer/blocks.py); a page titled only by it gets that title (index/titles.py)."""

from __future__ import annotations

import re

from ragls.index.lines import LineIndex

_FRONT_MATTER_OPEN = re.compile(r"(---|\+\+\+)[ \t]*(?:\r\n|\r|\n)")
_FRONT_MATTER_KEY = re.compile(r"[\w\"'.-]+[ \t]*[:=]")
# a line inside front matter: a key, an indented line (a nested map, a folded value), a "- " item, a comment, a table
_FRONT_MATTER_BODY = re.compile(r"[\w\"'.-]+[ \t]*[:=]|[ \t]|-(?:[ \t]|$)|#|\[")


def front_matter_lines(text: str, index: LineIndex, strict: bool = False) -> int:
    """Number of lines of a leading front matter block (YAML "---" ... "---"/"...", or TOML "+++" ... "+++"),
    0 when there is none. The first line inside must look like a key ("title: x", "title = x") so that a leading
    thematic break is not taken for front matter. `strict`: every line inside must also read as front matter (a
    key, an indented or "- " line, a comment, a TOML table, a blank line; `_FRONT_MATTER_BODY`), for a text that
    may be a chunk from inside a file, where "---" / "Note: ..." / prose / "---" is two thematic breaks."""
    opener = _FRONT_MATTER_OPEN.match(text)
    if not opener:
        return 0
    closers = ("---", "...") if opener.group(1) == "---" else ("+++",)
    starts = index.starts
    for line in range(1, len(starts)):
        end = starts[line + 1] if line + 1 < len(starts) else len(text)
        body = text[starts[line]:end].rstrip("\r\n").rstrip(" \t")
        if body in closers:
            return line + 1
        if line == 1 and not _FRONT_MATTER_KEY.match(body):
            return 0
        if strict and body and not _FRONT_MATTER_BODY.match(body):
            return 0
    return 0


def leading_front_matter(text: str) -> int:
    """Number of lines of the front matter block `text` opens with (`front_matter_lines`, strict: every line
    inside reads as YAML or TOML), 0 when there is none. For chunk texts read as Markdown after indexing (the
    blocks an answer quotes, the heading a citation shows): markdown-it reads "---" / "title: x" / "---" as a
    thematic break and a setext heading "title: x"."""
    return front_matter_lines(text, LineIndex(text), strict=True)


_FRONT_MATTER_TITLE = re.compile(r"^title[ \t]*[:=][ \t]*(.*?)[ \t]*$", re.MULTILINE)


def front_matter_title(text: str) -> str:
    """The `title` value of the front matter `text` opens with (`leading_front_matter`; Jekyll, Hugo, Docusaurus,
    MkDocs pages without a "# " heading are titled so), quotes removed; "" when there is none."""
    n = leading_front_matter(text)
    if not n:
        return ""
    block = "".join(text.splitlines(keepends=True)[:n])
    m = _FRONT_MATTER_TITLE.search(block)
    return " ".join(m.group(1).strip("\"'").split()) if m else ""
