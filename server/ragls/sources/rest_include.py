"""reST's `.. include::` resolved as Sphinx builds the page: the included file's text stands where the directive
was, so a reader of the index finds it on the page that shows it (Borg keeps every command reference in a
`usage/create.rst.inc` that `usage/create.rst` includes; restic's `100_references.rst` includes `design.rst`).

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


def include_target(argument: str, doc: Path, folder: Path, file_filter: FileFilter) -> Path | None:
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
    checked to exist."""
    if argument.startswith("<") and argument.endswith(">"):
        return None
    base = srcdir(doc, folder) if argument.startswith("/") else doc.parent
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


def expand(doc: Document, file_filter: FileFilter, max_file_bytes: int) -> Expansion:
    """`doc` (a reST page read from `file_filter`'s folder) with each `.. include::` directive line (and its option
    lines) replaced by the text of the file it names, as docutils reads it: relative to the including file (a
    fragment's own includes relative to the fragment), `:start-line:` / `:end-line:` (0-based, end exclusive),
    then `:start-after:` / `:end-before:` (whole lines: from the line after the one holding the marker, up to the
    line holding the end marker), nested up to MAX_DEPTH, a cycle left as written. An include is resolved only
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
    """The runs of file `path`'s `text` (its lines from `line0` on) with its includes spliced in."""
    lines = _lines(text)
    runs = [_Run(path, line0, [], literal)]
    if literal or len(stack) > MAX_DEPTH:
        runs[0].lines = lines
        return runs
    k = 0
    while k < len(lines):
        m = _INCLUDE.match(lines[k].rstrip("\r\n"))
        if m is None:
            runs[-1].lines.append(lines[k])
            k += 1
            continue
        options, end = {}, k + 1
        while end < len(lines) and (o := _OPTION.match(lines[end].rstrip("\r\n"))) \
                and len(o.group(0)) - len(o.group(0).lstrip()) > len(m.group(1)):
            options[o.group(1)] = o.group(2) or ""
            end += 1
        inner = _read(m.group(2), path, folder, file_filter, max_file_bytes, stack, exp, budget)
        if inner is None:
            runs[-1].lines.extend(lines[k:end])
            k = end
            continue
        key, body = inner
        first, cut = _cut(_lines(body), options)
        is_literal = "literal" in options or "code" in options
        exp.included.add(key)
        runs += _splice(key, "".join(cut), first, is_literal, (*stack, key), folder, file_filter, max_file_bytes,
                        exp, budget)
        runs.append(_Run(path, line0 + end, []))
        k = end
    return runs


def _read(argument: str, path: str, folder: Path, file_filter: FileFilter, max_file_bytes: int,
          stack: tuple[str, ...], exp: Expansion, budget: list[int]) -> tuple[str, str] | None:
    """(index key, text) of the file an include `argument` in file `path` names, when it may be spliced in."""
    target = include_target(argument, folder / key_path(path), folder, file_filter)
    if target is None:
        return None
    key = PurePosixPath(target.relative_to(folder).as_posix()).as_posix()
    if key in stack or not file_filter.included(key):
        return None
    if budget[1] <= 0:
        return None
    budget[1] -= 1
    loaded = load_file(folder, key, max_file_bytes)
    if isinstance(loaded, Skipped) or len(loaded.text) > budget[0]:
        exp.wanted.add(key)
        return None
    budget[0] -= len(loaded.text)
    return key, loaded.text


def _cut(lines: list[str], options: dict[str, str]) -> tuple[int, list[str]]:
    """(0-based first line, lines) of an included file's `lines` as the include's options cut them."""
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
    return first, lines[first:last]
