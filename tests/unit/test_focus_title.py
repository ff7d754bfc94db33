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


def test_a_page_headed_under_its_front_matter_names_its_heading_once():
    """lefthook's pages open with front matter titled as their "# " heading: the sources read "parallel >
    parallel" and "group > group > Example" (the chunk's title is the heading; the heading path repeated it, as
    the heading was not on the chunk's first line)."""
    page = ('---\ntitle: "parallel"\n---\n\n# `parallel`\n\n**Default: `false`**\n\n'
            "Run commands and scripts concurrently.\n\n#### Example\n\n```yml\npre-commit:\n  parallel: true\n```\n")
    [chunk] = chunk_document(load_text("configuration/parallel.md", page))
    lines = page.splitlines()
    assert chunk.title == "parallel"
    assert focus_title(chunk, lines.index("Run commands and scripts concurrently.")) == "parallel"
    assert focus_title(chunk, lines.index("  parallel: true")) == "parallel > Example"
    # titled by its front matter alone, headed by the same words one level down ("lefthook run > lefthook run")
    page = ('---\ntitle: "lefthook run"\n---\n\n## `lefthook run`\n\nExecutes the commands of a hook.\n\n'
            "#### Example\n\n```bash\nlefthook run pre-commit\n```\n")
    [chunk] = chunk_document(load_text("usage/commands/run.md", page))
    lines = page.splitlines()
    assert focus_title(chunk, lines.index("Executes the commands of a hook.")) == "lefthook run"
    assert focus_title(chunk, lines.index("lefthook run pre-commit")) == "lefthook run > Example"


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


def _api_chunk(folder, name="api.rst"):
    """The chunk of `API` holding the "Timeouts" section's text, indexed as `name` of `folder`; (chunk, its line)."""
    from dataclasses import replace

    at = API.splitlines().index("Every request waits at most five minutes for a reply.")
    chunks = [replace(c, folder=str(folder)) for c in chunk_document(load_text(name, API))]
    [chunk] = [c for c in chunks if c.span.start_line <= at <= c.span.end_line]
    return chunk, at


def _guarded_focus_title(chunk, line, fifo=None):
    """focus_title in a thread, so that a read that blocks (the bug: open() on a FIFO) fails the test instead of
    hanging it; a FIFO left open is then unblocked by opening its write end. The wait is a failure guard only."""
    import os
    import threading

    out: list = []
    worker = threading.Thread(target=lambda: out.append(_call(focus_title, chunk, line)), daemon=True)
    worker.start()
    worker.join(60)
    blocked = worker.is_alive()
    if blocked and fifo is not None:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # the blocked reader now sees end of file
        worker.join(10)
    assert not blocked, "focus_title blocked"
    return out[0]


def _call(fn, *args):
    try:
        return fn(*args)
    except BaseException as exc:  # noqa: BLE001 - reported as the result (a MemoryError reading a device)
        return exc


def test_a_fifo_in_place_of_the_file_shows_the_section_and_does_not_block(tmp_path):
    """An indexed file replaced by a FIFO: open() on it would wait for a writer forever, hanging every rag/query
    showing it. Only regular files are read back (`sources.passage.read_back`): the section alone."""
    import os

    chunk, at = _api_chunk(tmp_path)
    os.mkfifo(tmp_path / "api.rst")
    assert _guarded_focus_title(chunk, at, fifo=tmp_path / "api.rst") == "Timeouts"


def test_a_symlink_to_a_device_shows_the_section(tmp_path):
    """`api.rst -> /dev/zero`: stat says 0 bytes, a read never ends (MemoryError). Not a regular file: not read."""
    chunk, at = _api_chunk(tmp_path)
    (tmp_path / "api.rst").symlink_to("/dev/zero")
    assert _guarded_focus_title(chunk, at) == "Timeouts"


def test_a_symlink_out_of_the_folder_is_not_read(tmp_path):
    """A folder is untrusted input: nothing may read outside it. `api.rst -> ../outside/s.rst` whose heading at the
    line is the same section under another parent must not show that parent (an editor's source, an MCP agent's
    tool result), nor may one to a secret file inside it; a symlink to a file inside the folder is read as the
    file."""
    folder, outside = tmp_path / "folder", tmp_path / "outside"
    folder.mkdir()
    outside.mkdir()
    (outside / "s.rst").write_text(API.replace("Client Session\n--------------", "Outside Secret\n--------------"))
    chunk, at = _api_chunk(folder)
    (folder / "api.rst").symlink_to(outside / "s.rst")
    assert _guarded_focus_title(chunk, at) == "Timeouts"
    (folder / "api.rst").unlink()
    (folder / ".env").write_text(API.replace("Client Session\n--------------", "Env Secret\n----------"))
    (folder / "api.rst").symlink_to(folder / ".env")  # a secret file is never read (sources.exclude_secrets)
    assert focus_title(chunk, at) == "Timeouts"
    (folder / "api.rst").unlink()
    (folder / "docs").mkdir()
    (folder / "docs" / "real.rst").write_text(API)
    (folder / "api.rst").symlink_to(folder / "docs" / "real.rst")
    assert focus_title(chunk, at) == "Client Session > Timeouts"


def test_a_file_with_too_many_headings_shows_the_section(tmp_path):
    """The display-time read is bounded (titles.FILE_PATH_MAX_HEADINGS and the other FILE_PATH_MAX_* bounds): a
    file of thousands of headings (the reviewer's: 4 MB, 450k headings, 2.5 s and 64 MB on first display) shows the
    section alone; the same file under the bound shows the path."""
    from ragls.index.titles import FILE_PATH_MAX_HEADINGS

    chunk, at = _api_chunk(tmp_path)
    many = "".join(f"Extra {n}\n{'-' * 12}\n\n" for n in range(FILE_PATH_MAX_HEADINGS))
    (tmp_path / "api.rst").write_text(API + "\n" + many)
    assert focus_title(chunk, at) == "Timeouts"
    (tmp_path / "api.rst").write_text(API + "\n" + many[:many.index("Extra 10\n")])
    assert focus_title(chunk, at) == "Client Session > Timeouts"
