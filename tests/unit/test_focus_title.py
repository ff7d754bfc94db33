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


def test_rest_focus_title_is_in_plain_words():
    """The section of a reST chunk's focus lines reads without inline markup, as the chunk's own title does."""
    text = ("Proxies\n=======\n\nA proxy manager tunnels requests.\n\n"
            ":class:`~urllib3.contrib.socks.SOCKSProxyManager`\n--------------------------------------------------\n\n"
            "Install PySocks first.\n")
    [chunk] = chunk_document(load_text("advanced.rst", text))
    assert chunk.title == "Proxies"
    assert focus_title(chunk, text.splitlines().index("Install PySocks first.")) == "SOCKSProxyManager"


def test_closest_matches_show_the_focus_lines_and_their_section():
    """An abstained answer's closest matches are its sources: each carries its focus lines and their section."""
    chunk = _chunk()
    at = _line("raises `PoolTimeout`")
    src = to_wire_source(chunk, line_span(chunk, at, at))
    assert src["title"] == "Guide > Timeouts > Pool timeout"
    assert src["focusRange"]["start"]["line"] == at and src["focusRange"]["end"]["line"] == at
    assert to_wire_source(chunk)["title"] == "Guide"  # no focus: the chunk's title


def test_the_cli_prints_one_line_as_the_editors_do():
    """`path:19` for a one-line location (not `path:19-19`), `path:19-21` for several; an end at character 0 of
    the next line ends the range on the line before (as the Neovim and VS Code clients print it)."""
    from ragls.cli.common import _chunk_lines, _line, lines_text

    def rng(a, b, end_char=5):
        return {"start": {"line": a, "character": 0}, "end": {"line": b, "character": end_char}}

    assert lines_text(rng(18, 18)) == "19" and lines_text(rng(18, 20)) == "19-21"
    assert lines_text(rng(18, 19, end_char=0)) == "19" and lines_text(rng(18, 18, end_char=0)) == "19"
    src = {"path": "animals.md", "uri": "file:///d/animals.md", "range": rng(10, 30), "focusRange": rng(18, 18)}
    assert _line(src) + _chunk_lines(src) == "animals.md:19  (chunk 11-31)"
    assert _line({**src, "focusRange": None}) + _chunk_lines({**src, "focusRange": None}) == "animals.md:11-31"


API = """Client Reference
================

Intro text of the page.

Client Session
--------------

A session holds a pool of connections.

Basic API
^^^^^^^^^

""" + "\n".join(f"Line {n} of the basic API, which opens and closes sessions and their connections." for n in range(40)) + """

Timeouts
^^^^^^^^

Every request waits at most five minutes for a reply.

Connectors
----------

A connector opens the connections.
"""


def test_rest_source_title_is_the_heading_path_read_from_the_file(tmp_path):
    """A reST chunk is indexed under its leaf section (a path there changed retrieval: aiohttp Key 25 -> 22); the
    source shows the path, read from the file at display time, as Markdown sources do. The lone top title names the
    page (docutils' document title): no part of the path. A file changed since it was indexed shows the leaf."""
    from dataclasses import replace

    (tmp_path / "api.rst").write_text(API)
    chunks = [replace(c, folder=str(tmp_path)) for c in chunk_document(load_text("api.rst", API))]
    lines = API.splitlines()
    at = lines.index("Every request waits at most five minutes for a reply.")
    [chunk] = [c for c in chunks if c.span.start_line <= at <= c.span.end_line]
    assert " > " not in chunk.title  # what is indexed is unchanged: the leaf section
    assert focus_title(chunk, at) == "Client Session > Timeouts"
    assert to_wire_source(chunk, line_span(chunk, at, at))["title"] == "Client Session > Timeouts"
    intro = lines.index("Intro text of the page.")
    [first] = [c for c in chunks if c.span.start_line <= intro <= c.span.end_line]
    assert focus_title(first, intro) == "Client Reference"
    assert focus_title(first, lines.index("A session holds a pool of connections.")) == "Client Session"
    (tmp_path / "api.rst").write_text(API.replace("Timeouts\n^^^^^^^^", "Deadlines\n^^^^^^^^^"))
    assert focus_title(chunk, at) == "Timeouts"  # the file changed: its heading there is no longer the section
    assert focus_title(replace(chunk, folder=""), at) == "Timeouts"  # no file behind it
