"""lsp/wire.py: turning pygls' params into plain data."""

from collections import namedtuple

from ragls.lsp.wire import to_plain


def test_absent_params_are_an_empty_object_but_a_nested_null_stays_null():
    Params = namedtuple("Params", ["embedding", "topK"])
    Embedding = namedtuple("Embedding", ["modelPath"])
    assert to_plain(None) == {}
    assert to_plain(Params(Embedding(None), None)) == {"embedding": {"modelPath": None}, "topK": None}
    assert to_plain({"folders": [Embedding("/m")]}) == {"folders": [{"modelPath": "/m"}]}


def test_relevance_is_each_score_as_a_share_of_the_best_or_absent_when_no_share_means_anything():
    from ragls.lsp.wire import relevance_shares

    assert relevance_shares([2.088, 1.6794, 0.0]) == [1.0, 0.804, 0.0]  # convex, bonus on the first, a zero hit
    assert relevance_shares([0.0328, 0.0323]) == [1.0, 0.985]  # RRF's close scores stay close
    assert relevance_shares([]) is None
    assert relevance_shares([0.0, 0.0]) is None  # nothing to be a share of
    assert relevance_shares([3.1, -0.4]) is None  # a cross-encoder's logits
