"""lsp/wire.py: turning pygls' params into plain data."""

from collections import namedtuple

from ragls.lsp.wire import to_plain


def test_absent_params_are_an_empty_object_but_a_nested_null_stays_null():
    Params = namedtuple("Params", ["embedding", "topK"])
    Embedding = namedtuple("Embedding", ["modelPath"])
    assert to_plain(None) == {}
    assert to_plain(Params(Embedding(None), None)) == {"embedding": {"modelPath": None}, "topK": None}
    assert to_plain({"folders": [Embedding("/m")]}) == {"folders": [{"modelPath": "/m"}]}
