"""The abstention evidence reads a word in either English spelling (`analysis.variant_term`, used by
`abstention.term_weights` and the term shares): on a real index (tantivy + LanceDB + the offline MiniLM) of docs
written in American English, a question in British spelling ("colour", "serialise") has no word no chunk holds and
the same share of its words in the focus as the question spelt as the docs spell it."""

from __future__ import annotations

import pytest
from offline_index import extractive_workspace
from ragls.core.analysis import variant_term
from ragls.embedding.embed import offline_model_dir
from ragls.retrieval.absent_meaning import lacking_words

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

DOCS = {
"output.md": """# Terminal output

The console highlights numbers and strings in color. To turn the colors off, pass `no_color=True` to the
`Console` constructor or set the `NO_COLOR` environment variable; output to a file is never colored.
""",
"records.md": """# Records

Call `serialize(record)` to turn a record into a JSON string. Fields whose value is `None` are left out unless
you pass `keep_none=True`.
""",
"paging.md": """# Paging

Long output is shown one screen at a time with `console.pager()`. Press `q` to leave the pager.
""",
}


def test_variant_term_pairs_the_two_spellings_index_terms():
    """The index terms (Snowball stems) of a British and an American spelling map to each other; a word English
    spells one way has none."""
    assert variant_term("colour") == "color" and variant_term("color") == "colour"
    assert variant_term("behaviour") == "behavior"
    assert variant_term("pager") is None


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    with extractive_workspace(tmp_path_factory.mktemp("spelling"), DOCS) as w:
        yield w


@pytest.mark.parametrize("british, american", [
    ("How do I turn the colours off in the console output?", "How do I turn the colors off in the console output?"),
    ("How do I serialise a record to a JSON string?", "How do I serialize a record to a JSON string?"),
])
def test_a_british_spelling_is_not_a_word_no_chunk_holds(ws, british, american):
    """The British question lacks no word (main counted "colours" / "serialise" as held by no chunk: the meaning
    veto's candidates, the largest IDF in every share) and its evidence equals the American question's."""
    uk, us = ws.retrieve(british), ws.retrieve(american)
    assert lacking_words(uk.term_stats, uk.query) == []
    assert uk.evidence.focus_coverage == pytest.approx(us.evidence.focus_coverage)
    assert uk.evidence.coverage == pytest.approx(us.evidence.coverage)
    assert uk.evidence.probability() == pytest.approx(us.evidence.probability())
    assert not ws.query(british).abstained
