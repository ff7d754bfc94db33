"""`Document.origin_at`: the stretch of a reST page's resolved text (its includes, `Document.origins`) that holds a
character offset, its starts listed once per document."""

from __future__ import annotations

import dataclasses

from ragls.core.ir import Document, Origin


def test_origin_at_finds_the_stretch_of_an_offset():
    origins = (Origin(0, "index.rst", 0), Origin(10, "usage.inc", 0), Origin(25, "index.rst", 3, literal=False))
    doc = Document(folder="/docs", path="index.rst", text="x" * 40, content_hash="h", origins=origins)
    assert [doc.origin_at(n) for n in (0, 9, 10, 24, 25, 40)] == [origins[0], origins[0], origins[1], origins[1],
                                                                    origins[2], origins[2]]
    assert doc._origin_starts is doc._origin_starts == [0, 10, 25]  # listed once, not per call
    plain = dataclasses.replace(doc, origins=())  # a copy lists its own
    assert plain.origin_at(7) == Origin(0, "index.rst", 0)
    moved = dataclasses.replace(doc, origins=(Origin(0, "index.rst", 0), Origin(5, "usage.inc", 0)))
    assert moved.origin_at(7) == Origin(5, "usage.inc", 0)
