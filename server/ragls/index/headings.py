"""Headings of text documents (reStructuredText, AsciiDoc, Org, plain text), in plain words.

A text chunk is titled by the nearest heading-like line (`index.chunking._text_titles`), with its inline markup
stripped ("**✨ Optimized for Python 3.10+**" reads "✨ Optimized for Python 3.10+", ":class:`~a.Retry`" reads
"Retry"), as a Markdown chunk's heading is (`chunking._heading_text`). Text titles are the leaf section, not the
heading path Markdown chunks carry: reST heading paths (levels by the order in which adornment styles first appear,
the document title left out) were measured in docs/benchmarks.md ("reST heading paths") and cost answer keys.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

_MD_HEADING = re.compile(r"(#{1,6})[ \t]+(\S.*?)[ \t#]*$")
_ADOC_HEADING = re.compile(r"(={1,6})[ \t]+(\S.*?)[ \t]*$")
_ORG_HEADING = re.compile(r"(\*+)[ \t]+(\S.*?)[ \t]*$")
_UNDERLINE = re.compile(r"([=\-~^\"'`#*+<>:._])\1{2,}[ \t]*")

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


def strip_heading_ids(text: str) -> str:
    """`text` without heading ids `{ #anchor }` at line ends ("Install { #install }" -> "Install")."""
    return HEADING_ID.sub("", text) if "{" in text else text


def role_target(target: str) -> str:
    """A role's `target` (the text between its backticks) without its explicit label: "Title <label>" -> "Title"; a
    bare "<label>" stays."""
    return target if target.startswith("<") else _TARGET.sub("", target).strip() or target


def role_text(target: str) -> str:
    """What Sphinx shows for a code role's `target`: `role_target`, then "~pkg.mod.f" -> "f" (the last dotted
    part) and "!f" -> "f" (no link)."""
    shown = role_target(target).lstrip("!")
    if shown.startswith("~"):
        shown = shown[1:].rpartition(".")[2]
    return shown.lstrip("!")


def _role_text(m: re.Match) -> str:
    return role_text(m.group(1))


def plain_heading(text: str) -> str:
    """A heading's words without inline markup: "**x**", "*x*", "``x``", "`x`" -> "x"; ":role:`x`" -> "x"
    (":role:`text <target>`" -> "text", Sphinx ":func:`~a.b`" -> "b"); "`text <url>`_" -> "text"; a trailing
    "::" (reST literal-block marker) and heading ids `{ #id }` dropped; runs of whitespace collapsed."""
    text = strip_heading_ids(text)
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
    (AsciiDoc), "* x" (Org files only), and a line underlined with a row of one punctuation character at least as
    long (reStructuredText / setext), optionally overlined with the same row (then the offset is the overline's).
    Names are `plain_heading`; headings with no words are skipped."""
    org = PurePosixPath(path).suffix.lower() == ".org"
    out: list[tuple[int, str]] = []
    before: tuple[int, str] | None = None  # the line before `prev`
    prev: tuple[int, str] | None = None
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(text)
        body = text[start:end].rstrip("\r\n")
        m = _MD_HEADING.match(body) or _ADOC_HEADING.match(body) or (org and _ORG_HEADING.match(body))
        if m:
            name = plain_heading(m.group(2))
            if name:
                out.append((start, name))
        elif prev is not None and _UNDERLINE.fullmatch(body) and prev[1].strip() \
                and not _UNDERLINE.fullmatch(prev[1]) and len(body.rstrip()) >= len(prev[1].rstrip()):
            over = before is not None and before[1].rstrip() == body.rstrip()
            name = plain_heading(prev[1].strip())
            if name:
                out.append((before[0] if over and before else prev[0], name))
        before, prev = prev, (start, body)
    return out
