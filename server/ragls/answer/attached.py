"""The block a passage carries (`passages.Unit.attached`): the list, code block or table right after a sentence that
introduces it (ends in ":"), a list item's sub-list, or the block a lead-in's next chunk opens with — kept verbatim
and shown indented under the passage's bullet, never flattened into a line (`attached_block`, `code_shown`,
`nested_items`, `block_opening`). answer/passages.py decides which block a passage carries; this is how it shows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragls.answer import rest, rest_tables
from ragls.answer.blocks import (
    FENCE_OPEN,
    TABLE_SEPARATOR,
    Block,
    between,
    block_end,
    chunk_markdown,
    code_body,
    parsed,
)
from ragls.answer.inline import link_text

if TYPE_CHECKING:
    from ragls.core.ir import Chunk

__all__ = ["MAX_ATTACHED_LINES", "attached_block", "block_opening", "code_shown", "nested_items"]

MAX_ATTACHED_LINES = 25  # lines of a list or code block kept after a sentence ending in ":"


def attached_block(block: Block, markdown: bool = True) -> str:
    """A list, code block or table as kept after a ":" sentence: verbatim lines (links reduced to their text outside
    code, `inline.link_text`; `markdown` as there), common indentation removed, at most MAX_ATTACHED_LINES (a cut
    code block is closed)."""
    lines = list(block.lines)
    while lines and not lines[-1].strip():
        lines.pop()
    cut = len(lines) > MAX_ATTACHED_LINES
    lines = lines[:MAX_ATTACHED_LINES]
    indent = min((len(x) - len(x.lstrip()) for x in lines if x.strip()), default=0)
    lines = [x[indent:] for x in lines]
    if block.kind == "table":  # a reST table's separator lines (answer/rest.py): one, under its first row
        lines = [x for x in lines if x.strip() != rest_tables.ROW_CONTINUED]
        rows = [x for x in lines if not TABLE_SEPARATOR.match(x)]
        first = next((k for k, x in enumerate(lines) if not TABLE_SEPARATOR.match(x)), len(lines))
        if len(rows) > 1 and first + 1 < len(lines) and TABLE_SEPARATOR.match(lines[first + 1]):
            rows.insert(1, lines[first + 1])
        lines = rows
    if block.kind == "code":
        fenced = FENCE_OPEN.match(block.lines[0])
        if not fenced:  # an indented block: fenced in the answer, which is Markdown
            lines = ["```", *lines, *(["…"] if cut else []), "```"]
        elif cut:
            lines += ["…", fenced.group(1)]
    else:
        lines = [link_text(x, markdown) if markdown else rest.list_line(link_text(x, markdown)) for x in lines]
        if cut:
            lines.append("…")
    return "\n".join(lines)


def code_shown(lines: list[str], markdown: bool = True) -> str:
    """The code block of chunk-text `lines` as a passage carries it (`Unit.attached`): an indented one fenced,
    common indentation removed, at most MAX_ATTACHED_LINES (then "…")."""
    return attached_block(Block("code", 0, lines), markdown)


def nested_items(lines: list[str], j: int, skip: int = 0, markdown: bool = True) -> tuple[str, int]:
    """(the more-indented lines after list item `j` and its `skip` continuation lines — its sub-list — verbatim,
    dedented; how many source lines that is), ("", 0) without one."""
    base = len(lines[j]) - len(lines[j].lstrip())
    sub = []
    for line in lines[j + 1 + skip:]:
        if line.strip() and len(line) - len(line.lstrip()) <= base:
            break
        sub.append(line)
    while sub and not sub[-1].strip():
        sub.pop()
    return (attached_block(Block("list", 0, sub), markdown), len(sub)) if sub else ("", 0)


def block_opening(chunk: Chunk, after: int) -> str:
    """The list or code block of `chunk` that opens right after its 0-based chunk-text line `after` (only blank
    lines, reST directive lines or HTML tag lines between: `blocks.between`), as a ":" sentence carries it
    (`Unit.attached`); "" when another block comes first, the chunk ends or the code block is empty (an
    mdBook ```` ```toml ```` fence around a `{{#include}}` line, which `clean_markup` removes). The reader of a lead-in whose block
    the chunker put in the next chunk (`across_chunks.block_across`)."""
    markdown = chunk_markdown(chunk)
    for b in parsed(chunk.text, markdown):
        if block_end(b) <= after:
            continue
        if b.start <= after:  # the lead-in's own paragraph runs on past `after`: no block opens there
            return ""
        if b.kind in ("code", "list"):  # not a fence whose include the markup cleaning removed (mdBook)
            return attached_block(b, markdown) if b.kind == "list" or code_body(b) else ""
        if not between(b):
            return ""
    return ""
