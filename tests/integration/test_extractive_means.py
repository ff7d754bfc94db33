"""Extractive answers on a real index with the offline model (`RagWorkspace.ask`): the sentence right after a quoted
one in its paragraph that refers back to it in its first words ("... makes this possible with ...") and names an
identifier the quoted one does not is read with it (`neighbours.explains`): documentation states the need, then
the means, and a question asked in the words of the need shares none with the means. Two sentences led by the
same heading label read it once (`neighbours._joined`)."""

from __future__ import annotations

import pytest
from offline_index import extractive_workspace

OFFLINE = """# Reviewed deployments

Some teams cannot let a deployment tool connect to the production database at all, and every change has to be
reviewed and run by hand by a database administrator. Shipwright makes this possible with the `--emit-script`
option of the `apply` command.

## Logging

Shipwright writes its log to standard error, one line per step, with the time each step took.
"""

FLAG = """# Command line

## `--line-ranges`

Formats only the given ranges of lines of a file, such as `--line-ranges=1-10`. Formatting more than one file
with this option is not supported. This keeps each range unambiguous.

To format several files, run the formatter once per file with the ranges of that file. Files given without
ranges are formatted whole. Several ranges of one file are given by repeating the option, such as
`--line-ranges=1-10 --line-ranges=21-30`. Overlapping ranges of one file are merged.

## `--quiet`

Prints nothing but errors.
"""


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    with extractive_workspace(tmp_path_factory.mktemp("means"), {"deploy.md": OFFLINE, "cli.md": FLAG}) as w:
        yield w


def test_the_means_after_a_quoted_need_is_read_with_it(ws):
    """The question speaks of the need (an administrator who reviews the script, no connection to production); the
    sentence naming `--emit-script` shares no word with it and comes with the need under the same citation."""
    answer = ws.ask("Our DBA will not let the tool connect to production; he wants to review and run every change "
                    "himself. How?").text
    assert "run by hand by a database administrator. Shipwright makes this possible with the `--emit-script`" \
        in answer, answer


def test_two_sentences_under_one_heading_label_read_it_once(ws):
    """Both sentences under "## `--line-ranges`" are led by the label; read as one passage, the second drops it."""
    answer = ws.ask("Can I format several files with --line-ranges at once?").text
    assert "`--line-ranges`: This keeps" not in answer, answer
    assert "is not supported. This keeps each range unambiguous" in answer, answer
