"""HTML blocks of a Markdown text read as the Markdown they render as, line for line (`read_html_blocks`).

Markdown allows raw HTML blocks, and real documentation uses them: Cargo's generated command pages write every
option as `<dl><dt class="option-term" id="..."><a ...><code>--dev</code></a></dt><dd class="option-desc"><p>Add
as a development dependency.</p></dd>`, Caddy its tips as `<aside class="tip">`, its commands as `<pre><code
class="cmd bash">`, FastAPI and others `<div>`, `<details><summary>`, `<img alt>`, `<table>`, HTML headings. Indexed
as written, their tags and attributes reached chunk texts, BM25 terms, embeddings, previews and answers, and the
answer reader skipped the block (its words were never quoted). Here each such block becomes the Markdown a reader
sees, on the lines the source holds it, so every line number (citations, `focusRange`) is the file's:

- a definition list item reads as a Markdown definition list item (MyST/Pandoc "deflist", as `answer/blocks.py`
  reads them): the term on its line, ": definition" on the line the definition starts, its further lines indented
  under it ("`--git` url" / ": Git URL to add the specified crate from."); a term and its definition on one line
  read "term: definition";
- `<li>` a list item ("- item", "1. item", nested ones indented), `<h1>`..`<h6>` a heading ("## Title"),
  `<tr>` a pipe-table row on the row's first text line ("| `ssl` | Skip verification |"), `<p>`, `<div>`,
  `<aside>`, `<summary>`, `<figcaption>` and other blocks their text;
- inline elements their text: `<code>`, `<kbd>`, `<samp>`, `<tt>` a code span, `<br>` a space, a link its
  text, `<img>` a Markdown image with its alt text (`![alt]()`: searchable, never an answer's
  words, as a Markdown image); entities decoded; `<script>`, `<style>`, `<template>`, `<svg>` and comments nothing;
- a `<pre>` block an indented code block (each line indented by four spaces, so a chunk boundary inside it leaves
  code on both sides), unless it follows a paragraph line, which an indented code block cannot interrupt: there it
  stays as written (`answer/blocks.py` reads it as code).

Only top-level HTML blocks that open with an HTML element are read: a block opening with a component of the site's
own tooling (mdBook's `<Listing number="1-1" caption="...">`, MDX's `<Note>`, `<Tabs>`: no HTML element) renders as
that tooling says, and comments (`<!-- md:version 9.0 -->`) are left for the answer's markup cleaning; blocks in a
blockquote or list item stay as written. Consecutive HTML blocks (only blank lines between them: CommonMark ends
an HTML block at a blank line) are read as one HTML text, so a definition whose paragraphs are separated by a blank
line stays inside its `<dd>`.

The HTML is tokenised by Python's `html.parser` (the standard library's HTML tokenizer), which reports the source
line of every tag and text: the page converter (`sources/convert.py`, trafilatura over lxml) reads whole pages into
Markdown for their main content and keeps no source lines, which a citation into a Markdown file needs.
"""

from __future__ import annotations

import functools
import logging
import re
from collections import Counter
from html import unescape
from html.parser import HTMLParser
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

log = logging.getLogger(__name__)

# HTML elements (the WHATWG list, minus the obsolete): a block whose first tag is not one is a component of the
# site's tooling (mdBook's <Listing>, MDX's <Note>), left as written.
HTML_ELEMENTS = frozenset({
    "a", "abbr", "address", "area", "article", "aside", "audio", "b", "bdi", "bdo", "blockquote", "body", "br",
    "button", "canvas", "caption", "center", "cite", "code", "col", "colgroup", "data", "datalist", "dd", "del",
    "details", "dfn", "dialog", "div", "dl", "dt", "em", "embed", "fieldset", "figcaption", "figure", "font",
    "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "head", "header", "hgroup", "hr", "html", "i",
    "iframe", "img", "input", "ins", "kbd", "label", "legend", "li", "link", "main", "map", "mark", "menu",
    "meta", "meter", "nav", "noscript", "object", "ol", "optgroup", "option", "output", "p", "param", "picture",
    "pre", "progress", "q", "rp", "rt", "ruby", "s", "samp", "script", "search", "section", "select", "small",
    "source", "span", "strong", "style", "sub", "summary", "sup", "svg", "table", "tbody", "td", "template",
    "textarea", "tfoot", "th", "thead", "time", "title", "tr", "track", "tt", "u", "ul", "var", "video", "wbr",
})
# Elements whose content is not text a reader sees.
_HIDDEN = frozenset({"script", "style", "template", "svg", "noscript", "iframe", "object", "head", "title",
                     "select", "datalist", "map", "audio", "video", "canvas"})
_CODE = frozenset({"code", "kbd", "samp", "tt"})  # read as a code span
_BREAK = frozenset({"br", "wbr", "hr"})
# Elements that start a block of their own: their text starts a new line's worth of Markdown (or joins the line's
# text after a space when the line holds text already).
_BLOCKS = frozenset({"address", "article", "aside", "blockquote", "body", "caption", "center", "dd", "details",
                     "dialog", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2",
                     "h3", "h4", "h5", "h6", "header", "hgroup", "html", "legend", "li", "main", "menu", "nav", "ol",
                     "p", "section", "summary", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul", "pre",
                     "picture", "search"})
_VOID = frozenset({"area", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track",
                   "wbr"})
_FIRST_TAG = re.compile(r"^ {0,3}</?([A-Za-z][A-Za-z0-9-]*)")
_PRE_OPEN = re.compile(r"^ {0,3}<pre[\s>]", re.IGNORECASE)
_PRE_CLOSE = re.compile(r"</pre\s*>\s*$", re.IGNORECASE)
_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
_EOL = re.compile(r"(\r\n|\r|\n)")
# A start or end tag as html.parser ends it: a name, then attributes whose quoted values may hold "<" and ">", up to
# its ">" (possessive: a tag that does not end fails at once instead of backtracking).
_WHOLE_TAG = re.compile(r"</?[A-Za-z][^\s/>\x00]*+(?:[^<>\"']++|\"[^\"]*+\"|'[^']*+')*+>")
_SPACES = re.compile(r"\s+")


@functools.lru_cache(maxsize=1)
def _markdown() -> MarkdownIt:
    """CommonMark block structure only (no inline rule), as the chunker parses it."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark").enable("table")
    md.disable("inline")
    return md


def read_html_blocks(text: str) -> str:
    """`text` (Markdown) with its top-level HTML blocks read as Markdown (module docstring), line for line: the
    result has the same lines, each ending as in `text` ("\\n", "\\r\\n", "\\r"); lines outside those blocks are
    unchanged, as is a text without "<". A block the tokenizer cannot read is left as written."""
    if "<" not in text:
        return text
    parts = _EOL.split(text)
    lines, ends = parts[0::2], parts[1::2]
    groups = _groups(text, lines)
    if not groups:
        return text
    for first, end in groups:
        try:
            lines[first:end] = _read_group(lines, first, end)
        except AssertionError:  # html.parser's marked sections it does not know ("<![if ...]>"): left as written
            log.debug("HTML block at line %d left as written", first + 1)
    return "".join(line + (ends[k] if k < len(ends) else "") for k, line in enumerate(lines))


def _groups(text: str, lines: list[str]) -> list[tuple[int, int]]:
    """(first line, line after) of each run of top-level HTML blocks separated by blank lines only, whose first
    block opens with an HTML element (`HTML_ELEMENTS`) and is no comment; a `<pre>` block is a run of its own, and
    none right after a list (its indented code would read as the list's last item)."""
    tokens = _markdown().parse(text)
    spans, after_list = [], set()
    for k, tok in enumerate(tokens):
        if tok.type == "html_block" and tok.level == 0 and tok.map:
            spans.append(tok.map)
            if k and tokens[k - 1].type in ("bullet_list_close", "ordered_list_close"):
                after_list.add(tok.map[0])  # an indented line there would continue the list's last item
    groups: list[list[int]] = []
    for first, end in spans:
        if groups and all(not x.strip() for x in lines[groups[-1][1]:first]) \
                and not _PRE_OPEN.match(lines[first]) and not _PRE_OPEN.match(lines[groups[-1][0]]):
            groups[-1][1] = end
        else:
            groups.append([first, end])
    out = []
    for first, end in groups:
        m = _FIRST_TAG.match(lines[first])
        if m and m.group(1).lower() in HTML_ELEMENTS and not (first in after_list and _PRE_OPEN.match(lines[first])):
            out.append((first, end))
    return out


def _read_group(lines: list[str], first: int, end: int) -> list[str]:
    """The lines `first`..`end` - 1 of a Markdown text (an HTML group, `_groups`) as Markdown, as many lines."""
    if _PRE_OPEN.match(lines[first]) and _PRE_CLOSE.search(lines[end - 1]):
        code = _indented(lines, first, end)
        return lines[first:end] if code is None else code  # after a paragraph line: answer/blocks.py reads it
    html = "\n".join(lines[first:end])
    if not _well_formed(html):
        return lines[first:end]
    reader = _Reader()
    reader.feed(html)
    reader.close()
    return reader.markdown(end - first)


def _well_formed(html: str) -> bool:
    """Whether every tag, comment, declaration and processing instruction `html` opens also ends — the only HTML
    html.parser reads in linear time. It scans on from each "<" it cannot end for the rest of the text (CPython
    3.11's tokenizer, gh-135462: a block of 20,000 `<a ` read for 200 s, an unclosed `<a b="` or `<!--` likewise),
    so a block that leaves one open is left as written (red team, session 53). Linear: each construct is scanned
    once, up to its end or, for the first one without an end, to the end of the text."""
    at = html.find("<")
    while at >= 0:
        nxt = html[at + 1:at + 2]
        if html.startswith("<!--", at):
            end = html.find("-->", at + 4)
            if end < 0:
                return False
            at = end + 3
        elif nxt in ("!", "?") or (nxt == "/" and not html[at + 2:at + 3].isalpha()):
            end = html.find(">", at + 2)
            if end < 0:
                return False
            at = end + 1
        elif nxt.isascii() and (nxt.isalpha() or nxt == "/"):
            m = _WHOLE_TAG.match(html, at)
            if m is None:
                return False
            at = m.end()
        else:  # "<" then a space, a digit, ...: text
            at += 1
        at = html.find("<", at)
    return True


def _indented(lines: list[str], first: int, end: int) -> list[str] | None:
    """A `<pre>` block's lines (`first`..`end` - 1) as an indented code block: each line's text (tags removed,
    entities decoded) indented by four spaces, a tag-only first or last line blank; None when the code would
    follow a paragraph line (an indented code block cannot interrupt a paragraph) or holds no text. Each line reads
    as code on its own, so a chunk that starts or ends inside the block still holds code."""
    body = [unescape(_TAG.sub("", x)).rstrip() for x in lines[first:end]]
    if not "".join(body).strip():
        return None
    if body[0].strip() and first > 0 and lines[first - 1].strip():
        return None
    return [f"    {x}" if x.strip() else "" for x in body]


class _Reader(HTMLParser):
    """Reads an HTML text into per-line Markdown (`markdown`): every text goes to the line it is written on."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.text: dict[int, list[str]] = {}  # 0-based line -> pieces of its Markdown
        self.marker: dict[int, str] = {}  # 0-based line -> its block marker (": ", "- ", "## ", "  ")
        self.stack: list[str] = []  # open elements
        self.open: Counter[str] = Counter()  # how many of each are open (the stack may be deep: no scan of it)
        self.filled: set[int] = set()  # lines holding text (not only spaces)
        self.fresh: str | None = None  # the marker of a block opened since the last text ("" for a paragraph)
        self.hidden = 0  # depth inside an element whose content is not text (`_HIDDEN`)
        self.code: list[str] | None = None  # the text of an open code span
        self.code_line = 0
        self.row: list[list[str]] | None = None  # the cells of an open table row
        self.row_line: int | None = None
        self.counters: list[int] = []  # per open <ol>: its next number; -1 for a <ul>

    # -- positions -----------------------------------------------------------------------------------------------
    def _line(self) -> int:
        return self.getpos()[0] - 1

    # -- events --------------------------------------------------------------------------------------------------
    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in _VOID:
            self.stack.append(tag)
            self.open[tag] += 1
        if tag in _HIDDEN:
            self.hidden += tag not in _VOID
            return
        if self.hidden:
            return
        if tag == "img":
            alt = " ".join((dict(attrs).get("alt") or "").split()).replace("[", "(").replace("]", ")")
            if alt:
                self._put(f" ![{alt}]() ")
            return
        if tag in _BREAK:
            self._put(" ")
            return
        if tag in _CODE and self.code is None and not self.open["pre"]:
            self.code, self.code_line = [], self._line()
            return
        if tag in ("ul", "ol"):
            self.counters.append(1 if tag == "ol" else -1)
        elif tag == "tr":
            self._end_row()
            self.row, self.row_line = [], None
        elif tag in ("td", "th") and self.row is not None:
            self.row.append([])
        if tag in _BLOCKS:
            self.fresh = self._block_marker(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in _VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.open[tag]:
            return
        while self.stack:
            top = self.stack.pop()
            self.open[top] -= 1
            self._close(top)
            if top == tag:
                break

    def _close(self, tag: str) -> None:
        if tag in _HIDDEN:
            self.hidden = max(0, self.hidden - 1)
            return
        if self.hidden:
            return
        if tag in _CODE and self.code is not None and not any(self.open[t] for t in _CODE):
            body = " ".join("".join(self.code).split())
            self.code, line = None, self.code_line
            if body:
                tick = "``" if "`" in body else "`"
                pad = " " if tick == "``" or body.startswith("`") or body.endswith("`") else ""
                self._put(f"{tick}{pad}{body}{pad}{tick}", line)
            return
        if tag in ("ul", "ol") and self.counters:
            self.counters.pop()
        elif tag in ("tr", "table"):
            self._end_row()
        if tag in _BLOCKS:
            self.fresh = None

    def handle_data(self, data: str) -> None:
        if self.hidden or not data:
            return
        if self.code is not None:
            self.code.append(data)
            return
        line = self._line()
        for k, piece in enumerate(data.split("\n")):
            if k:
                line += 1
            if piece:
                self._put(piece, line)

    def handle_comment(self, data: str) -> None:  # a comment inside the block: not text
        return

    # -- writing -------------------------------------------------------------------------------------------------
    def _block_marker(self, tag: str) -> str:
        """The Markdown marker a block element's first text line gets."""
        lists = self.open["ul"] + self.open["ol"] - (tag in ("ul", "ol"))
        in_dd = self.open["dd"] - (self.stack[-1:] == ["dd"]) > 0  # a <dd> open below the top element
        indent = "  " * (max(0, lists - 1) + in_dd)
        if tag == "dd":
            return ": "
        if tag == "li":
            if self.counters and self.counters[-1] > 0:
                n = self.counters[-1]
                self.counters[-1] += 1
                return f"{indent}{n}. "
            return f"{indent}- "
        if len(tag) == 2 and tag[0] == "h" and tag[1] in "123456":
            return "#" * int(tag[1]) + " "
        if self.fresh:  # a <p> right inside a <dd> or <li> opened on this line: keeps that marker
            return self.fresh
        return "  " if in_dd or (tag != "li" and lists) else ""

    def _put(self, piece: str, line: int | None = None) -> None:
        """Add text `piece` to `line` (default: the tokenizer's line), opening the line with the marker of the
        block opened before it, if any; in a table row, to the open cell."""
        line = self._line() if line is None else line
        if self.code is not None:
            self.code.append(piece)
            return
        if self.row is not None and self.row:
            if self.row_line is None and piece.strip():
                self.row_line = line
            self.row[-1].append(piece)
            return
        pieces = self.text.setdefault(line, [])
        if self.fresh is not None and piece.strip():
            if line in self.filled:
                pieces.append(": " if self.fresh == ": " else " ")
            elif line not in self.marker:
                self.marker[line] = self.fresh
            self.fresh = None
        elif line not in self.filled and line not in self.marker and piece.strip():
            # a further line of a definition or list item: indented under its marker
            self.marker[line] = "  " if self.open["dd"] or self.open["li"] else ""
        pieces.append(piece)
        if piece.strip():
            self.filled.add(line)

    def _end_row(self) -> None:
        """Write the open table row as a pipe-table row on its first text line."""
        row, line = self.row, self.row_line
        self.row, self.row_line = None, None
        if not row or line is None:
            return
        cells = [_SPACES.sub(" ", "".join(c)).strip().replace("|", "\\|") for c in row]
        if any(cells):
            self.text.setdefault(line, []).append("| " + " | ".join(cells) + " |")
            self.filled.add(line)
            self.marker.setdefault(line, "")

    def markdown(self, n: int) -> list[str]:
        """The `n` lines read, as Markdown: each line's marker and its text (whitespace runs as one space)."""
        self._end_row()
        out = []
        for k in range(n):
            body = _SPACES.sub(" ", "".join(self.text.get(k, []))).strip()
            out.append(self.marker.get(k, "") + body if body else "")
        return out
