"""Extractive answers over reST pages on a real index with the offline model (`RagWorkspace.ask`): brackets are text
in reST ("use [include] vs [source] in your .coveragerc", two INI sections), not Markdown shortcut reference links
read as their label (answer/inline.py `link_text`: the shortcut rule applies to Markdown only)."""

from __future__ import annotations

import pytest
from offline_index import extractive_workspace

XML = """XML reporting
=============

The **xml** command writes coverage data to a "coverage.xml" file in a format compatible with Cobertura.

File names in the report are relative to the source directories. To include complete file paths in the output
file, rather than just the file name, use [include] vs [source] in your ".coveragerc" file.

If the report is written to a file that already exists, the file is overwritten.
"""

MARKDOWN = """# Output

Messages are written with [Rich] when it is installed, with colours and tables.

[Rich]: https://github.com/Textualize/rich
"""


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    with extractive_workspace(tmp_path_factory.mktemp("brackets"), {"xml.rst": XML, "output.md": MARKDOWN}) as w:
        yield w


def test_rest_brackets_are_text(ws):
    """The two INI section names keep their brackets in a reST page's answer."""
    answer = ws.ask("The XML report lists files without their folder. How do I get the complete file paths?").text
    assert 'use [include] vs [source] in your ".coveragerc" file' in answer, answer


def test_a_markdown_shortcut_reference_still_reads_as_its_text(ws):
    """In Markdown, "[Rich]" is a shortcut reference link (its definition at the end of the file): read as "Rich"."""
    answer = ws.ask("Are messages written with colours and tables?").text
    assert "Messages are written with Rich when it is installed" in answer, answer
