"""A plain `.txt` file is plain text, not reST (answer/blocks.py `chunk_markdown`): its backslashes are shown as
written ("D:\\_cache", "\\\\fileserver\\builds" were read as reST escapes: "D:_cache", "\\fileserver\\builds"),
while a `.txt` that is reST — included by a reST page, or writing a directive, a role or an inline literal —
still reads its escapes as reST does. Real stores (tantivy, LanceDB), the offline model, `RagWorkspace.ask` without
an LLM."""

from __future__ import annotations

import pytest
from offline_index import extractive_workspace
from ragls.answer.blocks import chunk_markdown
from ragls.core.ir import Chunk, LineSpan
from ragls.embedding.embed import offline_model_dir

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

PLAIN = r"""Build cache on Windows
======================

The build agents keep their compiler cache in D:\_cache on the second disk.
Nightly artifacts are copied to \\fileserver\builds\nightly by the scheduler.
"""
INSTALL = """Installing the hub
==================

.. include:: includes/env.txt
"""
ENV = r"""The hub reads its options from environment variables prefixed with HUBSERVER\_ and
dashes replaced by underscores.
"""
MAN = r"""Options
-------

The ``report`` command takes these options:

    \-i, --ignore-errors
        Ignore errors while reading the measured source files.
"""


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    files = {"ops/cache.txt": PLAIN, "install.rst": INSTALL, "includes/env.txt": ENV, "man/report.1.txt": MAN}
    with extractive_workspace(tmp_path_factory.mktemp("plaintxt"), files) as ws:
        yield ws


def test_a_plain_text_file_keeps_its_backslashes(ws):
    answer = ws.ask("Where do the build agents keep their compiler cache on Windows?").text
    shown = answer.split("Sources:")[0]
    assert "compiler cache in D:\\_cache on the second disk" in shown, answer
    answer = ws.ask("Where are the nightly artifacts copied to by the scheduler?").text
    assert "copied to \\\\fileserver\\builds\\nightly by the scheduler" in answer.split("Sources:")[0], answer


def test_a_txt_file_a_rest_page_includes_reads_its_escapes_as_rest(ws):
    answer = ws.ask("Which prefix do the hub's environment variables have?").text
    assert "prefixed with HUBSERVER_ and" in answer.split("Sources:")[0], answer


@pytest.mark.parametrize(("path", "text", "included_in", "read"), [
    ("ops/cache.txt", PLAIN, "", None),  # an underlined title is no reST mark: plain text writes one as often
    ("includes/env.txt", ENV, "install.rst", False),
    ("includes/env.txt", ENV, "", None),
    ("man/report.1.txt", MAN, "", False),  # an inline literal
    ("notes.txt", "See :ref:`install` first.\n", "", False),
    ("notes.txt", "Intro\n\n.. note::\n\n   Careful.\n", "", False),
    ("_sources/index.rst.txt", "Title\n=====\n\nC:\\_x\n", "", False),  # Sphinx's copy of a page's source
    ("guide.rst", PLAIN, "", False),
    ("guide.md", PLAIN, "", True),
    ("snippets/links.txt", "[a]: https://example.com\n", "index.md", None),
])
def test_how_a_chunk_is_read(path, text, included_in, read):
    chunk = Chunk(id="c", path=path, text=text, span=LineSpan(0, 0, 1, 0), text_hash="h", included_in=included_in)
    assert chunk_markdown(chunk) is read


@pytest.mark.timeout(60)
def test_a_run_of_colons_is_read_in_linear_time():
    """`_REST_MARK`'s role (":ref:`x`") was tried from every colon of a run to the run's end: ":a" repeated 100,000
    times in a `.txt` chunk (a table of addresses, a divider) took minutes, at every reading of the chunk. A role's
    name has at most three parts now; the verdicts are the same (every 40-line piece of the 9 dev sets' .txt files
    read alike). The timeout is a hang guard."""
    for text in (":a" * 100_000, ":" * 200_000, "a:" * 100_000):
        chunk = Chunk(id="c", path="notes.txt", text=text, span=LineSpan(0, 0, 1, 0), text_hash="h")
        assert chunk_markdown(chunk) is None
    roles = Chunk(id="c", path="notes.txt", text=":a" * 1_000 + " see :py:meth:`x`", span=LineSpan(0, 0, 1, 0),
                  text_hash="h")
    assert chunk_markdown(roles) is False
