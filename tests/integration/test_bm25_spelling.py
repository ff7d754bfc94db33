"""British and American spellings in BM25 on a real tantivy index: a question written in one spelling finds the chunk
written in the other ("switch the colours off" -> a CLI page's "Colored output ... colors"), a chunk holding both
spellings counts the word once, and a word English spells one way searches as before."""

from __future__ import annotations

from contextlib import closing

import pytest
from ragls.core.analysis import spelling_variant
from ragls.core.hashing import text_hash
from ragls.core.ir import Chunk, LineSpan
from ragls.stores.bm25 import Bm25Store


def chunk(cid: str, title: str, text: str) -> Chunk:
    """A one-line chunk `cid` of the page `cid`.md."""
    return Chunk(id=cid, path=f"{cid}.md", title=title, text=text, text_hash=text_hash(text),
                 span=LineSpan(0, 0, 1, 0))


DOCS = [
    # the answer, in American spelling (Zola's cli-usage.md)
    chunk("cli", "CLI usage > Colored output", "Colored output is used if your terminal supports it. You can disable "
          "coloring by exporting NO_COLOR; to force colors set CLICOLOR_FORCE=1."),
    # a passing mention in British spelling (Zola's syntax-highlighting.md)
    chunk("theme", "Syntax highlighting > Rendering style", "The colours are set directly on the span elements; "
          "use the class style to switch themes with CSS files."),
    chunk("both", "Themes", "A theme sets its colours, or colors, once."),
    chunk("other", "Deployment", "Build the site and copy the public folder to your server."),
]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    with closing(Bm25Store(tmp_path_factory.mktemp("spelling"))) as index:
        index.add(DOCS)
        index.commit()
        yield index


def test_variants_both_ways():
    assert spelling_variant("colours") == "colors"
    assert spelling_variant("colors") == "colours"
    assert spelling_variant("serialise") == "serialize"
    assert spelling_variant("behavior") == "behaviour"
    assert spelling_variant("output") is None


def test_a_british_question_finds_the_american_chunk(store):
    hits = dict(store.search("coloured output switch colours off", 10, fuzzy=False))
    assert "cli" in hits and "theme" in hits
    assert max(hits, key=hits.get) == "cli"  # "Colored output" + "colors" for "coloured output" + "colours"
    american = dict(store.search("colored output switch colors off", 10, fuzzy=False))
    assert max(american, key=american.get) == "cli"
    assert set(american) == set(hits)  # the other direction: an American question finds the British chunk too


def test_both_spellings_in_one_chunk_count_once(store):
    one = dict(store.search("colours", 10, fuzzy=False))
    assert set(one) == {"cli", "theme", "both"}
    searcher = store.index.searcher()
    # each chunk scores as the better of its two terms alone, never their sum
    for cid, score in one.items():
        alone = []
        for word in ("colours", "colors"):
            parsed = searcher.search(store.index.parse_query(word, ["title", "body"]), 10)
            alone += [s for s, a in parsed.hits if searcher.doc(a)["id"][0] == cid]
        assert score == pytest.approx(max(alone), rel=1e-5)


def test_a_word_spelt_one_way_searches_as_before(store):
    searcher = store.index.searcher()
    parsed = searcher.search(store.index.parse_query("public folder server", ["title", "body"]), 10)
    expected = {searcher.doc(a)["id"][0]: s for s, a in parsed.hits}
    got = dict(store.search("public folder server", 10, fuzzy=False))
    assert got.keys() == expected.keys()
    for cid, s in expected.items():
        assert got[cid] == pytest.approx(s, rel=1e-5)
