"""Extractive answers and previews over reST: a substitution reference reads as the name the page shows, not as
written between bars. Hypothesis writes every API name so ("you can use |@example|. |@example| adds an explicit
input ...", 707 references replaced by its `rst_prolog`), and every answer showed the bars (answer/inline.py
`_substitutions`). Real stores (tantivy, LanceDB), the offline model, `RagWorkspace.ask` without an LLM."""

from __future__ import annotations

import pytest
from offline_index import extractive_workspace
from ragls.answer.passages import units
from ragls.answer.preview import chunk_preview
from ragls.embedding.embed import offline_model_dir

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

EXAMPLES = """Using |@example| to run a specific input
========================================

If you want Bramble to always run a specific input, you can use |@example|. |@example| adds an
explicit input which Bramble will run every time, in addition to the randomly generated |test cases|.

Bramble runs all |explicit examples| first, in the |Phase.explicit| phase. Set |~settings.deadline|
to ``None`` to turn the |DeadlineExceeded| error off.

+--------+-------+
| name   | value |
+========+=======+
| a      | 1     |
+--------+-------+

The |command-line-tool|_ reads ``|not-a-reference|`` as written.

.. |command-line-tool| replace:: command line tool
.. _command-line-tool: https://example.org/tool
"""


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    with extractive_workspace(tmp_path_factory.mktemp("rstsub"), {"examples.rst": EXAMPLES}) as ws:
        yield ws


def test_a_substitution_reference_reads_as_its_name_in_the_answer_and_the_preview(ws):
    answer = ws.ask("How do I always run a specific input in addition to generated ones?").text
    assert "you can use `@example`. `@example` adds an explicit input" in answer, answer
    assert "generated test cases" in answer and "|" not in answer.split("Sources:")[0], answer
    preview = chunk_preview(ws.query("always run a specific input with example").hits[0].chunk)
    assert "you can use `@example`." in preview and "|@example|" not in preview, preview


def test_python_names_read_as_code_other_names_as_text_tables_and_literals_as_written():
    found = {u.sentence for u in units(EXAMPLES, markdown=False)}
    assert "Bramble runs all explicit examples first, in the `Phase.explicit` phase." in found, found
    assert "Set `deadline` to `None` to turn the `DeadlineExceeded` error off." in found, found
    assert "The command-line-tool reads `` `|not-a-reference|` `` as written." in found \
        or "The command-line-tool reads `|not-a-reference|` as written." in found, found
