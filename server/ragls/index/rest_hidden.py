"""reST explicit markup that no reader sees as text: comments, hyperlink targets and substitution definitions.

A Sphinx project can keep hundreds of substitution definitions in a file of their own (Hypothesis' `prolog.rst`:
234 `.. |st.composite| replace:: ...` lines, read into every page through `rst_prolog` and excluded from the build).
Such a file's chunks are all API names, so BM25 ranks them first for any question naming one (three of the first five
hits for "How do I disable the deadline for slow tests?"), while an answer reads nothing in them
(`answer.markup._rest_hidden` empties the same markup). `hidden_only` tells the chunker such a chunk holds nothing
to find or cite.
"""

from __future__ import annotations

import re

from ragls.core.analysis import LINE_ENDS

# An explicit markup line (docutils: ".." then whitespace or the line's end) and, in group 2, what follows the dots.
# A CRLF file's lines keep their CR (split on LF): it counts as the line's end here, in SHOWN and ANONYMOUS_TARGET,
# or ".. note::\r" read as a comment and its body was hidden.
EXPLICIT = re.compile(r"^([ \t]*)\.\.(?:[ \t]+(\S.*?))?[ \t\r]*$")
# What follows the dots of an explicit markup block that is shown: a directive ("note::", "code-block:: python") or a
# footnote / citation ("[1]", "[#note]"). Any other block is a comment, a target ("_label:") or a substitution
# definition ("|name| replace:: ...").
SHOWN = re.compile(r"^(?:[A-Za-z0-9][\w:.+-]*[ ]?::(?:[ \t\r]|$)|\[[^\]\s]+\](?:[ \t\r]|$))")
# docutils' short anonymous hyperlink target: "__ url" is ".. __: url" written short, hidden like it.
ANONYMOUS_TARGET = re.compile(r"^[ \t]*__[ \t]+\S+[ \t\r]*$")


def indent(line: str) -> int:
    """The width of `line`'s leading whitespace, tabs expanded (an explicit markup block's body may be indented by
    tabs); also how `answer.markup` measures the blocks it empties."""
    return len(line.expandtabs()) - len(line.expandtabs().lstrip())


def hidden_only(text: str) -> bool:
    """True when every non-blank line of the reST `text` belongs to a hidden explicit markup block: a comment, a
    hyperlink target (also "__ url", `ANONYMOUS_TARGET`) or a substitution definition (`EXPLICIT` not `SHOWN`) with the lines indented under it. False
    for text with any other line (a heading, a sentence, a directive such as `.. note::`)."""
    outer = None  # the indent of the hidden block the lines below may continue
    seen = False
    for line in LINE_ENDS.split(text):  # a lone CR ends a line: an old Mac page is not one comment line
        if not line.strip():
            continue
        m = EXPLICIT.match(line)
        if ANONYMOUS_TARGET.match(line) or m is not None and not (m.group(2) and SHOWN.match(m.group(2))):
            outer, seen = indent(line), True
        elif outer is None or indent(line) <= outer:
            return False
    return seen


def first_shown(text: str) -> int:
    """The offset in reST `text` of its first non-blank line outside a hidden explicit markup block (`hidden_only`:
    a comment, a hyperlink target, a substitution definition, with the lines indented under it); `len(text)` when
    there is none. A section's label (`.. _update-cmd:`) stands before its heading: a chunk opening on the label
    opens on that section."""
    outer = None  # the indent of the hidden block the lines below may continue
    at = 0
    for line in text.splitlines(keepends=True):
        if line.strip():
            m = EXPLICIT.match(line.rstrip("\r\n"))
            if ANONYMOUS_TARGET.match(line) or m is not None and not (m.group(2) and SHOWN.match(m.group(2))):
                outer = indent(line)
            elif outer is None or indent(line) <= outer:
                return at
        at += len(line)
    return len(text)
