"""Extractive answers over reST: a backslash escape right after a role (":class:`~pytest.Item`\\s", Sphinx's plural
of an object name) reads as the character it escapes, "`Item`s", not "`Item`\\s" (answer/inline.py `_escapes`).
Real stores (tantivy, LanceDB), the offline model, `RagWorkspace.ask` without an LLM."""

from __future__ import annotations

import pytest
from offline_index import extractive_workspace
from ragls.answer.passages import units
from ragls.embedding.embed import offline_model_dir

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

HOOKS = """Storing data on items across hook functions
===========================================

Plugins often need to store data on :class:`~pebble.Item`\\s in one hook
implementation, and access it in another. One common solution is to just
assign some private attribute directly on the item, but type-checkers like
mypy frown upon this.

Use :class:`pebble.Stash` on ``Item``\\s and :class:`~pebble.Node`\\ s instead.
"""


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    with extractive_workspace(tmp_path_factory.mktemp("rstesc"), {"hooks.rst": HOOKS}) as ws:
        yield ws


def test_an_escape_right_after_a_role_reads_as_its_character(ws):
    """":class:`~pebble.Item`\\s" reads "`Item`s": the role ends a code span, and the escape after it was read
    apart from the backtick before it (the code spans split off), so its backslash stayed."""
    answer = ws.ask("How do plugins store data on items in one hook and read it in another?").text
    assert "data on `Item`s in one hook implementation" in answer, answer
    assert "\\\\" not in answer.split("Sources:")[0], answer


def test_escapes_after_a_literal_and_an_escaped_space_after_a_role():
    """"``Item``\\s" reads "`Item`s" and "`Node`\\ s" (an escaped space: nothing) "`Node`s"."""
    found = [u.sentence for u in units(HOOKS, markdown=False) if "Stash" in u.sentence]
    assert found == ["Use `pebble.Stash` on `Item`s and `Node`s instead."], found


def test_an_escaped_underscore_ending_a_word_reads_as_an_underscore():
    """"prefixed with DEVPISERVER\\_ and dashes replaced" (devpi; an underscore ending a word would make it a
    reference): the backslash is no text, and "DEVPISERVER_" is what the reader types. Not in code."""
    text = ("Environment variables\n=====================\n\nThe option name is changed to uppercase, prefixed with "
            "HUBSERVER\\_ and dashes replaced by underscores. A path like ``C:\\_cache`` stays.\n")
    found = [u.sentence for u in units(text, markdown=False)]
    assert found == [("The option name is changed to uppercase, prefixed with HUBSERVER_ and dashes replaced by "
                      "underscores."), "A path like `C:\\_cache` stays."], found
