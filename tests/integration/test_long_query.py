"""A long pasted query on a real index (tantivy + LanceDB + the offline MiniLM, whose model reads 256 tokens):
the question at its end still finds its chunk, and the result says the query was cut."""

from __future__ import annotations

import logging

import pytest
from offline_index import extractive_workspace
from ragls.embedding.embed import offline_model_dir
from ragls.retrieval.query_fit import fit_query

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

TOPICS = {
    "harbor.md": "# Harbor\n\nThe harbor master assigns berths to arriving cargo ships each morning.\n",
    "bakery.md": "# Bakery\n\nSourdough loaves proof overnight in the cold room before baking.\n",
    "orchard.md": "# Orchard\n\nApple trees are pruned in late winter while they are dormant.\n",
    "observatory.md": "# Observatory\n\nThe telescope dome rotates to track stars across the night sky.\n",
}
# A pasted log about something else, then the actual question: the model would see only the log.
LOG = " ".join(f"2024-05-0{i % 9 + 1} INFO worker-{i} bakery oven temperature sourdough batch {i} proofing done."
               for i in range(60))
QUESTION = "When are the apple trees in the orchard pruned?"


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    with extractive_workspace(tmp_path_factory.mktemp("longq"), TOPICS, filler=False) as w:
        yield w


def test_long_query_keeps_its_question_and_says_it_was_cut(ws, caplog):
    text = LOG + "\n\n" + QUESTION
    with caplog.at_level(logging.INFO, logger="ragls.retrieval.search"):
        result = ws.query(text, top_k=4)
    assert ws.embedder.query_token_count(text) == ws.embedder.max_length  # the model would cut it (loaded now)
    assert result.truncated is True
    assert any("longer than the embedding model reads" in r.getMessage() for r in caplog.records)
    vector_only = ws.retrieve(text, top_k=1, signals=("vector",))
    assert vector_only[0].chunk.path == "orchard.md"  # the question, not the log, was embedded


def test_short_query_is_not_truncated(ws):
    result = ws.query(QUESTION)
    assert result.truncated is False and result.hits[0].chunk.path == "orchard.md"


def test_fit_query_keeps_whole_sentences_from_the_end(ws):
    ws.embedder.ensure_loaded()  # the tokenizer counts once the model is loaded (None before: nothing would be cut)
    count = ws.embedder.query_token_count
    limit = ws.embedder.max_length
    kept, cut = fit_query(LOG + " " + QUESTION, count, limit)
    assert cut and kept.endswith(QUESTION) and count(kept) < limit
    kept, cut = fit_query("word " * 2000, count, limit)  # one endless sentence: its last words
    assert cut and count(kept) < limit and kept.split() == ["word"] * len(kept.split())


@pytest.mark.parametrize("pasted", [
    "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08" * 245,  # one 15 680-character token
    "果园里的苹果树在冬末休眠时修剪" * 1000,  # a CJK paragraph: one alphanumeric run without spaces
])
def test_one_huge_pasted_token_is_answered_promptly(ws, pasted):
    """A query holding one endless alphanumeric run (a pasted hash or minified line, CJK text without spaces) once
    cost O(n^2) regex steps looking for compound identifiers (hours for these, holding the GIL so the whole server
    froze; 192 000 characters, past `MAX_QUERY_CHARS` now, took hours). The deadline is two orders of magnitude
    above the real cost."""
    import threading

    done: dict = {}
    thread = threading.Thread(target=lambda: done.setdefault("result", ws.query(pasted + " " + QUESTION)),
                              daemon=True)
    thread.start()
    thread.join(120)
    assert not thread.is_alive(), "the query did not finish within 120 s"
    assert "orchard.md" in [hit.chunk.path for hit in done["result"].hits]  # the question after it still counts


def test_a_query_past_the_limit_is_refused_before_any_work(ws):
    from ragls.core.errors import InvalidParams
    from ragls.core.ir import MAX_QUERY_CHARS

    with pytest.raises(InvalidParams, match=f"query is 192,048 characters long; the limit is {MAX_QUERY_CHARS:,}"):
        ws.query("9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08" * 3000 + " " + QUESTION)
    with pytest.raises(InvalidParams, match="question is"):
        ws.ask("why? " * MAX_QUERY_CHARS)


def test_compound_identifiers_unchanged_by_the_linear_pattern():
    from ragls.core.analysis import compound_identifiers

    text = "use os.path.join, HashMap::new and get_worktrees; a.b.c x__y foo. _lead.x 数据.库 end."
    assert compound_identifiers(text) == ["os.path.join", "HashMap::new", "get_worktrees", "a.b.c", "x__y",
                                          "lead.x", "数据.库"]
    assert compound_identifiers("x" * 50_000 + ".y") == ["x" * 50_000 + ".y"]
