"""Headings of text documents (reStructuredText, AsciiDoc, Org, plain text), in plain words.

A text chunk is titled by the nearest heading-like line (`text_titles`), with its inline markup
stripped ("**✨ Optimized for Python 3.10+**" reads "✨ Optimized for Python 3.10+", ":class:`~a.Retry`" reads
"Retry"), as a Markdown chunk's heading is (`heading_text`). Text titles are the leaf section, not the
heading path Markdown chunks carry: reST heading paths (levels by the order in which adornment styles first appear,
the document title left out) were measured in bench/history/held-out-sets-4-to-6.md ("reST heading paths and plain-word titles") and cost answer keys. A
source's displayed title reads the path from the whole file instead (`heading_paths`, `index.titles.focus_title`).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import lru_cache
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from ragls.core.ir import heading_path
from ragls.sources.load import markup_extension
from ragls.sources.rest_include import REST_EXTENSIONS

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

    from ragls.index.lines import LineIndex

_MD_HEADING = re.compile(r"(#{1,6})[ \t]+(\S.*?)[ \t#]*$")
_ADOC_HEADING = re.compile(r"(={1,6})[ \t]+(\S.*?)[ \t]*$")
_ORG_HEADING = re.compile(r"(\*+)[ \t]+(\S.*?)[ \t]*$")
# A reST section title's underline or overline (docutils: a row of one non-alphanumeric printable character, at least
# as long as the title; these are the characters its docs recommend): matched in full against a line.
ADORNMENT = re.compile(r"([=\-~^\"'`#*+<>:._])\1{2,}[ \t]*")

# A heading id / attribute list at the end of a heading: "Setup { #setup }", "Setup {#setup .cls}" (Python-Markdown
# attr_list, mkdocs, pandoc). It is markup, not words: stripped from titles, embedding input and extractive answers.
HEADING_ID = re.compile(r"\s*\{\s*#[^{}\n]*\}[ \t]*(?=$|\n)", re.MULTILINE)

# Inline markup of reST (and the same shapes in AsciiDoc / Org): roles, hyperlink references, literals, emphasis.
# reST interpreted text (Sphinx roles): ":meth:`~flask.make_response`", ":ref:`Title <label>`", ":py:class:`C`"; also
# read by the extractive answer (answer/rest.py `rest_role`)
REST_ROLE = re.compile(r":[\w.+-]+(?::[\w.+-]+)*:`([^`]+)`")
_LINK = re.compile(r"`([^`]+?)`__?")  # `text <https://...>`_ , `name`_ , `anonymous`__
_LITERAL = re.compile(r"``(\S(?:.*?\S)?)``")
_STRONG = re.compile(r"(?<![\w*])\*\*(\S(?:.*?\S)?)\*\*(?![\w*])")
_EMPHASIS = re.compile(r"(?<![\w*])\*(\S(?:.*?\S)?)\*(?![\w*])")
_INTERPRETED = re.compile(r"(?<![\w`])`(\S(?:[^`]*?\S)?)`(?![\w`])")
_TARGET = re.compile(r"\s*<[^<>]*>$")  # "text <target>" in a role or link: the text is what reads
# A reST substitution reference "|name|" (or "|name|_", "|name|__": one that is also a link), read as its name in
# titles (`plain_heading`) and answers (`answer.inline.link_text`): its definition (".. |name| replace:: ...") is
# mostly in another file or the build's `rst_prolog`. Not inside a word or a code span, nor "||" / "a | b".
SUBSTITUTION = re.compile(r"(?<![\w|`\\])\|([^|\s`](?:[^|\n`]{0,78}[^|\s`])?)\|(?:__?)?(?![\w|])")


def strip_heading_ids(text: str) -> str:
    """`text` without heading ids `{ #anchor }` at line ends ("Install { #install }" -> "Install")."""
    return HEADING_ID.sub("", text) if "{" in text else text


def role_target(target: str) -> str:
    """A role's `target` (the text between its backticks) without its explicit label: "Title <label>" -> "Title"; a
    bare "<label>" stays."""
    return target if target.startswith("<") else _TARGET.sub("", target).strip() or target


def role_text(target: str) -> str:
    """What Sphinx shows for a code role's `target`: `role_target`, then "~pkg.mod.f" -> "f" (the last dotted
    part), "!f" -> "f" (no link) and ".Context.configure" -> "Context.configure" (a leading dot only tells Sphinx
    to search the current module first: its Python domain's `PyXRefRole.process_link` strips it from the title).
    A "~" in a path is the path's own: ":file:`~/.config/kitty/kitty.conf`" stays "~/.config/kitty/kitty.conf" (it
    read "conf")."""
    shown = role_target(target).lstrip("!").lstrip(".")
    if shown.startswith("~") and "/" not in shown:
        shown = shown[1:].rpartition(".")[2]
    return shown.lstrip("!")


def _role_text(m: re.Match) -> str:
    return role_text(m.group(1))


def plain_heading(text: str) -> str:
    """A heading's words without inline markup: "**x**", "*x*", "``x``", "`x`" -> "x"; ":role:`x`" -> "x"
    (":role:`text <target>`" -> "text", Sphinx ":func:`~a.b`" -> "b"); "`text <url>`_" -> "text"; a reST
    substitution reference "|@example|" -> "@example" (`SUBSTITUTION`; "|~settings.deadline|" -> "deadline", as
    Sphinx's "~"); a trailing "::" (reST literal-block marker) and heading ids `{ #id }` dropped; runs of whitespace
    collapsed."""
    text = strip_heading_ids(text)
    if "|" in text:
        text = SUBSTITUTION.sub(lambda m: role_text(m.group(1)), text)
    if any(c in text for c in "*`:"):
        text = REST_ROLE.sub(_role_text, text)
        text = _LINK.sub(lambda m: _TARGET.sub("", m.group(1)) or m.group(1), text)
        text = _LITERAL.sub(r"\1", text)
        text = _STRONG.sub(r"\1", text)
        text = _EMPHASIS.sub(r"\1", text)
        text = _INTERPRETED.sub(r"\1", text)
        text = re.sub(r"\s*::$", "", text.rstrip())
    return " ".join(text.split())


def text_headings(text: str, starts: list[int], path: str) -> list[tuple[int, str]]:
    """(offset, plain name) of the heading-like lines of `text` (line start offsets `starts`) in order: "# x", "= x"
    (AsciiDoc), "* x" (Org files only) — none in reST, where "== x" or a simple table's "======  ====" border is
    no title — and a line underlined with a row of one punctuation character at least as
    long (reStructuredText / setext), optionally overlined with the same row (then the offset is the overline's).
    Names are `plain_heading`; headings with no words are skipped."""
    return [(offset, name) for offset, name, _ in _heading_lines(text, starts, path)]


def _heading_lines(text: str, starts: list[int], path: str) -> list[tuple[int, str, tuple]]:
    """`text_headings` with each heading's style: ("#", n), ("=", n), ("*", n) for a marker heading of level n,
    (c, overlined) for a title adorned with the character c."""
    org = PurePosixPath(path).suffix.lower() == ".org"
    markers = markup_extension(path) not in REST_EXTENSIONS  # reST has no marker headings: "== x" is no title
    out: list[tuple[int, str, tuple]] = []
    before: tuple[int, str] | None = None  # the line before `prev`
    prev: tuple[int, str] | None = None
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(text)
        body = text[start:end].rstrip("\r\n")
        m = markers and (_MD_HEADING.match(body) or _ADOC_HEADING.match(body) or (org and _ORG_HEADING.match(body)))
        if m:
            name = plain_heading(m.group(2))
            if name:
                out.append((start, name, (m.group(1)[0], len(m.group(1)))))
        elif prev is not None and (u := ADORNMENT.fullmatch(body)) and prev[1].strip() \
                and not ADORNMENT.fullmatch(prev[1]) and len(body.rstrip()) >= len(prev[1].rstrip()):
            over = before is not None and before[1].rstrip() == body.rstrip()
            name = plain_heading(prev[1].strip())
            if name:
                out.append((before[0] if over and before else prev[0], name, (u.group(1), over)))
        before, prev = prev, (start, body)
    return out


def heading_paths(text: str, starts: list[int], path: str) -> list[tuple[int, str]]:
    """(offset, heading path "A > B > C") of each heading of a whole text document (`text_headings`), for display
    only (`index.titles.focus_title`): chunks keep their leaf titles, which is what is embedded and ranked. Marker
    headings sit at the level of their marker count; reST titles at the level of their adornment style's first
    appearance in the file, as docutils assigns them (https://docutils.sourceforge.io/docs/ref/rst/
    restructuredtext.html#sections: "the first style encountered will be an outermost title"). A document title —
    the first heading when it is adorned with a style no other heading uses (docutils' "doctitle_xform") — names
    the page, as the file name does: it is its own path, and no part of its sections' paths."""
    headings = _heading_lines(text, starts, path)
    out: list[tuple[int, str]] = []
    first = headings[0] if headings else None
    if first is not None and isinstance(first[2][1], bool) and all(h[2] != first[2] for h in headings[1:]):
        out.append((first[0], first[1]))
        headings = headings[1:]
    order: dict[tuple, int] = {}
    stack: list[tuple[int, str]] = []
    for offset, name, style in headings:
        level = order.setdefault(style, len(order) + 1) if isinstance(style[1], bool) else int(style[1])
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, name))
        out.append((offset, heading_path(n for _, n in stack)))
    return out


# -- Markdown headings ----------------------------------------------------------------------------------------

@lru_cache(maxsize=1)
def markdown_parser() -> MarkdownIt:
    """Block structure only: the core "inline" rule is off, since chunking needs block boundaries and heading
    lines, and inline parsing of every paragraph was half the parse time (headings are parsed inline one by one
    in `heading_text`). markdown-it is imported here, on first use: opening an index to answer from it (BM25)
    parses Markdown only to name the section of a cited line in a chunk of several sections
    (`index.titles.focus_title`)."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark").enable("table")
    md.disable("inline")
    return md


@lru_cache(maxsize=1)
def _inline_parser() -> MarkdownIt:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark")


def heading_text(inline) -> str:
    """Plain text of a heading's inline token: markup stripped, code spans and image alt text kept."""
    parsed = _inline_parser().parseInline(inline.content) if inline.content else []
    parts: list[str] = []
    for child in (parsed[0].children or []) if parsed else []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":
            parts.append(child.content)
    return strip_heading_ids(" ".join("".join(parts).split()))


# -- titles for code and text ----------------------------------------------------------------------------------

_SYMBOL = re.compile(
    r"[ \t]*(?:(?:export|default|pub(?:\([^)]*\))?|public|private|protected|internal|static|abstract|final|async"
    r"|unsafe|extern|inline|override|local|const)\s+)*"
    r"(?:def|class|function|fn|func|struct|enum|trait|impl|interface|module|object)\b\s*\*?\s*"
    r"(?:\([^)]*\)\s*)?(?:<[^>]*>\s*)?([A-Za-z_$][\w$]*)"
)


def code_titles(text: str, index: LineIndex) -> list[tuple[int, str]]:
    """(offset of line, symbol name) for every line that defines a function, class, etc."""
    out: list[tuple[int, str]] = []
    starts = index.starts
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(text)
        m = _SYMBOL.match(text, start, end)
        if m:
            out.append((start, m.group(1)))
    return out


def text_titles(text: str, index: LineIndex, path: str) -> list[tuple[int, str]]:
    """(offset of line, heading) for the heading-like lines of a text document ("# x", "= x" AsciiDoc, "* x" Org,
    reStructuredText / setext underlined titles), inline markup stripped (`index.headings.text_headings`)."""
    return text_headings(text, index.starts, path)


def title_at(titles: list[tuple[int, str]], start: int, end: int) -> str:
    """The title in force at `start` (the last one at or before it), else the first one inside the piece."""
    if not titles:
        return ""
    i = bisect_right(titles, (start, "\U0010ffff")) - 1
    if i >= 0:
        return titles[i][1]
    if titles[0][0] < end:
        return titles[0][1]
    return ""
