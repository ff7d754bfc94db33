"""The code a reST `.. literalinclude::` shows, read from the included file (Sphinx's `literalinclude`): a page that
writes "Litestar comes with a simple mechanism for caching:" above `.. literalinclude:: /examples/caching/cache.py`
shows that file's code there, and the index holds only the page's text (the directive line and its options), so
an answer would show nothing under the sentence. `included_block` reads it when the answer is built. A MyST
page writes the same directive as a fence (```` ```{literalinclude} examples/example.py ```` with `:start-after:`
option lines), read the same way.

A MkDocs page (pymdownx.snippets) writes the file's name in the fence instead: ```` ```python ```` /
`--8<-- "docs/examples/guide/input/binding01.py"` / ```` ``` ```` (Textual: 731 such lines in 151 pages); `snippets`
puts the file's code in that block, so the sentence before it ("The following example binds the keys ...") shows
the example, not its file name.
"""

from __future__ import annotations

import ast
import re
import stat
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path

from ragls.answer import rest
from ragls.answer.blocks import FENCE_OPEN, Block, block_end, code_body
from ragls.config.settings import SourcesSettings
from ragls.sources.load import read_bytes
from ragls.sources.redact import mask_secrets
from ragls.sources.rest_include import SECTION_MARK, SNIPPET, include_target, snippet_lines, snippet_target
from ragls.sources.walk import FileFilter

# reST's `.. literalinclude:: path` or MyST's ```` ```{literalinclude} path ```` (also `~~~`, `:::`): the fence in
# group 3 when MyST, the path in group 2.
_LITERALINCLUDE = re.compile(r"^([ \t]*)(?:\.\. literalinclude::|(`{3,}|~{3,}|:{3,})\{literalinclude\})[ \t]+(\S.*?)[ \t]*$")
_HL_LINES = re.compile(r"""[ \t]*\bhl_lines=["']([\d\s-]+)["']""")  # a fence's highlighted lines, "12-16", "9 28-29 31"
HIGHLIGHT_MAX_LINES = 12  # highlighted lines spanning more are no short example: the whole file is shown
MAX_INCLUDE_BYTES = 200_000  # a larger file is no example a page shows whole: not read
# {folder (as its index names it, resolved): the FileFilter of its open index} — handed down by the workspace
# (`RagWorkspace.ask`'s `files`, `retrieval.source.file_filters`) to everything that reads a page's literalinclude
FileFilters = Mapping[str, FileFilter]


def _filter(folder: Path, files: FileFilter | None) -> FileFilter:
    """`files`, the FileFilter of `folder`'s open index (its sources settings, its `.gitignore` files as the
    watcher keeps them current: `FolderIndex.filter`, handed down by the workspace), else one with the default
    sources settings, built for this call (no index open)."""
    return files if files is not None else FileFilter(folder, SourcesSettings())


def _target(argument: str, doc: Path, folder: Path, files: FileFilter | None) -> tuple[Path, int] | None:
    """The file a literalinclude `argument` of the page `doc` names, as `sources.rest_include.include_target` allows
    it (the one rule of what a page may pull in from the untrusted folder: inside it, no link out, no secret file,
    no version control data, nothing its open index's filter hides, `_filter`), if it is a regular file of at most
    MAX_INCLUDE_BYTES, with its modification time in ns (one stat); else None."""
    path = include_target(argument, doc, folder, _filter(folder, files))
    if path is None:
        return None
    try:
        st = path.stat()
    except OSError:
        return None
    return (path, st.st_mtime_ns) if stat.S_ISREG(st.st_mode) and st.st_size <= MAX_INCLUDE_BYTES else None


def stamps(text: str, source: str, folder: str, files: FileFilter | None = None) -> tuple[tuple[str, int], ...]:
    """(file, modification time in ns) of every file the literalinclude lines of chunk `text` (reST or MyST) name,
    for the page at `source` (relative to `folder`, whose open index's filter is `files`): a key that changes when
    an included example is edited."""
    if ("literalinclude" not in text and "8<" not in text) or not folder:
        return ()
    doc, root = Path(folder) / source, Path(folder)
    out = []
    for line in text.split("\n"):
        if (m := _LITERALINCLUDE.match(line)) and (found := _target(m.group(3), doc, root, files)) is not None:
            out.append((str(found[0]), found[1]))
        elif (m := SNIPPET.match(line)) and (found := _snippet_target(m.group(2), doc, root, files)) is not None:
            out.append((str(found[0][0]), found[0][1]))
    return tuple(out)


def _snippet_target(name: str, doc: Path, folder: Path, files: FileFilter | None
                    ) -> tuple[tuple[Path, int], str, str] | None:
    """The file a pymdownx.snippets name of the page `doc` names (`sources.rest_include.snippet_target`: where
    MkDocs reads it, as `include_target` allows it), (path, modification time in ns) as `_target` allows it, with
    the name's line ranges ("3:8,12:14") and section name (both "" when it has none). None when no such file is
    allowed."""
    found = snippet_target(name, doc, folder, _filter(folder, files))
    if found is None:
        return None
    path, ranges, section = found
    target = _target("/" + path.relative_to(folder).as_posix(), folder / "page", folder, files)
    return (target, ranges, section) if target is not None else None


def _snippet_cut(lines: list[str], ranges: str, section: str) -> list[str]:
    """`lines` of a snippet file as pymdownx.snippets includes them (`sources.rest_include.snippet_lines`: the
    1-based inclusive `ranges` ("3:8,12:", ":5", "7"), else the lines between `--8<-- [start:section]` and
    `--8<-- [end:section]`); the section marker lines themselves never show, and a cut's common indentation is
    removed (a method cut out of its class reads from column 0, as snippets' `dedent_subsections` shows it)."""
    lines = [x for a, b in snippet_lines(len(lines), ranges, section, lines) for x in lines[a:b]]
    lines = [x for x in lines if not SECTION_MARK.search(x)]
    return textwrap.dedent("\n".join(lines)).split("\n") if ranges or section else lines


def _read_code(path: Path, source: str, folder: Path) -> list[str] | None:
    """The lines of the included file `path` (a regular file within MAX_INCLUDE_BYTES, UTF-8, inside `folder` as
    it is opened: `load.read_bytes`), secret values masked (`redact.mask_secrets`), as in every passage shown; None
    when it cannot be read."""
    read = read_bytes(path, source, MAX_INCLUDE_BYTES, folder)  # a regular file within the bound, or Skipped
    try:
        text = read[0].decode("utf-8").replace("\r\n", "\n").replace("\r", "\n") if isinstance(read, tuple) else None
    except UnicodeDecodeError:
        return None
    return mask_secrets(text)[0].split("\n") if text is not None else None


def snippets(blocks: Sequence[Block], source: str, folder: str, files: FileFilter | None = None
             ) -> tuple[Block, ...]:
    """`blocks` of the page at `source` (relative to the indexed `folder`) with each fenced code block whose lines
    are only pymdownx.snippets lines (`--8<-- "docs/examples/app.py"`) holding those files' code instead, cut by
    the names' line ranges or sections (`_snippet_cut`), within its fences; its chunk lines stay the block's own
    (`Block.last`), so a citation of the sentence and its code stays on the page. A name that cannot be read
    (outside the folder, a secret file, missing, too large, hidden by the open index's filter `files`) leaves the
    block as written. A fence that highlights a few lines (`hl_lines`) shows those (`_highlighted`)."""
    out = list(blocks)
    for k, b in enumerate(blocks):
        body = code_body(b) if b.kind == "code" and FENCE_OPEN.match(b.lines[0]) else []
        names = [m.group(2) for x in body if (m := SNIPPET.match(x))]
        if not body or len(names) < len(body):
            continue
        code: list[str] = []
        for name in names:
            found = _snippet_target(name, Path(folder) / source, Path(folder), files)
            read = _read_code(found[0][0], source, Path(folder)) if found is not None else None
            if found is None or read is None:
                break
            code += _snippet_cut(read, found[1], found[2])
        else:
            cut = _highlighted(code, b.lines[0])
            fence = b.lines[0] if cut is code else _HL_LINES.sub("", b.lines[0])  # its numbers are the file's
            code = cut
            while code and not code[-1].strip():
                code.pop()
            if any(x.strip() for x in code):
                indent = b.lines[0][:len(b.lines[0]) - len(b.lines[0].lstrip())]
                out[k] = Block("code", b.start, [fence, *(indent + x if x else x for x in code), indent + "```"],
                               last=block_end(b))
    return tuple(out)


def _highlighted(code: list[str], fence: str) -> list[str]:
    """`code` cut to the lines its fence's `hl_lines="12-16"` highlights (first through last, 1-based, dedented),
    when they are at most HIGHLIGHT_MAX_LINES: the lines the page points the reader at ("binds the keys ... to an
    action" / binding01.py's `BINDINGS` list and action method), which an answer can show under its sentence where
    the whole 25-line module is too long (`neighbours.with_code_after`); else `code` whole."""
    m = _HL_LINES.search(fence)
    numbers = [int(x) for x in re.findall(r"\d+", m.group(1))] if m else []
    if not numbers or max(numbers) - min(numbers) + 1 > HIGHLIGHT_MAX_LINES or max(numbers) > len(code):
        return code
    return textwrap.dedent("\n".join(code[min(numbers) - 1:max(numbers)])).split("\n")


def _ranges(spec: str, n: int) -> list[int]:
    """The 0-based lines of a `:lines:` option ("1, 4-8", "3-", "-5") in a file of `n` lines."""
    out: list[int] = []
    for part in spec.split(","):
        first, dash, last = part.strip().partition("-")
        try:
            a = int(first) if first else 1
            b = (int(last) if last else n) if dash else a
        except ValueError:
            return list(range(n))
        out += range(max(a, 1) - 1, min(b, n))
    return out


def _pyobject(lines: list[str], name: str) -> list[str]:
    """The lines of the class or function `name` ("Cls.method") of Python `lines`; all of them if not found."""
    try:
        tree = ast.parse("\n".join(lines))
    except (SyntaxError, ValueError):
        return lines
    body = tree.body
    node = None
    for part in name.split("."):
        node = next((x for x in body if isinstance(x, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                     and x.name == part), None)
        if node is None:
            return lines
        body = node.body
    start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    return lines[start - 1:node.end_lineno]


def _cut(lines: list[str], options: dict[str, str]) -> list[str]:
    """`lines` as Sphinx's LiteralIncludeReader filters them, in its order: `pyobject`, `start-after` / `start-at`,
    `end-before` / `end-at`, `lines`."""
    if options.get("pyobject"):
        lines = _pyobject(lines, options["pyobject"])
    for key, after in (("start-after", True), ("start-at", False)):
        if options.get(key):
            k = next((i for i, x in enumerate(lines) if options[key] in x), None)
            lines = lines[k + after:] if k is not None else lines
    for key, at in (("end-before", False), ("end-at", True)):
        if options.get(key):
            k = next((i for i, x in enumerate(lines) if options[key] in x), None)
            lines = lines[:k + at] if k is not None else lines
    if options.get("lines"):
        lines = [lines[i] for i in _ranges(options["lines"], len(lines))]
    return lines


def _myst_options(lines: list[str], line: int, fence: str) -> tuple[dict[str, str], int]:
    """The `:name: value` option lines right under the MyST directive fence at `line` of `lines`, and the 0-based line
    of its closing fence (a bare fence of its character, at least as long; its last option line when the chunk
    cuts it)."""
    options: dict[str, str] = {}
    k = line + 1
    while k < len(lines) and (m := rest.MYST_OPTION.match(lines[k])):
        options[m.group(1)] = m.group(2).strip()
        k += 1
    cut = k - 1
    while k < len(lines):
        if rest.closes_fence(lines[k], fence):
            return options, k
        k += 1
    return options, cut


def included_block(text: str, line: int, source: str, folder: str, files: FileFilter | None = None) -> Block | None:
    """The code block the `.. literalinclude::` (or MyST ```` ```{literalinclude} ````) at 0-based `line` of chunk
    `text` shows, for the page at `source` relative to the indexed `folder`: the included file's lines as its
    options cut them, fenced with its `:language:`; its chunk lines are the directive's (`Block.last`: the
    directive line and its options; a MyST fence through its closing fence), so a
    citation of the sentence and its code stays on the page. `files`: the FileFilter of the folder's open index
    (`FolderIndex.filter`), which decides what the page may show (`_filter`). None when `line` is no literalinclude or the file
    cannot be read (outside the folder's tree, a secret file, missing, larger than MAX_INCLUDE_BYTES, not UTF-8);
    secret values in the code are masked (`redact.mask_secrets`), as in every passage shown."""
    lines = text.split("\n")
    m = _LITERALINCLUDE.match(lines[line]) if 0 <= line < len(lines) else None
    if m is None or not folder:
        return None
    found = _target(m.group(3), Path(folder) / source, Path(folder), files)
    if found is None:
        return None
    code = _read_code(found[0], source, Path(folder))
    if code is None:
        return None
    if m.group(2):
        options, last = _myst_options(lines, line, m.group(2))
    else:
        body, options, _ = rest.directive_body(lines, line)
        last = body - 1
        while last > line and not lines[last].strip():
            last -= 1
    code = _cut(code, options)
    while code and not code[-1].strip():
        code.pop()
    if not any(x.strip() for x in code):
        return None
    fence = "```" + options.get("language", "")
    return Block("code", line, [fence, *code, "```"], last=last)
