"""reST include fragments (`name.rst.inc`, the text a page pulls in with `.. include::`): indexed by default and read
as reST, with the real offline model and a real index. Symfony keeps the docs of every form option in such files
(reference/forms/types/options/*.rst.inc), QEMU its device pages, Borg its generated command usages; before, the
default `sources.include` left them out, so the page held only its directive line and the option was nowhere."""

from __future__ import annotations

from offline_index import extractive_workspace

PAGE = """.. include:: init.rst.inc

This command initializes an empty repository. A repository is a filesystem directory containing the
deduplicated data from zero or more archives.
"""

FRAGMENT = """.. _tool_init:

tool init
---------
.. code-block:: none

    tool [common options] init [options] [REPOSITORY]

Description
~~~~~~~~~~~

This command initializes an empty repository.

Options
    ``-e MODE``, ``--encryption MODE``
        select encryption key mode **(required)**
    ``--append-only``
        create an append-only mode repository; existing data can never be deleted or overwritten
    ``--storage-quota QUOTA``
        set storage quota of the new repository (e.g. 5G, 1.5T)
"""


def test_an_include_fragment_is_indexed_and_read_as_rest(tmp_path):
    """The fragment is a source of its own (cited at its own lines), and its reST definition list reads as
    "term: definition", not as a Markdown code block of the indented lines."""
    files = {"conf.py": "project = 'tool'\n", "usage/init.rst": PAGE, "usage/init.rst.inc": FRAGMENT}
    with extractive_workspace(tmp_path, files) as ws:
        answer = ws.ask("How do I create an append-only repository where data can never be deleted?")
        assert "usage/init.rst.inc" in [h.chunk.path for _, h in answer.sources], answer.sources
        assert "`--append-only`: create an append-only mode repository" in answer.text, answer.text
        assert "```" not in answer.text, answer.text
