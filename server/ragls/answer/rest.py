"""reStructuredText (Sphinx) constructs rewritten, line for line, into what the passage reader (answer/passages.py)
reads as prose, lists, code and table rows — so an extractive answer quotes the identifier the source documents.

Each function maps a text to a text with the same number of lines (a passage's lines are what `focusRange` cites):
- `rest_role` (over `index.headings.REST_ROLE`): Sphinx roles as the text Sphinx renders (":meth:`~a.b`" -> "`b`", ":ref:`Title <x>`" ->
  "Title").
- `admonitions`: `.. note::` (and mkdocs "!!! note") bodies and Sphinx object descriptions (`.. attribute:: name`,
  `.. method:: f(x)`, `.. class:: C`, nested ones too) as dedented prose; an object's body opens with its name
  ("`drain_timeout`: Seconds to wait ..."); a tab or dropdown (`.. tab:: TOML`, `_CONTAINER`) keeps its directive line
  and has its body dedented, so the `.. code-block::` in a tab reads as code.
- `tables`: grid tables (`+---+`), simple tables (`===  ===`), `.. list-table::` (`* - a` / `  - b`) and
  `.. csv-table::` become pipe-table rows, one row on its first line (multi-line cells joined), the other lines of
  a row `ROW_CONTINUED` (the passage keeps all of its lines), the other lines of the table "|---|---|" separators;
  a row of a grid table whose first cell spans from the row above (or a simple
  table's continuation line) keeps that first cell, so every row reads with its key ("`ssl` | `False` | Skip SSL
  verification"). When the header's first cell names an identifier (``ssl``), each row is led by it
  ("`ssl`: `False` | ...") — the parameter the table documents.
- `directive_options`: the `:option:` lines right under a directive (`:type: int`, `:noindex:`, `:linenos:`) are
  directive settings, not text: blanked.
- `fields`: Sphinx info field lists (`:param name: text`, `:raises X: text`, `:returns: text`) become
  list items led by what they document ("- `name`: text", "- Raises `X`: text", "- Returns: text"), one passage each,
  never glued to the sentence before; `:type name:`, `:rtype:` and the like are noise and blanked. Any other field
  list of two or more top-level fields (":Author: Jane", MyST's ":depth: text") reads one item a field ("- Author:
  Jane"), not one sentence.
- `definitions`: definition list items (a term line, its definition indented below; a `.. glossary::`) read
  "term: definition", the definition dedented.
Literal blocks (which lines are code, held as written while these rules run, indented to read as code) and
footnote references are in answer/rest_literals.py.
"""

from __future__ import annotations

import csv
import re
from itertools import pairwise

from ragls.index.chunking import GRID_BORDER
from ragls.index.headings import ADORNMENT, REST_ROLE, role_target, role_text

_TEXT_ROLES = ("ref", "doc", "term", "abbr", "command", "program", "dfn", "guilabel", "menuselection")

_BLANK_ROW = "|---|---|"  # a pipe-table separator line (skipped as a row, keeps the table block contiguous)
# A line that continues the row above it (a grid-table row or a simple-table row wrapped over several source lines):
# the passage reader extends that row's lines over it (answer/passages.py `_table_rows`), so a citation covers the
# whole row, not only its first line.
ROW_CONTINUED = "| |"

_SIMPLE_BORDER = re.compile(r"^[ \t]*=+(?:[ \t]+=+)+[ \t]*$")
_DIRECTIVE = re.compile(r"^([ \t]*)\.\. ([\w:-]+)::(.*)$")
OPTION_LINE = re.compile(r"^[ \t]+:[\w-]+:(?:[ \t]|$)")
_IDENTIFIER_CELL = re.compile(r"^(?:`[^`]+`|[A-Za-z_][\w.]*(?:=|\(\))|[A-Za-z_]\w*[._]\w[\w.]*)$")


def indent_of(line: str) -> int:
    """Leading whitespace characters of `line`."""
    return len(line) - len(line.lstrip())


def option_end(lines: list[str], j: int, outer: int) -> int:
    """The line after the option that starts at line `j` (`OPTION_LINE`, indented past `outer`, the directive's
    indentation): its own line and the non-blank lines right below it indented past its ":" (docutils reads a
    directive's options as a field list, whose value may wrap: a `:caption:` over two lines); `j` itself when line
    `j` is no option of that directive."""
    if j >= len(lines) or not OPTION_LINE.match(lines[j]) or indent_of(lines[j]) <= outer:
        return j
    own = indent_of(lines[j])
    j += 1
    while j < len(lines) and lines[j].strip() and indent_of(lines[j]) > own:
        j += 1
    return j


def options_end(lines: list[str], j: int, outer: int) -> int:
    """The line after the options of a directive indented by `outer` whose options may start at line `j`: the
    first line that no option (`option_end`, with its wrapped value) takes."""
    while (k := option_end(lines, j, outer)) > j:
        j = k
    return j


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


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


def directive_body(lines: list[str], i: int) -> tuple[int, dict[str, str], int]:
    """(first body line after the options, the options, the line after the body) of the directive at line `i` of
    `lines` (0-based): options by name, a value wrapped over lines joined by spaces (`option_end`)."""
    outer = indent_of(lines[i])
    options: dict[str, str] = {}
    j = i + 1
    while (k := option_end(lines, j, outer)) > j:
        name, _, value = " ".join(x.strip() for x in lines[j:k])[1:].partition(":")
        options[name] = value.strip()
        j = k
    body = j
    end = j
    while end < len(lines) and (not lines[end].strip() or indent_of(lines[end]) > outer):
        end += 1
    while end > body and not lines[end - 1].strip():
        end -= 1
    return body, options, end


def _list_table(lines: list[str], i: int) -> int:
    body, options, end = directive_body(lines, i)
    rows: list[tuple[int, list[str]]] = []
    spans: dict[int, int] = {}
    cell_indent = -1
    for k in range(body, end):
        line = lines[k]
        m = re.match(r"^([ \t]*)[*-][ \t]+-[ \t]+(.*)$", line)
        if m:
            rows.append((k, [m.group(2)]))
            cell_indent = len(m.group(1)) + 2
            continue
        m = re.match(r"^([ \t]*)-[ \t]+(.*)$", line)
        if m and rows and len(m.group(1)) == cell_indent:
            rows[-1][1].append(m.group(2))
            spans[rows[-1][0]] = k
        elif line.strip() and rows:
            rows[-1][1][-1] += " " + line.strip()
            spans[rows[-1][0]] = k
    if not rows:
        return i + 1
    n_header = int(options.get("header-rows", "0") or 0) if options.get("header-rows", "0").isdigit() else 0
    header = rows[0][1] if n_header else []
    for k in range(i + 1, body):
        lines[k] = ""
    _emit(lines, body, end, lines[i][:indent_of(lines[i])], rows, header, spans)
    return end


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
    if "+-" not in text and "==" not in text and "-table::" not in text:
        return text
    lines = text.split("\n")
    i = 0
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i < len(lines) and (border := _headless_grid(lines, i)) is not None:
        i = _grid(lines, i, border)  # the text starts inside a grid table
    while i < len(lines):
        line = lines[i]
        head = line.lstrip()[:1]
        if head not in ("+", "=", "."):
            i += 1
        elif GRID_BORDER.match(line) and i + 1 < len(lines) and lines[i + 1].strip().startswith("|"):
            i = _grid(lines, i)
        elif _SIMPLE_BORDER.match(line) and (i == 0 or not lines[i - 1].strip()):
            i = _simple(lines, i)
        elif (m := _DIRECTIVE.match(line)) and m.group(2) in ("list-table", "csv-table"):
            i = (_list_table if m.group(2) == "list-table" else _csv_table)(lines, i)
        else:
            i += 1
    return "\n".join(lines)


def directive_options(text: str) -> str:
    """`text` with the `:option:` lines right under each `.. directive::` line blanked (line for line), but an object
    description's `:default:` (Sphinx's `.. confval:: cache_dir` / `:default: ``".pytest_cache"``"), which Sphinx
    shows under the object's name: it reads "The default of `cache_dir` is ``".pytest_cache"``." (`_DEFAULT_LINE`;
    `admonitions` leads the description below it with the name, not this line)."""
    if ".. " not in text:
        return text
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if _DIRECTIVE.match(line):
            obj = _OBJECT_DIRECTIVE.match(line)
            j = _signature_end(lines, i) if obj else i + 1
            while (k := option_end(lines, j, indent_of(line))) > j:
                key, _, value = " ".join(x.strip() for x in lines[j:k])[1:].partition(":")
                name = obj.group(2) if obj else ""
                default = key == "default" and value.strip() and name and "`" not in name
                lead = lines[j][:indent_of(lines[j])]
                lines[j:k] = [f"{lead}The default of `{name}` is {value.strip()}." if default else ""] + [""] * (k - j - 1)
                j = k
    return "\n".join(lines)


_DEFAULT_LINE = re.compile(r"^[ \t]*The default of `[^`]+` is ")  # an object's `:default:` option (directive_options)


def _signature_end(lines: list[str], i: int) -> int:
    """The line after the signatures of the object description at line `i`: its directive line and the lines right
    below it, indented past it, that are no option (".. function:: foo(x)" / "              foo(y, z)", Sphinx's
    ".. rst:directive:option:: numbered" / "numbered: depth", aiohttp's signatures wrapped over lines): each is a
    signature Sphinx shows in the object's heading, not its text."""
    j = i + 1
    while j < len(lines) and lines[j].strip() and not OPTION_LINE.match(lines[j]) \
            and not _DEFAULT_LINE.match(lines[j]) and indent_of(lines[j]) > indent_of(lines[i]):
        j += 1  # a `:default:` option read as a sentence (directive_options) is no signature
    return j


# A Sphinx / reST field: ":param int timeout: text", ":raises ValueError:", ":returns:" (info fields are converted).
_FIELD = re.compile(r"^([ \t]*):([A-Za-z][\w-]*)((?:[ \t]+[^:`\n]+?)?):(?:[ \t]+(.*))?$")
_PARAM_FIELDS = ("param", "parameter", "arg", "argument", "key", "keyword", "kwarg", "kwparam", "var", "ivar",
                 "cvar")
_NOISE_FIELDS = ("type", "vartype", "rtype", "ytype", "meta", "kwtype")
_NAMED_FIELDS = {"raises": "Raises", "raise": "Raises", "except": "Raises", "exception": "Raises",
                 "returns": "Returns", "return": "Returns", "yields": "Yields", "yield": "Yields"}


FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")  # a code fence line, its fence in group 1
# A MyST directive's option line right under its fence (":language: python", ":start-after: x"): name, value
MYST_OPTION = re.compile(r"^[ \t]*:([\w-]+):(.*)$")


def closes_fence(line: str, fence: str) -> bool:
    """Whether `line` closes the fence `fence` opened (```` ``` ````, ``~~~~``, MyST's ``:::``): the opening's
    character and nothing else, at least as many (CommonMark's closing code fence)."""
    bare = line.strip(" \t")
    return bool(bare) and bare == fence[0] * len(bare) and len(bare) >= len(fence)


def _in_run(lines: list[str], i: int) -> bool:
    """Whether field line `i` of `lines` (the text as written) opens or continues a top-level field list of two or
    more fields: a document's ":Author:" / ":Version:" lines, MyST's ":External URL: <...>" lines. It is not
    indented (an indented field is a directive's option: mkdocs-click's "    :module: x", reST's "   :width: 75"), the
    line above its run of fields is blank (a field list is a paragraph of its own; a directive's options follow
    its line), and a field is right above or below it (one ":warning: text" line in Markdown is an emoji, not a list)."""
    def field(j: int) -> bool:
        m = _FIELD.match(lines[j]) if 0 <= j < len(lines) else None
        return bool(m and not m.group(1))
    top = i
    while field(top - 1):
        top -= 1
    return field(i) and (top == 0 or not lines[top - 1].strip()) and (field(i - 1) or field(i + 1))


def fields(text: str) -> str:
    """`text` with its field lists as list items (module docstring), line for line; a noise field's
    continuation lines (more indented) are blanked with it. Another field (":Author: Jane", ":External URL: <...>")
    in a run of two or more outside code fences (`_in_run`) is an item "- Author: Jane" (docutils renders a field
    list as a table of name and body: one line each, never one sentence run together)."""
    if ":" not in text:
        return text
    lines = text.split("\n")
    written = list(lines)
    i, fence = 0, ""
    while i < len(lines):
        code = FENCE.match(lines[i])
        if code and not fence:
            fence = code.group(1)
        elif code and closes_fence(lines[i], fence):
            fence = ""  # a closing fence: the opening's character, at least as many, nothing else
        m = _FIELD.match(lines[i])
        if not m:
            i += 1
            continue
        indent, kind, arg, body = m.group(1), m.group(2), (m.group(3) or "").strip(), m.group(4) or ""
        low = kind.lower()
        if low in _NOISE_FIELDS:
            lines[i] = ""
            j = i + 1
            while j < len(lines) and lines[j].strip() and indent_of(lines[j]) > len(indent):
                lines[j] = ""
                j += 1
            i = j
            continue
        if low in _PARAM_FIELDS and arg:
            lead = f"`{arg.split()[-1]}`"
        elif low in _NAMED_FIELDS:
            lead = _NAMED_FIELDS[low] + (f" `{arg}`" if arg else "")
        elif not fence and _in_run(written, i):  # ":Author: Jane" among other fields
            lead = f"{kind} {arg}".strip()
        else:  # a lone field (an emoji shortcode ":warning: text" in Markdown) or one in code: as it is
            i += 1
            continue
        first = _body_below(lines, i, len(indent)) if not body else None
        if first is not None:  # ":param bool raise_for_status:" with its text on the indented lines below it
            lines[i] = ""
            lines[first] = f"{indent}- {lead}: {lines[first].strip()}"
        else:
            lines[i] = f"{indent}- {lead}: {body}".rstrip()
        i += 1
    return "\n".join(lines)


def _body_below(lines: list[str], i: int, outer: int) -> int | None:
    """The line of a field's body when field `i` (at indentation `outer`) has no text of its own and its body is
    the paragraph indented below it (reST allows both, and Sphinx renders the two alike: aiohttp writes
    ":param bool raise_for_status:", a blank line, then the text): its first line, when that line is prose (not a
    list item, a directive, a field or a line ending in the literal-block marker "::"); else None, and the field
    stays a label of its own."""
    j = i + 1
    while j < len(lines) and not lines[j].strip():
        j += 1
    if j == len(lines) or indent_of(lines[j]) <= outer:
        return None
    text = lines[j].strip()
    if _ITEM_MARKER.match(text) or text.startswith((".. ", ":", "```", ">>>")) or text.endswith("::"):
        return None
    return j


_ITEM_MARKER = re.compile(r"^[ \t]*(?:[-*+]|\d+[.)]|#\.)[ \t]+(?=\S)")


def content_indent(line: str) -> int:
    """The column where `line`'s text starts: past a list marker ("-   Installed ::" -> 4), else its indentation."""
    m = _ITEM_MARKER.match(line)
    return len(m.group(0).expandtabs()) if m else indent_of(line)


# An admonition: reST ".. note:: text" (its body indented below) or Python-Markdown / mkdocs "!!! note" / "??? tip".
_ADMONITION = re.compile(r"^([ \t]*)(?:\.\. (?:note|warning|tip|hint|important|caution|attention|danger|error|"
                         r"seealso|versionadded|versionchanged|deprecated|admonition)::|(?:!!!|\?\?\?\+?)[ \t]+\w+"
                         r"(?:[ \t]+\"[^\"]*\")?)[ \t]*(.*)$")


# A Sphinx object description: ".. py:data:: SESSION_COOKIE_SAMESITE", ".. function:: urlopen(method, url)",
# ".. confval:: timeout", and the reST domain's ".. rst:directive:: toctree" with its ".. rst:directive:option::
# maxdepth" and ".. rst:role:: doc" (how Sphinx's and its extensions' docs document their markup) — its indented
# body is the prose that documents the object.
_OBJECT_DIRECTIVE = re.compile(r"^([ \t]*)\.\. (?:(?:[a-z]+:)?(?:function|class|method|attribute|data|exception|"
                               r"module|decorator|classmethod|staticmethod|property|type|var|member|macro|struct|"
                               r"enum|confval|option|envvar|describe|object|event|setting)|"
                               r"rst:(?:directive(?::option)?|role))::[ \t]*([^`\n]*?)[ \t]*$")


# A container whose indented body is the page's own content, shown in a tab or box: sphinx-inline-tabs' and
# sphinx-tabs' ".. tab:: TOML" (".. tabs::", ".. group-tab::"), sphinx-design's ".. tab-set::" / ".. tab-item:: pip",
# ".. dropdown::", ".. card::", docutils' ".. container::", Sphinx's ".. glossary::" (a definition list), docutils'
# ".. figure:: image.png" (its body is the caption and legend, prose under the image). Its directive line stays (the
# reader skips it, as the label of a tab is no sentence); its body is dedented, so a ".. code-block::" in a tab reads
# as code and a figure's caption as a paragraph, not as a code block under the ":" sentence before the figure.
_CONTAINER = re.compile(r"^([ \t]*)\.\. (?:tab|tabs|group-tab|tab-set|tab-item|dropdown|card|container|glossary|"
                        r"figure)::(.*)$")
# A content tab of mkdocs-material / pymdownx.tabbed (`=== "Python 3.9 and above"`, `===+`, `===!`), body indented
# 4 spaces: a label, not prose (the line becomes empty); its body is dedented like a container's.
_CONTENT_TAB = re.compile(r"^([ \t]*)===[+!]?[ \t]+\"[^\"]*\"[ \t]*()$")


def admonitions(text: str) -> str:
    """Admonitions and object descriptions as plain paragraphs, line for line: the directive line keeps only its
    text (".. note:: When using X," -> "When using X,"; a bare "!!! note" line becomes empty) and its indented body
    is dedented, so its sentences are prose, not an indented code block. A version directive's own argument ("2.0")
    is dropped. An object description (`_OBJECT_DIRECTIVE`, ".. py:data:: TRAP_HTTP_EXCEPTIONS"; its other signatures
    on the lines below it, `_signature_end`, emptied) puts its object's name before the first line of its body ("`TRAP_HTTP_EXCEPTIONS`: If there is no handler ..."), as Sphinx shows
    it above the text: the sentence that documents an object names it. A container (`_CONTAINER`: a tab, a
    dropdown) keeps its directive line and has its body dedented the same way, so a ":" sentence before a tab
    introduces the code block in it; a mkdocs-material content tab (`_CONTENT_TAB`, `=== "Python 3.10+"`) likewise,
    its label line emptied. Directives nested in a body are read too."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = (_ADMONITION.match(lines[i]) or _OBJECT_DIRECTIVE.match(lines[i]) or _CONTAINER.match(lines[i])
             or _CONTENT_TAB.match(lines[i]))
        if not m:
            i += 1
            continue
        outer = len(m.group(1).expandtabs())
        rest = m.group(2)
        name = rest if m.re is _OBJECT_DIRECTIVE else ""
        if name.endswith("\\") or name.count("(") > name.count(")"):  # a signature wrapped over lines: its name
            name = name.split("(", 1)[0].strip()
        if name:
            rest = ""
        if lines[i].lstrip().startswith((".. version", ".. deprecated")):
            rest = rest.split(" ", 1)[1] if " " in rest else ""
        if m.re is not _CONTAINER:
            lines[i] = m.group(1) + rest
        j = i + 1
        if m.re is _OBJECT_DIRECTIVE:  # its other signatures: in its heading, with its name
            for k in range(j, _signature_end(lines, i)):
                lines[k] = ""
        body = []
        while j < len(lines) and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > outer):
            body.append(j)
            j += 1
        while body and not lines[body[-1]].strip():
            body.pop()
        indent = min((len(lines[k]) - len(lines[k].lstrip()) for k in body if lines[k].strip()), default=0)
        for k in body:
            lines[k] = m.group(1) + lines[k][indent:] if lines[k].strip() else ""
        first = next((k for k in body if lines[k].strip() and not _DEFAULT_LINE.match(lines[k])), None)
        if name and first is not None and not lines[first].lstrip().startswith((":", ".. ", "```")) \
                and len(lines[first]) - len(lines[first].lstrip()) == outer:
            lines[first] = f"{m.group(1)}`{name}`: {lines[first].lstrip()}"
        i += 1
    return "\n".join(lines)


_TERM_END = (".", ":", ";", ",", "!", "?")


def definitions(text: str) -> str:
    """`text` with reST definition list items read as "term: definition" (line for line): a term is a line after a
    blank line (or after the previous item's definition) whose next line is its definition, indented past it.
    The term ends in ":" (unless it ends in punctuation already) and the definition is dedented to the term's
    indentation, so its first sentence reads with its term ("`timeout`: How many seconds ...") and its
    other paragraphs as paragraphs (not as an indented code block). A literal block (the lines indented past a
    line ending in "::", the body of a directive or a comment) is never read as definitions; list items, directives, fields,
    table rows, doctest lines and a title's overline (`index.headings.ADORNMENT`: " Install pipx" set in between two
    rows of "*" is a title, not a definition) are no terms. Only for reST and plain text: Markdown has no such
    lists."""
    lines = text.split("\n")
    literal = -1  # while >= 0: the indentation a literal block's lines are indented past
    for i, line in enumerate(lines):
        stripped = line.strip()
        if not stripped:
            continue
        ind = indent_of(line)
        if literal >= 0 and ind > literal:
            continue
        literal = -1
        if stripped.endswith("::") or stripped.startswith(".."):
            literal = content_indent(line)  # a literal block, or explicit markup's body (a directive's, a comment's)
            continue
        if i + 1 >= len(lines) or not lines[i + 1].strip() or indent_of(lines[i + 1]) <= ind:
            continue
        prev = lines[i - 1] if i else ""
        if (prev.strip() and indent_of(prev) <= ind) or _ITEM_MARKER.match(line) \
                or stripped.startswith(("..", ":", "|", ">>>", "```", "#", "+")) or ADORNMENT.fullmatch(stripped):
            continue
        end = i + 1
        while end < len(lines) and (not lines[end].strip() or indent_of(lines[end]) > ind):
            end += 1
        body = [k for k in range(i + 1, end) if lines[k].strip()]
        cut = min(indent_of(lines[k]) for k in body) - ind
        for k in body:
            lines[k] = lines[k][cut:]
        if not stripped.endswith(_TERM_END):
            lines[i] = line.rstrip() + ":"
    return "\n".join(lines)


def rest_role(m: re.Match[str]) -> str:
    """A reST role as Markdown: `:ref:`Title <label>`` -> "Title" (cross-reference roles read as text; a bare
    label as itself), code roles `:meth:`~flask.make_response`` -> "`make_response`" (a leading "~" shows the last
    dotted part, "!" is dropped), `:pep:`538`` -> "PEP 538" and `:rfc:`7231`` -> "RFC 7231", as Sphinx renders
    them."""
    role = m.group(0)[1:].split(":", 1)[0]
    target = m.group(1).strip()
    if role in _TEXT_ROLES:
        return role_target(target)
    if role in ("pep", "rfc"):
        return f"{role.upper()} {role_target(target)}"
    return f"`{role_text(target)}`"
