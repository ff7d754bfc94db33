"""reStructuredText tables rewritten, line for line, into the pipe-table rows the passage reader (answer/passages.py)
reads, one passage a row (split from answer/rest.py, which reads the other reST constructs):

`tables`: grid tables (`+---+`), simple tables (`===  ===`), `.. list-table::` (`* - a` / `  - b`) and
`.. csv-table::` become pipe-table rows, one row on its first line (multi-line cells joined), the other lines of a
row `ROW_CONTINUED` (the passage keeps all of its lines) — also the rows of a text that opens inside a list table's body
(`opening_list_table`: a chunk cut inside one) — the other lines of the table "|---|---|" separators; a row
of a grid table whose first cell spans from the row above (or a simple table's continuation line) keeps that first
cell, so every row reads with its key ("`ssl` | `False` | Skip SSL verification"). When the header's first cell
names an identifier (``ssl``), each row is led by it ("`ssl`: `False` | ...") — the parameter the table documents.
"""

from __future__ import annotations

import csv
import re
from itertools import pairwise

from ragls.answer.rest import DIRECTIVE, directive_body, indent_of, rest_role
from ragls.index.chunking import GRID_BORDER
from ragls.index.headings import REST_ROLE

_BLANK_ROW = "|---|---|"  # a pipe-table separator line (skipped as a row, keeps the table block contiguous)
# A line that continues the row above it (a grid-table row or a simple-table row wrapped over several source lines):
# the passage reader extends that row's lines over it (answer/passages.py `_table_rows`), so a citation covers the
# whole row, not only its first line.
ROW_CONTINUED = "| |"

_SIMPLE_BORDER = re.compile(r"^[ \t]*=+(?:[ \t]+=+)+[ \t]*$")
_IDENTIFIER_CELL = re.compile(r"^(?:`[^`]+`|[A-Za-z_][\w.]*(?:=|\(\))|[A-Za-z_]\w*[._]\w[\w.]*)$")


# A cell holding a directive (".. image:: ../example/imageops_fit.webp", ".. figure::"): a picture, no text.
_DIRECTIVE_CELL = re.compile(r"^\s*\.\. [\w:-]+::")


def _cell(text: str) -> str:
    """A table cell's text on one line ("|" escaped); empty for a cell that is a directive (`_DIRECTIVE_CELL`: an
    image shown in the cell, whose path a reader cannot see — a row of them, "Resulting image | .. image:: ...",
    is then too short to be a passage)."""
    return "" if _DIRECTIVE_CELL.match(text) else " ".join(text.split()).replace("|", "\\|")


def _label(header: list[str]) -> str:
    """The identifier a table's first header cell names ("``ssl``" -> "`ssl`"), else ""."""
    if not header:
        return ""
    first = re.sub(r"``([^`]+)``", r"`\1`", REST_ROLE.sub(rest_role, header[0].strip()))
    return first if _IDENTIFIER_CELL.match(first) else ""


def _emit(lines: list[str], start: int, end: int, indent: str, rows: list[tuple[int, list[str]]],
          header: list[str], spans: dict[int, int] | None = None) -> None:
    """Lines start..end-1 of `lines` as the pipe table of `rows` (line, cells): each row on its line, the lines
    it continues over (`spans`: its first line -> its last) ROW_CONTINUED, the rest separators; rows led by the
    header's identifier (`_label`)."""
    label = _label(header)
    at = dict(rows)
    continued = {k for a, b in (spans or {}).items() if a in at for k in range(a + 1, b + 1)}
    for k in range(start, end):
        cells = at.get(k)
        if cells is None:
            lines[k] = indent + (ROW_CONTINUED if k in continued else _BLANK_ROW)
            continue
        cells = [_cell(c) for c in cells]
        if label and cells and cells != [_cell(h) for h in header]:
            cells[0] = f"{label}: {cells[0]}"
        lines[k] = indent + "| " + " | ".join(cells) + " |"


def _grid(lines: list[str], i: int, border: str | None = None) -> int:
    """The grid table starting at border line `i`, rewritten; returns the line after it. With `border` (a border
    line of the table further down), the table's rows start at line `i` itself: its top border lies before the
    text (`_headless_grid`)."""
    headless = border is not None
    border = border if border is not None else lines[i]
    cols = [k for k, ch in enumerate(border) if ch == "+"]
    j = i + 1
    while j < len(lines) and lines[j].strip()[:1] in ("+", "|"):
        j += 1
    rows: list[tuple[int, list[str]]] = []
    spans: dict[int, int] = {}
    header: list[str] = []
    cur: list[list[str]] | None = None
    first = 0
    prev_key = ""

    def close(last: int) -> None:
        nonlocal cur, prev_key
        if cur is not None:
            cells = [" ".join(x) for x in cur]
            if cells and not cells[0].strip() and prev_key:
                cells[0] = prev_key  # a first cell spanning from the row above
            prev_key = cells[0] if cells else prev_key
            rows.append((first, cells))
            spans[first] = last
        cur = None

    for k in range(i + (not headless), j):
        line = lines[k]
        if GRID_BORDER.match(line) or (line.strip().startswith("|") and re.search(r"\+[-=]{3,}", line)):
            close(k - 1)
            if "=" in line and not header and rows:
                header = rows[-1][1]
            continue
        if cur is None:
            cur, first = [[] for _ in range(len(cols) - 1)], k
        for c in range(len(cols) - 1):
            cur[c].append(line[cols[c] + 1:cols[c + 1]].strip(" |"))
    close(j - 1)
    if headless and rows and not "".join(rows[0][1][:1]).strip():
        del rows[0]  # the tail of a row whose head (its key) is in the text before: no row to read alone
    _emit(lines, i, j, border[:indent_of(border)], rows, header, spans)
    return j


def _headless_grid(lines: list[str], i: int) -> str | None:
    """The border line of the grid table whose rows start at line `i` when its top border is not in `lines` (a
    chunk that starts inside a long table: Pelican's tips.rst, 5 columns over 60 lines) — the first border below
    a run of "|" lines, each with a "|" at that border's first and last "+" — else None (a Markdown pipe table, a
    line block)."""
    j = i
    while j < len(lines) and lines[j].lstrip().startswith("|"):
        j += 1
    if j >= len(lines) or j == i or not GRID_BORDER.match(lines[j]):
        return None
    cols = [k for k, ch in enumerate(lines[j]) if ch == "+"]
    if all(len(x) > cols[-1] and x[cols[0]] == "|" and x[cols[-1]] == "|" for x in lines[i:j]):
        return lines[j]
    return None


def _simple(lines: list[str], i: int) -> int:
    """The simple table starting at border line `i`, rewritten; returns the line after it (or i + 1 when the
    border starts no table)."""
    border = lines[i]
    columns = [m.span() for m in re.finditer(r"=+", border)]
    starts = [a for a, _ in columns]
    borders = [i]
    j = i + 1
    while j < len(lines):
        if _SIMPLE_BORDER.match(lines[j]):
            borders.append(j)
            if j + 1 >= len(lines) or not lines[j + 1].strip() or len(borders) == 3:
                break
        elif not lines[j].strip() and len(borders) == 1:
            pass  # blank lines may separate rows
        j += 1
    if len(borders) < 2 or not _in_columns(lines, i, borders[-1], columns):
        return i + 1
    end = borders[-1]
    header_end = borders[1] if len(borders) == 3 else None
    rows: list[tuple[int, list[str]]] = []
    spans: dict[int, int] = {}
    header: list[str] = []
    for k in range(i + 1, end):
        line = lines[k]
        if k in borders or not line.strip() or re.match(r"^[ \t]*-+(?:[ \t]+-+)*[ \t]*$", line):
            continue
        cells = [line[a:b].strip() for a, b in zip(starts, [*starts[1:], len(line) + 1])]
        if not cells[0] and rows and (header_end is None or k > header_end):
            rows[-1] = (rows[-1][0], [f"{x} {y}".strip() for x, y in zip(rows[-1][1], cells)])
            spans[rows[-1][0]] = k
            continue
        if header_end is not None and k < header_end:
            header = cells if not header else [f"{x} {y}".strip() for x, y in zip(header, cells)]
        rows.append((k, cells))
    _emit(lines, i, end + 1, border[:indent_of(border)], rows, header, spans)
    return end + 1


def _in_columns(lines: list[str], i: int, end: int, columns: list[tuple[int, int]]) -> bool:
    """Whether lines i+1..end-1 read as the rows of a simple table with `columns` (the border's "=" runs, start and
    end offsets): no text in the margin between two columns (docutils rejects a table with "Text in column margin";
    the last column may run on). A chunk that starts with the closing border of a table whose top lies in the
    chunk before is such a border too: the prose after it, up to the next table's border, is no table (Pelican's
    "to the ``TAG_SAVE_AS`` setting" read as the cells "to the ``TAG_SAV" and "E_AS``")."""
    gaps = [(a_end, b_start) for (_, a_end), (b_start, _) in pairwise(columns)]
    for k in range(i + 1, end):
        line = lines[k]
        if _SIMPLE_BORDER.match(line) or not line.strip():
            continue
        if any(line[a:b].strip() for a, b in gaps):
            return False
    return True


# A row of a list table ("* - cell", as `- - cell` too), and a later cell of a row ("  - cell")
_LIST_ROW = re.compile(r"^([ \t]*)[*-][ \t]+-[ \t]+(.*)$")
_LIST_CELL = re.compile(r"^([ \t]*)-[ \t]+(.*)$")


def _list_rows(lines: list[str], body: int, end: int, cell_indent: int = -1
               ) -> tuple[list[tuple[int, list[str]]], dict[int, int]]:
    """(rows as (line, cells), spans: a row's first line -> its last) of the list-table body lines body..end-1;
    `cell_indent`: where a row's later cells ("- b") start when the body opens inside a row (-1: unknown yet)."""
    rows: list[tuple[int, list[str]]] = []
    spans: dict[int, int] = {}
    for k in range(body, end):
        line = lines[k]
        m = _LIST_ROW.match(line)
        if m:
            rows.append((k, [m.group(2)]))
            cell_indent = len(m.group(1)) + 2
            continue
        m = _LIST_CELL.match(line)
        if m and not rows and len(m.group(1)) == cell_indent:
            rows.append((k, [m.group(2)]))  # the body opens on a later cell of a row
        elif m and rows and len(m.group(1)) == cell_indent:
            rows[-1][1].append(m.group(2))
            spans[rows[-1][0]] = k
        elif line.strip() and rows:
            rows[-1][1][-1] += " " + line.strip()
            spans[rows[-1][0]] = k
        elif line.strip():
            rows.append((k, [line.strip()]))  # the body opens inside a cell's text
    return rows, spans


def _list_table(lines: list[str], i: int) -> int:
    body, options, end = directive_body(lines, i)
    rows, spans = _list_rows(lines, body, end)
    if not rows:
        return i + 1
    n_header = int(options.get("header-rows", "0") or 0) if options.get("header-rows", "0").isdigit() else 0
    header = rows[0][1] if n_header else []
    for k in range(i + 1, body):
        lines[k] = ""
    _emit(lines, body, end, lines[i][:indent_of(lines[i])], rows, header, spans)
    return end


LIST_TABLE_ROWS = 2  # a text opening indented with this many list-table rows at one indentation opens in one


def opening_list_table(lines: list[str]) -> tuple[int, int, int] | None:
    """(first line, end, the rows' indentation) of the list-table body `lines` open in — a chunk cut inside a
    `.. list-table::`, its directive line in the chunk before: the first non-blank line is indented, and before
    the first line indented less than the rows ("* - a" at one indentation, LIST_TABLE_ROWS or more of them, each
    with a later cell "  - b") only rows and the cells and cell text of a row opened above; else None. Such a body
    is a table (`tables`), not prose nor code (`rest.opening_body` leaves it)."""
    first = next((k for k, x in enumerate(lines) if x.strip()), None)
    if first is None or not indent_of(lines[first]):
        return None
    row = next((k for k in range(first, len(lines)) if _LIST_ROW.match(lines[k])), None)
    if row is None:
        return None
    outer = indent_of(lines[row])
    if any(x.strip() and indent_of(x) <= outer for x in lines[first:row]):
        return None
    end = row
    while end < len(lines) and (not lines[end].strip() or indent_of(lines[end]) >= outer):
        end += 1
    rows = [k for k in range(row, end) if indent_of(lines[k]) == outer and lines[k].strip()]
    if len(rows) < LIST_TABLE_ROWS or not all(_LIST_ROW.match(lines[k]) for k in rows) \
            or not all(k + 1 < len(lines) and _LIST_CELL.match(lines[k + 1]) for k in rows[:LIST_TABLE_ROWS]):
        return None
    while end > first and not lines[end - 1].strip():
        end -= 1
    return first, end, outer


def _csv_table(lines: list[str], i: int) -> int:
    body, options, end = directive_body(lines, i)
    delim = options.get("delim", ",")
    delim = {"tab": "\t", "space": " "}.get(delim, delim[:1] or ",")
    header = next(csv.reader([options["header"]], skipinitialspace=True), []) if "header" in options else []
    rows: list[tuple[int, list[str]]] = []
    text = [x.strip() for x in lines[body:end]]
    reader = csv.reader(text, delimiter=delim, skipinitialspace=True)
    start = 0
    try:
        for row in reader:
            if any(c.strip() for c in row):
                rows.append((body + start + next(n for n, x in enumerate(text[start:]) if x), row))
            start = reader.line_num
    except (csv.Error, StopIteration):
        return i + 1
    if not rows:
        return i + 1
    for k in range(i + 1, body):
        lines[k] = ""
    _emit(lines, body, end, lines[i][:indent_of(lines[i])], rows, header)
    return end


def tables(text: str) -> str:
    """`text` with its reST tables as pipe-table rows (module docstring), line for line."""
    if "+-" not in text and "==" not in text and "-table::" not in text and "- " not in text:
        return text
    lines = text.split("\n")
    i = 0
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i < len(lines) and (border := _headless_grid(lines, i)) is not None:
        i = _grid(lines, i, border)  # the text starts inside a grid table
    elif (opening := opening_list_table(lines)) is not None:  # ... inside a list table's body
        first, end, outer = opening
        rows, spans = _list_rows(lines, first, end, outer + 2)
        _emit(lines, first, end, "", rows, [], spans)
        i = end
    while i < len(lines):
        line = lines[i]
        head = line.lstrip()[:1]
        if head not in ("+", "=", "."):
            i += 1
        elif GRID_BORDER.match(line) and i + 1 < len(lines) and lines[i + 1].strip().startswith("|"):
            i = _grid(lines, i)
        elif _SIMPLE_BORDER.match(line) and (i == 0 or not lines[i - 1].strip()):
            i = _simple(lines, i)
        elif (m := DIRECTIVE.match(line)) and m.group(2) in ("list-table", "csv-table"):
            i = (_list_table if m.group(2) == "list-table" else _csv_table)(lines, i)
        else:
            i += 1
    return "\n".join(lines)
