"""The BM25 terms of a text are computed line by line and memoised per line (`analysis.stem_set` over
`analysis.line_terms`, shared by the abstention evidence and the repeated-block prior): they must be exactly the
terms the analysis gives the whole text, whatever separates its lines and whatever script it is written in."""

from __future__ import annotations

import pytest
from ragls.core.analysis import line_terms, stem_set, stems

TEXTS = [
    "Retries\nFailed uploads are retried with exponential backoff.\n\n  --retries=N   how many times\n",
    "Windows line ends\r\nand a form\x0cfeed, a vertical\x0btab, next\x85line, separators\u2028and\u2029paragraphs",
    "连接数据库 timeout\n用 Python 连接\n数据库",  # CJK runs: bigrams, never across a line break
    "naïve résumé\nStraße ΟΔΟΣ σοφός İstanbul",
    "a" * 45 + " token over forty bytes\nshort",  # the analysis drops tokens longer than 40 bytes
    "HashMap::new()\nparseHTTPRequest snake_case_name kebab-case-name",
    "",
    "\n\n   \n",
]


@pytest.mark.parametrize("text", TEXTS)
def test_the_lines_terms_are_the_texts(text):
    assert stem_set(text) == frozenset(stems(text))
    assert stem_set("Title > Part\n" + text) == line_terms("Title > Part") | frozenset(stems(text))


def test_an_edited_line_is_analysed_again():
    """Memoised by the line itself: a line that changes is a new key, never the old line's terms."""
    assert line_terms("The ferry timetable lists the puffin crossing.") >= {"puffin", "cross"}
    edited = line_terms("The ferry timetable lists the gannet colony.")
    assert {"gannet", "coloni"} <= edited and "puffin" not in edited
    assert stem_set("Guide\nThe ferry timetable lists the gannet colony.") >= {"gannet", "guid"}
