"""Weighted RRF and convex-fusion arithmetic (retrieval/fuse.py) and the abstention rule (retrieval/search.py)."""

from __future__ import annotations

import pytest
from ragls.core.ir import Chunk, Hit, LineSpan
from ragls.retrieval.fuse import NEAR_TIE, Fused, convex_fusion, lexical_tie_break, page_support, reciprocal_rank_fusion
from ragls.retrieval.relevance import abstained
from ragls.retrieval.result import RetrievalResult


def test_scores_are_weighted_reciprocal_ranks():
    fused = reciprocal_rank_fusion({"vector": ["a", "b", "c"], "bm25": ["c", "a"]},
                                   {"vector": 1.125, "bm25": 1.0}, k=60)
    by_key = {f.key: f for f in fused}
    assert by_key["a"].score == pytest.approx(1.125 / 61 + 1.0 / 62)
    assert by_key["b"].score == pytest.approx(1.125 / 62)
    assert by_key["c"].score == pytest.approx(1.125 / 63 + 1.0 / 61)
    assert [f.key for f in fused] == ["a", "c", "b"]
    assert by_key["c"].ranks == {"vector": 3, "bm25": 1}


def test_bonus_lifts_a_bm25_only_first_above_vector_only_hits():
    vector = [f"v{i}" for i in range(1, 9)]
    plain = reciprocal_rank_fusion({"vector": vector, "bm25": ["exact"]}, {"vector": 1.125, "bm25": 1.0}, k=60)
    assert [f.key for f in plain].index("exact") == 8  # 1/61 < 1.125/68: below all eight vector-only hits
    fused = reciprocal_rank_fusion({"vector": vector, "bm25": ["exact"]}, {"vector": 1.125, "bm25": 1.0}, k=60,
                                   bonus={"exact": 0.05, "absent": 0.05})
    assert fused[0].key == "exact" and fused[0].score == pytest.approx(1.0 / 61 + 0.05)
    assert fused[0].contributions == {"bm25": pytest.approx(1.0 / 61), "bonus": 0.05}
    assert "absent" not in {f.key for f in fused}  # a bonus never adds a key no signal found


def test_contributions_sum_to_score_and_weights_matter():
    fused = reciprocal_rank_fusion({"vector": ["x", "y"], "bm25": ["y", "x"]}, {"vector": 1.125, "bm25": 1.0}, k=60)
    assert fused[0].key == "x"  # same ranks mirrored: the heavier vector signal decides
    for f in fused:
        assert sum(f.contributions.values()) == pytest.approx(f.score)
    equal = reciprocal_rank_fusion({"vector": ["x", "y"], "bm25": ["y", "x"]}, {"vector": 1.0, "bm25": 1.0}, k=60)
    assert equal[0].score == pytest.approx(equal[1].score)


def test_duplicates_within_a_list_do_not_take_ranks():
    fused = reciprocal_rank_fusion({"bm25": ["a", "a", "b"]}, {"bm25": 1.0}, k=1)
    by_key = {f.key: f for f in fused}
    assert by_key["b"].ranks["bm25"] == 2
    assert by_key["a"].score == pytest.approx(1 / 2)


def test_convex_fusion_normalises_each_list_from_its_floor_to_its_best():
    scored = {"vector": [("a", 0.70), ("b", 0.45), ("c", 0.30)], "bm25": [("b", 12.0), ("a", 3.0), ("d", 2.0)]}
    fused = convex_fusion(scored, {"vector": 0.6, "bm25": 0.4}, {"vector": 0.2, "bm25": 0.0}, depth=3)
    by_key = {f.key: f for f in fused}
    # a: cosine (0.70 - 0.2) / (0.70 - 0.2) = 1, BM25 3 / 12; b: (0.45 - 0.2) / 0.5 = 0.5, BM25 1
    assert by_key["a"].score == pytest.approx(0.6 * 1.0 + 0.4 * 0.25)
    assert by_key["b"].score == pytest.approx(0.6 * 0.5 + 0.4 * 1.0)
    # both lists hold `depth` items (truncated): a key one list misses gets that list's last score in it
    assert by_key["c"].score == pytest.approx(0.6 * 0.2 + 0.4 * (2.0 / 12.0))
    assert by_key["d"].score == pytest.approx(0.6 * 0.2 + 0.4 * (2.0 / 12.0))
    assert [f.key for f in fused][:2] == ["b", "a"]  # RRF would put a (ranks 1, 2) above b (ranks 2, 1)
    assert [f.key for f in reciprocal_rank_fusion({k: [x for x, _ in v] for k, v in scored.items()},
                                                  {"vector": 1.125, "bm25": 1.0})][:2] == ["a", "b"]
    assert by_key["d"].ranks == {"bm25": 3}
    for f in fused:
        assert sum(f.contributions.values()) == pytest.approx(f.score)


def test_convex_fusion_a_complete_list_gives_a_missing_key_nothing():
    fused = convex_fusion({"vector": [("a", 0.5), ("b", 0.4)], "bm25": [("b", 5.0)]},
                          {"vector": 0.6, "bm25": 0.4}, {"vector": 0.2}, depth=30)
    by_key = {f.key: f for f in fused}
    assert by_key["a"].contributions["bm25"] == 0.0  # BM25 listed every chunk holding a query word: a holds none
    assert by_key["a"].score == pytest.approx(0.6)
    assert by_key["b"].score == pytest.approx(0.6 * (0.2 / 0.3) + 0.4)


def test_convex_fusion_bonus_and_a_floor_above_every_score():
    # every cosine below the relevance floor: the list's own last score is the floor
    fused = convex_fusion({"vector": [("a", 0.15), ("b", 0.10)]}, {"vector": 1.0}, {"vector": 0.2},
                          bonus={"b": 2.0, "absent": 1.0})
    by_key = {f.key: f for f in fused}
    assert by_key["a"].score == pytest.approx(1.0)
    assert by_key["b"].score == pytest.approx(0.0 + 2.0) and by_key["b"].contributions["bonus"] == 2.0
    assert [f.key for f in fused] == ["b", "a"] and "absent" not in by_key


def test_k_must_be_positive():
    with pytest.raises(ValueError):
        reciprocal_rank_fusion({"bm25": ["a"]}, k=0)


def _hit(sim, signals, text="t"):
    chunk = Chunk(id="1", path="a.md", text=text, span=LineSpan(0, 0, 0, 1), text_hash="h")
    return Hit(chunk=chunk, score=1.0, signals=signals, similarity=sim)


def test_abstention_rule():
    assert abstained([], 0.15)
    assert abstained([_hit(0.1, {"vector": 1})], 0.15)
    assert not abstained([_hit(0.1, {"vector": 1}), _hit(0.3, {"vector": 2})], 0.15)
    # No vector evidence yet (embeddings pending): a BM25 match counts.
    assert not abstained([_hit(None, {"bm25": 1})], 0.15)


def test_exact_keyword_match_counts_as_relevant():
    text = "Jobs that fail twice move to the xylophoneQuarantine queue; check the firewall: port 7433."
    hit = _hit(0.12, {"vector": 1, "bm25": 1}, text)
    assert not abstained([hit], 0.2, "xylophoneQuarantine")
    assert not abstained([hit], 0.2, "what about the port firewall?")  # stop words do not need to match
    assert abstained([hit], 0.2, "firewall of France")  # "france" is not in the chunk
    assert abstained([_hit(0.12, {"vector": 1}, text)], 0.2, "firewall")  # BM25 did not find it
    assert abstained([hit], 0.2, "the of and")  # nothing but stop words
    # matched as BM25 matches: by stem ("upgrade" in a section titled "Upgrading")
    up = _hit(0.03, {"bm25": 1}, "Upgrading\n\nStop the workers, install the new wheel, start them again.")
    assert not abstained([up], 0.2, "How do I upgrade?")
    assert abstained([up], 0.2, "How do I downgrade?")


def test_best_similarity_of_all_candidates_decides_not_just_the_returned_hits():
    hit = _hit(0.12, {"bm25": 1})
    assert abstained([hit], 0.2)
    # a vector candidate outside top_k was relevant
    assert not abstained(RetrievalResult((hit,), best_similarity=0.25), 0.2)
    assert abstained(RetrievalResult((hit,), best_similarity=0.15), 0.2)


def test_convex_bonus_is_the_bm25_score_share_of_the_first_places():
    from ragls.config.settings import RetrievalSettings
    from ragls.retrieval.search import _convex_bonus

    s = RetrievalSettings()  # top_rank_bonus 0.05, rrf_k 60, bm25_weight 1, convex_alpha 0.6: worth 1.22
    bonus = _convex_bonus({"a": 0.05, "c": 0.02, "off": 0.0}, [("a", 10.0), ("b", 9.0), ("c", 5.0)], s)
    assert bonus == {"a": pytest.approx(1.22), "c": pytest.approx(0.61)}  # no bonus, no entry
    assert _convex_bonus({"a": 0.05}, [("a", 10.0)], RetrievalSettings(bm25_weight=0.0)) == {}


def test_compounds_that_name_nothing_are_not_required_literally():
    from ragls.retrieval.search import _named_compounds

    assert _named_compounds(("e.g", "Rc::weak_count", "2.0", "Cargo.toml", "i.e")) == ("rc::weak_count", "cargo.toml")


def test_page_support_raises_a_page_by_its_second_passage_in_the_head():
    def entry(key, score, bonus=0.0):
        return Fused(key, score + bonus, {}, {"vector": score, **({"bonus": bonus} if bonus else {})})

    fused = [entry("t1", 0.9, bonus=1.0), entry("g1", 0.88), entry("g2", 0.8), entry("x1", 0.5), entry("g3", 0.7)]
    pages = {"t1": "test.md", "g1": "guide.md", "g2": "guide.md", "x1": "other.md", "g3": "guide.md"}
    out = page_support(fused, pages, 0.1, head=4)
    by_key = {f.key: f for f in out}
    # the guide's second-best among the first 4 (g2, 0.8) over the leader's score without its bonus (0.9)
    assert by_key["g1"].contributions["page"] == pytest.approx(0.1 * 0.8 / 0.9)
    assert by_key["g2"].score == pytest.approx(0.8 + 0.1 * 0.8 / 0.9)
    assert "page" not in by_key["t1"].contributions and "page" not in by_key["x1"].contributions  # one passage each
    assert "page" not in by_key["g3"].contributions  # below the head
    assert [f.key for f in out] == ["t1", "g1", "g2", "g3", "x1"]
    assert page_support(fused, pages, 0.0, head=4) is fused


def test_lexical_tie_break_gives_a_tie_for_the_first_place_to_the_page_matching_the_words():
    def entry(key, score, bm25, bonus=0.0):
        return Fused(key, score + bonus, {}, {"vector": score - bm25, "bm25": bm25, **({"bonus": bonus} if bonus else {})})

    pages = {"a1": "guide.md", "a2": "guide.md", "r1": "reference.md", "o1": "other.md"}
    # tr07's shape: the generated option list leads the reference page by 0.0003, with less of the question's words
    tied = [entry("a1", 1.0531, 0.205), entry("a2", 1.0529, 0.39), entry("r1", 1.0528, 0.291), entry("o1", 0.9, 0.4)]
    assert [f.key for f in lexical_tie_break(tied, pages)] == ["r1", "a1", "a2", "o1"]  # a1's own passage is skipped
    assert lexical_tie_break(tied, pages, margin=0.0) is tied
    # not a tie (0.01 apart), fewer words in the other page, or a leader holding the exact-match bonus: unchanged
    apart = [entry("a1", 1.06, 0.205), entry("r1", 1.05, 0.291)]
    assert lexical_tie_break(apart, pages) is apart
    fewer = [entry("a1", 1.0531, 0.3), entry("r1", 1.0528, 0.291)]
    assert lexical_tie_break(fewer, pages) is fewer
    exact = [entry("a1", 0.0531, 0.205, bonus=1.0), entry("r1", 1.0528, 0.291)]
    assert lexical_tie_break(exact, pages) is exact
    assert NEAR_TIE == 0.005
