"""Extractive answers over reST explicit markup a reader never sees where it stands (comments, link targets), and
the cited lines of a loose list whose items hold directives, with the real offline model and a real index
(answer/markup.py `_rest_hidden`, answer/blocks.py `_merge_lists`)."""

from __future__ import annotations

import pytest
from offline_index import extractive_workspace, file_lines, line_of

RETRY = """Retrying jobs
=============

.. This page is generated in part by cog; edit retry_help.py, not this text.
   Running "make docs" rebuilds it.

A job that raises is retried by the worker. To retry a job three times with a
pause of ten seconds between tries, pass a policy to the queue:

.. FIXME: the output below is not checked by the doc tests yet,
   see issue 88.

.. code-block:: python

    queue = Queue(retry=RetryPolicy(attempts=3, pause=10))

.. warning::

    A retried job runs again from its start, so its side effects
    must be safe to repeat.
.. _retry_options:

Options of a policy
-------------------

* ``attempts`` - how many times a failing job runs before it is given up.

  .. versionadded:: 2.1


* ``pause`` - the seconds the worker waits between two tries of a job.

  .. versionchanged:: 2.4
     A pause may be a float.


* ``jitter`` - a random fraction of the pause added to each wait, so that
  many failed jobs do not all retry at the same moment.

..
    Internal: keep this list in sync with RetryPolicy.__init__ and
    the jitter defaults in the worker.
"""


@pytest.fixture(scope="module")
def retry_ws(tmp_path_factory):
    with extractive_workspace(tmp_path_factory.mktemp("hidden"), {"retry.rst": RETRY}) as ws:
        yield ws


def test_a_comment_is_no_answer_nor_stands_between_a_sentence_and_its_code(retry_ws):
    """A reST comment (".. FIXME: ...", ".. This page is generated ...", a bare ".." over indented lines) is an
    author's note Sphinx never renders: before, its text was read as prose (pytest's "FIXME: Use $ instead of !",
    coverage.py's cog lines glued into "show_configs( ini=r\"\"\" run ..."), and a comment between a ":" sentence
    and its code block made the sentence lose its code, its ":" turned into "."."""
    answer = retry_ws.ask("How do I retry a job three times with a pause between tries?")
    lines = answer.text.splitlines()
    lead = next(k for k, line in enumerate(lines) if "pass a policy to the queue" in line)
    assert lines[lead].endswith("pass a policy to the queue [1]:"), answer.text
    assert "  queue = Queue(retry=RetryPolicy(attempts=3, pause=10))" in lines[lead + 1:lead + 4], answer.text
    for note in ("FIXME", "issue 88", "cog", "make docs", "Internal", "in sync"):
        assert note not in answer.text, answer.text


def test_a_link_target_right_under_a_body_is_no_part_of_its_sentence(retry_ws):
    """".. _retry_options:" written right under a warning's body (no blank line between, as pytest's logging page
    has it) is a link target, not the end of the warning's last sentence (before: "... must be safe to repeat.
    .. _retry_options.")."""
    answer = retry_ws.ask("Is a retried job run again from its start?")
    assert "must be safe to repeat [" in answer.text, answer.text
    assert "_retry_options" not in answer.text, answer.text


def test_a_loose_list_cites_the_lines_of_each_item(retry_ws):
    """The items of a loose list read as one list block; the blank lines between two items are as many as the text
    has (two here, and a version directive's line left empty adds more): before, one blank line stood for all of
    them and every later item was cited lines above where it is written (Alembic's `output_encoding` and aiohttp's
    `trust_env` two lines up, under an item's ".. versionadded::")."""
    answer = retry_ws.ask("How many seconds does the worker wait between two tries of a job?")
    n = next(int(line.rsplit("[", 1)[1].split("]")[0]) for line in answer.text.splitlines()
             if "the seconds the worker waits" in line)
    hit = next(h for k, h in answer.sources if k == n)
    assert file_lines(hit.focus)[0] == line_of(RETRY, "``pause``"), (file_lines(hit.focus), answer.text)


LIMITS = """Worker limits
-------------

Jobs are taken from the queue in the order the :ref:`queue guide
<queues>` describes, oldest first.

A worker stops taking new jobs when its memory use passes
``max_memory`` megabytes, and restarts once its jobs are done.
"""


def test_a_role_wrapped_over_two_lines_keeps_the_lines_after_it(tmp_path):
    """":ref:`queue guide" / "<queues>` describes" is read over the two lines it is written on: before, it was read on
    one, every later line of the chunk moved up one, and the sentences after it were cited a line above where they
    are (coverage.py's "Individual warnings can be disabled with the :ref:`disable_warnings" paragraph)."""
    with extractive_workspace(tmp_path, {"limits.rst": LIMITS}) as ws:
        hit = ws.retrieve("When does a worker stop taking new jobs because of its memory use?", top_k=1)[0]
    # the answering passage's own lines (`Hit.quotes`, where the citation opens; the focus around it may also hold
    # the runner-up passage above, answer/focus._with_runner_up) and the focus's last line
    [quote] = hit.quotes or (hit.focus,)
    assert file_lines(quote) == (line_of(LIMITS, "A worker stops"), line_of(LIMITS, "``max_memory``")), \
        file_lines(quote)
    assert file_lines(hit.focus)[1] == line_of(LIMITS, "``max_memory``")


QUIET = """Silencing warnings
------------------

Each warning can be turned off with the ``mute_warnings`` setting.  It lists the
short names shown in the warning messages.  For example, to silence
"No jobs were queued (no-jobs)", add this to your configuration file:

.. [[[cog
    show_configs(
        ini=r\"\"\"
            [worker]
            mute_warnings = no-jobs
            \"\"\",
        toml=r\"\"\"
            [tool.worker]
            mute_warnings = ["no-jobs"]
            \"\"\",
        )
.. ]]]

.. code-block:: toml

    [tool.worker]
    mute_warnings = ["no-jobs"]

.. [[[end]]]
"""


@pytest.fixture(scope="module")
def quiet_ws(tmp_path_factory):
    with extractive_workspace(tmp_path_factory.mktemp("quiet"), {"quiet.rst": QUIET}) as ws:
        yield ws


def test_the_focus_keeps_the_sentence_before_when_a_comment_parts_a_sentence_from_its_code(quiet_ws):
    """A ":" sentence whose code block stands past a long comment (coverage.py's cog blocks): its focus ends with the
    sentence, not in the comment's lines, which show nothing; so the sentence before it that answers too still fits
    beside it (set 17's cov-i12 lost its focus on "Individual warnings can be disabled with ..." when the comment
    was first read as nothing). The words of that block (`mute_warnings`) are not in the focus either: the sentence
    before, whose word "warning" the question asks, joins it (before, the block's "warnings" counted as shown)."""
    hit = quiet_ws.retrieve("One worker always prints 'No jobs were queued' and that is expected there. How do I silence "
                            "only that warning?", top_k=1)[0]
    start, end = file_lines(hit.focus)
    assert start <= line_of(QUIET, "It lists the") and end >= line_of(QUIET, "add this to your"), (start, end)
