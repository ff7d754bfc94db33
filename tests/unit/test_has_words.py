"""The exact-match test of the pipeline (`relevance.has_words`: the bonus for BM25's top chunks, the keyword rule of
abstention) rules chunks out by a substring test before splitting their text; it must answer exactly as the split
alone: every query word among the text's `query_words`."""

from __future__ import annotations

import pytest
from ragls.core.analysis import query_words
from ragls.core.ir import Chunk, LineSpan
from ragls.retrieval.relevance import has_words

TEXTS = [
    "Use HashMap::new() to create a map; parseHTTPRequest splits the request.",
    "The retryMaxAttempts setting caps retries (default 5).",
    "ΟΔΟΣ'Α and ΛΟΓΟΣ are Greek words; σοφός ends in a final sigma.",  # capital sigma: lower-cased by context
    "İstanbul and ǅemal: characters whose lower case is longer or titlecase.",
    "连接数据库 timeout 用 Python",
    "snake_case_name and kebab-case-name, café, Straße.",
]
QUERIES = ["hashmap new", "parse http request", "request parse", "retry max attempts", "maxattempts", "οδος", "οδοσ",
           "λογος", "σοφός", "istanbul", "i̇stanbul", "ǆemal", "连接 数据 timeout", "case name", "kebab café straße",
           "strasse", "greek words sigma"]


@pytest.mark.parametrize("text", TEXTS)
def test_has_words_is_the_word_split(text):
    chunk = Chunk(id="c", path="a.md", text=text, span=LineSpan(0, 0, 0, len(text)), text_hash="h", title="Notes")
    split = set(query_words(f"Notes\n{text}"))
    for q in QUERIES:
        words = set(query_words(q))
        assert has_words(chunk, words) == (words <= split), (text, q)
    assert has_words(chunk, set(query_words(text)))  # every text holds its own words
