"""The one-line preview of a search hit (`rag/query` Chunk `preview`, shown by `ragls search` and the editors'
result lists): the lines the hit's location names, with the markup the rendered page never shows removed.

A result shows its focus lines (`Hit.focus`, the answering passage; else the chunk's first lines) under its
`path:line`. As the file has them they were markup: a Markdown link's target (`[MacPorts](https://...)`), a code
fence, a reST role's label (":ref:`lists <variables-lists>`"), ``inline literals``, a grid table's `+----+` borders,
a directive line, a section title's underline. The preview reads the lines in the blocks the answer reads
(`blocks.parsed`: after `clean_markup`, roles as their text, reST tables as rows of cells, comments and hidden
directives emptied; `inline.plain`: links as their text, reST literals as code spans), then drops what only frames
a block (fences, underlines, table borders, directive and HTML tag lines, list and quote marks, a table row's outer
pipes, Markdown heading marks, reST's "::" literal marker) and emphasis marks (`**bold**`, `*italic*`; code spans
keep their backticks). A code block's lines are shown as written (a reST literal block's "# comment" and "> prompt"
too). Every line of the focus is shown, in order (a list's short items too), " · " between the items of a list and
the rows of a table. A code file's lines are shown as they
are."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ragls.answer.blocks import DEFINITION, LIST_ITEM, TABLE_SEPARATOR, Block, chunk_markdown, parsed
from ragls.answer.inline import CODE_SPANS, plain
from ragls.core.ir import title_headings
from ragls.sources.convert import CONVERTED_EXTENSIONS, extension
from ragls.sources.load import kind_for

if TYPE_CHECKING:
    from ragls.core.ir import Chunk, LineSpan

PREVIEW_CHARS = 200  # what a result list shows of a hit on one line (the CLI's and the editors' limit before)

# A line that frames a block and holds no text: a code fence (with its info string), a reST section underline, a
# horizontal rule, a grid or simple table's border ("+-----+----+", "=====  =====").
_FRAME = re.compile(r"^\s*(?:(?:```|~~~).*|([=\-~^\"'`#*+<>:._])\1{2,}|\+[-=+:]+\+|(?:[-=:]{3,}[ \t|+]*)+|::)\s*$")
# A reST footnote or citation, ".. [#] text", ".. [1] text", ".. [Ref] text": its text (group 1) is shown.
_REST_NOTE = re.compile(r"^\s*\.\.\s+\[[^\]\s]+\]\s+(\S.*)$")
# What opens a line without being its text: a list item's marker; in Markdown also quote marks and a heading's "#"s
# (in reST a ">" or "#" opening a line is text: a shell prompt or comment of an indented literal block).
_LINE_MARKS = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_MARKDOWN_LINE_MARKS = re.compile(r"^\s*(?:>\s*)*(?:(?:[-*+]|\d+[.)])\s+|#{1,6}\s+)?")
# Emphasis outside code spans: **strong**, __strong__, *emphasis*, _emphasis_ (around text; a lone "*", "2 * 3",
# snake_case and "$*" are no emphasis).
_EMPHASIS = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1|(?<![\w*$])\*(?=[^\s*])([^*\n]+?)(?<=[^\s*])\*(?![\w*])"
                       r"|(?<![\w_])_(?=[^\s_])([^_\n]+?)(?<=[^\s_])_(?![\w_])")


def chunk_preview(chunk: Chunk, focus: LineSpan | None = None, limit: int = PREVIEW_CHARS) -> str:
    """`chunk`'s lines that `focus` names (file lines within `chunk.span`; None: the chunk's lines from its first
    block that is not a heading) as one line of at most `limit` characters ("…" marks a cut), read as the module
    docstring says: the lines of the chunk's blocks (`blocks.parsed`, memoised: the focus lines were found in the
    same blocks) — a code block's lines as written, without its fences; a heading's text, except the chunk's own
    title's (`chunk.title`'s last heading) opening the lines when text follows it; no directive or HTML tag line. ""
    when those lines hold no text."""
    lines = chunk.text.split("\n")
    base = chunk.span.start_line
    first, last = (0, len(lines) - 1) if focus is None else (focus.start_line - base, focus.end_line - base)
    if kind_for(chunk.path) == "code" and extension(chunk.path) not in CONVERTED_EXTENSIONS:
        return _cut(" ".join(lines[max(first, 0):last + 1]), limit)
    markdown = chunk_markdown(chunk)  # as `passages.chunk_units` reads it: the same memoised blocks
    found = parsed(chunk.text, markdown)
    if focus is None:
        first = next((b.start for b in found if b.kind != "skip"), 0)
    runs: list[tuple[str, list[str], int]] = []  # (kind, lines, block): a paragraph's lines (read together: a link
    for k, block in enumerate(found):  # can wrap), a list item's, a table row, a code line; in order
        for n, line in enumerate(block.lines, block.start):
            if n < first or n > last or not line.strip() or _FRAME.match(line) or TABLE_SEPARATOR.match(line):
                continue
            if block.kind == "skip" and not markdown and (note := _REST_NOTE.match(line)):
                line = note.group(1)  # a footnote or citation: Sphinx shows its text
            elif block.kind == "skip" and not ((markdown and line.lstrip().startswith("#")) or
                                               (not markdown and not line.lstrip().startswith((".. ", "<")))):
                continue  # a directive or HTML tag line
            if block.kind in ("code", "table"):
                runs.append(("code" if block.kind == "code" else "row", [line.strip()], k))
            elif LIST_ITEM.match(line):
                runs.append(("item", [_unmarked(line, markdown)], k))
            elif block.kind == "deflist" and DEFINITION.match(line) and runs and runs[-1][2] == k:
                # a definition after its term: "term: definition", as the answer reads it (not "term : definition")
                runs[-1][1][-1] = runs[-1][1][-1].rstrip().rstrip(":") + ":"
                runs[-1][1].append(line.strip()[1:].strip())
            elif runs and runs[-1][2] == k and runs[-1][0] in ("prose", "item"):
                runs[-1][1].append(_unmarked(line, markdown))
            else:
                runs.append(("prose", [_unmarked(line, markdown)], k))
    # A focus that opens on the hit's own section title (a hit no word of the query singled out lines of): the title
    # is what result lists show beside the preview, so not again at its start ("Where to go next — Where to go next
    # The frobnicator guide ..."). A later heading, or a heading alone, stays.
    if len(runs) > 1 and found[runs[0][2]].kind == "skip" and chunk.title and \
            _read(runs[0][1], markdown) == title_headings(chunk.title)[-1].strip():
        runs.pop(0)
    if focus is not None and runs and runs[0][0] == "prose" and found[runs[0][2]].kind == "para":
        runs[0] = (runs[0][0], _from_sentence_start(found[runs[0][2]], first, runs[0][1], markdown), runs[0][2])
    # " · " between the items of a list and the rows of a table, which read as one run of words otherwise
    text, before = "", ""
    for kind, run, _ in runs:
        text += (" · " if kind == before and kind in ("item", "row") else " ") + \
            (run[0] if kind == "code" else _read([_unmarked(r, markdown) for r in run] if kind == "row" else run, markdown))
        before = kind
    if not text.strip():  # nothing read as text (a line the blocks leave out): the lines as written, as before
        text = plain(" ".join(lines[max(first, 0):last + 1]), markdown)
    return _cut(text, limit)


# Where a sentence ends inside a line: ".", "!" or "?" (after a closing bracket or quote, "lower)."), spaces, then
# what opens a sentence (a capital, a code span, a quote, emphasis, a bracket).
_SENTENCE_END = re.compile(r"[.!?][)\]\"'*_`]*\s+(?=[A-Z`\"'*(\[:])")
# A line that ends a sentence (or a lead-in: ":", ";"): the next line starts one.
_ENDS_SENTENCE = re.compile(r"[.!?:;][)\]\"'*_`]*$")


def _from_sentence_start(block: Block, first: int, run: list[str], markdown: bool) -> list[str]:
    """The lines `run` of paragraph `block` from focus line `first` on, starting where a sentence does. Focus lines
    are whole lines, and in hard-wrapped prose a sentence starts inside one: a focus on "The Python Imaging Library
    uses ..." starts at the line "lower). The Python Imaging Library uses a coordinate system ..." (Pillow's
    tutorial), one on "Each pixel is processed according to that function:" at "pixel is processed according to
    ...", the line after "Each". So: a paragraph that starts on `first`, or whose line before it ends a sentence,
    is read from `first` as it is; else from the first sentence that starts on that line ("The Python ..."); else
    (none does) from the start of the sentence it continues, the words of the line before ("Each pixel ...")."""
    before = first - block.start
    if before <= 0 or before > len(block.lines) or not run:
        return run
    above = _unmarked(block.lines[before - 1], markdown)
    if not above or _ENDS_SENTENCE.search(above):
        return run
    if end := _SENTENCE_END.search(run[0]):
        return [run[0][end.end():], *run[1:]]
    ends = list(_SENTENCE_END.finditer(above))
    return [above[ends[-1].end():] if ends else above, *run]


def _read(prose: list[str], markdown: bool) -> str:
    """Prose lines on one line with their inline markup read (`inline.plain`) and emphasis marks dropped."""
    return _without_emphasis(plain(" ".join(prose), markdown))


def _unmarked(line: str, markdown: bool) -> str:
    """A line without the marks that open it (`_MARKDOWN_LINE_MARKS` in Markdown, else `_LINE_MARKS`), a table row
    without its outer pipes, a line without its reST "::" literal marker (Sphinx shows "equivalent::" as
    "equivalent:")."""
    text = (_MARKDOWN_LINE_MARKS if markdown else _LINE_MARKS).sub("", line, count=1).strip()
    if text.startswith("|") and text.endswith("|") and len(text) > 1:
        text = text[1:-1].strip()
    return text[:-1] if text.endswith("::") else text


def _without_emphasis(text: str) -> str:
    """`text` with its emphasis marks dropped outside code spans ("Go to definition (**LSP**)" reads "(LSP)")."""
    parts = CODE_SPANS.split(text)
    for k in range(0, len(parts), 2):
        parts[k] = _EMPHASIS.sub(lambda m: m.group(2) or m.group(3) or m.group(4) or "", parts[k])
    return "".join(parts)


def _cut(text: str, limit: int) -> str:
    """`text` on one line (whitespace collapsed), cut to `limit` characters with "…"."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit - 1].rstrip() + "…"
