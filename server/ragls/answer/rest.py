"""reStructuredText (Sphinx) constructs rewritten, line for line, into what the passage reader (answer/passages.py)
reads as prose, lists, code and table rows — so an extractive answer quotes the identifier the source documents.

Each function maps a text to a text with the same number of lines (a passage's lines are what `focusRange` cites):
- `rest_role` (over `index.headings.REST_ROLE`): Sphinx roles as the text Sphinx renders (":meth:`~a.b`" -> "`b`", ":ref:`Title <x>`" ->
  "Title").
- `admonitions`: `.. note::` (and mkdocs "!!! note") bodies and Sphinx object descriptions (`.. attribute:: name`,
  `.. method:: f(x)`, `.. class:: C`, nested ones too) as dedented prose; an object's body opens with its name
  ("`drain_timeout`: Seconds to wait ..."); a tab or dropdown (`.. tab:: TOML`, `_CONTAINER`) keeps its directive line
  and has its body dedented, so the `.. code-block::` in a tab reads as code.
- `directive_options`: the `:option:` lines right under a directive (`:type: int`, `:noindex:`, `:linenos:`) are
  directive settings, not text: blanked.
- `fields`: Sphinx info field lists (`:param name: text`, `:raises X: text`, `:returns: text`) become
  list items led by what they document ("- `name`: text", "- Raises `X`: text", "- Returns: text"), one passage each,
  never glued to the sentence before; `:type name:`, `:rtype:` and the like are noise and blanked. Any other field
  list of two or more top-level fields (":Author: Jane", MyST's ":depth: text") reads one item a field ("- Author:
  Jane"), not one sentence.
- `opening_body`: a chunk that opens inside an indented body (an `.. attribute::`'s text, a list item's second
  line: its directive or item line is in the chunk before) reads that body as prose, dedented, when it reads as
  prose (`_reads_as_prose`), not as a code block.
- `definitions`: definition list items (a term line, its definition indented below; a `.. glossary::`) read
  "term: definition", the definition dedented.
Tables (grid, simple, list and CSV tables as pipe-table rows) are in answer/rest_tables.py; literal blocks (which
lines are code, held as written while these rules run, indented to read as code) and footnote references in
answer/rest_literals.py.
"""

from __future__ import annotations

import ast
import re

from ragls.index.headings import ADORNMENT, SUBSTITUTION, role_target, role_text

_TEXT_ROLES = ("ref", "doc", "term", "abbr", "command", "program", "dfn", "guilabel", "menuselection")

DIRECTIVE = re.compile(r"^([ \t]*)\.\. ([\w:-]+)::(.*)$")  # a directive line: indentation, name, argument
OPTION_LINE = re.compile(r"^[ \t]+:[\w-]+:(?:[ \t]|$)")


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


def directive_options(text: str) -> str:
    """`text` with the `:option:` lines right under each `.. directive::` line blanked (line for line), but an object
    description's `:default:` (Sphinx's `.. confval:: cache_dir` / `:default: ``".pytest_cache"``"), which Sphinx
    shows under the object's name: it reads "The default of `cache_dir` is ``".pytest_cache"``." (`_DEFAULT_LINE`;
    `admonitions` leads the description below it with the name, not this line)."""
    if ".. " not in text:
        return text
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if DIRECTIVE.match(line):
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


# A value's default stated on its own: "Default is ``300``.", "Defaults to None.", "**default**: `gh-pages`" (MkDocs'
# config reference emphasises it); answer/passages.py reads it with the sentence before it
DEFAULT_VALUE = re.compile(r"^[*_]{0,2}(?:The )?[Dd]efault(?: value)?[*_]{0,2}(?: is\b|s to\b|:)")
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
# ".. dropdown::", ".. card::", ".. grid::" / ".. grid-item::" / ".. grid-item-card::" (a page's opening laid out
# in columns: Dask's deploying.rst), docutils' ".. container::", Sphinx's ".. glossary::" (a definition list), docutils'
# ".. figure:: image.png" (its body is the caption and legend, prose under the image), Sphinx's ".. only:: html" (see
# `_ONLY`) and sphinx.ext.ifconfig's ".. ifconfig:: x". Its directive line stays (the
# reader skips it, as the label of a tab is no sentence); its body is dedented, so a ".. code-block::" in a tab reads
# as code and a figure's caption as a paragraph, not as a code block under the ":" sentence before the figure.
_CONTAINER = re.compile(r"^([ \t]*)\.\. (?:tab|tabs|group-tab|tab-set|tab-item|dropdown|card|grid|grid-item|"
                        r"grid-item-card|container|glossary|figure|only|ifconfig)::(.*)$")
# Sphinx's ".. only:: <expression of builder tags>": content of some builds. What the HTML docs show (".. only:: html",
# ".. only:: not man") is read as a container's; the rest (".. only:: latex", ".. only:: man") is emptied, line for
# line: Borg gives each usage page's options twice, as an HTML table and for LaTeX, and kitty's pages open with a
# section title in ".. only:: man", which read as a code block under the page's title.
_ONLY = re.compile(r"^[ \t]*\.\. only::[ \t]*(.*?)[ \t]*$")
_HTML_TAGS = frozenset({"html", "format_html", "builder_html", "dirhtml", "singlehtml", "builder_dirhtml",
                        "builder_singlehtml"})
# A content tab of mkdocs-material / pymdownx.tabbed (`=== "Python 3.9 and above"`, `===+`, `===!`), body indented
# 4 spaces: a label, not prose (the line becomes empty); its body is dedented like a container's.
_CONTENT_TAB = re.compile(r"^([ \t]*)===[+!]?[ \t]+\"[^\"]*\"[ \t]*()$")
# In Markdown, a reST-style directive is mistune's (its `RSTDirective` plugin): ".. name:: title" over an indented
# body of Markdown. Sanic's guide lays out every page in ".. column::" pairs (864 of them: prose beside its code) and
# wraps lines in ".. attrs::", ".. new::"; their bodies read as indented code blocks, so the guide's prose was never a
# sentence. Any such directive is a container in Markdown (`admonitions`) but these, whose body is not Markdown text.
_MARKDOWN_DIRECTIVE = re.compile(r"^([ \t]*)\.\. (?!(?:code|code-block|sourcecode|literalinclude|include|raw|math|"
                                 r"mermaid|graphviz|plantuml|uml|toctree|csv-table|list-table)::)[a-z][\w-]*::(.*)$")


def admonitions(text: str, markdown: bool = False) -> str:
    """Admonitions and object descriptions as plain paragraphs, line for line: the directive line keeps only its
    text (".. note:: When using X," -> "When using X,"; a bare "!!! note" line becomes empty) and its indented body
    is dedented, so its sentences are prose, not an indented code block. A version directive's own argument ("2.0")
    is dropped. An object description (`_OBJECT_DIRECTIVE`, ".. py:data:: TRAP_HTTP_EXCEPTIONS"; its other signatures
    on the lines below it, `_signature_end`, emptied) puts its object's name before the first line of its body ("`TRAP_HTTP_EXCEPTIONS`: If there is no handler ..."), as Sphinx shows
    it above the text: the sentence that documents an object names it (not a body that opens with a doctest,
    ">>> from PIL.ExifTags import Base", which stays code). A container (`_CONTAINER`: a tab, a
    dropdown) keeps its directive line and has its body dedented the same way, so a ":" sentence before a tab
    introduces the code block in it; a mkdocs-material content tab (`_CONTENT_TAB`, `=== "Python 3.10+"`) likewise,
    its label line emptied; in Markdown (`markdown`), any other directive but those of code (`_MARKDOWN_DIRECTIVE`,
    mistune's). Directives nested in a body are read too."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = (_ADMONITION.match(lines[i]) or _OBJECT_DIRECTIVE.match(lines[i]) or _CONTAINER.match(lines[i])
             or _CONTENT_TAB.match(lines[i]) or (markdown and _MARKDOWN_DIRECTIVE.match(lines[i])))
        if not m:
            i += 1
            continue
        outer = len(m.group(1).expandtabs())
        if (only := _ONLY.match(lines[i])) and not _in_html(only.group(1)):
            lines[i] = ""
            i += 1
            while i < len(lines) and (not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > outer):
                lines[i] = ""
                i += 1
            continue
        rest = m.group(2)
        name = rest if m.re is _OBJECT_DIRECTIVE else ""
        if name.endswith("\\") or name.count("(") > name.count(")"):  # a signature wrapped over lines: its name
            name = name.split("(", 1)[0].strip()
        if name:
            rest = ""
        if lines[i].lstrip().startswith((".. version", ".. deprecated")):
            rest = rest.split(" ", 1)[1] if " " in rest else ""
        if m.re is not _CONTAINER and m.re is not _MARKDOWN_DIRECTIVE:
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
        if name and first is not None and not lines[first].lstrip().startswith((":", ".. ", "```", ">>>")) \
                and len(lines[first]) - len(lines[first].lstrip()) == outer:
            for k in _later_paragraphs(lines, body, first, outer):
                lines[k] = f"{m.group(1)}`{name}`: {lines[k].lstrip()}"
            lines[first] = f"{m.group(1)}`{name}`: {lines[first].lstrip()}"
        i += 1
    return "\n".join(lines)


def _later_paragraphs(lines: list[str], body: list[int], first: int, outer: int) -> list[int]:
    """The first lines of the paragraphs of an object description's dedented `body` (line indexes into `lines`,
    the body's indentation `outer`) after the one opening on line `first`, up to BODY_PARAGRAPHS paragraphs in
    all, before anything but prose: a line indented deeper (a literal block, a nested directive's body), a
    directive, a field, a list item, a table, a doctest or a paragraph ending in "::" (it introduces a block). A
    "Default: x" line is no paragraph of its own here (answer/passages.py reads it with the one before). `admonitions`
    leads each with the object's name, as it leads the first: Sphinx shows the name above the whole body, and
    "If ``None``, ``send_file`` tells the browser to use conditional requests ..." (the second paragraph of
    Flask's ``SEND_FILE_MAX_AGE_DEFAULT``) says nothing without the setting it documents."""
    out: list[int] = []
    seen = 1
    previous = ""
    for k in body:
        if k <= first:
            previous = lines[k] if lines[k].strip() else previous
            continue
        line = lines[k]
        if not line.strip():
            continue
        if len(line) - len(line.lstrip()) != outer or _NOT_PROSE.match(line) or previous.rstrip().endswith("::"):
            break
        if k > 0 and not lines[k - 1].strip() and not DEFAULT_VALUE.match(line.lstrip()):
            alone = k + 1 >= len(lines) or not lines[k + 1].strip()
            if seen >= BODY_PARAGRAPHS or alone and _LEAD_IN_PARAGRAPH.match(line):
                break  # "Example::" alone: read with the paragraph before it, whose block it introduces (passages.py)
            seen += 1
            out.append(k)
        previous = line
    return out


BODY_PARAGRAPHS = 3  # the paragraphs of an object description's body led by its name (as passages.LABELLED_BLOCKS)
# What opens a body's line that is not prose: a directive or comment, a field, a list item, a table border or
# row, a doctest, a fence.
_NOT_PROSE = re.compile(r"^[ \t]*(?:\.\. |:[\w -]+:|[-*+] |#\.? |\d+[.)] |[+|=]|>>>|```|~~~)")
# A short lead-in paragraph ("Example::", "For example:"; at most 8 words, passages.LEAD_IN_MAX_WORDS)
_LEAD_IN_PARAGRAPH = re.compile(r"^[ \t]*\S+(?:[ \t]+\S+){0,7}:{1,2}[ \t]*$")


def _in_html(expression: str) -> bool:
    """Whether Sphinx's HTML build includes an `.. only::` block of `expression` (tags joined by "and", "or", "not"
    and brackets, as Sphinx's `Tags.eval_condition` reads them): true of the tags of the HTML builders
    (`_HTML_TAGS`), false of any other tag; an expression it cannot read counts as included."""
    words = re.findall(r"[\w.-]+|[()]", expression)
    python = " ".join(w if w in ("and", "or", "not", "(", ")") else str(w in _HTML_TAGS) for w in words)
    try:
        tree = ast.parse(python or "True", mode="eval")
    except SyntaxError:
        return True
    return bool(_truth(tree.body))


def _truth(node: ast.AST) -> bool:
    if isinstance(node, ast.BoolOp):
        values = [_truth(v) for v in node.values]
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return not _truth(node.operand)
    if isinstance(node, ast.Constant):
        return bool(node.value)
    return True


OPENING_MIN_WORDS = 8  # an opening run of fewer words is left as it is (`_reads_as_prose`)
PROSE_SHARE = 0.6  # ... and one reads as prose when this share of its words are words of prose (`_PROSE_WORD`)
# A word of prose: letters, lower case after the first, with quotes, brackets, emphasis or punctuation around it.
_PROSE_WORD = re.compile(r"^[(\"'`*]*[A-Za-z][a-z]+(?:'[a-z]+)?[)\"'`*]*[,.;:!?)]*$")
# A line that reads as code: a prompt, a comment, a bracket, an assignment, a statement or a call.
_CODE_LINE = re.compile(r"^(?:\$ |>>>|\.\.\. |#|//|--|[{}\[\]()<]|[\w.\[\]\"']+\s*[:+\-*/]?=|def |class |"
                        r"import |from \w+ import|return\b|@\w|if .*:$|for .*:$|\w+\(.*\)$)")
_CODE_LINE_END = ("{", "}", ";", "(", ",", "[", "]")


def _reads_as_prose(lines: list[str]) -> bool:
    """Whether the stripped, non-blank `lines` read as prose: at least OPENING_MIN_WORDS words, PROSE_SHARE of them
    words of prose (`_PROSE_WORD`), a sentence's end, no line that reads as code (`_CODE_LINE`) and at most a
    quarter of the lines ending as code lines do ("{", ";", ",", ...)."""
    words = " ".join(lines).split()
    if len(words) < OPENING_MIN_WORDS or any(_CODE_LINE.match(x) for x in lines):
        return False
    if sum(x.endswith(_CODE_LINE_END) for x in lines) > len(lines) // 4:
        return False
    return sum(bool(_PROSE_WORD.match(w)) for w in words) >= PROSE_SHARE * len(words) \
        and bool(re.search(r"[a-z)`][.!?](?:\s|$)", " ".join(lines)))


def opening_body(text: str) -> str:
    """`text` (a reST chunk) with the indented run it opens with — its first line indented, through the line before
    the first one indented less — dedented to column 0 when it reads as prose (`_reads_as_prose`), line for line.
    reST indents only a body: a directive's (an object description's text, a note's), a list item's lines after its
    first, a definition's, a block quote's, or a literal block's. A chunk cut inside one has its opening line in
    the chunk before, and the reader took the body for an indented code block, so its sentences were no passages
    ("Note that this is a *per worker instance* rate limit", the fourth paragraph of Celery's `.. attribute::
    Task.rate_limit`). Code (a `.. code-block::`'s body, a literal block) does not read as prose and stays. On the
    dev corpora's 2,572 reST chunks that open indented: 584 of the 1,753 in a prose body are read as prose, 11 of
    the 819 in a code body too (a docstring, a footnote) (bench/history/session-53.md, "chunks that open inside
    a body")."""
    lines = text.split("\n")
    first = next((k for k, x in enumerate(lines) if x.strip()), None)
    if first is None or not indent_of(lines[first]):
        return text
    outer = indent_of(lines[first])
    end = first
    while end < len(lines) and (not lines[end].strip() or indent_of(lines[end]) >= outer):
        end += 1
    if not _reads_as_prose([x.strip() for x in lines[first:end] if x.strip()]):
        return text
    lines[first:end] = [x[outer:] for x in lines[first:end]]
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
                or (stripped.startswith(("..", ":", "|", ">>>", "```", "#", "+", "\x00")) and not SUBSTITUTION.match(stripped)) \
                or ADORNMENT.fullmatch(stripped):
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
    them. A code role with an explicit title names its object after it, which Sphinx shows only as the link's
    target: ":class:`field converter <falcon.routing.PathConverter>`" -> "`field converter` (`PathConverter`)" —
    the reader of an answer has no link to follow, and the object's name is what they would write (`_titled`)."""
    role = m.group(0)[1:].split(":", 1)[0]
    target = m.group(1).strip()
    if role in _TEXT_ROLES:
        return role_target(target)
    if role in ("pep", "rfc"):
        return f"{role.upper()} {role_target(target)}"
    return f"`{role_text(target)}`" + _titled(target)


_TITLED = re.compile(r"^(.*?\S)\s*<([~!.]*[A-Za-z_][\w.]*)>$", re.DOTALL)  # a role's "title <python.object.path>"


def _titled(target: str) -> str:
    """" (`name`)" for a code role's `target` written "title <dotted.object.path>" whose title does not hold the
    object's name (its last dotted part; letters and digits compared, case aside); "" otherwise: "resp.text
    <falcon.Response.text>", "logger <logging.Logger>" and "body parts <falcon.media.multipart.BodyPart>" say it."""
    m = _TITLED.match(target)
    if m is None:
        return ""
    name = m.group(2).lstrip("~!.").rpartition(".")[2]
    return "" if not name or _letters(name) in _letters(m.group(1)) else f" (`{name}`)"


def _letters(text: str) -> str:
    return re.sub(r"[\W_]+", "", text).lower()


_AUTO_NUMBER = re.compile(r"^(\s*)#\.(?=\s)")  # reST's auto-numbered item marker
_LITERAL_MARK = re.compile(r"(\s*)::$")  # reST's literal-block marker at a line's end


def list_line(line: str) -> str:
    """A line of a reST list as an answer (Markdown) shows it: an auto-numbered item's "#." as "1." (Markdown
    numbers a list's items itself) and the literal-block marker at its end as reST renders it ("text::" ->
    "text:", "text ::" -> "text")."""
    line = _AUTO_NUMBER.sub(r"\g<1>1.", line)
    return _LITERAL_MARK.sub(lambda m: "" if m.group(1) else ":", line.rstrip())
