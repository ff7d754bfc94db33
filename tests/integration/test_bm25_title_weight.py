"""`retrieval.bm25_title_weight` on a real tantivy index: a query term's BM25 score in a chunk's title is multiplied
by the weight (1: today's query, equal to tantivy's parsed query over title and body; 0: body only; 2: twice), in
plain, fuzzy and weighted-term (RM3) searches, and through the retrieval path's setting."""

from __future__ import annotations

import pytest
from ragls.core.hashing import text_hash
from ragls.core.ir import Chunk, LineSpan
from ragls.stores.bm25 import Bm25Store


def chunk(cid: str, title: str, text: str) -> Chunk:
    return Chunk(id=cid, path=f"{cid}.md", text=text, span=LineSpan(0, 0, 1, 0), text_hash=text_hash(text),
                 title=title)


DOCS = [
    chunk("titled", "Ownership > Borrowing", "Passing a value to a function moves it unless you lend it."),
    chunk("body", "Collections", "Borrowing a vector element while pushing to the vector is rejected."),
    chunk("both", "Borrowing rules", "Borrowing rules: one mutable reference or many shared ones."),
    chunk("other", "Closures", "A closure captures its environment by reference, by value or by move."),
]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    s = Bm25Store(tmp_path_factory.mktemp("bm25"))
    s.add(DOCS)
    s.commit()
    yield s
    s.close()


def scores(store, text, **kw) -> dict[str, float]:
    return dict(store.search(text, 10, **kw))


def test_weight_one_is_the_parsed_query_over_title_and_body(store):
    searcher = store.index.searcher()
    for text in ("borrowing", "borrowing vector value", "ownership closure reference"):
        words = " ".join(w for w in text.split())
        parsed = searcher.search(store.index.parse_query(words, ["title", "body"]), 10)
        expected = {searcher.doc(a)["id"][0]: s for s, a in parsed.hits}
        got = scores(store, text, fuzzy=False)
        assert got.keys() == expected.keys()
        for cid, s in expected.items():
            assert got[cid] == pytest.approx(s, rel=1e-5)
        assert scores(store, text) == got  # default weight is 1


def test_weight_zero_searches_the_body_only(store):
    one = scores(store, "ownership")
    assert list(one) == ["titled"]  # "ownership" is only in a title
    assert scores(store, "ownership", title_weight=0.0) == {}
    zero = scores(store, "borrowing", title_weight=0.0)
    assert set(zero) == {"body", "both"}  # "titled" has borrowing in its title only


def test_title_score_scales_with_the_weight(store):
    # "titled" holds "borrowing" in its title only: its score is the title part alone
    one = scores(store, "borrowing")["titled"]
    assert scores(store, "borrowing", title_weight=2.0)["titled"] == pytest.approx(2 * one, rel=1e-5)
    assert scores(store, "borrowing", title_weight=0.5)["titled"] == pytest.approx(0.5 * one, rel=1e-5)
    # "body" holds it in its body only: unchanged by the weight
    body = scores(store, "borrowing")["body"]
    assert scores(store, "borrowing", title_weight=2.0)["body"] == pytest.approx(body, rel=1e-5)
    # "both": body part + weight x title part
    both1, both0 = scores(store, "borrowing")["both"], scores(store, "borrowing", title_weight=0.0)["both"]
    assert scores(store, "borrowing", title_weight=3.0)["both"] == pytest.approx(both0 + 3 * (both1 - both0),
                                                                                 rel=1e-5)


def test_fuzzy_and_weighted_terms_follow_the_weight(store):
    # a typo only in a title word: fuzzy matching finds it through the title, not at weight 0
    assert "titled" in scores(store, "ownrship")
    assert "titled" not in scores(store, "ownrship", title_weight=0.0)
    assert [cid for cid, _ in store.search_terms({"ownership": 1.0}, 10)] == ["titled"]
    assert store.search_terms({"ownership": 1.0}, 10, title_weight=0.0) == []


def test_query_syntax_stays_plain_words(store):
    # parser syntax in user text is never interpreted, at any weight
    for w in (0.0, 0.5, 1.0):
        assert scores(store, 'title:borrowing AND (vector', title_weight=w).keys() >= {"body"}


def test_word_weights_multiply_a_listed_words_score(store):
    # A chat follow-up's borrowed words (`Query.word_weights`) weigh less: the listed word's score, fuzzy or
    # exact, is multiplied by its weight, the other words' are unchanged; no weights is the plain search.
    vec = scores(store, "vector", fuzzy=False)
    clo = scores(store, "closure", fuzzy=False)
    both = scores(store, "vector closure", fuzzy=False)
    assert scores(store, "vector closure", fuzzy=False, weights={}) == both
    weighted = scores(store, "vector closure", fuzzy=False, weights={"closure": 0.25})
    assert weighted["body"] == pytest.approx(vec["body"], rel=1e-5)
    assert weighted["other"] == pytest.approx(0.25 * clo["other"], rel=1e-5)
    typo = scores(store, "closrue", weights={"closrue": 0.5})
    assert typo["other"] == pytest.approx(0.5 * scores(store, "closrue")["other"], rel=1e-5)
