"""bench/soft_coverage.py: the word-by-word coverage of a question by a chunk, read with the offline MiniLM's
contextual wordpiece vectors, as bench/file_rank_loco.py's `softcov` / `softcov_rel` side features read it
(bench/history/session-62.md, "a word-by-word reading with MiniLM's token vectors")."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from soft_coverage import TokenVectors, coverage, features


@pytest.fixture(scope="module")
def tv():
    return TokenVectors()


def test_the_chunk_that_says_it_covers_more_than_a_neighbour(tv):
    q = tv.query("How do I make the test run stop after the first failing test file?")
    answer = tv.chunk("a", "--bail\n\nAlias: -b. Exit the test suite immediately upon the first failing test suite.")
    other = tv.chunk("b", "Snapshot testing\n\nA snapshot file is written the first time a snapshot test runs.")
    assert 0.0 < coverage(q, other) < coverage(q, answer) <= 1.0
    assert q.shape[1] == answer.shape[1] == 384
    assert coverage(q, tv.chunk("empty", "")) == 0.0  # no wordpiece to cover with


def test_stop_words_and_punctuation_are_not_counted(tv):
    assert len(tv.query("How do I do it?")) == 0  # every word an English stop word
    assert len(tv.query("retries")) >= 1


def test_features_score_the_first_k_and_floor_the_rest(tv):
    q = {"question": "Which option stops the run after the first failure?",
         "fused": [{"path": "cli.md", "lines": "1-3", "title": "CLI > --bail", "text": "Stop after the first failure."},
                   {"path": "api.md", "lines": "1-3", "title": "API", "text": "The expect function checks a value."},
                   {"path": "faq.md", "lines": "4-9", "title": "FAQ", "text": "Tests run in parallel workers."}]}
    got = features(tv, q, k=2)
    assert len(got["softcov"]) == len(got["softcov_rel"]) == 3
    assert got["softcov"][2] == 0.0  # below the first k: not scored
    assert got["softcov"][0] > got["softcov"][1] > 0.0
    assert got["softcov_rel"][0] == 0.0 and got["softcov_rel"][1] < 0.0
    assert got["softcov_rel"][2] == pytest.approx(got["softcov_rel"][1])  # the first k's worst minus their best
