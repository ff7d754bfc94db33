"""bench/ir_metrics.py against a hand-computed example (trec_eval definitions)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from ir_metrics import (
    average_precision_at,
    evaluate,
    ndcg_at,
    recall_at,
    reciprocal_rank_at,
)

# Relevant: a (gain 3), c (gain 1), e (gain 2, never retrieved); x is judged not relevant; b, d are unjudged.
QRELS = {"a": 3.0, "c": 1.0, "e": 2.0, "x": 0.0}
RUN = ["a", "b", "c", "x", "d"]


def test_ndcg_by_hand():
    # DCG@3 = 3/log2(2) + 0 + 1/log2(4) = 3.5; IDCG@3 = 3 + 2/log2(3) + 1/log2(4) = 4.7618595
    assert ndcg_at(RUN, QRELS, 3) == pytest.approx(3.5 / 4.7618595, abs=1e-6)
    assert ndcg_at(RUN, QRELS, 3) == pytest.approx(0.7350065, abs=1e-6)
    # e, a, c is not ideal (ideal is a, e, c): DCG = 2 + 3/log2(3) + 0.5 = 4.3928 -> 0.92249
    assert ndcg_at(["e", "a", "c"], QRELS, 3) == pytest.approx(4.3927893 / 4.7618595, abs=1e-6)
    assert ndcg_at(["a", "e", "c"], QRELS, 10) == pytest.approx(1.0)
    assert ndcg_at(RUN, {"x": 0.0}, 10) == 0.0


def test_average_precision_by_hand():
    # relevant at ranks 1 and 3: (1/1 + 2/3) / 3 relevant = 5/9; e never retrieved counts as 0
    assert average_precision_at(RUN, QRELS, 100) == pytest.approx(5 / 9)
    assert average_precision_at(RUN, QRELS, 2) == pytest.approx(1 / 3)  # cut before c


def test_recall_and_reciprocal_rank_by_hand():
    assert recall_at(RUN, QRELS, 3) == pytest.approx(2 / 3)
    assert recall_at(RUN, QRELS, 1) == pytest.approx(1 / 3)
    assert reciprocal_rank_at(RUN, QRELS, 10) == 1.0
    assert reciprocal_rank_at(["b", "x", "c"], QRELS, 10) == pytest.approx(1 / 3)
    assert reciprocal_rank_at(["b", "x", "c"], QRELS, 2) == 0.0


def test_evaluate_averages_over_judged_queries():
    qrels = {"q1": QRELS, "q2": {"c": 4.0}}
    runs = {"q1": RUN, "q2": ["b", "c"]}  # q2: MRR 1/2, recall 1
    m = evaluate(runs, qrels)
    assert m["MRR@10"] == pytest.approx((1 + 0.5) / 2)
    assert m["R@10"] == pytest.approx((2 / 3 + 1) / 2)
    assert m["MAP@100"] == pytest.approx((5 / 9 + 0.5) / 2)
    # a judged query with no run scores 0
    assert evaluate({}, qrels)["nDCG@10"] == 0.0
