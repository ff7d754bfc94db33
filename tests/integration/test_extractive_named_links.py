"""Extractive answers on a real index with the offline model (`RagWorkspace.ask`), and the passage reader they quote
(`passages.units`): a link whose text is a package or tool name ("`pagewatch-server`_", "[cors-gate]") reads as
code (`inline._named`), so the sentence naming it is recognised as naming the means (`neighbours.explains`) and is
read with the sentence it completes; an English compound as a link text ("open-source") stays prose. The later
sentences of a paragraph that opens by defining a name in code — an object description's body, "`cache_limit`: ..."
(answer/rest.py) — are led by that name (`labels.paragraph_label`), and so are its later paragraphs."""

from __future__ import annotations

import pytest
from offline_index import extractive_workspace
from ragls.answer.passages import units

PREVIEW = """Building the pages
==================

Run the build with the name of the output format, for example ``make html``; the pages land in the build folder.

Live preview
------------

You can also build a live version of the site that you can preview in the browser.
It will detect changes and reload the page any time you make edits.
To do so, use `pagewatch-server`_ to run the following command:

.. code-block:: console

   $ pagewatch-server source-dir output-dir

.. _pagewatch-server: https://example.org/pagewatch-server
"""

CACHE = """Cache settings
==============

.. confval:: cache_limit
   :type: int

   The number of entries the build keeps in memory.  Older entries are written
   to disk when the cache is full, and read back from there when a page needs them.

.. confval:: cache_folder
   :type: str

   The folder the cache writes its files to, relative to the output folder.

.. confval:: cache_max_age
   :type: int

   How many seconds a cached page stays valid before it is read again.

   If ``None``, every page is compared with its source file on each build,
   which is slower but never shows a stale page.

   Default: ``None``
"""


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    with extractive_workspace(tmp_path_factory.mktemp("named_links"),
                              {"preview.rst": PREVIEW, "cache.rst": CACHE}) as w:
        yield w


def test_a_tool_named_by_a_link_completes_the_quoted_sentence(ws):
    """"To do so, use `pagewatch-server` ..." shares no word with the question; the tool's name, a link in the
    source, reads as code, so the sentence names the means and is quoted with the one it completes."""
    answer = ws.ask("Rerunning the build and hitting refresh after every edit is tedious. Can I get a local preview "
                    "that reloads the browser by itself?").text
    assert "reload the page any time you make edits. To do so, use `pagewatch-server`" in answer, answer


def test_a_later_sentence_of_an_object_description_is_led_by_its_name(ws):
    """The answering sentence is the second of `cache_limit`'s description, which never repeats the name."""
    answer = ws.ask("What happens to older entries once the cache is full?").text
    assert "`cache_limit`: Older entries are written to disk when the cache is full" in answer, answer


def test_a_later_paragraph_of_an_object_description_is_led_by_its_name(ws):
    """The answering sentence opens the second paragraph of `cache_max_age`'s description (answer/rest.py
    `_later_paragraphs`): quoted without the name, "If `None`, every page is compared ..." names no setting."""
    answer = ws.ask("Can the build compare every page with its source file each time, so I never see a stale "
                    "page?").text
    assert "`cache_max_age`: If `None`, every page is compared with its source file on each build" in answer, answer


def test_an_object_descriptions_paragraphs_are_led_by_its_name_up_to_its_first_block():
    """Up to three paragraphs of the body, not a "Default:" line (read with the paragraph before it), not a short
    lead-in ("Example::", read with the paragraph before it) nor what follows the block it introduces."""
    text = (".. option:: --fast\n\n   Skips the checks.\n\n   It is meant for local runs only.\n\n"
            "   Default: off\n\n   Example::\n\n      tool --fast\n\n   Later words on something else.\n")
    found = [u.sentence for u in units(text, markdown=False)]
    assert found == ["`--fast`: Skips the checks.", "`--fast`: It is meant for local runs only. Default: off Example:",
                     "Later words on something else."], found


def test_link_names_read_as_code_and_english_compounds_as_prose():
    """Markdown links and reST references alike; "open-source" and "read-only" are English words joined."""
    found = [u.sentence for u in units(
        "The [cors-gate] package adds the headers, and [Ada Smith][ada] maintains it as an [open-source](x.md)\n"
        "project.\n\nUse the [read-only](y.md) mode to look, or the [sync_tool.py](z.md) script to copy.\n")]
    assert found[0] == "The `cors-gate` package adds the headers, and Ada Smith maintains it as an open-source project."
    assert found[1] == "Use the read-only mode to look, or the `sync_tool.py` script to copy."
    rest = [u.sentence for u in units("Install `mkdocs-tabs`_ or `Sentry <https://sentry.io>`_ first.\n", markdown=False)]
    assert rest == ["Install `mkdocs-tabs` or Sentry first."]
