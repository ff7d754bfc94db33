"""Markup that is not prose, removed from a chunk text before it is read as passages (`answer/passages.py`): HTML
comments, mkdocstrings `::: module.path` lines, include directives, Hugo shortcode lines, link reference definitions,
heading ids, reST roles, admonitions (reST, mkdocs and MyST) read as the prose they hold; reST tables, field lists,
directive options and literal blocks as `answer/rest.py` rewrites them. Line numbers never move: what is removed
leaves empty lines.
"""

from __future__ import annotations

import re

from ragls.answer import rest, rest_literals, rest_tables
from ragls.answer.help_text import opening_help
from ragls.answer.inline import ATTRIBUTES, CODE_SPANS, SHORTCODE
from ragls.index.headings import REST_ROLE, strip_heading_ids
from ragls.index.rest_hidden import ANONYMOUS_TARGET, EXPLICIT, SHOWN
from ragls.index.rest_hidden import indent as block_indent

_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
# mkdocstrings `::: module.path`, include lines `{* file *}` / `{! file !}` and mdBook's `{{#include file}}`,
# `{{#rustdoc_include file:anchor}}`, `{{#playground file}}`: where text comes from, not text; and MyST's target
# line `(label)=` above a heading: where a cross-reference points, not text; and Hugo's shortcode lines
# (`{{% note %}}` ... `{{% /note %}}`, `{{< tab tabID="pipx" >}}`, `{{< steps >}}`): the frame of the prose they hold
# (a note, a tab, a step), not text. A `{% tag %}` line is a template tag (Jinja, Django, Liquid): in the docs of a
# template language it is the example's text, never removed; nor is Hugo's own escaped example `{{</* x */>}}`.
_PREPROCESSED = r"\{\*.*\*\}|\{!.*!\}|\{\{#[\w-]+[^{}]*\}\}|(?:" + SHORTCODE + r"[ \t]*)+"
# A line holding only an attribute list (`inline.ATTRIBUTES`: MyST's block attributes "{.glossary}" above a definition
# list, mkdocs-material's "{ .annotate }" under a code block or list, "{#my-id}"): settings of the block next to it.
# A GitHub alert's marker line ("> [!TIP]", "> [!WARNING]" atop a blockquote): GitHub shows it as the alert's icon
# and title, never as words; the answer quoted "[!TIP] This preset will become the default ..." (Starship's docs).
_ALERT = r"(?:>[ \t]*)+\[!(?i:note|tip|important|warning|caution)\]"
_DIRECTIVE_LINE = re.compile(r"^[ \t]*(?::::+[ \t]*[\w.]+.*|\([\w.:-]+\)=|" + ATTRIBUTES + "|" + _PREPROCESSED
                             + "|" + _ALERT + r")[ \t]*$", re.MULTILINE)
# mkdocstrings' `::: module.path` line with the YAML settings indented under it ("    options:" / "        heading_level:
# 5"): the generated reference's settings, not text. Emptied line for line before `_DIRECTIVE_LINE` empties the
# identifier line alone (their options read as an indented code block, quoted under the section's title).
_MKDOCSTRINGS = re.compile(r"^([ \t]*):::[ \t]*[\w.]+[ \t]*\n\1[ \t]+(?:options|handler|selection|rendering):"
                           r"[^\n]*(?:\n(?:\1[ \t]+\S[^\n]*)?(?=\n|$))*", re.MULTILINE)
# The include and shortcode lines among them, which their tool replaces inside a code fence too (mdBook's
# "```console" / "{{#include ../listings/output.txt}}"): never an example shown as written (`fenced_lines`).
_PREPROCESSOR_LINE = re.compile(r"^[ \t]*(?:" + _PREPROCESSED + r")[ \t]*$")
# A footnote definition's label (`[^stdlib]: And it's in fact supported ...`, MyST and GFM footnotes): the text after
# it is prose, read as a paragraph (not removed as a link reference definition).
_FOOTNOTE_LABEL = re.compile(r"^( {0,3})\[\^[^\]\s]+\]:[ \t]*", re.MULTILINE)
# A link reference definition (`[license-url]: https://...`, CommonMark 4.7): a target, not prose.
_LINK_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:[ \t]*\S+.*$", re.MULTILINE)
# A MyST role, `{func}`password_option``, `{ref}`Title <label>``, `{py:class}`Path``: the same roles as reST's
# `:func:`...`` (Sphinx renders them alike), written for Markdown. Not after "$" (a JavaScript template literal)
# nor inside a code span ("`{x}`" in the Rust book).
_MYST_ROLE = re.compile(r"(?<![$\w`])\{([a-z][\w+-]*(?::[a-z][\w+-]*)*)\}`([^`\n]+)`")


def clean_markup(text: str, markdown: bool = True) -> str:
    """`text` without markup that is not prose: HTML comments (not in code, `_html_comments`), `::: module.path` and `{* include *}` lines, GitHub alert markers (`> [!NOTE]`), MyST
    target lines `(label)=`, attribute list lines (`{.glossary}`, `{ .annotate }`), Hugo shortcode lines (`{{% note %}}`, `{{< /tab >}}`) and link reference definitions `[label]: url` (kept as empty lines, so line numbers do not
    move), footnote labels (`[^1]: text` reads as its text), heading ids `{ #anchor }`, reST and MyST roles reduced
    to their text (`rest.rest_role`: `{func}`x`` and `:func:`x`` read as `` `x` ``), admonitions
    (`rest.admonitions`) read as the prose they hold, and MyST directive fences as prose, code or nothing
    (`_myst_admonitions`), pymdownx.blocks fences and (Markdown) MyST comment lines `% text` emptied
    (`_pymdown_blocks`); reST tables, field lists, directive options and literal blocks as `answer/rest.py`
    rewrites them. In Markdown, the lines inside code fences (`fenced_lines`) are examples as written: none of
    these rules reads them (a MyST page showing "{math}`x`" or "(label)=" in a ```` ```md ```` fence). Unless `markdown` (reST and plain text, `blocks.is_markdown`): definition lists read as
    "term: definition" (`rest.definitions`), a chunk opening inside an indented body reads it as prose when it is
    (`rest.opening_body`) — as table rows when it is a list table's (`rest_tables.opening_list_table`) — and
    explicit markup that is never rendered in place (comments, link targets, substitution definitions) is emptied
    (`_rest_hidden`)."""
    text = _html_comments(text, markdown)
    if markdown:
        text, held = rest_literals.hold_literals(text, fenced_lines(text))
    else:
        lines = text.split("\n")
        helped = opening_help(lines)  # a chunk opening inside a program's help output: literal, as it is
        opened = text if helped or rest_tables.opening_list_table(lines) else rest.opening_body(text)
        literal = rest_literals.literal_lines(text)
        literal[:helped] = [bool(x.strip()) for x in lines[:helped]]
        text, held = rest_literals.hold_literals(_rest_hidden(opened), literal)
        text = rest_literals.note_refs(text)
    if markdown and ":::" in text:
        text = _MKDOCSTRINGS.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    text = _pymdown_blocks(_DIRECTIVE_LINE.sub("", text), markdown)
    text = _LINK_DEFINITION.sub("", _FOOTNOTE_LABEL.sub(r"\1", text))
    # Tables first: their columns are where the source's borders put them, and a role reads shorter than it is
    # written (":func:`a.run`" -> "`a.run`"), which would shift every cell after it.
    text = rest_tables.tables(text)
    text = _MYST_ROLE.sub(_myst_role, _ROLE.sub(_role, text) if markdown else _unmask(_ROLE.sub(_role, _mask(text))))
    text = rest.directive_options(text)
    text = rest.admonitions(_myst_admonitions(strip_heading_ids(text)), markdown)
    text = rest.fields(text) if markdown else rest.definitions(rest.fields(text))
    return rest_literals.restore_literals(rest_literals.literal_blocks(text, markdown), held)


def _html_comments(text: str, markdown: bool) -> str:
    """`text` without its HTML comments (`_HTML_COMMENT`; line breaks kept), but those in a code example (a fenced
    code block, `fenced_lines`; a reST literal block, `rest_literals.literal_lines`): there they are what the reader
    must type — Ruff's "<!-- fmt:off -->" around a Markdown code block, an HTML template's comment — and the answer
    quoted Ruff's example without them; so are those in a code span ("`<!-- blacken-docs:off -->`" read "``"). Which lines are code is read with every comment masked (a comment holding a
    fence line opens no code block)."""
    if "<!--" not in text:
        return text
    masked = _SPAN_OR_COMMENT.sub(lambda m: m.group(1) or re.sub(r"[^\n]+", "\x01", m.group(0)), text)
    code = fenced_lines(masked) if markdown else rest_literals.literal_lines(masked)

    def drop(m: re.Match[str]) -> str:
        if m.group(1) or code[text.count("\n", 0, m.start())]:
            return m.group(0)
        return "\n" * m.group(0).count("\n")

    return _SPAN_OR_COMMENT.sub(drop, text)


# A code span (group 1) or an HTML comment, whichever starts first: a comment written in a code span
# ("`<!-- blacken-docs:off -->`") is the code's text.
_SPAN_OR_COMMENT = re.compile(f"{CODE_SPANS.pattern}|{_HTML_COMMENT.pattern}", re.DOTALL)


# reST explicit markup (".. " and what follows, with the lines indented under it; docutils "Explicit Markup
# Blocks") that a reader never sees where it stands: a hyperlink target (".. _label:", ".. _`Eventlet`: http://...",
# ".. __: url", "__ url"), a substitution definition (".. |logo| image:: logo.png" with its options) and a comment (any other
# text, or a bare ".." with indented lines right below it). A directive (".. note::", ".. code-block::", spaced
# ".. note ::" too) and a footnote or citation (".. [1] text") are read as before. The chunker drops a reST chunk of
# nothing else with the same patterns (index/rest_hidden.py: EXPLICIT, SHOWN, ANONYMOUS_TARGET).



def _rest_hidden(text: str) -> str:
    """reST text with its hidden explicit markup (`EXPLICIT` not `SHOWN`: comments, link targets, substitution
    definitions, "__ url" anonymous targets; and the directives whose body no reader sees as text, `_REST_HIDDEN`: Sphinx's doctest fixtures,
    diagrams, tables of contents, raw output — Tornado's `.. testsetup::` read "from tornado.web import * import
    asyncio", pipx's `.. mermaid::` flowcharts were quoted as code) emptied with the lines indented under it, line
    for line: an author's note (".. This file is
    processed with cog ...", "..\n    You should *NOT* be adding ... WARNING: Don't drop the next directive!") is no
    answer, and a target written right under a paragraph or a directive's body (no blank line between) is no part
    of its last sentence ("... without a deprecation notice. .. _log_release_notes."). A bare ".." above a blank line
    is an empty comment and hides nothing more. Lines in a literal block (`rest_literals.literal_lines`: a page showing reST
    source) are left alone."""
    if ".." not in text and "__" not in text:
        return text
    lines = text.split("\n")
    literal = rest_literals.literal_lines(text)
    i = 0
    while i < len(lines):
        line = lines[i]
        if not literal[i] and ANONYMOUS_TARGET.match(line):  # "__ url": ".. __: url" written short
            lines[i] = ""
            i += 1
            continue
        m = None if not line.strip() or literal[i] else EXPLICIT.match(line)
        if m is None or (m.group(2) and SHOWN.match(m.group(2)) and not _REST_HIDDEN.match(m.group(2))):
            i += 1
            continue
        outer = len(m.group(1).expandtabs())
        j = i + 1
        if m.group(2) or (j < len(lines) and lines[j].strip()):
            while j < len(lines) and (not lines[j].strip() or block_indent(lines[j]) > outer):
                j += 1
            while j > i + 1 and not lines[j - 1].strip():
                j -= 1
        for k in range(i, j):
            lines[k] = ""
        i = j
    return "\n".join(lines)


# A reST inline literal on one line (docutils: "``" ends it where no third "`" follows, so "``:rolename:`content```"
# holds ":rolename:`content`" and "````literal````" holds "``literal``"), and the characters a role is written with,
# masked inside one (`_mask`) by characters no rule reads, one for one, so no line moves.
_INLINE_LITERAL = re.compile(r"``\S(?:[^\n]*?\S)??``(?!`)")
_MASKED = str.maketrans("`:", "\x01\x02")
_UNMASKED = str.maketrans("\x01\x02", "`:")


def _mask(text: str) -> str:
    """reST `text` with the backticks and colons inside its inline literals masked (`_MASKED`): a role written in
    one is its example, not a role ("The general syntax is ``:rolename:`content```" read "```content```")."""
    if "``" not in text:
        return text
    return _INLINE_LITERAL.sub(lambda m: m.group(0)[:2] + m.group(0)[2:-2].translate(_MASKED) + "``", text)


def _unmask(text: str) -> str:
    """`text` with what `_mask` masked back as written."""
    return text.translate(_UNMASKED) if "\x01" in text or "\x02" in text else text


# A reST role and the punctuation and spaces after it on its line (`_role`; not the ":" of a role right after it).
_ROLE = re.compile(REST_ROLE.pattern + r"((?:[.,;!?)\]'\"]|:(?!\w))*[ \t]*)")


def _role(m: re.Match[str]) -> str:
    """A reST role (`_ROLE`) as `rest.rest_role` reads it, over as many lines as it was written on: a role wrapped
    over two lines (":ref:`disable_warnings" / "<config_run_disable_warnings>` configuration setting.") read on one
    line moved every later line of the chunk up one, and a citation pointed a line above its sentence. The text
    after the role starts its last line, at that line's indentation, and the role's words fill the lines before
    it; when nothing follows it there, the role's words end on its last line (`_spread`; all of them on its first
    line when it starts a line of a paragraph and has fewer words than lines). A title wrapped inside the role
    (":ref:`long` / `title <label>`") keeps its own line break, as `rest.rest_role` reads it."""
    written, after = m.group(0), m.group(2)
    text = rest.rest_role(m)
    if written.count("\n") <= text.count("\n"):  # on one line, or a title wrapped inside the role
        return text + after
    words = (" ".join(text.split()) + after.strip(" \t")).split()  # "... <label>`." keeps its "." beside it
    n = written.count("\n")
    last = written.rsplit("\n", 1)[1]
    indent = last[:len(last) - len(last.lstrip())]
    end = m.string.find("\n", m.end())
    before = m.string[m.string.rfind("\n", 0, m.start()) + 1:m.start()]
    texted = len(before) > rest.content_indent(before + "x")  # text before it on its first line, not only a marker
    if m.string[m.end():end if end >= 0 else len(m.string)].strip():  # text follows: the words before its line
        return _spread(words, n, indent, texted) + "\n" + indent
    if texted:  # the words below the first line
        return "\n" + _spread(words, n, indent, True, lead=indent)
    return _spread(words, n + 1, indent, False)


def _spread(words: list[str], k: int, indent: str, empty_first: bool, lead: str = "") -> str:
    """`words` on `k` lines (joined by newlines, each line after the first at `indent`, the first at `lead`): the
    first line takes all but one word for each other line; with fewer words than lines the lines left empty come
    first when `empty_first` (the role's first line holds the start of its sentence), else last (a line with no
    more than a list marker is no list item: "-   " over "    `HttpCompressionMiddleware`" read as a term), and hold
    `_NOTHING`: a blank line would end the paragraph there."""
    if len(words) >= k:
        rows = [" ".join(words[:len(words) - k + 1]), *words[len(words) - k + 1:]]
    else:
        rows = [_NOTHING] * (k - len(words)) + words if empty_first else words + [_NOTHING] * (k - len(words))
    return lead + rows[0] + "".join(f"\n{indent}{w}" for w in rows[1:])


_NOTHING = "\\ "  # reST's escaped space: a line that reads as nothing (`inline.link_text`) and ends no paragraph


# A pymdownx.blocks fence (`/// note | Title`, `/// details | Summary`, `/// tab | Python`, and the closing `///`):
# its body is Markdown between the fences, not indented. The fence lines and the block's indented YAML options
# (`    type: warning`) are no prose. Outside code fences only: `///` is also a Rust doc comment.
_BLOCK_OPEN = re.compile(r"^[ \t]*/{3,}[ \t]+[\w-]+(?:[ \t]*\|.*)?[ \t]*$")
_BLOCK_CLOSE = re.compile(r"^[ \t]*/{3,}[ \t]*$")
_BLOCK_OPTION = re.compile(r"^[ \t]+[\w-]+:(?:[ \t].*)?$")
# A MyST comment line (`% TODO ...`, myst-parser "Comments"): the author's note, not rendered; a page commented out
# line by line reads as nothing (not "% :::{myst-example} % ```{mermaid} % flowchart LR"). Markdown only: in reST and
# plain text a "%" line is text.
_MYST_COMMENT = re.compile(r"^ {0,3}%")


def _pymdown_blocks(text: str, markdown: bool = True) -> str:
    """pymdownx.blocks fences emptied, line for line: an opening `/// name` (`_BLOCK_OPEN`) with its indented option
    lines, and a bare `///` that closes an open block. The body reads as the paragraphs and code blocks it holds
    ("/// note" no longer opens a quoted sentence). When `markdown`, MyST comment lines (`_MYST_COMMENT`) are
    emptied too. Lines inside code fences are left alone."""
    lines = text.split("\n")
    fence, depth, i = "", 0, 0
    while i < len(lines):
        code = rest.FENCE.match(lines[i])
        if code and (not fence or code.group(1).startswith(fence)):
            fence = "" if fence else code.group(1)[:3]
        elif not fence and markdown and _MYST_COMMENT.match(lines[i]):
            lines[i] = ""
        elif not fence and _BLOCK_OPEN.match(lines[i]):
            lines[i] = ""
            depth += 1
            while i + 1 < len(lines) and _BLOCK_OPTION.match(lines[i + 1]):
                i += 1
                lines[i] = ""
        elif not fence and depth and _BLOCK_CLOSE.match(lines[i]):
            lines[i] = ""
            depth -= 1
        i += 1
    return "\n".join(lines)


def _myst_role(m: re.Match[str]) -> str:
    """A MyST role (`_MYST_ROLE`) as `rest.rest_role` renders the same reST role: code roles as code, `{ref}` and
    `{doc}` as their text."""
    same = REST_ROLE.fullmatch(f":{m.group(1).split(':')[-1]}:`{m.group(2)}`")
    return rest.rest_role(same) if same else m.group(0)


def fenced_lines(text: str) -> list[bool]:
    """Per line of Markdown `text`, whether it is a line of code inside a fence, shown as written: the body of a
    code fence (```` ```python ````, ``~~~``, a longer ```` ```` ```` fence holding shorter ones) and of a MyST code
    directive (```` ```{code-block} md ````, `_CODE_DIRECTIVES`, past its `:option:` lines; not `{eval-rst}`, whose
    body is rendered reST, nor `{literalinclude}`, whose body is options). A fence closes at a bare fence of its
    character at least as long (CommonMark). Another backtick directive (```` ```{note} ````) holds Markdown: its body
    is read line by line, and the fence that closes it is no opening. Fence lines and blank lines are never held,
    nor an include or shortcode line (`_PREPROCESSOR_LINE`: its tool replaces it inside a fence too)."""
    lines = text.split("\n")
    out = [False] * len(lines)
    directives: list[str] = []  # the fences of the open non-code directives, innermost last
    code, options = "", False  # the open code fence; whether a code directive's option lines may still follow
    for i, line in enumerate(lines):
        m = rest.FENCE.match(line)
        if code:
            if m and rest.closes_fence(line, code):
                code = ""
            elif not (options and rest.MYST_OPTION.match(line)):
                out[i], options = bool(line.strip()) and not _PREPROCESSOR_LINE.match(line), False
            continue
        if not m:
            continue
        if directives and rest.closes_fence(line, directives[-1]):
            directives.pop()
            continue
        info = line.strip(" \t")[len(m.group(1)):].strip()
        name = re.match(r"\{([\w:-]+)\}", info)
        if name and (name.group(1).split(":")[-1] not in _CODE_DIRECTIVES
                     or name.group(1) in ("eval-rst", "literalinclude")):
            directives.append(m.group(1))
        else:
            code, options = m.group(1), bool(name)
    return out


_ADMONITION_NAMES = ("note|warning|tip|hint|important|caution|attention|danger|error|seealso|admonition|"
                     "versionadded|versionchanged|deprecated")
_UNTITLED = ("admonition", "versionadded", "versionchanged", "deprecated")  # the text on the opening line is no body
# A MyST directive fence: ```{name} (or ~~~{name}, :::{name}) with its argument, its body, then a closing fence as long
# or longer (MyST's syntax, myst-parser "Directives").
_MYST_OPEN = re.compile(r"^([ \t]*)(`{3,}|~{3,}|:{3,})\{([\w:-]+)\}[ \t]*(.*)$")
# Directives whose body is code: shown as a code block, fenced with the language they name (a doctest is a session).
_CODE_DIRECTIVES = {"code-block": "", "code": "", "sourcecode": "", "code-cell": "", "literalinclude": "",
                    "doctest": "pycon", "testcode": "python", "testoutput": "", "ipython": "pycon", "eval-rst": "rst"}
# Directives whose body is not text a reader sees as prose: Sphinx's hidden test fixtures, tables of contents,
# includes, images, diagrams, raw output, index entries. Their lines are emptied.
_HIDDEN_DIRECTIVES = ("testsetup", "testcleanup", "toctree", "include", "image", "mermaid", "graphviz", "raw",
                      "contents", "plantuml", "only", "ifconfig", "index")
# The same in reST (`_rest_hidden`), but for `.. only::` and `.. ifconfig::`, whose bodies are the page's text in
# the builds they name (beets' `.. only:: html`), and `.. include::`, whose file's text the index reads in its place.
_REST_HIDDEN = re.compile("(?:{})[ ]?::".format("|".join(x for x in _HIDDEN_DIRECTIVES
                                                         if x not in ("only", "ifconfig", "include"))))
_BARE_COLON_FENCE = re.compile(r"^[ \t]*:{3,}[ \t]*$")  # a colon fence's closing line (MyST: never code)


def _myst_admonitions(text: str) -> str:
    """MyST directive fences (```` ```{note} ```` ... ```` ``` ````, `:::{tip}` ... `:::`), line for line (fence
    lines and the directive's `:option:` lines become empty lines, so line numbers never move):
    - an admonition or any colon fence (MyST writes directives whose body is Markdown with ":::") is the prose it
      holds, read as paragraphs, not as a code block (as reST's ".. note::" bodies are,
      `rest.admonitions`). The text on the opening line stays for a note-like directive (MyST reads it as the
      body's first line); the title of `{admonition}` and the version of `{versionadded}` are dropped. Code fences
      inside the body stay code; a body the chunk cuts (no closing fence in it) runs to the chunk's end, and a
      closing ":::" whose opening is in the chunk before is emptied;
    - a code directive (`{code-block} python`, `{doctest}`, `_CODE_DIRECTIVES`) is a code block fenced with its
      language ("```python"), not "```{code-block}"; so is `{eval-rst}` ("```rst"): read as reST prose, Click's
      `.. click:example::` and `.. click:run::` became two code blocks, and the sentence before the example lost
      the run's words ("--help", "-vvv"; two Keys on Click); the fence moves down past its options (and the blank line
      after them) so the block opens with its code; a `{literalinclude}` (a path and options, no code) is an
      empty code block at its lines, which answer/includes.py fills with the file's code;
    - a directive whose body is not prose (`{testsetup}`, `{toctree}`, `{image}`, `_HIDDEN_DIRECTIVES`) is emptied;
      a `{figure}`'s caption is prose;
    - any other backtick directive is left as it is (a code block)."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = _MYST_OPEN.match(lines[i])
        if not m:
            if _BARE_COLON_FENCE.match(lines[i]):
                lines[i] = ""
            i += 1
            continue
        indent, fence, name, argument = m.groups()
        name = name.split(":")[-1]  # {py:function} -> function
        j = i + 1
        while j < len(lines) and not rest.closes_fence(lines[j], fence):
            j += 1
        k = i + 1
        options = []
        while k < j and rest.MYST_OPTION.match(lines[k]):
            options.append(k)
            k += 1
        if name == "literalinclude":  # its argument is a path, its body options: an empty code block at its line
            for x in range(i + 1, j if j < len(lines) else i + 1 + len(options)):  # (answer/includes.py shows
                lines[x] = ""  # the file's code in its place)
            lines[i] = indent + "```" if j < len(lines) else ""
            if j < len(lines):
                lines[j] = indent + "```"
            i = j + 1 if j < len(lines) else i + 1
            continue
        if name in _CODE_DIRECTIVES:
            if fence[0] == ":":  # a colon fence cannot hold code for the block reader: leave it
                i += 1
                continue
            language = argument.split()[0] if argument.strip() else _CODE_DIRECTIVES[name]
            at = k if k < j and not lines[k].strip() else k - 1  # past the options and the blank line after them
            for x in range(i, at):
                lines[x] = ""
            lines[at] = f"{indent}{fence}{language}"
            i = j + 1
            continue
        if name in _HIDDEN_DIRECTIVES:
            for x in range(i, min(j + 1, len(lines))):
                lines[x] = ""
            i = j + 1
            continue
        prose = re.fullmatch(_ADMONITION_NAMES, name) or name == "figure" or fence[0] == ":"
        if not prose or (j == len(lines) and fence[0] == "`" and name not in _ADMONITION_NAMES.split("|")):
            i += 1  # an unknown directive in backticks: a code block, as it reads
            continue
        keep = argument if re.fullmatch(_ADMONITION_NAMES, name) and name not in _UNTITLED else ""
        lines[i] = indent + keep if keep else ""
        for x in options:
            lines[x] = ""
        if j < len(lines):
            lines[j] = ""
        i += 1  # the body is read again: a directive nested in it (a code block in a note) is read in turn
    return "\n".join(lines)
