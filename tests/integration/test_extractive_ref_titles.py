"""A title-less Sphinx cross-reference (":ref:`label`") reads as the title of the section its label stands above,
as Sphinx renders it, when that label is defined in an indexed reST file of the same folder (answer/ref_titles.py,
`passages.chunk_units`; the labels are kept in the index with each page's chunks, index/rest_labels.py). Python
Semantic Release's upgrade notes showed "gh_actions-psr-inputs-strict" where the page shows "strict" (sr30). The
real offline model, a real index (its manifest), the real passage reader."""

from __future__ import annotations

from offline_index import extractive_workspace
from ragls.answer.ref_titles import section_refs
from ragls.config.settings import SourcesSettings
from ragls.index.rest_labels import section_labels
from ragls.sources.walk import FileFilter
from ragls.stores.manifest import FileRecord, Manifest

UPGRADE = """Upgrading to v10
================

The ``root_options`` parameter of the action was removed. To turn on strict mode and verbose logging for the
release job, set the :ref:`gh-inputs-strict` and :ref:`gh-inputs-verbosity` inputs of the action instead, as
described in :ref:`upgrade-notes`.

.. _upgrade-notes:

Notes on the removed parameter
------------------------------

Writing :ref:`label` in a page makes a link to a section, shown here as written::

    see :ref:`gh-inputs-strict`

The old behaviour of the tool is kept under :ref:`figure-old` when it is drawn.

.. _figure-old:

.. figure:: old.png

   The old flow.
"""

ACTION = """GitHub Actions
==============

.. _gh-inputs-strict:

``strict``
~~~~~~~~~~

If set to true, the action passes the ``--strict`` parameter to the command.

.. _gh-inputs-verbosity:
.. _gh-inputs-verbose:

``verbosity``
~~~~~~~~~~~~~

Sets the verbosity of the command's logging output, from 0 to 3.
"""


def test_section_labels_of_a_page():
    """Targets right above a section title (blank lines and other targets between, an overline too) map to it;
    a target above a figure does not; labels are compared as Sphinx does (lower case, one space)."""
    assert section_labels(ACTION.split("\n")) == {
        "gh-inputs-strict": "``strict``", "gh-inputs-verbosity": "``verbosity``", "gh-inputs-verbose": "``verbosity``"}
    assert section_labels(UPGRADE.split("\n")) == {"upgrade-notes": "Notes on the removed parameter"}
    assert section_labels([".. _`Odd Label`:", "", "=====", "Title", "=====", ""]) == {"odd label": "Title"}


def test_a_bare_ref_reads_as_its_sections_title(tmp_path):
    """The answer to how to turn on strict mode quotes the sentence with the inputs' titles as Sphinx shows them
    ("`strict` and `verbosity`"; from another page of the folder) and the same page's section title; before, it
    showed the labels. A label above a figure (no section) and a role in a literal block stay as written. The
    titles are the index's: a title edited in its page shows once the page is indexed again; the page moved away
    and not yet seen by a sync (no watcher here) still reads as indexed — no file is read at answer time —, and
    after the sync its labels are gone with it."""
    files = {"conf.py": "project = 'sprocket'\n", "upgrading.rst": UPGRADE, "github-actions.rst": ACTION}
    with extractive_workspace(tmp_path, files) as ws:
        answer = ws.ask("How do I turn on strict mode and verbose logging now that root_options was removed?")
        assert "set the `strict` and `verbosity` inputs of the action instead, as described in Notes on the " \
               "removed parameter" in answer.text, answer.text
        assert "gh-inputs" not in answer.text, answer.text
        answer = ws.ask("Where is the old behaviour of the tool kept when it is drawn?")
        assert "kept under figure-old when it is drawn" in answer.text, answer.text
        answer = ws.ask("How do I make a link to a section in a page?")
        assert "see :ref:`gh-inputs-strict`" in answer.text, answer.text
        edited = ACTION.replace("``strict``\n~~~~~~~~~~", "Strict mode\n~~~~~~~~~~~")
        page = tmp_path / "docs" / "github-actions.rst"
        page.write_text(edited, encoding="utf-8")
        question = "How do I turn on strict mode and verbose logging now that root_options was removed?"
        assert "set the `strict` and `verbosity` inputs" in ws.ask(question).text  # not indexed yet
        ws.index()
        answer = ws.ask(question)
        assert "set the Strict mode and `verbosity` inputs" in answer.text, answer.text
        page.rename(tmp_path / "github-actions.rst.moved")
        assert "set the Strict mode and `verbosity` inputs" in ws.ask(question).text  # as indexed: no file read
        ws.index()
        answer = ws.ask(question)
        assert "set the gh-inputs-strict and gh-inputs-verbosity inputs" in answer.text, answer.text


def test_a_link_list_item_keeps_its_label(tmp_path):
    """A list item that is only a cross-reference (a `.. seealso::` list: PSR's "- :ref:`changelog-templates-
    migrating-existing-changelog`") is a link, not an answer: it keeps the label (one word, never quoted); the same
    reference inside a sentence reads as the title; a table's rows keep the role (their columns would move)."""
    manifest = Manifest(tmp_path / "manifest.sqlite", folder=str(tmp_path))
    manifest.replace_files([FileRecord("github-actions.rst", len(ACTION), 1, "h")], [],
                           labels={"github-actions.rst": section_labels(ACTION.split("\n"))})
    files = FileFilter(tmp_path, SourcesSettings())
    files.section_titles = manifest.section_titles
    text = (".. seealso::\n   - :ref:`gh-inputs-strict`\n\nSee :ref:`gh-inputs-strict` and :ref:`GH-Inputs-Verbose`.\n"
            "\n+------+\n| :ref:`gh-inputs-strict` |\n+------+\n")
    assert section_refs(text, "upgrading.rst", files).split("\n") == [
        ".. seealso::", "   - :ref:`gh-inputs-strict`", "", "See ``strict`` and ``verbosity``.", "",
        "+------+", "| :ref:`gh-inputs-strict` |", "+------+", ""]
    assert section_refs(text, "upgrading.rst") == text  # no index: as written
    manifest.close()


def test_a_pages_labels_go_with_its_rows(tmp_path):
    """The manifest writes a page's labels in the transaction of its chunks and drops them with them: a page
    indexed again replaces its labels, a journaled page forgotten after a crash (`Manifest.forget`, `indexer.
    reconcile`) and a page skipped lose theirs; the asking page's own definition comes first, else the first page's
    by path."""
    manifest = Manifest(tmp_path / "manifest.sqlite", folder=str(tmp_path))
    record = {p: FileRecord(p, 1, 1, "h") for p in ("a.rst", "b.rst", "c.rst")}
    manifest.replace_files(list(record.values()), [], labels={"a.rst": {"x": "A's x", "y": "Y"}, "b.rst": {"x": "B's x"},
                                                              "c.rst": {"z": "Z"}})
    assert manifest.section_titles({"x", "y", "z", "w"}) == {"x": "A's x", "y": "Y", "z": "Z"}
    assert manifest.section_titles({"x"}, "b.rst") == {"x": "B's x"}
    manifest.replace_files([record["a.rst"]], [], labels={"a.rst": {"y": "Y again"}})
    assert manifest.section_titles({"x", "y"}) == {"x": "B's x", "y": "Y again"}
    manifest.forget(["b.rst"])
    manifest.set_skipped("c.rst", "too large")
    assert manifest.section_titles({"x", "y", "z"}) == {"y": "Y again"}
    manifest.replace_files([], [], deleted=["a.rst"])
    assert manifest.section_titles({"y"}) == {}
    manifest.close()


def test_the_labels_of_an_included_page_and_above_an_include(tmp_path):
    """Python Semantic Release's index.rst writes `.. _inline-getting-started-guide:` above `.. include::
    concepts/getting_started.rst` with `:start-after: .. _getting-started-guide:`. Sphinx builds the included page
    too, so both labels name its title: the first from the page's text with the include read in, the second from
    the included file's own text (no document of its own in the index: the page holds its text)."""
    start = ".. _getting-started-guide:\n\nGetting Started\n===============\n\nInstall the tool and run it once.\n"
    index = ("Sprocket\n========\n\nRead the :ref:`inline-getting-started-guide` first.\n\n"
             ".. _inline-getting-started-guide:\n\n.. include:: concepts/getting_started.rst\n"
             "   :start-after: .. _getting-started-guide:\n")
    files = {"conf.py": "project = 'sprocket'\n", "index.rst": index, "concepts/getting_started.rst": start,
             "usage.rst": "Usage\n=====\n\nSee :ref:`getting-started-guide` for the first run of the tool.\n"}
    with extractive_workspace(tmp_path, files) as ws:
        manifest = ws.indexes[0].manifest
        assert manifest.section_titles({"inline-getting-started-guide", "getting-started-guide"}) == {
            "inline-getting-started-guide": "Getting Started", "getting-started-guide": "Getting Started"}
        assert manifest.chunk_ids_of(["concepts/getting_started.rst"]) == []  # no document of its own
