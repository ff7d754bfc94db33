"""Extractive answers on a real index with the offline model (`RagWorkspace.ask`): a short sentence right after a
quoted one in its paragraph that refers back to it ("This happens when ...") is read with it
(`neighbours.explains`): it says why, in words the question does not use, and was never quoted before."""

from __future__ import annotations

import pytest
from offline_index import extractive_workspace

REPORT = """# Text report

The report lists each module with the count of its statements, the statements that did not run, and the share of
statements that ran.

Ranges of lines are shown with a dash: `17-23` means all lines from 17 to 23 inclusive never ran.  Skipped jumps are
shown with an arrow: `40->45` means the jump from line 40 to line 45 never happened.  A jump can go backwards in a
file, so you might see a jump from a later line to an earlier line, like `55->50`. This happens when returning to
the top of a loop.  For detailed examples of how jumps are measured in loops and other control flow, see the
measuring page.

You can restrict the report to only certain modules by naming them on the command line.
"""


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    with extractive_workspace(tmp_path_factory.mktemp("explains"), {"report.md": REPORT}) as w:
        yield w


def test_a_sentence_referring_back_to_a_quoted_one_is_read_with_it(ws):
    """"A jump can go backwards ... like `55->50`." answers what the arrow is; "This happens when returning to the
    top of a loop." (no word of the question) says why, and comes with it under the same citation."""
    answer = ws.ask("In the report I see entries like 55->50 where the second number is smaller. What does a "
                    "backwards arrow mean?").text
    assert ("like `55->50`. This happens when returning to the top of a loop [1]." in answer
            or "like `55->50`. This happens when returning to the top of a loop. [1]" in answer), answer
