"""Headings of text documents (reStructuredText, AsciiDoc, Org, plain text) and their heading paths.

A text chunk is titled like a Markdown one: by the heading path of its section ("User Guide > Retrying Requests"),
in plain words (inline markup stripped). Levels: "#", "=" (AsciiDoc) and "*" (Org) headings by their marker count;
reStructuredText underlined (or over- and underlined) titles by the order in which each adornment style first
appears in the file, as docutils assigns them (https://docutils.sourceforge.io/docs/ref/rst/restructuredtext.html
#sections: "the first style encountered will be an outermost title ..., the second style will be a subtitle").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

_MD_HEADING = re.compile(r"(#{1,6})[ \t]+(\S.*?)[ \t#]*$")
_ADOC_HEADING = re.compile(r"(={1,6})[ \t]+(\S.*?)[ \t]*$")
_ORG_HEADING = re.compile(r"(\*+)[ \t]+(\S.*?)[ \t]*$")
_UNDERLINE = re.compile(r"([=\-~^\"'`#*+<>:._])\1{2,}[ \t]*")

# A heading id / attribute list at the end of a heading: "Setup { #setup }", "Setup {#setup .cls}" (Python-Markdown
# attr_list, mkdocs, pandoc). It is markup, not words: stripped from titles, embedding input and extractive answers.
HEADING_ID = re.compile(r"\s*\{\s*#[^{}\n]*\}[ \t]*(?=$|\n)", re.MULTILINE)

# Inline markup of reST (and the same shapes in AsciiDoc / Org): roles, hyperlink references, literals, emphasis.
_ROLE = re.compile(r":[\w.+-]+(?::[\w.+-]+)*:`([^`]+)`")  # :func:`~pkg.f`, :ref:`text <target>`, :py:class:`C`
_LINK = re.compile(r"`([^`]+?)`__?")  # `text <https://...>`_ , `name`_ , `anonymous`__
_LITERAL = re.compile(r"``(\S(?:.*?\S)?)``")
_STRONG = re.compile(r"(?<![\w*])\*\*(\S(?:.*?\S)?)\*\*(?![\w*])")
_EMPHASIS = re.compile(r"(?<![\w*])\*(\S(?:.*?\S)?)\*(?![\w*])")
_INTERPRETED = re.compile(r"(?<![\w`])`(\S(?:[^`]*?\S)?)`(?![\w`])")
_TARGET = re.compile(r"\s*<[^<>]*>$")  # "text <target>" in a role or link: the text is what reads


def strip_heading_ids(text: str) -> str:
    """`text` without heading ids `{ #anchor }` at line ends ("Install { #install }" -> "Install")."""
    return HEADING_ID.sub("", text) if "{" in text else text


def _role_text(m: re.Match) -> str:
    inner = m.group(1)
    shown = _TARGET.sub("", inner) if not inner.startswith("<") else inner
    if shown.startswith("~"):  # Sphinx: :func:`~pkg.mod.f` shows "f"
        shown = shown[1:].rpartition(".")[2]
    return shown.lstrip("!")


def plain_heading(text: str) -> str:
    """A heading's words without inline markup: "**x**", "*x*", "``x``", "`x`" -> "x"; ":role:`x`" -> "x"
    (":role:`text <target>`" -> "text", Sphinx ":func:`~a.b`" -> "b"); "`text <url>`_" -> "text"; a trailing
    "::" (reST literal-block marker) and heading ids `{ #id }` dropped; runs of whitespace collapsed."""
    text = strip_heading_ids(text)
    if any(c in text for c in "*`:"):
        text = _ROLE.sub(_role_text, text)
        text = _LINK.sub(lambda m: _TARGET.sub("", m.group(1)) or m.group(1), text)
        text = _LITERAL.sub(r"\1", text)
        text = _STRONG.sub(r"\1", text)
        text = _EMPHASIS.sub(r"\1", text)
        text = _INTERPRETED.sub(r"\1", text)
        text = re.sub(r"\s*::$", "", text.rstrip())
    return " ".join(text.split())


@dataclass(frozen=True)
class TextHeading:
    """A heading of a text document: `offset` of its first line (the overline when it has one), its plain `name`
    (`plain_heading`), and its `style`: ("#", n), ("=", n), ("*", n) for marker headings of level n, (c, overlined)
    for a reST title adorned with character c."""

    offset: int
    name: str
    style: tuple[str, int] | tuple[str, bool]


def text_headings(text: str, starts: list[int], path: str) -> list[TextHeading]:
    """The heading-like lines of `text` (line start offsets `starts`) in order: "# x", "= x" (AsciiDoc), "* x" (Org
    files only), and a line underlined with a row of one punctuation character at least as long
    (reStructuredText / setext), optionally overlined with the same row. Headings with no words are skipped."""
    org = PurePosixPath(path).suffix.lower() == ".org"
    out: list[TextHeading] = []
    before: tuple[int, str] | None = None  # the line before `prev`
    prev: tuple[int, str] | None = None
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(text)
        body = text[start:end].rstrip("\r\n")
        m = _MD_HEADING.match(body) or _ADOC_HEADING.match(body) or (org and _ORG_HEADING.match(body))
        if m:
            name = plain_heading(m.group(2))
            if name:
                out.append(TextHeading(start, name, (m.group(1)[0], len(m.group(1)))))
        elif prev is not None and (u := _UNDERLINE.fullmatch(body)) and prev[1].strip() \
                and not _UNDERLINE.fullmatch(prev[1]) and len(body.rstrip()) >= len(prev[1].rstrip()):
            over = before is not None and before[1].rstrip() == body.rstrip()
            name = plain_heading(prev[1].strip())
            if name:
                out.append(TextHeading(before[0] if over and before else prev[0], name, (u.group(1), over)))
        before, prev = prev, (start, body)
    return out


def heading_paths(headings: list[TextHeading]) -> list[tuple[int, str]]:
    """(offset, heading path "A > B > C") for each of `headings` (`text_headings`, in document order): marker
    headings at the level of their marker count, reST titles at the level of their adornment style's first
    appearance (the first style seen is level 1, the next new one level 2, ...). A reST document title
    (`_document_title`) titles only the text before the first section; it is no part of the sections' paths."""
    order: dict[tuple, int] = {}
    stack: list[tuple[int, str]] = []
    out: list[tuple[int, str]] = []
    doc_title = _document_title(headings)
    if doc_title is not None:
        out.append((doc_title.offset, doc_title.name))
        headings = headings[1:]
    for h in headings:
        if isinstance(h.style[1], bool):
            level = order.setdefault(h.style, len(order) + 1)
        else:
            level = int(h.style[1])
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, h.name))
        out.append((h.offset, " > ".join(n for _, n in stack)))
    return out


def _document_title(headings: list[TextHeading]) -> TextHeading | None:
    """The reST document title: the first heading when it is an adorned title whose style no other heading uses
    (a lone top-level section at the start, which docutils promotes to the document title, "doctitle_xform"). It
    names the page, as the file name does: the sections under it are the top level of their heading paths."""
    if not headings or not isinstance(headings[0].style[1], bool):
        return None
    first = headings[0]
    return first if all(h.style != first.style for h in headings[1:]) else None


def focus_path(title: str, headings: list[TextHeading]) -> str:
    """The heading path after `headings` (those of one chunk at or above a line, in order) for a chunk titled
    `title` (the path in force at its start). A chunk holds only part of the file, so the level of a reST style is
    known only from inside it: the chunk's first heading is `title`'s last part when it opens the chunk (offset 0);
    a style met again in the chunk keeps its level; a style new to the chunk is taken as a sibling of the current
    section (chunks pack consecutive sections), or one level deeper when that level's style is another one.
    Marker headings use their marker count. `title` when `headings` is empty."""
    path = title.split(" > ") if title else []
    level_of: dict[tuple, int] = {}
    for h in headings:
        if not isinstance(h.style[1], bool):
            level = int(h.style[1])
        elif h.style in level_of:
            level = level_of[h.style]
        elif h.offset == 0 and path and path[-1] == h.name:
            level = level_of[h.style] = len(path)
        else:
            level = max(1, len(path))
            if level in level_of.values():
                level += 1
            level_of[h.style] = level
        path = [*path[:level - 1], h.name]
    return " > ".join(path)
