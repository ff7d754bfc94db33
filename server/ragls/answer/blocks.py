"""The blocks of a chunk text, each with the lines it spans: paragraphs, list items (a loose list is one block),
definition lists, fenced and indented code blocks (reST's literal blocks after "::", doctest sessions), pipe tables,
and lines that are not prose (headings, reST section titles and directive lines, HTML: "skip").
Markdown is read by markdown-it (`markdown_blocks`, its tokens' source lines), reST and plain text line by line
(`blocks`: docutils is not a dependency, and `answer/rest.py` has already rewritten reST's tables, fields and
literal blocks into these kinds); `is_markdown` tells them apart by the file's name, `parsed` reads either.
`section_titles` are a chunk's headings. `answer/passages.py` reads the blocks as sentences, list items and table
rows; line numbers are 0-based lines of the chunk text, which `clean_markup` (answer/markup.py) never moves.
"""

from __future__ import annotations

import functools
import html
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ragls.answer import rest
from ragls.answer.markup import clean_markup
from ragls.core.analysis import LINE_ENDS
from ragls.index.front_matter import leading_front_matter
from ragls.index.headings import ADORNMENT, SUBSTITUTION
from ragls.sources.load import markup_extension

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

FENCE_OPEN = re.compile(r"^\s*(```|~~~)")
_INDENTED = re.compile(r"^(?: {4}|\t)\s*\S")  # a line of an indented code block
LIST_ITEM = re.compile(r"^(\s*)(?:[-*+]|\d+[.)]|#\.)\s+")  # "#.": reST's auto-numbered item
_DIRECTIVE_OPTION = re.compile(r"^[ \t]+:[\w-]+:")  # a reST directive's option line, under it
_QUOTE_MARK = re.compile(r"^ {0,3}> ?")
# A paragraph opening with an HTML tag that is not inline text markup (`<img alt="..."` over several lines, mdBook's
# `<span class="caption">Figure 4-1: ...</span>`): not prose ("<kbd>Ctrl</kbd>-<kbd>C</kbd> stops it." is)
_HTML_OPEN = re.compile(r"^\s*</?(?!(?:a|b|code|em|i|kbd|strong|sub|sup)\b)[A-Za-z][\w-]*(?:\s|/?>|$)", re.IGNORECASE)
_HTML_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
_HTML_TAG_LINE = re.compile(r"^</?[A-Za-z][\w-]*(?:\s[^<>]*)?/?>")  # a line opening with an HTML tag
_HTML_PRE = re.compile(r"^\s*<pre\b", re.IGNORECASE)  # an HTML block of preformatted text: code written in HTML
# A definition of a definition list (MyST's and Pandoc's "deflist": a term line, then ": definition", optionally past
# one blank line, its continuation lines indented).
DEFINITION = re.compile(r"^ {0,3}:[ \t]+\S")
# A pipe table's delimiter row: cells of one hyphen or more (GFM; Sanic's "|--|--|--|--|" under its header read as a
# data row, and the header "Key | Type | Default | Description" was quoted as one), each maybe with colons.
TABLE_SEPARATOR = re.compile(r"^\s*\|?(?:\s*:?-+:?\s*\|)+\s*:?-*:?\s*\|?\s*$")


@dataclass
class Block:
    """A block of a chunk text: its kind, its first line (0-based, in the chunk text) and its lines as written."""

    kind: str  # "para", "list", "deflist" (a definition list's term and definitions), "code", "table", "skip"
    start: int  # 0-based line in the chunk text
    lines: list[str]
    last: int = -1  # the block's last chunk-text line when its lines are not the text's (an included file's code)


@functools.lru_cache(maxsize=1)
def _markdown() -> MarkdownIt:
    """CommonMark with GFM pipe tables and MyST/Pandoc definition lists (mdit-py-plugins): block structure only (the core "inline" rule is off: passages read their inline markup themselves, and inline parsing
    of every paragraph was half the parse time, as in `index.chunking`). Imported on first use."""
    from markdown_it import MarkdownIt
    from mdit_py_plugins.deflist import deflist_plugin

    md = MarkdownIt("commonmark").enable("table").use(deflist_plugin)
    md.disable("inline")
    return md


def markdown_blocks(text: str) -> list[Block]:
    """A Markdown (CommonMark, MyST) chunk text as blocks (see module docstring), from markdown-it's token stream;
    each block's lines are the source lines its tokens map (`Token.map`), so line numbers are exact. The blocks are
    the leaves of the tree: a list item's first paragraph (with its marker line) is a "list" block, and consecutive
    ones (a loose list, nested items) are one; the item's further paragraphs are "para" blocks and a fence or table
    inside it a "code" or "table" block of its own, so a ":" item introduces the block under it as a sentence does.
    A definition list's term and its definitions are one "deflist" block per term; a definition whose term the
    chunk cut off (it opens with ": text") is read as one too, as are the definitions after it. Headings, thematic
    breaks and HTML blocks (one "skip" block per line) are "skip"; so is a paragraph of HTML tags only, or one
    that opens with a tag that is not inline text markup (`_HTML_OPEN`: an `<img alt="...">` over several lines,
    mdBook's `<span class="filename">Filename: src/main.rs</span>`). A paragraph of pipe-table rows is a "table"
    (the chunk cut off its header). A blockquote of a Python session (">>> ") is code; the blocks in another blockquote are read as blocks, their lines without the "> " markers
    (line numbers unchanged). A front matter block the text opens with (`index.front_matter.leading_front_matter`) is
    no block at all: never quoted, never a focus line. A lone carriage return ends a line, as markdown-it reads it
    (an old Mac file): its token maps count those lines."""
    lines = LINE_ENDS.split(text)
    leaves: list[tuple[str, int, int, int]] = []  # (kind, first line, line after, blockquote depth), in text order
    item_starts: list[int | None] = []  # per open list item: its marker line until its first paragraph is read
    skip_to = -1  # the index of the closing token of a blockquote read as code
    quotes = 0  # how many blockquotes the token is in
    front = leading_front_matter(text)  # a page's YAML/TOML block: not prose, nor a setext heading
    tokens = _markdown().parse("\n" * front + "\n".join(lines[front:]) if front else text)
    for pos, tok in enumerate(tokens):
        if pos <= skip_to:
            continue
        kind = tok.type
        quotes += tok.nesting if kind.startswith("blockquote") else 0
        if kind == "list_item_open":
            item_starts.append(tok.map[0] if tok.map else None)
        elif kind == "list_item_close":
            item_starts.pop()
        elif kind == "blockquote_open" and tok.map and lines[tok.map[0]].lstrip().startswith(">>>"):
            depth = 0
            for skip_to in range(pos, len(tokens)):
                depth += tokens[skip_to].nesting if tokens[skip_to].type.startswith("blockquote") else 0
                if depth == 0:
                    break
            quotes -= 1
            leaves.append(("code", *tok.map, quotes))
        elif kind == "dt_open" and pos + 1 < len(tokens) and tokens[pos + 1].map:
            first = tokens[pos + 1].map[0]
            leaves.append(("dt", first, first + 1, quotes))
        elif kind == "paragraph_open" and tok.map:
            first, end = tok.map
            text_lines = [_unquoted(x, quotes) for x in lines[first:end]]
            if tokens[pos - 1].type == "dd_open":
                leaves.append(("dd", first, end, quotes))
            elif item_starts and item_starts[-1] is not None and tokens[pos - 1].type == "list_item_open":
                leaves.append(("list", item_starts[-1], end, quotes))
            elif text_lines[0].lstrip().startswith("<") and (_HTML_OPEN.match(text_lines[0])
                                                             or not _HTML_TAG.sub("", " ".join(text_lines)).strip()):
                leaves.append(("skip", first, end, quotes))
            elif all(x.strip().startswith("|") and x.strip().endswith("|") for x in text_lines):
                leaves.append(("table", first, end, quotes))  # a table's rows whose header the chunk cut off
            else:
                leaves.append(("para", first, end, quotes))
            if item_starts:
                item_starts[-1] = None
        elif kind in ("fence", "code_block") and tok.map:
            leaves.append(("code", *tok.map, quotes))
        elif kind == "table_open" and tok.map:
            leaves.append(("table", *tok.map, quotes))
        elif kind in ("heading_open", "hr") and tok.map:
            leaves.append(("skip", *tok.map, quotes))
        elif kind == "html_block" and tok.map and _HTML_PRE.match(lines[tok.map[0]]):
            leaves.append(("pre", *tok.map, quotes))
        elif kind == "html_block" and tok.map:
            leaves += [("skip", k, k + 1, quotes) for k in range(*tok.map) if lines[k].strip()]
        if kind in ("fence", "code_block", "table_open", "html_block", "blockquote_open") and item_starts:
            item_starts[-1] = None  # a list item opening with a block: its marker line is that block's
    out: list[Block] = []
    for kind, first, end, depth in leaves:
        last = out[-1] if out else None
        if kind == "para" and DEFINITION.match(_unquoted(lines[first], depth)):
            kind = "dd" if last is not None and last.kind == "deflist" else "deflist"  # its term is cut off
        if kind in ("list", "dd") and last is not None and last.kind == ("list" if kind == "list" else "deflist"):
            last.lines += [_unquoted(x, depth) for x in lines[last.start + len(last.lines):end]]
            continue
        if kind == "pre":
            if (pre := _preformatted(lines, first, end, depth)) is not None:
                out.append(pre)
            continue
        out.append(Block("deflist" if kind in ("dt", "dd") else kind, first,
                         [_unquoted(x, depth) for x in lines[first:end]]))
    for b in out:
        while len(b.lines) > 1 and not b.lines[-1].strip():
            b.lines.pop()
    return out


def _preformatted(lines: list[str], first: int, end: int, depth: int) -> Block | None:
    """An HTML `<pre>` block (lines `first` to `end` - 1 of a Markdown text, in `depth` blockquotes) as the code
    block it shows: each line's text without its tags, entities decoded (`<pre><code class="cmd bash">sudo
    systemctl reload caddy</code></pre>` -> `sudo systemctl reload caddy`; mdBook's `<pre><code>match
    <em>VALUE</em> {` -> `match VALUE {`), starting at its first line holding text; None when it holds none. Sites
    that style their commands write them so (Caddy's docs: 184 such blocks): read as HTML lines (\"skip\"), the
    command under "you can gracefully reload Caddy after making any changes:" was never shown, and the sentence
    lost its ":"."""
    text = [html.unescape(_HTML_TAG.sub("", _unquoted(x, depth))).rstrip() for x in lines[first:end]]
    start = next((k for k, x in enumerate(text) if x.strip()), None)
    return None if start is None else Block("code", first + start, text[start:])


def _unquoted(line: str, depth: int) -> str:
    """`line` without the markers of the `depth` blockquotes it is in ("> > text" -> "text"; a lazy continuation
    line has none)."""
    for _ in range(depth):
        line = _QUOTE_MARK.sub("", line, count=1)
    return line


def blocks(text: str) -> list[Block]:
    """A reStructuredText (or plain text) chunk text as blocks (see module docstring), with their first line: read
    line by line, as docutils is not a dependency. Markdown is read by `markdown_blocks`."""
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
            # An indented code block (reST's literal block after "::", a plain text's 4-space block): to the next
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
        if ADORNMENT.fullmatch(stripped) and i + 2 < len(lines) and lines[i + 2].strip() == stripped:
            out.append(Block("skip", i, [line]))  # a reST title's overline: the title and underline follow
            i += 1
            continue
        under = lines[i + 1] if i + 1 < len(lines) else ""
        if ADORNMENT.fullmatch(under.strip()) and not LIST_ITEM.match(line) \
                and rest.indent_of(under) <= rest.indent_of(line) and len(under.strip()) >= len(stripped):
            # a reST section title and its underline: also an inset one (" Install pipx" under its overline) and
            # one in a directive's body, indented as the body is (Sphinx reads the titles of the parts of an
            # `.. automodule::`: Tornado's API pages)
            out.append(Block("skip", i, lines[i:i + 2]))
            i += 2
            continue
        if stripped.startswith("|") and stripped.endswith("|") and stripped.count("|") >= 3:
            j = i + 1  # a pipe table (`rest_tables.tables` writes reST's tables so): to the first line that is not a row
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
        if stripped.startswith(("#", "<", "{{", "|", "---", "===", ".. ")) and not _substituted(stripped) \
                and not LIST_ITEM.match(line):
            out.append(Block("skip", i, [line]))
            i += 1
            continue
        if (quoted := _quoted_code(lines, i, out)) > i:
            out.append(Block("code", i, lines[i:quoted]))
            i = quoted
            continue
        kind = "list" if LIST_ITEM.match(line) else "para"
        j = i + 1
        while j < len(lines) and lines[j].strip() and not FENCE_OPEN.match(lines[j]) \
                and not (lines[j].strip().startswith(("#", "|")) and not _substituted(lines[j].strip())):
            if kind == "para" and LIST_ITEM.match(lines[j]):
                break  # a list starts here
            j += 1
        out.append(Block(kind, i, lines[i:j]))
        i = j
    return _merge_lists(out)


_SENTENCE_END = re.compile(r"[.!?][\"')\]]*$")  # a line ending a sentence: prose, not code
_QUOTED_MARKUP = re.compile(r"``|:[\w-]+:`|^\.\. |^:[\w -]+:")  # inline literals, roles, directives: rendered text
_CODE_SIGN = re.compile(r"\S=|^(?:\$|>>>) |(?:^|\s)--?[A-Za-z]")  # an assignment, a prompt, a command-line option


def _quoted_code(lines: list[str], i: int, out: list[Block]) -> int:
    """The end (exclusive) of a reST block quote at line `i` that is code written without the literal-block marker:
    the lines from `i`, indented by one to three spaces after a blank line, up to the next blank or less indented
    line, right after a paragraph (the last of `out`) ending in a single ":", none of them a list item, a sentence's
    end, an inline literal, a role or a directive ("Alternatively, you can add a special environment variable to
    your shell settings (e.g. ``.bashrc``):" over "   export PIP_INDEX_URL=http://localhost:3141/root/pypi/+simple/",
    devpi: docutils renders it as a quotation, a reader as the command to type). `i` when there is none."""
    line = lines[i]
    indent = len(line) - len(line.lstrip())
    if not 1 <= indent <= 3 or line.startswith("\t") or i == 0 or lines[i - 1].strip() or not out \
            or out[-1].kind != "para":
        return i
    last = next((x for x in reversed(out[-1].lines) if x.strip()), "").rstrip()
    if not last.endswith(":") or last.endswith("::"):
        return i
    j = i
    while j < len(lines) and lines[j].strip() and len(lines[j]) - len(lines[j].lstrip()) >= indent:
        if LIST_ITEM.match(lines[j]) or _SENTENCE_END.search(lines[j].rstrip()) \
                or _QUOTED_MARKUP.search(lines[j].strip()):
            return i
        j += 1
    return j if any(_CODE_SIGN.search(x.strip()) for x in lines[i:j]) else i


def _substituted(line: str) -> bool:
    """Whether `line` (stripped) opens with a reST substitution reference ("|kitty| looks for a config file ...",
    `index.headings.SUBSTITUTION`): prose, not a line block ("| text") or a table row ("| a | b |") — kitty's docs
    open 83 sentences with "|kitty|", and each one's first line was dropped as markup."""
    return bool(SUBSTITUTION.match(line))


def _literal_limit(block: Block) -> int | None:
    """When `block`'s last line ends in reST's literal-block marker "::" (the indented block after it is code, even
    after a list item), the indentation of its text (a list item's text column, `rest.content_indent`): the
    literal block is the lines indented past it. Else None."""
    last = next((x for x in reversed(block.lines) if x.strip()), "")
    return rest.content_indent(last) if last.rstrip().endswith("::") else None


def _merge_lists(blocks: list[Block]) -> list[Block]:
    """Consecutive list blocks (a loose list: items separated by blank lines) become one list block, with as many
    blank lines between them as the text has (its lines keep their line numbers)."""
    out: list[Block] = []
    for b in blocks:
        if out and b.kind == "list" and out[-1].kind == "list":
            out[-1].lines += [""] * (b.start - out[-1].start - len(out[-1].lines)) + b.lines
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
    """The 0-based chunk-text line of the last non-blank line of `block` (`Block.last` when set)."""
    if block.last >= 0:
        return block.last
    n = len(block.lines)
    while n > 1 and not block.lines[n - 1].strip():
        n -= 1
    return block.start + n - 1


@functools.lru_cache(maxsize=1024)
def parsed(text: str, markdown: bool = True) -> tuple[Block, ...]:
    """The blocks of a chunk text after `clean_markup`: Markdown read by markdown-it (`markdown_blocks`), else
    (reST, plain text: `is_markdown`) line by line (`blocks`). Memoised: every query parses its hits' chunks again,
    and the chunks of a corpus's popular sections come back often. Callers do not modify the blocks."""
    clean = clean_markup(text, markdown)
    return tuple(markdown_blocks(clean) if markdown else blocks(clean))


_LINE_READ = frozenset({"rst", "rest", "txt"})  # reST sources and plain text: read line by line (`blocks`)
_REST = frozenset({"rst", "rest"})
# What only reST writes, in a `.txt` chunk: a directive (".. note::", ".. include:: x.txt"), a role (":ref:`x`"), an
# inline literal ("``x``"). Not a title's underline: a plain text's title has one as often (borg's diagram of boxes
# drawn with "\" and "/", `internals-picture.txt`, opens with one). A role's name has at most three parts
# (":py:meth:"): a run of colons or ":a:b:c..." tried from each of its colons to the run's end was quadratic.
_REST_MARK = re.compile(r"^[ \t]*\.\. [\w:-]+::|:(?:[\w+-]+:){1,3}`[^`\n]+`|(?<!`)``[^`\s][^`\n]*``", re.MULTILINE)


def is_markdown(path: str) -> bool:
    """Whether a chunk of the file at `path` is read as Markdown (`markdown_blocks`): every file but reST and plain
    text ones (.rst, .rest, .txt), which `blocks` reads. Converted documents (HTML pages, .docx, PDFs) are
    Markdown. An include fragment reads as the extension before ".inc" says (`usage/init.rst.inc`: reST,
    `sources.load.markup_extension`)."""
    return "." not in path.rsplit("/", 1)[-1] or markup_extension(path) not in _LINE_READ


def chunk_markdown(chunk) -> bool | None:
    """How `chunk` (`core.ir.Chunk`) is read: True as Markdown, False as reST, None as plain text — line by line as
    reST is (`is_markdown` false), but its backslashes as written (`inline.link_text`: "D:\\_cache" read as reST
    showed "D:_cache"). A `.txt` file is plain text, as GitHub renders one and pandoc reads none as reST, unless
    it is reST as Sphinx and docutils read it: included by a reST page (`chunk.included_in`, celery's
    `includes/installation.txt`), named "*.rst.txt" (Sphinx's `_sources` copies, GitHub's rule), or its chunk
    writing what only reST writes (`_REST_MARK`: a directive, a role, an inline literal — coverage.py's man page
    `python-coverage.1.txt`, whose "\\-d" escapes are reST's)."""
    markdown = is_markdown(chunk.path)
    if markdown or markup_extension(chunk.path) != "txt" or chunk.path.lower().endswith((".rst.txt", ".rest.txt")):
        return markdown
    if markup_extension(chunk.included_in) in _REST:
        return False
    return False if _REST_MARK.search(chunk.text) else None


def between(block: Block) -> bool:
    """Whether `block` may stand between a ":" sentence and the block it introduces: a reST directive line
    (".. code-block:: python") or its option lines (":caption: schema.sql"), or a line of HTML tags (mdBook's
    `<Listing number="1-1" ...>`, a `<span class="filename">` caption), which the answer does not show. A code
    block is never one: a literal block showing reST (".. function:: foo(x)") is the example itself."""
    first = block.lines[0].lstrip()
    return (block.kind != "code" and first.startswith(".. ")) or (block.kind == "skip" and bool(_HTML_TAG_LINE.match(first))) \
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


@functools.lru_cache(maxsize=1024)
def section_titles(text: str, markdown: bool = True) -> tuple[tuple[int, str], ...]:
    """The section headings of a chunk text (after `clean_markup`) as (0-based line, heading text), in line
    order: Markdown ATX headings ("## Can I run Black with PyPy?", the "#" marks dropped) and reST titles (a line
    over its underline). A fenced or indented code block's "# comment" is not a heading (`parsed` reads it as
    code). `markdown` as for `parsed`; memoised like it."""
    return tuple((b.start, name) for b in parsed(text, markdown) if (name := section_title(b)))


def section_title(block: Block) -> str:
    """The heading text of a block (`parsed`) that is a section title: a reST title over its underline, a
    Markdown ATX heading without its "#" marks; else ""."""
    if block.kind != "skip":
        return ""
    first = block.lines[0].strip()
    if len(block.lines) == 2:
        return first
    return first.lstrip("#").strip() if re.match(r"#{1,6}\s", first) else ""
