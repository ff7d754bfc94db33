"""Which column a pipe-table cell is in, as an answer row shows it: a reference table's row read alone
("`--config.file` | Prometheus configuration file path. | `prometheus.yml`") does not say that its last cell is the
default, so the cells of a column of values are led by the column's header ("Default: `prometheus.yml`",
`value_columns`, `under`). A long table is cut between chunks, and a chunk that opens inside it has no header of its
own: `header_above` reads it from the chunk's file, above the chunk's first line (Prometheus' 60-flag table, Meson's
built-in options, Sanic's configuration values)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragls.answer.blocks import TABLE_SEPARATOR, split_row
from ragls.answer.chunk_file import chunk_file_lines
from ragls.answer.inline import plain

if TYPE_CHECKING:
    from ragls.core.ir import Chunk

#: A table column whose cells have at most this many words each is a column of values, and a row shows each of them
#: under the column's header ("Default: `prometheus.yml`"): a value alone does not say which column it is in; a
#: column with a longer cell is one of prose (a description), which says what it is.
TABLE_LABEL_MAX_WORDS = 3
#: How far above a chunk's first line `header_above` looks for the header of the table the chunk opens inside (lines).
HEADER_LOOKBACK_LINES = 2000
_CONTINUED_ROW = "| |"  # rest_tables.ROW_CONTINUED: a reST row's further lines (not a row of its own)


def value_columns(header: str, rows: list[str], markdown: bool = True) -> list[str]:
    """The name of each column of a pipe table whose header row is `header` and whose data rows (as many as the
    chunk holds) are `rows`, where the column is one of values — every cell of at most TABLE_LABEL_MAX_WORDS words;
    "" for the first column (the rows' key) and for columns of prose."""
    names = [plain(c, markdown).strip("*_ ") for c in split_row(header)]  # "| **Default** |": the name, not its bold
    for line in rows:
        if line.strip() == _CONTINUED_ROW or TABLE_SEPARATOR.match(line):
            continue
        for j, cell in enumerate(split_row(line)[:len(names)]):
            if len(plain(cell, markdown).split()) > TABLE_LABEL_MAX_WORDS:
                names[j] = ""
    return [""] + names[1:]


def under(cell: str, name: str) -> str:
    """A table cell led by its column's name ("Default: `false`"), unless it has none or the cell says it itself."""
    if not name or name.lower() in cell.lower():
        return cell
    return f"{name.rstrip(':')}: {cell}"


def header_above(chunk: Chunk) -> str:
    """The header row of the Markdown pipe table that `chunk` opens inside — its first line a row, the next no
    delimiter row — read from the chunk's own file above the chunk's first line (`chunk_file.chunk_file_lines`: the
    indexed file under its folder as the index read it, while that row is still the file's line there): the row
    over the table's |---| delimiter row, at most HEADER_LOOKBACK_LINES above. "" when the chunk opens otherwise,
    holds another file's text (an include), or the file is gone, not read or changed so that no table runs up to
    that line."""
    lines = chunk.text.split("\n")
    first = next((k for k, x in enumerate(lines) if x.strip()), None)
    if first is None or not _row(lines[first]) or (first + 1 < len(lines) and TABLE_SEPARATOR.match(lines[first + 1])):
        return ""
    if chunk.included_in or chunk.page is not None:
        return ""
    text = chunk_file_lines(chunk, first)
    if text is None:
        return ""
    line = chunk.span.start_line + first
    k = line - 1
    while k > 0 and k > line - HEADER_LOOKBACK_LINES and _row(text[k]) and not TABLE_SEPARATOR.match(text[k]):
        k -= 1
    if k > 0 and k < line and TABLE_SEPARATOR.match(text[k]) and _row(text[k - 1]):
        return text[k - 1]
    return ""


def _row(line: str) -> bool:
    """Whether a line reads as a pipe-table row ("| a | b |"; GFM's outer pipes are optional, ragls' docs' are not)."""
    stripped = line.strip()
    return stripped.startswith("|") and stripped.endswith("|") and len(stripped) > 1
