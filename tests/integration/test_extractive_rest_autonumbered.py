"""Extractive answers over reST's auto-numbered list items ("#."), anonymous link targets ("__ url") and index
entries (".. index::"), with the real offline model and a real index (answer/blocks.py `LIST_ITEM`,
answer/rest.py `list_line`, answer/markup.py `_rest_hidden`)."""

from __future__ import annotations

import pytest
from offline_index import extractive_workspace
from ragls.answer.passages import units

SETUP = """Writing pages in Markdown
=========================

.. index:: pair: markdown; parser
           single: pages
           pair: pages; writing

Pages can be written in Markdown instead of reStructuredText. The site reads
them through an extension of its own, which the build does not enable by
default.

__ https://example.org/markdown-guide
__ https://example.org/mdreader

To configure your project for Markdown pages, proceed as follows:

#. Install the Markdown reader *mdreader* into the environment the build
   runs in, with the package manager of your choice::

      pip install --upgrade mdreader

#. Add ``mdreader_pages`` to the list of enabled extensions in the
   configuration file::

      extensions = ['mdreader_pages']

#. If your Markdown files end in something other than ``.md``, map the
   ``page_suffixes`` setting to the reader.  The build then reads them as
   Markdown.
"""


@pytest.fixture(scope="module")
def setup_ws(tmp_path_factory):
    with extractive_workspace(tmp_path_factory.mktemp("autonumbered"), {"markdown.rst": SETUP}) as ws:
        yield ws


def test_an_auto_numbered_item_answers_whole_from_its_first_line(setup_ws):
    """"#." numbers a reST list item as "1." does; its first line was read as markup and dropped, so the item's
    answer began mid-sentence ("the `source_suffix` variable. ...", "standard *CommonMark* doesn't support.") and
    the name on that first line was never quoted (Sphinx's "#. Add *myst_parser* to the ...")."""
    answer = setup_ws.ask("Which extension do I enable to write pages in Markdown?")
    assert "`mdreader_pages`" in answer.text, answer.text
    item = next(line for line in answer.text.splitlines() if "page_suffixes" in line) \
        if "page_suffixes" in answer.text else ""
    assert not item or "If your Markdown files end in something other than `.md`, map the" in item, answer.text
    assert "#." not in answer.text, answer.text


def test_an_auto_numbered_list_under_a_lead_in_shows_as_markdown(setup_ws):
    """A ":" sentence carrying an auto-numbered list shows it as a Markdown numbered list, its literal-block marker
    read as reST renders it ("...*mdreader*::" -> "...*mdreader*:")."""
    answer = setup_ws.ask("How do I configure my project for Markdown pages?")
    assert "#." not in answer.text and "::" not in answer.text, answer.text
    if "proceed as follows [" in answer.text:
        lines = answer.text.splitlines()
        lead = next(k for k, line in enumerate(lines) if "proceed as follows [" in line)
        assert lines[lead + 1].lstrip().startswith("1. Install the Markdown reader"), answer.text


def test_index_entries_and_anonymous_targets_are_no_answer(setup_ws):
    """".. index::" entries ("single: doctest pair: testing; snippets" was quoted as a passage of Sphinx's doctest
    page) and "__ url" anonymous link targets (quoted as "__ https://... __ https://...") are not text a reader
    sees where they stand: no passage of the page holds them."""
    sentences = [u.sentence for u in units(SETUP, markdown=False)]
    assert sentences[0].startswith("Pages can be written in Markdown instead of reStructuredText."), sentences
    for markup in ("pair:", "single:", "__ ", "example.org"):
        assert not any(markup in s for s in sentences), sentences
    answer = setup_ws.ask("Can pages be written in Markdown, and does the build read them by default?")
    assert "Pages can be written in Markdown instead of reStructuredText" in answer.text, answer.text
