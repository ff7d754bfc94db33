"""Window pooling arithmetic (retrieval/pooling.py): a chunk's vector score from its best window and its window 0."""

from __future__ import annotations

import numpy as np
import pytest
from ragls.retrieval.pooling import pooled_scores
from ragls.stores.vectors import WindowMatch

V = np.zeros(4, dtype=np.float32)


def match(cid: str, sim: float, index: int, first: float | None = None) -> WindowMatch:
    return WindowMatch(cid, sim, index, 0, 1, V, first)


class Store:
    """Answers window-0 cosines from a dict and records what was asked."""

    def __init__(self, firsts: dict[str, float]):
        self.firsts = firsts
        self.asked: list[list[str]] = []

    def first_window_similarities(self, vector, ids):
        self.asked.append(list(ids))
        return {i: self.firsts[i] for i in ids if i in self.firsts}


def test_margin_keeps_window_zero_unless_a_later_window_beats_it_by_more():
    store = Store({"deep": 0.30, "tail": 0.50})
    matches = [match("tail", 0.52, 1), match("one", 0.51, 0), match("deep", 0.60, 2), match("seen", 0.49, 1, 0.40)]
    out = {m.chunk_id: s for m, s in pooled_scores(store, V, matches, 0.05)}
    assert out["tail"] == pytest.approx(0.50)  # 0.52 - 0.05 < window 0's 0.50
    assert out["one"] == pytest.approx(0.51)  # a one-window chunk keeps its cosine
    assert out["deep"] == pytest.approx(0.55)  # 0.60 - 0.05 > 0.30
    assert out["seen"] == pytest.approx(0.44)  # window 0 seen by the search: not fetched again
    assert store.asked == [["tail", "deep"]]
    order = [m.chunk_id for m, _ in pooled_scores(store, V, matches, 0.05)]
    assert order == ["deep", "one", "tail", "seen"]


def test_margin_zero_is_the_best_window():
    store = Store({"a": 0.2})
    matches = [match("a", 0.6, 1), match("b", 0.5, 0)]
    assert [(m.chunk_id, s) for m, s in pooled_scores(store, V, matches, 0.0)] == [("a", 0.6), ("b", 0.5)]
    assert store.asked == []  # nothing fetched when pooling is off


def test_missing_window_zero_or_store_without_lookup_keeps_the_best_window():
    matches = [match("a", 0.6, 1)]
    assert pooled_scores(Store({}), V, matches, 0.1)[0][1] == pytest.approx(0.6)
    assert pooled_scores(object(), V, matches, 0.1)[0][1] == pytest.approx(0.6)
