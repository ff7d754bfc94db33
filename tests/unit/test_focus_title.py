"""A source's title is the section of its focus lines, also for a Markdown chunk that packs sibling sections, and
an abstained answer's closest matches show the focus lines (issue 27). Real chunker, no model."""

from __future__ import annotations

from ragls.index.chunking import chunk_document
from ragls.index.titles import focus_title
from ragls.lsp.wire import to_wire_source
from ragls.retrieval.focus import line_span
from ragls.sources.load import load_text

GUIDE = """# Guide

## Retries

The client retries a failed request three times.

```python
# a comment, not a heading
client = Client(retries=5)
```

## Timeouts

Every request waits at most five seconds.

### Pool timeout

Waiting for a free connection raises `PoolTimeout`.
"""


def _chunk():
    chunks = chunk_document(load_text("guide.md", GUIDE))
    assert len(chunks) == 1 and chunks[0].title == "Guide"  # the sibling sections share one chunk
    return chunks[0]


def _line(text: str) -> int:
    return next(i for i, line in enumerate(GUIDE.splitlines()) if text in line)


def test_markdown_focus_title_is_the_heading_path_of_the_focus_section():
    chunk = _chunk()
    assert focus_title(chunk, _line("waits at most five")) == "Guide > Timeouts"
    assert focus_title(chunk, _line("raises `PoolTimeout`")) == "Guide > Timeouts > Pool timeout"
    assert focus_title(chunk, _line("a comment, not a heading")) == "Guide > Retries"  # "#" in code is no heading
    assert focus_title(chunk, 0) == "Guide"


def test_closest_matches_show_the_focus_lines_and_their_section():
    """An abstained answer's closest matches are its sources: each carries its focus lines and their section."""
    chunk = _chunk()
    at = _line("raises `PoolTimeout`")
    src = to_wire_source(chunk, line_span(chunk, at, at))
    assert src["title"] == "Guide > Timeouts > Pool timeout"
    assert src["focusRange"]["start"]["line"] == at and src["focusRange"]["end"]["line"] == at
    assert to_wire_source(chunk)["title"] == "Guide"  # no focus: the chunk's title
