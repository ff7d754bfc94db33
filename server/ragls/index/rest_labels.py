"""The section labels of a reST page: Sphinx renders a title-less ":ref:`label`" as the title of the section the
hyperlink target `.. _label:` stands above, so the index keeps {label: section title} per indexed reST file
(`stores.manifest.Manifest.replace_files`' `labels`, replaced and dropped with the file's chunks), and the
extractive answer reads a label's title from there (`answer.ref_titles`), never from the folder at answer time.
"""

from __future__ import annotations

import re

from ragls.core.ir import Document
from ragls.index.headings import ADORNMENT
from ragls.sources.load import markup_extension

__all__ = ["REST_LABEL_EXTENSIONS", "document_labels", "norm_label", "section_labels"]

#: The extensions of the files whose labels are kept: Sphinx's reST sources (".txt" too: Django-style docs).
REST_LABEL_EXTENSIONS = frozenset({"rst", "rest", "txt"})
# A hyperlink target naming a place in a page: ".. _label:" (docutils; "`...`" quotes a label holding a colon).
_TARGET = re.compile(r"^\.\. _(?:`([^`]+)`|([^`:][^:]*)):[ \t]*$")


def norm_label(label: str) -> str:
    """A label as Sphinx looks it up: lower case, runs of whitespace as one space (docutils `fully_normalize_name`)."""
    return " ".join(label.lower().split())


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
            pending.append(norm_label(m.group(1) or m.group(2)))
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


def document_labels(doc: Document) -> dict[str, str]:
    """`section_labels` of a document being indexed, when it is a reST file (`REST_LABEL_EXTENSIONS`, by
    `sources.load.markup_extension`) — its text as indexed, with the text of the files it includes (`index.inclusion`)
    and its secrets masked when `sources.exclude_secrets` is on —; {} for any other document, and for a web page."""
    if "://" in doc.path or markup_extension(doc.path) not in REST_LABEL_EXTENSIONS or ".. _" not in doc.text:
        return {}
    return section_labels(doc.text.split("\n"))
