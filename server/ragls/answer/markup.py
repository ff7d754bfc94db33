"""Markup that is not prose, removed from a chunk text before it is read as passages (`answer/passages.py`): HTML
comments, mkdocstrings `::: module.path` lines, include directives, link reference definitions, heading ids, reST
roles, admonitions (reST, mkdocs and MyST) read as the prose they hold; reST tables, field lists, directive options
and literal blocks as `answer/rest.py` rewrites them. Line numbers never move: what is removed leaves empty lines.
"""

from __future__ import annotations

import re

from ragls.answer import rest
from ragls.index.chunking import strip_heading_ids
from ragls.index.headings import REST_ROLE

_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
# mkdocstrings `::: module.path`, include lines `{* file *}` / `{! file !}` and mdBook's `{{#include file}}`,
# `{{#rustdoc_include file:anchor}}`, `{{#playground file}}`: where text comes from, not text.
_DIRECTIVE_LINE = re.compile(r"^[ \t]*(?::::+[ \t]*[\w.]+.*|\{[*!%].*[*!%]\}|\{\{#[\w-]+[^{}]*\}\})[ \t]*$",
                             re.MULTILINE)
# A link reference definition (`[license-url]: https://...`, CommonMark 4.7): a target, not prose.
_LINK_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:[ \t]*\S+.*$", re.MULTILINE)
# A MyST role, `{func}`password_option``, `{ref}`Title <label>``, `{py:class}`Path``: the same roles as reST's
# `:func:`...`` (Sphinx renders them alike), written for Markdown. Not after "$" (a JavaScript template literal)
# nor inside a code span ("`{x}`" in the Rust book).
_MYST_ROLE = re.compile(r"(?<![$\w`])\{([a-z][\w+-]*(?::[a-z][\w+-]*)*)\}`([^`\n]+)`")


def clean_markup(text: str) -> str:
    """`text` without markup that is not prose: HTML comments, `::: module.path` and `{* include *}` lines and link
    reference definitions `[label]: url` (kept as empty lines, so line numbers do not move), heading ids
    `{ #anchor }`, reST and MyST roles reduced to their text (`rest.rest_role`: `{func}`x`` and `:func:`x`` read as
    `` `x` ``), and admonitions (`rest.admonitions`) read as the
    prose they hold; reST tables, field lists, directive options and literal blocks as `answer/rest.py` rewrites
    them."""
    text = _HTML_COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    text = _DIRECTIVE_LINE.sub("", text)
    text = _LINK_DEFINITION.sub("", text)
    text = _MYST_ROLE.sub(_myst_role, REST_ROLE.sub(rest.rest_role, text))
    text = rest.directive_options(rest.tables(text))
    text = rest.admonitions(_myst_admonitions(strip_heading_ids(text)))
    return rest.literal_blocks(rest.fields(text))


def _myst_role(m: re.Match[str]) -> str:
    """A MyST role (`_MYST_ROLE`) as `rest.rest_role` renders the same reST role: code roles as code, `{ref}` and
    `{doc}` as their text."""
    same = REST_ROLE.fullmatch(f":{m.group(1).split(':')[-1]}:`{m.group(2)}`")
    return rest.rest_role(same) if same else m.group(0)


_ADMONITION_NAMES = ("note|warning|tip|hint|important|caution|attention|danger|error|seealso|admonition|"
                     "versionadded|versionchanged|deprecated")
# A MyST admonition fence: ```{note} (or ~~~{tip}, :::{warning}), its body, then a closing fence as long or longer.
_MYST_OPEN = re.compile(r"^([ \t]*)(`{3,}|~{3,}|:{3,})\{(" + _ADMONITION_NAMES + r")\}[ \t]*(.*)$")
_MYST_OPTION = re.compile(r"^[ \t]*:[\w-]+:")


def _myst_admonitions(text: str) -> str:
    """MyST admonition fences (```` ```{note} ```` ... ```` ``` ````, `:::{tip}` ... `:::`) as the prose they
    hold, line for line: the fence lines and the directive's `:option:` lines become empty lines and the body stays,
    so it is read as paragraphs, not as a code block (as reST's ".. note::" bodies are, `rest.admonitions`). The text
    on the opening line stays for a note-like directive (MyST reads it as the body's first line); the title of
    `{admonition}` and the version of `{versionadded}` are dropped. Code fences inside the body stay code."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = _MYST_OPEN.match(lines[i])
        if not m:
            i += 1
            continue
        fence = m.group(2)
        close = re.compile("^[ \t]*" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}[ \t]*$")
        j = i + 1
        while j < len(lines) and not close.match(lines[j]):
            j += 1
        if j == len(lines):  # never closed: leave it as it is
            i += 1
            continue
        keep = m.group(4) if m.group(3) not in ("admonition", "versionadded", "versionchanged", "deprecated") else ""
        lines[i] = m.group(1) + keep if keep else ""
        k = i + 1
        while k < j and _MYST_OPTION.match(lines[k]):
            lines[k] = ""
            k += 1
        lines[j] = ""
        i = j + 1
    return "\n".join(lines)
