"""Weighted RRF arithmetic (retrieval/fuse.py) and the abstention rule (retrieval/search.py)."""

from __future__ import annotations

import pytest
from ragls.core.ir import Chunk, Hit, LineSpan
from ragls.retrieval.fuse import reciprocal_rank_fusion
from ragls.retrieval.result import RetrievalResult
from ragls.retrieval.search import abstained


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
