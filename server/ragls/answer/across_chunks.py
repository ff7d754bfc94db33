"""A passage's list or code block that its chunk's end cut from it (the extractive answer, `answer/extractive.py`):
the block its ":" introduces, when the chunker put that block in the next chunk and that chunk is a source too
(`block_across`), the rest of an indented code block read back from the file past the chunk's end
(`block_continued`), and the rest of a program's help option the chunk's end cut (`option_continued`). The citation
keeps the passage's own chunk lines.
"""

from __future__ import annotations

import re
from dataclasses import replace

from ragls.answer.attached import MAX_ATTACHED_LINES, block_opening, code_shown
from ragls.answer.blocks import FENCE_OPEN, chunk_markdown
from ragls.answer.chunk_file import chunk_file_lines
from ragls.answer.help_text import OPTION_ENTRY, continues_entry, joined
from ragls.answer.passages import EXTRACTIVE_MAX_SENTENCE_CHARS, Unit
from ragls.answer.rest import indent_of
from ragls.core.ir import Hit

# A reST directive line (".. testcode::", ".. code-block:: python") or one of its option lines (":caption: x").
_DIRECTIVE = re.compile(r"^[ \t]*(?:\.\. [\w:-]+ ?::|:[\w-]+:)")


def block_across(n: int, unit: Unit, hits: dict[int, Hit]) -> Unit:
    """Passage `unit` of source `n` with the list or code block its ":" introduces when the chunker put that block
    in the next chunk of the file and another source `hits[k]` is that chunk (`attached.block_opening`): `unit`
    ends its chunk (only blank lines after it, or the reST directive line that opens the block, with its options:
    Tornado's Google login example under ".. testcode::") on a line that ends in ":" (reST "::"), so it was read as
    a lead-in with nothing under it (`passages._dangling`: ":" became "."). "... automatic retries ... within a Requests
    `Session` using the urllib3.util.Retry class::" ends one chunk of Requests' advanced guide and its
    `Retry(total=3, backoff_factor=0.1, ...)` example opens the next; quoted alone it names the class but not how
    to use it. The ":" comes back and the block is carried under it (its lines are the other chunk's: the
    citation stays on the sentence). `unit` as it is otherwise."""
    hit = hits.get(n)
    if hit is None or unit.line < 0 or unit.attached or unit.code_after or not unit.sentence.endswith("."):
        return unit
    lines = hit.chunk.text.split("\n")
    if unit.end >= len(lines) or not lines[unit.end].rstrip().endswith(":") \
            or any(x.strip() and not _DIRECTIVE.match(x) for x in lines[unit.end + 1:]):
        return unit
    at = hit.chunk.span.start_line + unit.end  # the lead-in's last line in the file
    for k, other in hits.items():
        chunk = other.chunk
        if k == n or chunk.path != hit.chunk.path or chunk.folder != hit.chunk.folder \
                or not chunk.span.start_line <= at + 1 <= chunk.span.end_line:
            continue
        if block := block_opening(chunk, at - chunk.span.start_line):
            return replace(unit, sentence=unit.sentence[:-1] + ":", attached=block)
    return unit


_INDENT = re.compile(r"^[ \t]*")


def block_continued(n: int, unit: Unit, hits: dict[int, Hit]) -> Unit:
    """Passage `unit` of source `n` with the rest of the indented code block it carries when its chunk ends inside
    that block: the chunker cut a reST literal block ("This rotates the input image by ``theta`` degrees counter
    clockwise::" / `from PIL import Image` / `with Image.open("hopper.jpg") as im:` and the chunk's end; Pillow's
    reference/Image.rst), and the answer showed the code up to its cut. The rest is read from the file as it is
    now (`sources.passage.read_back`: inside the folder, no secret file, at most ANSWER_READ_BACK_MAX_BYTES, `chunk_file.chunk_file_lines`), when the chunk's
    last line is still that line of the file: the lines after it that are blank or indented at least as the
    block, as `Unit.attached` shows a block (at most MAX_ATTACHED_LINES). The citation keeps the chunk's lines.
    A fenced block is not read on (the chunker closes a fence it cuts); `unit` as it is otherwise."""
    hit = hits.get(n)
    if hit is None or not unit.attached or unit.block_end <= unit.end or not unit.attached.startswith("```\n") \
            or not unit.attached.endswith("\n```") or unit.attached.endswith("\n…\n```"):
        return unit
    chunk = hit.chunk
    lines = chunk.text.split("\n")
    last = max((k for k, x in enumerate(lines) if x.strip()), default=-1)
    if unit.block_end != last:
        return unit
    start = next((k for k in range(unit.end + 1, last + 1) if lines[k].strip() and not _DIRECTIVE.match(lines[k])),
                 None)
    if start is None or FENCE_OPEN.match(lines[start]):
        return unit
    block = lines[start:last + 1]
    indent = min(len(_INDENT.match(x).group(0).expandtabs()) for x in block if x.strip())
    if indent == 0:
        return unit
    file_lines = _file_after(hit, last)
    if file_lines is None:
        return unit
    at = chunk.span.start_line + last  # the chunk's last line with text, in the file
    more = []
    for line in file_lines[at + 1:at + 1 + MAX_ATTACHED_LINES]:
        if line.strip() and len(_INDENT.match(line).group(0).expandtabs()) < indent:
            break
        more.append(line)
    while more and not more[-1].strip():
        more.pop()
    if not more:
        return unit
    return replace(unit, attached=code_shown(block + more, chunk_markdown(chunk)))


def option_continued(n: int, unit: Unit, hits: dict[int, Hit]) -> Unit:
    """Passage `unit` of source `n`, an option of a program's help output (`help_text.help_passages`: its first
    line an `OPTION_ENTRY`, its sentence led by the option as code) that ends on its chunk's last line with text,
    with the rest of its description read back from the file (the lines right after the chunk's end that continue
    it as `help_text.continues_entry` reads a description: indented past the option's line and no option entry of
    their own, unless at the description's column — cobra's long option under a short one is the next entry —
    joined as `help_text.joined` joins them; at most EXTRACTIVE_MAX_SENTENCE_CHARS in all): the
    chunker cut a long help output inside a description, and the answer quoted "`--no-events`: no events will be
    run during import, instead they are postponed to run on server start. This allows much" (devpi's
    `devpi-import -h`). The citation keeps the chunk's lines. `unit` as it is otherwise."""
    hit = hits.get(n)
    if hit is None or not unit.item or unit.attached or unit.line < 0:
        return unit
    lines = hit.chunk.text.split("\n")
    last = max((k for k, x in enumerate(lines) if x.strip()), default=-1)
    entry = OPTION_ENTRY.match(lines[unit.line]) if unit.line < len(lines) else None
    if unit.end != last or entry is None or not unit.sentence.startswith(f"`{entry.group('names')}`: "):
        return unit
    file_lines = _file_after(hit, last)
    if file_lines is None:
        return unit
    indent = indent_of(lines[unit.line])
    column = entry.start("text") if entry.group("text") else None  # where its description starts, as help_text reads it
    more = []
    for line in file_lines[hit.chunk.span.start_line + last + 1:]:
        if not continues_entry(line, indent, column):  # a blank line, one not indented past it, or the next entry
            break
        more.append(line.strip())
        column = indent_of(line) if column is None else column
    if not more:
        return unit
    text = joined([unit.sentence, *more])
    if len(text) > EXTRACTIVE_MAX_SENTENCE_CHARS:
        text = text[:EXTRACTIVE_MAX_SENTENCE_CHARS].rsplit(" ", 1)[0] + " …"
    return replace(unit, sentence=text)


def _file_after(hit: Hit, last: int) -> list[str] | None:
    """The lines of `hit`'s chunk's file as it is now, when the chunk's 0-based line `last` is still that line of
    the file (`chunk_file.chunk_file_lines`); None otherwise (a web page, a code file, a converted document, the
    file gone or changed since it was indexed)."""
    return chunk_file_lines(hit.chunk, last)
