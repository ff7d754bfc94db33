"""Extractive answers on a real index with the offline model (`RagWorkspace.ask`): what to do about what a quoted
sentence states comes with it (`neighbours.explains`, `neighbours._after_block`) when the means is named only in the
block the remedy introduces ("To work around this, you can point your home at a writable directory yourself, for
example:" and `export HOME=...`), when a sentence saying why stands between ("This can happen when ..." then "To avoid
this issue add the following lines ...:"), when the remedy opens the paragraph after the quoted sentence's block
("In this case you can raise the limit with the `--stall-timeout` option."), and when it refers back by its purpose
anywhere in its words ("The command `gizmo probe` may be used for this purpose:")."""

from __future__ import annotations

import pytest
from offline_index import extractive_workspace
from ragls.answer.neighbours import explains, read_with_neighbours, with_code_after
from ragls.answer.passages import units
from ragls.core.ir import Chunk, Hit, LineSpan

CI = """Running gizmo on build servers
==============================

Cache directory
---------------

If your build jobs run without a proper user set, you might get permission errors when gizmo tries to create
its cache directory. To work around this, you can point your home at a writable directory yourself, for example:

.. code-block:: bash

    export HOME=/tmp/build-home

Idle links
----------

.. note:: Please be aware that remote stores close connections when no data is received by the client.
          This can happen when gizmo is reading huge amounts of unchanged files. To avoid this issue add
          the following lines to the client's settings file:

::

    KeepAliveSeconds 60
    KeepAliveCount 240

Stalled listings
----------------

gizmo watches every request to the store to detect stalled ones. If a request does not return any data within
five minutes, gizmo assumes the request is stalled and retries it. However, for very large stores it sometimes
takes longer than that to list every file, causing the following error:

::

    list(data) returned error, retrying after 1s: request stalled

In this case you can raise the limit with the ``--stall-timeout`` option.

Existing stores
---------------

You may find a need to check whether a store is already set up, perhaps to keep a provisioning script from
creating it twice. The command ``gizmo probe`` may be used for this purpose:

.. code-block:: console

    $ gizmo probe /srv/store
    Fatal: store does not exist
"""


def _hit(text: str) -> Hit:
    return Hit(chunk=Chunk(id="a", path="ci.rst", text=text, span=LineSpan(0, 0, text.count("\n"), 0), text_hash="a"),
               score=1.0)


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    with extractive_workspace(tmp_path_factory.mktemp("whattodo"), {"ci.rst": CI}) as w:
        yield w


def test_a_remedy_naming_its_means_in_its_block_is_read_with_the_statement(ws):
    """"To work around this, you can point your home at a writable directory yourself, for example:" names no
    identifier in its words; its block does (`HOME=/tmp/build-home`), and the two come with the permission error
    (the question's words point at neither)."""
    answer = ws.ask("Our CI job runs without a user and gizmo fails with permission errors while it sets up. "
                    "What can I do?").text
    assert "cache directory. To work around this, you can point your home" in answer, answer
    assert "export HOME=/tmp/build-home" in answer, answer


def test_the_remedy_after_the_reason_is_read_with_the_statement():
    """The note states the problem, says why ("This can happen when ..."), then what to do: the statement quoted
    alone is read with both, the third sentence with the settings' block it introduces (`read_with_neighbours` on
    the page's chunk); a quoted sentence whose next one is not read with it gets no third one."""
    found = units(CI)
    need = next(u for u in found if u.sentence.startswith("Please be aware"))
    out = read_with_neighbours([(1, need)], {1: _hit(CI)}, {"sync", "connection", "drop", "link", "open"})
    assert len(out) == 1
    assert "unchanged files. To avoid this issue add the following lines" in out[0][1].sentence
    assert "KeepAliveSeconds 60" in out[0][1].attached
    watched = next(u for u in found if u.sentence.startswith("gizmo watches every request"))
    out = read_with_neighbours([(1, watched)], {1: _hit(CI)}, {"retry", "listing", "longer"})
    assert [u.sentence for _, u in out] == [watched.sentence]


def test_what_to_do_after_the_block_of_a_quoted_sentence_is_quoted(ws):
    """"In this case you can raise the limit with the `--stall-timeout` option." opens the paragraph after the
    error message the quoted sentence introduces; it shares no word with the question."""
    answer = ws.ask("gizmo keeps retrying on my huge store because listing everything takes more than five "
                    "minutes. How do I give it longer?").text
    assert "--stall-timeout" in answer, answer


def test_a_sentence_referring_back_by_its_purpose_is_read_with_the_need():
    """"The command `gizmo probe` may be used for this purpose:" refers back by "this purpose" past its first six
    words (`_REFERS_BACK` reads those only); a sentence naming nothing new, or saying nothing of what to do, is not
    read with the one before it."""
    found = units(CI)
    need = next(u for u in found if u.sentence.startswith("You may find a need"))
    means = next(u for u in found if u.sentence.startswith("The command `gizmo probe`"))
    assert explains(need, means, CI)
    first = next(u for u in found if u.sentence.startswith("gizmo watches every request"))
    second = next(u for u in found if u.sentence.startswith("If a request does not return"))
    assert not explains(first, second, CI)


FLOW = """Key bindings
============

.. note::

    ``c-q`` and ``c-s`` are often captured by the terminal, because they were used for software flow control.
    When this is enabled, the application freezes when ``c-s`` is pressed, until ``c-q`` is pressed.

    In order to disable this, execute the following command in your shell, or add it to your ``.profile``.

    .. code::

        stty -ixon

Key bindings can consist of a sequence of keys. The binding is triggered only when every key of the sequence
is pressed.

Sequences are matched as the keys arrive.

The longest sequence wins when two of them share a first key.
"""


def test_a_remedy_opening_the_next_paragraph_is_read_with_the_statement():
    """"In order to disable this, execute the following command ..." opens the paragraph after the statement: a
    remedy ("In order to <goal>," then an imperative) referring back ("this") is read across the blank line, and its
    short block comes with it; a next paragraph that does not tell what to do about the statement is not."""
    found = units(FLOW, markdown=False)
    hit = Hit(chunk=Chunk(id="a", path="keys.rst", text=FLOW, span=LineSpan(0, 0, FLOW.count("\n"), 0),
                          text_hash="a"), score=1.0)
    freeze = next(u for u in found if u.sentence.startswith("When this is enabled"))
    out = read_with_neighbours([(1, freeze)], {1: hit}, {"ctrl", "freez", "terminal"})
    assert len(out) == 1
    assert out[0][1].sentence.endswith("In order to disable this, execute the following command in your shell, or "
                                       "add it to your `.profile`.")
    assert "stty -ixon" in with_code_after(out[0][1], {"ctrl", "freez", "terminal"}, 8).attached
    matched = next(u for u in found if u.sentence.startswith("Sequences are matched"))
    out = read_with_neighbours([(1, matched)], {1: hit}, {"sequence", "match"})
    assert [u.sentence for _, u in out] == [matched.sentence]
