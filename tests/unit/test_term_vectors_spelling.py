"""The BM25 of attached collections (`stores/term_vectors.py`: Qdrant's sparse query vector and the in-memory
`bm25_rank` over a collection's payloads) searches a word in both English spellings, as the tantivy store does
(`tests/integration/test_bm25_spelling.py`): a British question finds the American chunk."""

from __future__ import annotations

from ragls.stores.term_vectors import bm25_rank, doc_vector, query_terms, query_vector

TEXTS = ["Colored output is used if your terminal supports it; export NO_COLOR to disable the colors.",
         "Build the site and copy the public folder to your server.",
         "Deploy the site with the command line."]


def test_query_terms_hold_both_spellings():
    assert query_terms("switch the colours off") == ["switch", "colour", "color"]
    assert query_terms("public folder") == ["public", "folder"]  # a word spelt one way adds nothing


def test_bm25_rank_finds_the_other_spelling():
    assert [i for i, _ in bm25_rank("switch the colours off", TEXTS)] == [0]


def test_the_sparse_query_vector_meets_the_chunk_in_the_other_spelling():
    ids, _ = query_vector("coloured output")
    doc_ids, _ = doc_vector(TEXTS[0])
    assert set(ids) - set(query_vector("output")[0]) & set(doc_ids)  # "color" of "Colored", "colors"
