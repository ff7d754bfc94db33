"""RM3 pseudo-relevance feedback (retrieval/feedback.py): the relevance model and the interpolation, by hand."""

from __future__ import annotations

import pytest
from ragls.retrieval.feedback import expanded_query, relevance_model


def test_relevance_model_weights_terms_by_frequency_and_first_pass_score():
    # doc 1 (score 2): kelp x2, tide x2 -> 0.5 / 0.5 of its length; doc 2 (score 1): kelp x1, reef x3.
    model = relevance_model([["kelp", "kelp", "tide", "tide"], ["kelp", "reef", "reef", "reef"]], [2.0, 1.0],
                            doc_freq=lambda t: 1, num_docs=100, fb_terms=10)
    raw = {"kelp": 2 * 0.5 + 1 * 0.25, "tide": 2 * 0.5, "reef": 1 * 0.75}
    total = sum(raw.values())
    assert model == pytest.approx({t: w / total for t, w in raw.items()})
    assert sum(model.values()) == pytest.approx(1.0)


def test_relevance_model_drops_frequent_short_and_long_terms():
    df = {"common": 11, "rare": 10, "x": 1, "a" * 21: 1}  # 11 of 100 chunks is above Anserini's 10 % cut
    model = relevance_model([["common", "rare", "x", "a" * 21]], [1.0], doc_freq=df.__getitem__, num_docs=100,
                            fb_terms=10)
    assert model == {"rare": 1.0}


def test_relevance_model_prunes_each_chunk_and_the_model_to_fb_terms():
    docs = [["a1"] * 3 + ["b1"] * 2 + ["c1"], ["a2"] * 3 + ["b2"] * 2 + ["c2"]]
    model = relevance_model(docs, [1.0, 0.5], doc_freq=lambda t: 0, num_docs=10, fb_terms=2)
    # Per chunk only its 2 most frequent terms count (c1, c2 never enter); then the model keeps the 2 heaviest.
    assert list(model) == ["a1", "b1"]
    assert model["a1"] == pytest.approx(0.6) and model["b1"] == pytest.approx(0.4)


def test_relevance_model_is_empty_without_eligible_terms():
    assert relevance_model([["the"]], [3.0], doc_freq=lambda t: 50, num_docs=100, fb_terms=10) == {}
    assert relevance_model([], [], doc_freq=lambda t: 0, num_docs=0, fb_terms=10) == {}


def test_expanded_query_interpolates_query_and_model():
    q = expanded_query(["otter", "sleep", "otter"], {"kelp": 0.75, "otter": 0.25}, query_weight=0.5)
    assert q == pytest.approx({"otter": 0.5 * 2 / 3 + 0.5 * 0.25, "sleep": 0.5 / 3, "kelp": 0.5 * 0.75})
    assert sum(q.values()) == pytest.approx(1.0)
    assert expanded_query(["otter"], {}, 0.5) == {"otter": 1.0}
    assert expanded_query(["otter"], {"kelp": 1.0}, 1.0) == {"otter": 1.0, "kelp": 0.0}
    # a borrowed word's term counts at its weight: P(t|Q) = 1 / 1.25 and 0.25 / 1.25
    q = expanded_query(["otter", "kelp"], {}, 0.5, [1.0, 0.25])
    assert q == pytest.approx({"otter": 0.8, "kelp": 0.2})
