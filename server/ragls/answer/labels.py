"""Identifier headings: a section headed by a flag, a parameter, a function or a constant ("#### `--check`",
"### NO_PROXY", reST's ``timeout``) documents it in prose that often never repeats its name, so the passages right
under it (answer/passages.py) are read led by that name (`heading_label`, `labelled`)."""

from __future__ import annotations

import re

# reST inline literal ``x``, read as Markdown code `x`
REST_LITERAL = re.compile(r"(?<!`)``([^`\n]+?)``(?!`)")

# A heading that names an identifier: only code spans and separators ("`-h`, `--help`", "`--color` / `--no-color`"),
# or one bare token that reads as code: a flag ("--check"), `name=`, `func()`, a dotted, snake_case or camelCase
# name ("## clearScreen": a configuration option; a word has no capital inside it).
_HEADING_MARK = re.compile(r"^[ \t]*#{1,6}[ \t]+|[ \t]+#+[ \t]*$")
CODE_SPAN = re.compile(r"`[^`\n]+`")
_SPAN_SEPARATORS = re.compile(r"^(?:[\s,/|]|\band\b|\bor\b)*$")
_CODE_TOKEN = re.compile(r"^(?:--?[\w][\w-]*(?:[= ]\S*)?|[A-Za-z_][\w.]*(?:\(\)|=|\.[A-Za-z_]\w*)|[a-z]+_[\w]+"
                         r"|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[a-z][a-z0-9]*(?:[A-Z][a-z0-9]+)+)$")
_TOKEN_LIST = re.compile(r"\s*(?:,|/|\bor\b|\band\b)\s*")  # "HTTP_PROXY, HTTPS_PROXY, ALL_PROXY"


#: A heading line longer than this names no identifier (a list of them is tens of characters); not read, as the
#: patterns below take time quadratic in a run of spaces (a folder's 20,000-character heading: 19 s under load).
MAX_LABEL_LINE = 1000


def heading_label(line: str) -> str:
    """The identifier a Markdown heading line ("#### `--check`", "## timeout=", "### NO_PROXY") or reST section
    title names, as Markdown code ("`--check`", "`timeout=`", "`NO_PROXY`"), or "" for a heading in words
    ("## Usage"). A list of such names ("### HTTP_PROXY, HTTPS_PROXY, ALL_PROXY": environment variables and
    constants, upper case with "_") is labelled with all of them. A section headed by a
    flag, a parameter or a function documents it in prose that often never repeats its name ("Don't write the
    files back, just return the status."): the passages right under it are labelled with it (`labelled`)."""
    if len(line) > MAX_LABEL_LINE:
        return ""
    text = REST_LITERAL.sub(r"`\1`", _HEADING_MARK.sub("", line).strip())
    if not text:
        return ""
    if "`" in text:
        return text if CODE_SPAN.search(text) and _SPAN_SEPARATORS.match(CODE_SPAN.sub("", text)) else ""
    tokens = [x for x in _TOKEN_LIST.split(text) if x]
    if tokens and all(_CODE_TOKEN.match(x) for x in tokens):
        return ", ".join(f"`{x}`" for x in tokens)
    return ""


# A heading that is one bare lower-case name: "languages" (beets' configuration reference, a reST title), "## allow-features"
# (Cargo), "log-big" (uWSGI's 1,047 options), "### base" (Vite): a reference page titles an option, a command or a
# file by its own name, and a section title in words is capitalised ("## Usage"). `bare_heading_label`
_BARE_NAME = re.compile(r"^[a-z][a-z0-9]*(?:[-.][a-z0-9]+)*$")


def bare_heading_label(line: str) -> str:
    """The bare lower-case name (`_BARE_NAME`) a Markdown heading line or reST section title is, as Markdown code
    ("languages" -> "`languages`", "## allow-features" -> "`allow-features`"), or "". Not `heading_label`'s
    identifiers: an English word is a name here only by the heading's form, so answer/passages.py shows it before
    the passages under it (`Unit.lead`) but does not score it — scored, the names' words ranked the fields of a
    reference page above the sentence answering (bench/history/session-56.md)."""
    if len(line) > MAX_LABEL_LINE:
        return ""
    text = _HEADING_MARK.sub("", line).strip()
    return f"`{text}`" if _BARE_NAME.match(text) else ""


def labelled(sentence: str, label: str, any_case: bool = False) -> str:
    """`sentence` led by the identifier `label` of its section's heading ("`--check`: Don't write the files
    back ..."), as Sphinx shows an object's name above its text; as it is without a label or when it names the
    identifier itself — in any letter case with `any_case` (a bare name, `bare_heading_label`: "nginx" is named by
    "Installing and running Nginx ...")."""
    if not label:
        return sentence
    names = [m.group(0).strip("`") for m in CODE_SPAN.finditer(label)]
    if any(x in sentence or (any_case and x.lower() in sentence.lower()) for x in names):
        return sentence
    return f"{label}: {sentence}"


# A list item opening with a name in bold or code, then "is", "-", ":" or "(" ("- **stream_close_delay** is a
# duration value ...", "* ``die-on-term``: ..."; an inline tag between, "**x** <span id="x"/> is"): a definition of that
# name (`item_label`)
_ITEM_TERM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?:\*\*([^*\n]+)\*\*|``?([^`\n]+)``?)(?:\s*<[^<>\n]*>)*\s*"
                        r"(?:[-:(–—]|is\b|are\b)")


def item_label(line: str) -> str:
    """The identifier a list item's first `line` opens with, defining it — "- **stream_close_delay** is ...",
    "- `--reload`: ..." — as Markdown code ("`stream_close_delay`"), or "" (a word in bold, "**Note**", is no
    identifier: it must read as code, `_CODE_TOKEN`, or be written as code). The later sentences of an item quoted
    sentence by sentence are led by it (answer/passages.py), as a heading's identifier leads its section's
    passages: "Enabling this may be a good idea ..." says nothing without the option it enables."""
    m = _ITEM_TERM.match(line)
    if not m:
        return ""
    name = (m.group(1) or m.group(2)).strip()
    return f"`{name}`" if m.group(2) or _CODE_TOKEN.match(name) else ""


# A paragraph's first sentence that opens with a name in code and a colon, "`drain_timeout`: Seconds to wait ...": how
# answer/rest.py writes the first line of an object description's body (".. confval::", ".. option:: -e, --separate",
# ".. rst:directive:: .. testsetup:: [group]") and a definition's term (`paragraph_label`)
_DEFINED = re.compile(r"^(`[^`\n]+`):\s")


def paragraph_label(sentence: str) -> str:
    """The name in code a paragraph's first `sentence` opens with, defining it ("`drain_timeout`: Seconds to wait
    ..." -> "`drain_timeout`"), or "". The paragraph's later sentences are led by it (answer/passages.py), as a long
    list item's are by `item_label`: Sphinx shows an object's name above its whole description, and "This code is
    not shown in the output for other builders, ..." says nothing without the directive it describes."""
    m = _DEFINED.match(sentence)
    return m.group(1) if m else ""
