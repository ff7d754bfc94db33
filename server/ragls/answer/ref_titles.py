"""A Sphinx cross-reference without a title read as the section title it links to: Sphinx renders
":ref:`gh_actions-psr-inputs-strict`" as the title of the section the label `.. _gh_actions-psr-inputs-strict:`
stands above ("strict"), and the answer showed the label itself ("see gh_actions-psr-inputs-strict", PSR's
docs). `section_refs` puts the title in the text, as its writer could have (":ref:`label`" -> the title's
reST, "``strict``"), when the label is defined in a reST file of the same indexed folder, read through the
index's own read-back path (`sources.passage.read_back`: inside the folder, no secret file). A label that is no
section's (a figure's, a code block's), or is not found, keeps today's rendering (`rest.rest_role`: the label).
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path

from ragls.answer.rest_literals import literal_lines
from ragls.config.settings import SourcesSettings
from ragls.core.uris import key_path
from ragls.index.headings import ADORNMENT
from ragls.sources.load import markup_extension
from ragls.sources.walk import FileFilter, walk

__all__ = ["section_refs"]

_REST_EXTENSIONS = frozenset({"rst", "rest", "txt"})
# A hyperlink target naming a place in a page: ".. _label:" (docutils; "`...`" quotes a label holding a colon).
_TARGET = re.compile(r"^\.\. _(?:`([^`]+)`|([^`:][^:]*)):[ \t]*$")
# A title-less `:ref:` role on one line (":ref:`label`", also ":std:ref:`label`"): no "<" (no explicit title).
_BARE_REF = re.compile(r":(?:std:)?ref:`([^`<>\n]+)`")
# Lines of a table whose columns are where its borders put them (a grid table's "|" and "+" lines, a simple
# table's "=== ===" border): a title longer or shorter than the label would move the cells after it.
_GRID_LINE = re.compile(r"^[ \t]*[|+]")
_SIMPLE_BORDER = re.compile(r"^[ \t]*=+(?:[ \t]+=+)+[ \t]*$", re.MULTILINE)
# A list item that is only a cross-reference ("- :ref:`label`", a `.. seealso::` or contents list): a link to
# another section, whose title is that section's words, not this page's; it keeps the label (one word, never quoted).
_LINK_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d+[.)]|#\.)[ \t]+:(?:std:)?ref:`[^`<>\n]+`[ \t.,;]*$")


def _norm(label: str) -> str:
    """A label as Sphinx looks it up: lower case, runs of whitespace as one space (docutils `fully_normalize_name`)."""
    return " ".join(label.lower().split())


def section_refs(text: str, path: str, folder: str, files: FileFilter | None = None) -> str:
    """`text` (a reST chunk's text, of the file `path` — an index key — in the indexed `folder`) with each
    title-less ":ref:`label`" replaced by the title, as written, of the section that label's target
    (`.. _label:`) stands right above (blank lines and other targets between), when such a target is in `path`
    itself or another reST file (.rst, .rest, .txt) of `folder` that `files` (the folder's open index's filter;
    default sources settings when None) takes. Lines of grid and simple tables keep the role (`_GRID_LINE`), and
    so do literal blocks (`rest_literals.literal_lines`) and inline literals (there a role is shown as written) and a
    list item that is only the role (`_LINK_ITEM`: a link list, no answer; the label as before). Same
    number of lines. Labels are found per file version (`_file_titles`, memoised per size and mtime) and, across
    the folder, per folder (`_label_files`, one walk per process and filter: a label first written in a new file
    later reads as before, the label, until the server restarts)."""
    if ":ref:`" not in text or not folder or "://" in path:
        return text
    simple = bool(_SIMPLE_BORDER.search(text))

    def title(m: re.Match[str]) -> str:
        if m.string[m.start() - 1:m.start()] == "`":  # inside an inline literal (``:ref:`x```): shown as written
            return m.group(0)
        label = _norm(m.group(1))
        found = _title_in(folder, path, label)
        if found is None:
            rel = _label_files(folder, files).get(label)
            found = _title_in(folder, rel, label) if rel and rel != path else None
        return found if found else m.group(0)

    lines = text.split("\n")
    code = literal_lines(text)
    for i, line in enumerate(lines):
        if ":ref:`" in line and not simple and not code[i] and not _GRID_LINE.match(line) \
                and not _LINK_ITEM.match(line):
            lines[i] = _BARE_REF.sub(title, line)
    return "\n".join(lines)


def _title_in(folder: str, rel: str, label: str) -> str | None:
    """The section title `label` targets in the file `rel` of `folder` as it is now, or None."""
    try:
        st = os.stat(os.path.join(folder, key_path(rel)))
    except (OSError, ValueError):
        return None
    return _file_titles(folder, rel, st.st_size, st.st_mtime_ns).get(label)


@functools.lru_cache(maxsize=256)
def _file_titles(folder: str, rel: str, size: int, mtime_ns: int) -> dict[str, str]:
    """{normalised label: section title as written} of the reST file `rel` of `folder`, read as the index reads it
    (`sources.passage.read_back`, at most `ANSWER_READ_BACK_MAX_BYTES`); {} when not read. Memoised per (file,
    `size` in bytes, `mtime_ns`). Callers do not modify the dict."""
    from ragls.core.errors import Skipped
    from ragls.sources.passage import ANSWER_READ_BACK_MAX_BYTES, read_back

    if markup_extension(rel) not in _REST_EXTENSIONS:
        return {}
    doc = read_back(folder, rel, ANSWER_READ_BACK_MAX_BYTES)
    return {} if isinstance(doc, Skipped) else section_labels(doc.text.split("\n"))


def section_labels(lines: list[str]) -> dict[str, str]:
    """{normalised label: title} of the hyperlink targets (`.. _label:`) in reST `lines` that stand right above a
    section title (blank lines and other targets between; docutils: a target before a section points at it): a
    title line with an adornment (`headings.ADORNMENT`) under it at least as long, or over and under it. A target
    above anything else (a paragraph, a figure, a directive) is left out: Sphinx needs an explicit title there."""
    out: dict[str, str] = {}
    pending: list[str] = []
    for i, line in enumerate(lines):
        m = _TARGET.match(line)
        if m:
            pending.append(_norm(m.group(1) or m.group(2)))
            continue
        if not line.strip() or not pending:
            continue
        over = ADORNMENT.fullmatch(line.rstrip()) is not None
        k = i + 1 if over else i
        title = lines[k].strip() if k < len(lines) else ""
        under = lines[k + 1].rstrip() if k + 1 < len(lines) else ""
        if title and not title.startswith("..") and ADORNMENT.fullmatch(under) and len(under) >= len(title):
            for label in pending:
                out.setdefault(label, title)
        pending = []
    return out


@functools.lru_cache(maxsize=16)
def _label_files(folder: str, files: FileFilter | None) -> dict[str, str]:
    """{normalised label: the reST file (index key) whose section it targets} over `folder`'s files as `files`
    (the open index's filter; default sources settings when None) walks them (`sources.walk.walk`, a new filter:
    the open one's walk state is the watcher's). The first file in walk order wins. Memoised per folder and filter."""
    settings = files.settings if files is not None else SourcesSettings()
    out: dict[str, str] = {}
    for rel in walk(Path(folder), settings):
        if markup_extension(rel) not in _REST_EXTENSIONS:
            continue
        try:
            st = os.stat(os.path.join(folder, key_path(rel)))
        except (OSError, ValueError):
            continue
        for label in _file_titles(folder, rel, st.st_size, st.st_mtime_ns):
            out.setdefault(label, rel)
    return out
