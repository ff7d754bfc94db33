"""reST's `.. include::` resolved as Sphinx builds the page: the included file's text stands where the directive
was, so a reader of the index finds it on the page that shows it (Borg keeps every command reference in a
`usage/create.rst.inc` that `usage/create.rst` includes; restic's `100_references.rst` includes `design.rst`).
MkDocs pages' includes likewise (`MARKDOWN_EXTENSIONS`): pymdownx.snippets' `--8<-- "path"` lines and blocks of
paths between two `--8<--` lines, and mkdocs-include-markdown-plugin's `{% include-markdown "path" %}` and
`{% include "path" %}` (Traefik's pages include a shared `includes/*.md` notice and one provider page another).

`expand` reads a page's includes (nested ones too) into one `Document` whose `origins` say where each stretch of
its text lives, so each chunk of included text cites the included file and its lines (the file the user edits).
`include_target` is the one rule for what a page may pull in from the folder, shared with the answer layer's
`.. literalinclude::` (`answer.includes`): a folder is untrusted input (docs/security.md).
"""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path, PurePosixPath

from ragls.core.errors import Skipped
from ragls.core.ir import Document, Origin
from ragls.core.uris import key_path
from ragls.sources.load import load_file, markup_extension
from ragls.sources.walk import VCS_DIRS, FileFilter, inside_folder, secret_file

# `.. include:: path` at any indentation (the path in group 2); docutils' own `<isonum.txt>` is no file of the folder.
_INCLUDE = re.compile(r"^([ \t]*)\.\. include::[ \t]+(\S.*?)[ \t]*$")
_OPTION = re.compile(r"^[ \t]+:([\w-]+):(?:[ \t]+(.*?))?[ \t]*$")
# Markup whose `.. include::` lines are resolved: reST pages and fragments (`usage/init.rst.inc`,
# `sources.load.markup_extension`).
REST_EXTENSIONS = frozenset({"rst", "rest"})
# Markup whose MkDocs includes are resolved (`_markdown_directive`).
MARKDOWN_EXTENSIONS = frozenset({"md", "markdown"})
# pymdownx.snippets' one-line form, `--8<-- "path"` (any number of dashes either side; a `;` before it escapes it):
# the quoted name in group 2, which may end in line ranges (":3:8", ":3:8,12:14") or a section name (":setup"),
# `SNIPPET_CUT`; a line of scissors alone opens and closes a block of names, one a line (`_SCISSORS`). The answer
# layer reads the same lines in fences of code files the index does not hold (`answer.includes.snippets`).
SNIPPET = re.compile(r"""^[ \t]*-+8<-+[ \t]+(["'])(.+?)\1[ \t]*$""")
SNIPPET_CUT = re.compile(r"^(.+?)(?::((?:\d*:\d*|\d+)(?:,(?:\d*:\d*|\d+))*)|:([A-Za-z_][\w-]*))?$")
SECTION_MARK = re.compile(r"-+8<-+[ \t]*\[(start|end):([\w-]+)\]")
_SCISSORS = re.compile(r"^[ \t]*-+8<-+[ \t]*$")
# mkdocs-include-markdown-plugin on one line: `{% include-markdown "path" start="..." end="..." %}` (kind in group
# 2, path in group 4, options in group 5) or `{% include "path" %}` (any file, its text as it is).
_MKDOCS_INCLUDE = re.compile(r"""^([ \t]*)\{%-?[ \t]*(include-markdown|include)[ \t]+(["'])(.+?)\3(.*?)-?%\}[ \t]*$""")
_MKDOCS_OPTION = re.compile(r"""([\w-]+)=(["'])(.*?)\2""")
MAX_DEPTH = 8  # includes nested deeper are left as written (docutils has no bound; a cycle is refused anyway)
MAX_INCLUDES = 256  # include directives resolved per page; further ones are left as written
_LINE_END = re.compile(r"(?<=\n)|(?<=\r)(?!\n)")  # after each line end "\n", "\r\n", "\r" (as `lines.LineIndex`)


def _lines(text: str) -> list[str]:
    """The lines of `text` with their ends, split only at "\n", "\r\n" and "\r" (`str.splitlines` also splits at
    form feeds and U+2028, which would shift every line number after them)."""
    return [x for x in _LINE_END.split(text) if x]


def srcdir(doc: Path, folder: Path) -> Path:
    """Sphinx's source directory for the page `doc`: the nearest folder above it, up to the indexed `folder`, that
    holds conf.py; else `folder` (a "/examples/x.py" argument is relative to the source directory)."""
    for parent in doc.parents:
        if (parent / "conf.py").is_file():
            return parent
        if parent == folder or folder not in parent.parents:
            break
    return folder


def include_target(argument: str, doc: Path, folder: Path, file_filter: FileFilter,
                   base: Path | None = None) -> Path | None:
    """The file an include `argument` of the page `doc` names (absolute: from the source directory, `srcdir`; else
    from the page's folder), if it is inside the indexed `folder` (never outside it: what a page includes from
    elsewhere, "../README.rst" above a docs folder, is not read, as the index reads nothing outside it); else None.
    A folder is untrusted input: the real path must lie inside the folder too (`walk.inside_folder`: a link
    `examples -> ~/.ssh` is not followed out) and neither the name nor its real path may be a secret file
    (`walk.secret_file`: `.. literalinclude:: /.env` shows nothing), nor lie in version control data
    (`walk.VCS_DIRS`, in any case: `../.git/config`, `../.GIT/config`), nor be what the index never reads whatever
    `sources.include` says (`file_filter.hidden_reason`, the folder's open index's filter: a file or folder the
    folder's `.gitignore` ignores — the user's untracked `terraform.tfvars` —, one its `sources.exclude` names, a
    junk folder). docutils' standard includes (`<isonum.txt>`) are no file of the folder: None. The path is not
    checked to exist. `base`: the folder a relative `argument` starts from instead of the page's (MkDocs,
    `_markdown_target`)."""
    if argument.startswith("<") and argument.endswith(">"):
        return None
    base = srcdir(doc, folder) if argument.startswith("/") else (base or doc.parent)
    path = Path(os.path.normpath(base / argument.lstrip("/")))
    if folder not in path.parents:
        return None
    real = inside_folder(folder, path)
    written = path.relative_to(folder).as_posix()
    if (real is None or secret_file(real) or secret_file(written)
            or not VCS_DIRS.isdisjoint([*real.lower().split("/"), *written.lower().split("/")])):
        return None
    if file_filter.hidden_reason(written) or file_filter.hidden_reason(real):
        return None
    return path


@dataclasses.dataclass
class _Run:
    """Consecutive lines of one file in the expanded text."""

    path: str
    line: int
    lines: list[str]
    literal: bool = False


@dataclasses.dataclass
class Expansion:
    """A page's includes read by `expand`: `included` the index keys of the files whose text the page now holds,
    `wanted` those it names that could not be read now (missing, too large, binary: the page is re-read when one
    appears or changes)."""

    doc: Document
    included: set[str] = dataclasses.field(default_factory=set)
    wanted: set[str] = dataclasses.field(default_factory=set)


def is_rest(path: str) -> bool:
    """Whether the file at `path` (an index key) is read as reST, so its `.. include::` lines are resolved."""
    return markup_extension(path) in REST_EXTENSIONS


def resolves_includes(path: str) -> bool:
    """Whether the includes of the file at `path` (an index key) are resolved: reST's `.. include::` lines
    (`is_rest`), MkDocs' snippets and include-markdown directives in a Markdown page."""
    return is_rest(path) or markup_extension(path) in MARKDOWN_EXTENSIONS


def expand(doc: Document, file_filter: FileFilter, max_file_bytes: int) -> Expansion:
    """`doc` (a reST or Markdown page read from `file_filter`'s folder, `resolves_includes`) with each include
    replaced by the text of the file it names: a Markdown page's MkDocs includes as `_markdown_directive` and
    `_markdown_target` read them, a reST page's `.. include::` directive line (and its option lines) as docutils
    reads it: relative to the including file (a fragment's own includes relative to the fragment), `:start-line:`
    / `:end-line:` (0-based, end exclusive), then `:start-after:` / `:end-before:` (whole lines: from the line after
    the one holding the marker, up to the line holding the end marker); nested up to MAX_DEPTH, a cycle left as written. An include is resolved only
    when its file is one the index reads itself (`include_target`'s checks and `file_filter.included`: what
    `sources.include` takes, never a secret, ignored or excluded file, nor a link out of the folder), of at most
    `max_file_bytes` and not binary; else its directive line stays. The whole text stays within `max_file_bytes`
    characters (includes past it stay as written) and MAX_INCLUDES directives. The result's `origins` say where
    each stretch lives (`Document.origins`); its `content_hash`, size and mtime stay the page's own. A page
    without a resolved include comes back as it was (no `origins`)."""
    folder = Path(doc.folder)
    exp = Expansion(doc)
    budget = [max_file_bytes - len(doc.text), MAX_INCLUDES]
    runs = _splice(doc.path, doc.text, 0, False, (doc.path,), folder, file_filter, max_file_bytes, exp, budget)
    if not exp.included:
        return exp
    runs = [run for run in runs if run.lines]
    text, origins, at = [], [], 0
    for n, run in enumerate(runs):
        if n + 1 < len(runs) and not run.lines[-1].endswith(("\n", "\r")):
            run.lines[-1] += "\n"  # the next stretch starts on a line of its own
        origins.append(Origin(at, run.path, run.line, run.literal))
        piece = "".join(run.lines)
        text.append(piece)
        at += len(piece)
    exp.doc = dataclasses.replace(doc, text="".join(text), origins=tuple(origins))
    return exp


def _splice(path: str, text: str, line0: int, literal: bool, stack: tuple[str, ...], folder: Path,
            file_filter: FileFilter, max_file_bytes: int, exp: Expansion, budget: list[int]) -> list[_Run]:
    """The runs of file `path`'s `text` (its lines from `line0` on) with its includes spliced in, read as the
    page's markup writes them (`stack[0]`: a snippet `.txt` of a Markdown page is read for MkDocs includes)."""
    lines = _lines(text)
    runs = [_Run(path, line0, [], literal)]
    if literal or len(stack) > MAX_DEPTH:
        runs[0].lines = lines
        return runs
    directive = _markdown_directive if markup_extension(stack[0]) in MARKDOWN_EXTENSIONS else _rest_directive
    k = 0
    while k < len(lines):
        found = directive(lines, k)
        if found is None:
            runs[-1].lines.append(lines[k])
            k += 1
            continue
        end, includes = found
        read = [(inner, options, is_literal) for argument, options, is_literal, markdown in includes
                if (inner := _read(argument, path, folder, file_filter, max_file_bytes, stack, exp, budget, markdown,
                                   "snippet" in options)) is not None]
        if not read:
            runs[-1].lines.extend(lines[k:end])
            k = end
            continue
        for (key, body), options, is_literal in read:
            exp.included.add(key)
            for first, cut in _cut(_lines(body), options):
                runs += _splice(key, "".join(cut), first, is_literal, (*stack, key), folder, file_filter,
                                max_file_bytes, exp, budget)
        runs.append(_Run(path, line0 + end, []))
        k = end
    return runs


# (argument, options as `_cut` reads them, literal, markdown: read as a MkDocs include, `_markdown_target`)
Include = tuple[str, dict[str, str], bool, bool]


def _rest_directive(lines: list[str], k: int) -> tuple[int, list[Include]] | None:
    """(the line after it, [include]) for a reST `.. include::` directive (and its option lines) at line `k`."""
    m = _INCLUDE.match(lines[k].rstrip("\r\n"))
    if m is None:
        return None
    options, end = {}, k + 1
    while end < len(lines) and (o := _OPTION.match(lines[end].rstrip("\r\n"))) \
            and len(o.group(0)) - len(o.group(0).lstrip()) > len(m.group(1)):
        options[o.group(1)] = o.group(2) or ""
        end += 1
    return end, [(m.group(2), options, "literal" in options or "code" in options, False)]


def _markdown_directive(lines: list[str], k: int) -> tuple[int, list[Include]] | None:
    """(the line after it, [include]) for a MkDocs include at line `k` (module docstring): a snippet line, a block of
    snippet names (up to its closing scissors line; an unclosed block is no directive), or an include-markdown /
    include line (its `start` and `end` markers cut the file as reST's `start-after` / `end-before` do; an
    `include`'s text is literal, its own directives not read). A snippet's line ranges and section are read by
    `_cut` (`snippet_lines`)."""
    line = lines[k].rstrip("\r\n")
    if (m := SNIPPET.match(line)) is not None:
        return k + 1, [(m.group(2), {"snippet": m.group(2)}, False, True)]
    if (m := _MKDOCS_INCLUDE.match(line)) is not None:
        given = {o.group(1): o.group(3) for o in _MKDOCS_OPTION.finditer(m.group(5))}
        options = {name: given[key] for key, name in (("start", "start-after"), ("end", "end-before")) if key in given}
        return k + 1, [(m.group(4), options, m.group(2) == "include", True)]
    if _SCISSORS.match(line) is None:
        return None
    end = next((i for i in range(k + 1, len(lines)) if _SCISSORS.match(lines[i].rstrip("\r\n"))), None)
    if end is None:
        return None
    names = [x.strip() for x in lines[k + 1:end] if x.strip() and not x.strip().startswith(";")]
    return end + 1, [(x, {"snippet": x}, False, True) for x in names]


def snippet_target(name: str, doc: Path, folder: Path, file_filter: FileFilter) -> tuple[Path, str, str] | None:
    """The file a pymdownx.snippets `name` of the page `doc` names, as `include_target` allows it, with the name's
    line ranges ("3:8,12:14") and section name (both "" when it has none). The name is relative to the MkDocs
    project's root (snippets' default `base_path`, "."), which is the indexed `folder` or a folder above it:
    "docs/examples/app.py" of a `docs/` folder is its "examples/app.py" (the name's first parts that are the
    folder's last ones are dropped); else a folder inside it (`_markdown_target`: the page's, or the nearest above
    it that holds the file, Traefik's `docs/` for `content/reference/...`). None when no such file exists."""
    m = SNIPPET_CUT.match(name.strip())
    if m is None:
        return None
    path, ranges, section = m.group(1), m.group(2) or "", m.group(3) or ""
    parts = PurePosixPath(path).parts
    tails = [k for k in range(1, len(parts)) if folder.parts[-k:] == parts[:k]] if parts[:1] != ("/",) else []
    for candidate in [path.lstrip("/"), *("/".join(parts[k:]) for k in tails)]:
        found = include_target("/" + candidate, folder / "page", folder, file_filter)
        if found is not None and found.is_file():
            return found, ranges, section
    found = _markdown_target(path, doc, folder, file_filter) if not path.startswith("/") else None
    return (found, ranges, section) if found is not None and found.is_file() else None


def snippet_lines(count: int, ranges: str, section: str, lines: list[str]) -> list[tuple[int, int]]:
    """The stretches (0-based first line, end exclusive) of a snippet file's `count` lines (its `lines`) that
    pymdownx.snippets includes: the 1-based inclusive `ranges` ("3:8,12:", ":5", "7"), else the lines between
    `--8<-- [start:section]` and `--8<-- [end:section]` (`SECTION_MARK`; the whole file when there is no such start
    marker), else the whole file. The section marker lines are not taken out (`answer.includes` leaves them out of
    what it shows)."""
    if ranges:
        out = []
        for part in ranges.split(","):
            first, colon, last = part.partition(":")
            a = int(first) if first else 1
            b = (int(last) if last else count) if colon else a
            out.append((min(max(a, 1) - 1, count), max(min(b, count), min(max(a, 1) - 1, count))))
        return out
    if section:
        start = next((k for k, x in enumerate(lines) if (m := SECTION_MARK.search(x)) and m.groups() == ("start", section)),
                     None)
        if start is not None:
            end = next((k for k in range(start + 1, count) if (m := SECTION_MARK.search(lines[k]))
                        and m.groups() == ("end", section)), count)
            return [(start + 1, end)]
    return [(0, count)]


def _read(argument: str, path: str, folder: Path, file_filter: FileFilter, max_file_bytes: int,
          stack: tuple[str, ...], exp: Expansion, budget: list[int], markdown: bool = False,
          snippet: bool = False) -> tuple[str, str] | None:
    """(index key, text) of the file an include `argument` in file `path` names, when it may be spliced in."""
    doc = folder / key_path(path)
    if snippet:
        found = snippet_target(argument, doc, folder, file_filter)
        target = found[0] if found is not None else None
    else:
        target = (_markdown_target if markdown else include_target)(argument, doc, folder, file_filter)
    if target is None:
        return None
    key = PurePosixPath(target.relative_to(folder).as_posix()).as_posix()
    if key in stack or not file_filter.included(key):
        return None
    if budget[1] <= 0:
        return None
    budget[1] -= 1
    loaded = load_file(folder, key, max_file_bytes, confined=True)
    if isinstance(loaded, Skipped) or len(loaded.text) > budget[0]:
        exp.wanted.add(key)
        return None
    budget[0] -= len(loaded.text)
    return key, loaded.text


def _markdown_target(argument: str, doc: Path, folder: Path, file_filter: FileFilter) -> Path | None:
    """The file a MkDocs include `argument` of the page `doc` names: relative to the page's folder (as
    include-markdown reads it), else to the nearest folder above it, up to the indexed `folder`, that holds it (the
    MkDocs project or docs folder: Traefik's `includes/notice.md` from `content/`); `include_target`'s rules apply
    to each. When none holds it, the page folder's answer (so a page is read again when it appears:
    `Expansion.wanted`); None when that is refused."""
    here = include_target(argument, doc, folder, file_filter)
    if here is None or here.is_file() or argument.startswith("/"):
        return here
    for base in doc.parents:
        if base != doc.parent and (base == folder or folder in base.parents):
            found = include_target(argument, doc, folder, file_filter, base)
            if found is not None and found.is_file():
                return found
        if base == folder:
            break
    return here


def _cut(lines: list[str], options: dict[str, str]) -> list[tuple[int, list[str]]]:
    """[(0-based first line, lines)] of an included file's `lines` as the include's options cut them: a snippet's
    stretches (`snippet_lines`, its name in option "snippet"), else one stretch."""
    if "snippet" in options:
        m = SNIPPET_CUT.match(options["snippet"].strip())
        spans = snippet_lines(len(lines), m.group(2) or "", m.group(3) or "", lines) if m else [(0, len(lines))]
        return [(a, lines[a:b]) for a, b in spans if b > a]
    try:
        first, last, _ = slice(int(options["start-line"]) if options.get("start-line") else None,
                               int(options["end-line"]) if options.get("end-line") else None).indices(len(lines))
    except ValueError:
        first, last = 0, len(lines)
    last = max(first, last)
    if options.get("start-after"):
        at = next((i for i in range(first, last) if options["start-after"] in lines[i]), None)
        first = at + 1 if at is not None else first
    if options.get("end-before"):
        at = next((i for i in range(first, last) if options["end-before"] in lines[i]), None)
        last = at if at is not None else last
    return [(first, lines[first:last])]
