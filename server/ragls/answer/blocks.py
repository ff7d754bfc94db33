"""The blocks of a chunk text, each with the lines it spans: paragraphs, list items (a loose list is one block),
fenced and indented code blocks (Markdown's 4-space blocks, reST's literal blocks after "::", doctest sessions), pipe
tables, and lines that are not prose (headings, reST section titles and directive lines, HTML tag lines: "skip").
`answer/passages.py` reads them as sentences, list items and table rows; line numbers are 0-based lines of the chunk
text, which `clean_markup` (answer/markup.py) never moves.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from ragls.answer import rest
from ragls.answer.markup import clean_markup

FENCE_OPEN = re.compile(r"^\s*(```|~~~)")
_INDENTED = re.compile(r"^(?: {4}|\t)\s*\S")  # a line of an indented code block
LIST_ITEM = re.compile(r"^(\s*)(?:[-*+]|\d+[.)])\s+")
# A reST section title's underline (or overline): one punctuation character repeated.
_REST_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+<>:._])\1{2,}\s*$")
_DIRECTIVE_OPTION = re.compile(r"^[ \t]+:[\w-]+:")  # a reST directive's option line, under it
_HTML_TAG_LINE = re.compile(r"^</?[A-Za-z][\w-]*(?:\s[^<>]*)?/?>")  # a line opening with an HTML tag
# A definition of a definition list (MyST's and Pandoc's "deflist": a term line, then ": definition", optionally past
# one blank line, its continuation lines indented).
DEFINITION = re.compile(r"^ {0,3}:[ \t]+\S")
TABLE_SEPARATOR = re.compile(r"^\s*\|?(?:\s*:?-{3,}:?\s*\|)+\s*:?-*:?\s*\|?\s*$")


@dataclass
class Block:
    """A block of a chunk text: its kind, its first line (0-based, in the chunk text) and its lines as written."""

    kind: str  # "para", "list", "deflist" (a definition list's term and definitions), "code", "table", "skip"
    start: int  # 0-based line in the chunk text
    lines: list[str]


def blocks(text: str) -> list[Block]:
    """The chunk text as blocks (see module docstring), with their first line."""
    out: list[Block] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if not stripped:
            i += 1
            continue
        m = FENCE_OPEN.match(line)
        if m:
            j = i + 1
            while j < len(lines) and not lines[j].strip().startswith(m.group(1)):
                j += 1
            out.append(Block("code", i, lines[i:j + 1]))
            i = j + 1
            continue
        limit = _literal_limit(out[-1]) if out else None
        if _INDENTED.match(line) and (i == 0 or not lines[i - 1].strip()) \
                and not (out and out[-1].kind == "list" and limit is None) \
                and (limit is None or rest.content_indent(line) > limit):
            # An indented code block (Markdown's 4-space blocks, reST's literal block after "::"): to the next
            # line that is neither blank nor indented (after "::": indented past the text that introduces it,
            # `_literal_limit`). After a list it is the item's continuation instead.
            j = i + 1
            while j < len(lines) and (not lines[j].strip() or (_INDENTED.match(lines[j]) if limit is None
                                                               else len(lines[j]) - len(lines[j].lstrip()) > limit)):
                j += 1
            while not lines[j - 1].strip():
                j -= 1
            out.append(Block("code", i, lines[i:j]))
            i = j
            continue
        if i + 1 < len(lines) and _REST_UNDERLINE.match(lines[i + 1]) and not LIST_ITEM.match(line) \
                and len(lines[i + 1].strip()) >= len(stripped):
            out.append(Block("skip", i, lines[i:i + 2]))  # a reST section title and its underline
            i += 2
            continue
        if stripped.startswith("|") and stripped.endswith("|") and stripped.count("|") >= 3:
            j = i + 1  # a Markdown (GFM) pipe table: to the first line that is not a row
            while j < len(lines) and lines[j].strip().startswith("|"):
                j += 1
            out.append(Block("table", i, lines[i:j]))
            i = j
            continue
        if line.startswith(">>> "):  # a reST doctest block (a Python session), to the next blank line: code
            j = i + 1
            while j < len(lines) and lines[j].strip():
                j += 1
            out.append(Block("code", i, lines[i:j]))
            i = j
            continue
        if stripped.startswith(("#", "<", "{{", "|", "---", "===", ".. ")):
            out.append(Block("skip", i, [line]))
            i += 1
            continue
        if not LIST_ITEM.match(line) and (DEFINITION.match(line) or _definition_after(lines, i) is not None):
            j = definition_end(lines, i)
            out.append(Block("deflist", i, lines[i:j]))
            i = j
            continue
        kind = "list" if LIST_ITEM.match(line) else "para"
        j = i + 1
        while j < len(lines) and lines[j].strip() and not FENCE_OPEN.match(lines[j]) \
                and not lines[j].strip().startswith(("#", "|")):
            is_item = bool(LIST_ITEM.match(lines[j]))
            if kind == "para" and (is_item or DEFINITION.match(lines[j]) or _definition_after(lines, j) == j + 1):
                break  # a list, or a definition list's term and definition, starts here
            j += 1
        out.append(Block(kind, i, lines[i:j]))
        i = j
    return _merge_lists(out)


def _definition_after(lines: list[str], i: int) -> int | None:
    """When line `i` is the term of a definition list item: the line of its first definition (right after it, or
    past one blank line). Else None. A term is one line of text: not a heading, a fence or a definition itself."""
    term = lines[i].strip()
    if not term or term.startswith(("#", "|", "```", "~~~", "<")) or DEFINITION.match(lines[i]):
        return None
    for k in (i + 1, i + 2):
        if k < len(lines) and DEFINITION.match(lines[k]):
            return k
        if k < len(lines) and lines[k].strip():
            return None
    return None


def definition_end(lines: list[str], i: int) -> int:
    """The line after a definition list item that starts at line `i` (its term, or a definition whose term is not in
    the chunk): its term, its definitions (": ..." lines, past one blank line between them) and their continuation
    lines, up to a blank line not followed by a definition, a fence or a heading."""
    j = i + 1
    while j < len(lines):
        if not lines[j].strip():
            if j + 1 < len(lines) and DEFINITION.match(lines[j + 1]):
                j += 1
                continue
            break
        if FENCE_OPEN.match(lines[j]) or lines[j].lstrip().startswith("#"):
            break
        j += 1
    while not lines[j - 1].strip():
        j -= 1
    return j


def _literal_limit(block: Block) -> int | None:
    """When `block`'s last line ends in reST's literal-block marker "::" (the indented block after it is code, even
    after a list item), the indentation of its text (a list item's text column, `rest.content_indent`): the
    literal block is the lines indented past it. Else None."""
    last = next((x for x in reversed(block.lines) if x.strip()), "")
    return rest.content_indent(last) if last.rstrip().endswith("::") else None


def _merge_lists(blocks: list[Block]) -> list[Block]:
    """Consecutive list blocks (a loose list: items separated by blank lines) become one list block."""
    out: list[Block] = []
    for b in blocks:
        if out and b.kind == "list" and out[-1].kind == "list":
            out[-1].lines += [""] + b.lines
        else:
            out.append(b)
    return out


def code_body(block: Block) -> list[str]:
    """The non-blank lines of a code block without its fences."""
    lines = [x for x in block.lines if x.strip()]
    if lines and FENCE_OPEN.match(block.lines[0]):
        lines = lines[1:]
        if lines and FENCE_OPEN.match(lines[-1]):
            lines = lines[:-1]
    return lines


def block_end(block: Block) -> int:
    """The 0-based chunk-text line of the last non-blank line of `block`."""
    n = len(block.lines)
    while n > 1 and not block.lines[n - 1].strip():
        n -= 1
    return block.start + n - 1


@functools.lru_cache(maxsize=1024)
def parsed(text: str) -> tuple[Block, ...]:
    """The blocks of a chunk text after `clean_markup`, memoised: every query parses its hits' chunks again, and
    the chunks of a corpus's popular sections come back often. Callers do not modify the blocks."""
    return tuple(blocks(clean_markup(text)))


def between(block: Block) -> bool:
    """Whether `block` may stand between a ":" sentence and the block it introduces: a reST directive line
    (".. code-block:: python") or its option lines (":caption: schema.sql"), or a line of HTML tags (mdBook's
    `<Listing number="1-1" ...>`, a `<span class="filename">` caption), which the answer does not show."""
    first = block.lines[0].lstrip()
    return first.startswith(".. ") or (block.kind == "skip" and bool(_HTML_TAG_LINE.match(first))) \
        or (block.kind == "para" and all(_DIRECTIVE_OPTION.match(x) for x in block.lines if x.strip()))


def split_row(line: str) -> list[str]:
    """The cells of a pipe-table row; "\\|" and pipes inside a code span stay in their cell."""
    body = line.strip().removeprefix("|").removesuffix("|")
    cells, cur, in_code = [], [], False
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body) and body[i + 1] == "|":
            cur.append("|")
            i += 2
            continue
        if ch == "`":
            in_code = not in_code
        if ch == "|" and not in_code:
            cells.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
        i += 1
    cells.append("".join(cur))
    return [c.strip() for c in cells]


def continuation(lines: list[str], j: int) -> int:
    """How many lines after list item `j` continue its text (the source's hard wraps): the lines up to the next
    blank line or list item."""
    n = 0
    for line in lines[j + 1:]:
        if not line.strip() or LIST_ITEM.match(line):
            break
        n += 1
    return n
