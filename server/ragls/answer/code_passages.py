"""The passages of a source-code chunk (`sources.load.kind_for` "code": `sources.include` opted code in) for an
extractive answer: what its docstrings and comments say, each with the code it documents as a code block.

A code file read as Markdown made prose of its code: "- def test_null_session_function() -> None: session =
mock.Mock(spec=("skip",)) _null_session_func(session) assert session.skip.called [5]" was an answer's bullet. Here
a code line is never a sentence. A docstring (Python's triple-quoted string right under a `def` or `class`, or
opening the chunk; its first paragraph, inline reST read as text) is a passage with the definition lines above it ("def skip(self, *args: Any) -> NoReturn:"); a run of
comment lines ("#", "//", "--", "/* ... */", "*" of a block comment) is a passage with the code right below it, up
to a blank line (at most CODE_LINES lines) — a comment in most languages says what the next lines do, and a
docstring's definition is its name. Comments that are no prose are left out: a shebang, a license or encoding
line, linter and type-checker pragmas, commented-out code (a line ending in one of "{};:(),=").
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ragls.answer.blocks import FENCE_OPEN
from ragls.answer.inline import plain
from ragls.answer.markup import clean_markup

CODE_LINES = 8  # the most lines of code shown under a comment, or of a definition over its docstring
DEFINITION_LINES = 6  # how far above a docstring its `def` / `class` line is looked for (a long signature)

_DOCSTRING = re.compile(r'^\s*[rRuUbB]{0,2}("""|\'\'\')')
_TRIPLE = re.compile(r'"""|\'\'\'')
_DEFINITION = re.compile(r"^\s*(?:@|(?:async\s+)?def\s|class\s)")
_COMMENT = re.compile(r"^\s*(?://+|#+|--|/\*+|\*+(?!/))(?:\s|$)(.*)$")
_COMMENT_END = re.compile(r"\s*\*+/\s*$")
_NOT_PROSE = re.compile(r"^(?:!|-\*-|(?:noqa|type:|pragma|pylint:|fmt:|mypy:|isort:|eslint|ts-|@ts-|prettier|nolint|"
                        r"SPDX|Copyright|coding[:=]|vim?:|TODO\b|FIXME\b|XXX\b))", re.IGNORECASE)
_CODE_END = re.compile(r"[{};:(),=\[\]]\s*$")
# A configuration comment's line that is a setting or section commented out (`config_comments`): it ends in "{", "[",
# "]" or "=" ("# [tool.black]", "# exclude = ["), or is a YAML key with at most one value ("# extra:", "# args:
# [--fix]"). Prose in a configuration comment wraps at "," and ends in ")" or ":" ("# Builtin formats:
# \":color-words\" (default), \":git\"," / "# or external command name and arguments (see below)"), which a program's
# comment does only when it is code.
# A capitalised word before its ":" ("# Note:", "# Example:", "# Default: false.", "# Templates: allowed.") is prose's
# label, not a key: GoReleaser's configuration reference ends 434 comments with "# Templates: allowed.", and reading
# that line as a setting commented out left every one of those settings without a passage.
_CONFIG_CODE_END = re.compile(r"""(?:[{\[\]=]|^(?!\s*[A-Z][a-z]+:)\s*[\w.-]+:"""
                              r"""(?:\s+(?:\[.*\]|\{.*\}|"[^"]*"|'[^']*'|[\w.-]+))?)\s*$""")
# the languages whose comments document the setting below them (`config_comments`)
CONFIG_LANGUAGES = frozenset({"toml", "yaml", "yml", "ini", "cfg", "conf", "properties", "dotenv", "env"})
_CODE_DIRECTIVE = re.compile(r"^\s*\.\. (?:code-block|code|sourcecode)::\s*(\S+)")  # reST's code directive, language
# a comment run holding settings commented out ("# branch = \"master\"", "# copy: no # Use files in place"), not prose
_COMMENTED_OUT = re.compile(r"^[\w.-]+\s*=|\s#\s")


class CodePassage(NamedTuple):
    """A docstring's or comment's text (inline markup read, on one line) and the code it documents as a fenced
    block ("" when none); `line`..`end`: the 0-based chunk lines of the definition and docstring, or of the comment
    and its code. `passages.chunk_units` reads it as a `Unit`."""

    sentence: str
    attached: str
    line: int
    end: int


def code_passages(text: str, lines: tuple[int, int] | None = None, config: bool = False) -> list[CodePassage]:
    """The passages of code chunk `text` (module docstring), in text order: the docstring's first paragraph or the
    comment run's text, ending in ":" when it has code to show, with that code. `lines` (inclusive): only the
    passages overlapping those 0-based chunk lines. `config`: `text` is a configuration block (`config_comments`),
    whose comment lines are code only when they read as a setting or section (`_CONFIG_CODE_END`)."""
    code_end = _CONFIG_CODE_END if config else _CODE_END
    rows = text.split("\n")
    out: list[CodePassage] = []
    k = 0
    while k < len(rows):
        m = _DOCSTRING.match(rows[k])
        if not m and len(_TRIPLE.findall(rows[k])) % 2:  # a string opened mid-line (`x = """`): no comments
            k = next((j for j in range(k + 1, len(rows)) if len(_TRIPLE.findall(rows[j])) % 2), len(rows)) + 1
            continue
        first = _definition(rows, k) if m else None
        if m and first is None and any(x.strip() for x in rows[:k]):
            k += 1  # no definition above and text before it: the close of a docstring the chunk opened inside
            continue
        if m:
            end, body = _docstring(rows, k, m.group(1))
            code = rows[first:k] if first is not None else []
            _add(out, body, code, k if first is None else first, end, lines)
            k = end + 1
            continue
        if _COMMENT.match(rows[k]) and not rows[k].lstrip().startswith("#!"):
            start = k
            words: list[str] = []
            while k < len(rows) and (c := _COMMENT.match(rows[k])):
                words.append(_COMMENT_END.sub("", c.group(1)))
                k += 1
            code = []
            while k < len(rows) and rows[k].strip() and not _COMMENT.match(rows[k]) and len(code) < CODE_LINES:
                code.append(rows[k])
                k += 1
            prose = [w for w in words if w.strip() and not _NOT_PROSE.match(w.strip()) and not code_end.search(w)]
            if len(prose) == len([w for w in words if w.strip()]):  # commented-out code or a pragma: no passage
                _add(out, " ".join(prose), code, start, start + len(words) + len(code) - 1, lines)
            continue
        k += 1
    return out


def _docstring(rows: list[str], k: int, quote: str) -> tuple[int, str]:
    """(last line, first paragraph) of the docstring opening on line `k` with `quote`."""
    first = rows[k].split(quote, 1)[1]
    if quote in first:
        return k, first.split(quote, 1)[0]
    body = [first]
    end = k + 1
    while end < len(rows) and quote not in rows[end]:
        body.append(rows[end])
        end += 1
    if end < len(rows):
        body.append(rows[end].split(quote, 1)[0])
    paragraph: list[str] = []
    for line in body:
        if not line.strip():
            if paragraph:
                break
            continue
        paragraph.append(line)
    return min(end, len(rows) - 1), " ".join(paragraph)


def _definition(rows: list[str], k: int) -> int | None:
    """The first line of the `def` / `class` statement (with its decorators) a docstring on line `k` documents:
    the nearest such line at most DEFINITION_LINES above, with no blank line between; None for a module's."""
    for up in range(k - 1, max(-1, k - 1 - DEFINITION_LINES), -1):
        if not rows[up].strip():
            return None
        if _DEFINITION.match(rows[up]):
            while up > 0 and rows[up - 1].lstrip().startswith("@"):
                up -= 1
            return up
    return None


def _add(out: list[CodePassage], prose: str, code: list[str], line: int, end: int,
         lines: tuple[int, int] | None) -> None:
    if lines is not None and (end < lines[0] or line > lines[1]):
        return
    sentence = plain(clean_markup(prose, False), False)
    if not sentence:
        return
    code = code[:CODE_LINES]
    indent = min((len(x) - len(x.lstrip()) for x in code if x.strip()), default=0)
    attached = "```\n" + "\n".join(x[indent:] for x in code) + "\n```" if any(x.strip() for x in code) else ""
    if attached and not sentence.endswith((":", "…")):
        sentence = sentence.rstrip(".") + ":"
    out.append(CodePassage(sentence, attached, line, end))


def fence_info(line: str) -> str:
    """The info string of an opening code fence `line`, without the fence and an attribute list's braces:
    "```toml title=\"a.toml\"" -> 'toml title="a.toml"', "``` { .yaml }" -> ".yaml"."""
    return line.strip().lstrip("`~").strip("{} ")


def config_language(language: str) -> bool:
    """Whether `language` (a fence's info string, `fence_info`, or a reST code directive's argument; its first word,
    in any case) is one of CONFIG_LANGUAGES."""
    return (language.split() or [""])[0].lower() in CONFIG_LANGUAGES


def config_comments(lines: list[str], directive: str = "") -> list[CodePassage]:
    """The comment passages of a documentation page's code block `lines` (fences included) when it is
    configuration — its language, the fence's info string (```` ```toml ````) or the argument of the reST
    `directive` line before it (``.. code-block:: ini``), is one of CONFIG_LANGUAGES — else []: each run of comment
    lines with the setting right below it (`code_passages`), the block shown in that language, with no setting
    commented out (`_COMMENTED_OUT`, `_CONFIG_CODE_END`); `line`/`end` are 0-based lines of the block. Zola documents every setting of
    `config.toml` only in the comment above it. A program's comments narrate its steps ("# Don't send the API key for
    this particular request.") and outranked the prose explaining the example: those are no passages
    (bench/history/session-52.md, "Key: the closest sentence of every candidate")."""
    fenced = bool(lines) and FENCE_OPEN.match(lines[0])
    if fenced:
        language = fence_info(lines[0])
    else:
        found = _CODE_DIRECTIVE.match(directive)
        language = found.group(1) if found else ""
    if not config_language(language):
        return []
    body = lines[1:] if fenced else lines
    if fenced and body and FENCE_OPEN.match(body[-1]):
        body = body[:-1]  # the closing fence
    first = 1 if fenced else 0
    tag = language.split()[0]  # the answer's block shows the language, as the page does
    return [p._replace(attached=p.attached.replace("```", f"```{tag}", 1), line=p.line + first, end=p.end + first)
            for p in code_passages("\n".join(body), config=True) if not _COMMENTED_OUT.search(p.sentence)]
