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
    from ragls.retrieval.fuse import relevance_shares

    assert relevance_shares([2.088, 1.6794, 0.0]) == [1.0, 0.804, 0.0]  # convex, bonus on the first, a zero hit
    assert relevance_shares([0.0328, 0.0323]) == [1.0, 0.985]  # RRF's close scores stay close
    assert relevance_shares([]) is None
    assert relevance_shares([0.0, 0.0]) is None  # nothing to be a share of
    assert relevance_shares([3.1, -0.4]) is None  # a cross-encoder's logits


def test_every_boolean_param_refuses_a_string_as_expand_and_stream_do():
    """`explain` and `staged` took "yes" / "no" / 1 as booleans (pydantic's lax mode) where `expand` and HTTP's
    `stream` answer -32602: a script sending `"explain": "false"` got no explanation by luck, `"yes"` got one, and a
    typo'd `"flase"` was an error only on some fields (found driving `ragls http` with curl)."""
    import pytest
    from ragls.core.errors import InvalidParams
    from ragls.lsp.wire import CommitParams, QueryParams, parse

    for model, field, extra in ((QueryParams, "explain", {"query": "x"}), (QueryParams, "expand", {"query": "x"}),
                                (CommitParams, "staged", {})):
        for bad in ("yes", "false", 1):
            with pytest.raises(InvalidParams, match=f"^{field}: Input should be a valid boolean"):
                parse(model, {**extra, field: bad})
        assert getattr(parse(model, {**extra, field: True}), field) is True
    assert parse(QueryParams, {"query": "x"}).explain is False and parse(CommitParams, {}).staged is True
