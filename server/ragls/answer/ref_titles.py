"""A Sphinx cross-reference without a title read as the section title it links to: Sphinx renders
":ref:`gh_actions-psr-inputs-strict`" as the title of the section the label `.. _gh_actions-psr-inputs-strict:`
stands above ("strict"), and the answer showed the label itself ("see gh_actions-psr-inputs-strict", PSR's
docs). `section_refs` puts the title in the text, as its writer could have (":ref:`label`" -> the title's
reST, "``strict``"), when an indexed reST page of the same folder defines the label: the index keeps each page's
labels with its chunks (`index.rest_labels`, `stores.manifest.Manifest.section_titles`), so a page added or edited
since the server started is read as indexed, and no file is read at answer time. A label that is no section's (a
figure's, a code block's), or is not found, keeps today's rendering (`rest.rest_role`: the label).
"""

from __future__ import annotations

import re

from ragls.answer.rest_literals import literal_lines
from ragls.index.rest_labels import norm_label
from ragls.sources.walk import FileFilter

__all__ = ["section_refs"]

# A title-less `:ref:` role on one line (":ref:`label`", also ":std:ref:`label`"): no "<" (no explicit title).
_BARE_REF = re.compile(r":(?:std:)?ref:`([^`<>\n]+)`")
# Lines of a table whose columns are where its borders put them (a grid table's "|" and "+" lines, a simple
# table's "=== ===" border): a title longer or shorter than the label would move the cells after it.
_GRID_LINE = re.compile(r"^[ \t]*[|+]")
_SIMPLE_BORDER = re.compile(r"^[ \t]*=+(?:[ \t]+=+)+[ \t]*$", re.MULTILINE)
# A list item that is only a cross-reference ("- :ref:`label`", a `.. seealso::` or contents list): a link to
# another section, whose title is that section's words, not this page's; it keeps the label (one word, never quoted).
_LINK_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d+[.)]|#\.)[ \t]+:(?:std:)?ref:`[^`<>\n]+`[ \t.,;]*$")


def section_refs(text: str, path: str, files: FileFilter | None = None) -> str:
    """`text` (a reST chunk's text, of the file `path` — an index key) with each title-less ":ref:`label`" replaced
    by the title, as written, of the section that label's target (`.. _label:`) stands right above (blank lines
    and other targets between), as the open index of the chunk's folder keeps it (`files`: that index's filter,
    whose `section_titles` reads the manifest; `path`'s own label first, else the first page's by path). `text`
    unchanged when `files` is None or has no index. Lines of grid and simple tables keep the role (`_GRID_LINE`),
    and so do literal blocks (`rest_literals.literal_lines`) and inline literals (there a role is shown as written)
    and a list item that is only the role (`_LINK_ITEM`: a link list, no answer; the label as before). Same number
    of lines; one manifest query per text holding a role."""
    lookup = files.section_titles if files is not None else None
    if ":ref:`" not in text or lookup is None or "://" in path:
        return text
    simple = bool(_SIMPLE_BORDER.search(text))
    lines = text.split("\n")
    code = literal_lines(text)
    shown = [i for i, line in enumerate(lines) if ":ref:`" in line and not simple and not code[i]
             and not _GRID_LINE.match(line) and not _LINK_ITEM.match(line)]
    wanted = {norm_label(m.group(1)) for i in shown for m in _BARE_REF.finditer(lines[i])}
    titles = lookup(wanted, path) if wanted else {}
    if not titles:
        return text

    def title(m: re.Match[str]) -> str:
        if m.string[m.start() - 1:m.start()] == "`":  # inside an inline literal (``:ref:`x```): shown as written
            return m.group(0)
        return titles.get(norm_label(m.group(1))) or m.group(0)

    for i in shown:
        lines[i] = _BARE_REF.sub(title, lines[i])
    return "\n".join(lines)
