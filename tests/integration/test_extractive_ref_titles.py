"""A title-less Sphinx cross-reference (":ref:`label`") reads as the title of the section its label stands above,
as Sphinx renders it, when that label is defined in a reST file of the same indexed folder (answer/ref_titles.py,
`passages.chunk_units`). Python Semantic Release's upgrade notes showed "gh_actions-psr-inputs-strict" where the
page shows "strict" (sr30). The real offline model, a real index, the real passage reader."""

from __future__ import annotations

from offline_index import extractive_workspace
from ragls.answer.ref_titles import section_labels, section_refs

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
    showed the labels. A label above a figure (no section) and a role in a literal block stay as written; a title
    edited in its page shows as it is now."""
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
        (tmp_path / "docs" / "github-actions.rst").write_text(edited, encoding="utf-8")
        answer = ws.ask("How do I turn on strict mode and verbose logging now that root_options was removed?")
        assert "set the Strict mode and `verbosity` inputs" in answer.text, answer.text


def test_a_link_list_item_keeps_its_label(tmp_path):
    """A list item that is only a cross-reference (a `.. seealso::` list: PSR's "- :ref:`changelog-templates-
    migrating-existing-changelog`") is a link, not an answer: it keeps the label (one word, never quoted); the same
    reference inside a sentence reads as the title; a table's rows keep the role (their columns would move)."""
    (tmp_path / "github-actions.rst").write_text(ACTION, encoding="utf-8")
    text = (".. seealso::\n   - :ref:`gh-inputs-strict`\n\nSee :ref:`gh-inputs-strict` and :ref:`GH-Inputs-Verbose`.\n"
            "\n+------+\n| :ref:`gh-inputs-strict` |\n+------+\n")
    assert section_refs(text, "upgrading.rst", str(tmp_path)).split("\n") == [
        ".. seealso::", "   - :ref:`gh-inputs-strict`", "", "See ``strict`` and ``verbosity``.", "",
        "+------+", "| :ref:`gh-inputs-strict` |", "+------+", ""]
