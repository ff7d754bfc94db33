"""reST literal blocks and footnote references, for the markup rules of answer/markup.py and answer/rest.py:
which lines are literal (`opens_literal`, `literal_lines`: an example after "::" or under `.. code-block::`, shown as
written), holding them while the markup rules run (`hold_literals`, `restore_literals`: a page teaching reST shows
".. function:: foo(x)" as an example, not as its own object description), `literal_blocks` (a literal block may be
indented by any amount in reST, 3 spaces is common; it is indented to at least 4 so that it reads as a code block,
not as prose) and `note_refs` (footnote references "[1]_" dropped, citation references read "[CIT2002]"). Each
function keeps the text's lines (a passage's lines are what `focusRange` cites).
"""

from __future__ import annotations

import re

from ragls.answer.inline import CODE_SPANS
from ragls.answer.rest import content_indent, indent_of, options_end

# A line ending in reST's literal-block marker "::" (not a directive: ".. code-block::" is handled by name).
_LITERAL_MARKER = re.compile(r"(?:^|[^:])::[ \t]*$")
_CODE_DIRECTIVE = re.compile(r"^[ \t]*\.\. (?:code-block|code|sourcecode|doctest|testcode|testoutput|"
                             r"ipython|parsed-literal|productionlist|code-tab)::")


def opens_literal(line: str) -> bool:
    """Whether the lines indented under `line` are a literal block (code, read as written): `line` ends in reST's
    literal-block marker "::" ("Example::", "- Installed ::"; a directive's "::" is not one), or it is a code
    directive (".. code-block:: rst", ".. doctest::")."""
    if line.lstrip()[:3] == ".. ":
        return bool(_CODE_DIRECTIVE.match(line))
    return line.rstrip().endswith("::") and bool(_LITERAL_MARKER.search(line))


# A footnote reference ("[1]_", "[#]_", "[#label]_", "[*]_"; docutils shows a superscript mark) with the space before
# it, or a citation reference ("[CIT2002]_", shown "[CIT2002]"). Inline literals and interpreted text are as written.
_NOTE_REF = re.compile(r"[ \t]*\[(?:\d+|#[\w.-]*|\*)\]_(?![\w`])")
_CITATION_REF = re.compile(r"(\[[A-Za-z][\w.-]*\])_(?![\w`])")


def note_refs(text: str) -> str:
    """reST prose without footnote references (line for line), which docutils shows as a superscript mark, no text
    of the sentence ("the ``literalinclude`` directive. [#]_ For example" read as one sentence; "**gettext** [1]_ is"
    read "gettext _ is"), and citation references as their label ("[CIT2002]_" -> "[CIT2002]"); inside inline
    literals and interpreted text nothing changes."""
    if "]_" not in text:
        return text
    parts = CODE_SPANS.split(text)
    for k in range(0, len(parts), 2):
        parts[k] = _CITATION_REF.sub(r"\1", _NOTE_REF.sub("", parts[k]))
    return "".join(parts)


def literal_lines(text: str) -> list[bool]:
    """Per line of reST `text`, whether it is a line of a literal block: indented past a line that opens one
    (`opens_literal`: "Looking at this example, ::" with a blank line after it, ".. code-block:: rst" past its own
    ":caption:" option lines, which are the directive's settings). Such a line is an example as written — on a
    page that teaches reST, markup ("   .. function:: foo(x)", ":py:func:`f`", ":param x:") that is no markup of
    the page itself. Blank lines are never literal lines."""
    lines = text.split("\n")
    out = [False] * len(lines)
    literal = -1  # while >= 0: the column a literal block's lines are indented past
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        if literal >= 0 and indent_of(line) > literal:
            out[i] = True
            i += 1
            continue
        literal = -1
        i += 1
        if not opens_literal(line):
            continue
        if line.lstrip()[:3] == ".. ":  # a code directive: its option lines first
            i = options_end(lines, i, indent_of(line))
        elif i < len(lines) and lines[i].strip():  # "::" opens a literal block only past a blank line
            continue
        literal = content_indent(line)
    return out


_HELD = re.compile("\x00(\\d+)\x00")  # a held literal line's mark, its 0-based line (`hold_literals`): no markup rule reads it


def hold_literals(text: str, literal: list[bool] | None = None) -> tuple[str, dict[int, str]]:
    """reST `text` with each literal block line (`literal_lines`, or the lines `literal` marks: a Markdown page's
    fenced code, `markup.fenced_lines`) replaced by its indentation and a mark, and the lines held (0-based line ->
    line as written), so that the markup rules of answer/markup.py (roles, directives, options, fields, tables),
    which move and dedent lines but never add or remove one, leave the examples alone; `restore_literals` puts them
    back."""
    lines = text.split("\n")
    held = {k: lines[k] for k, lit in enumerate(literal_lines(text) if literal is None else literal) if lit}
    for k, line in held.items():
        lines[k] = f"{line[:indent_of(line)]}\x00{k}\x00"
    return "\n".join(lines), held


def restore_literals(text: str, held: dict[int, str]) -> str:
    """`text` (from `hold_literals`, rewritten since) with the held lines back as written, each where its mark is
    now and at the indentation the mark has (a block dedented with the note holding it keeps its relative
    indentation)."""
    return _HELD.sub(lambda m: held[int(m.group(1))].lstrip(), text) if held else text


def literal_blocks(text: str, markdown: bool = True) -> str:
    """`text` with each literal block after a "::" line or code directive indented by at least 4 spaces (line
    for line), so it reads as a code block; the lines' relative indentation is kept. In Markdown (`markdown`) a
    fence's lines are left as they are; in reST a row of "~" is a title's underline, no fence (Tornado's
    "Examples / ~~~~~~~~" kept every 3-space example after it from reading as code)."""
    if "::" not in text:
        return text
    lines = text.split("\n")
    fence = ""
    for i, line in enumerate(lines):
        head = line.lstrip()[:3]
        if head in ("```", "~~~") and (not fence or head == fence) and (markdown or head == "```"):
            fence = "" if fence else head
        if fence or not opens_literal(line):
            continue
        outer = content_indent(line)
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        if j == i + 1 and not _CODE_DIRECTIVE.match(line) or j >= len(lines) or indent_of(lines[j]) <= outer:
            continue
        end = j
        while end < len(lines) and (not lines[end].strip() or indent_of(lines[end]) > outer):
            end += 1
        body = [k for k in range(j, end) if lines[k].strip()]
        add = 4 - min(indent_of(lines[k]) for k in body)
        if add > 0:
            for k in body:
                lines[k] = " " * add + lines[k]
    return "\n".join(lines)
