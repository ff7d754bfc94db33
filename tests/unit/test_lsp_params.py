"""How the language server reads the params of its own methods (`rag/*`, which lsprotocol has no types for)."""

from __future__ import annotations

import json

from ragls.lsp.plain import to_plain
from ragls.lsp.server import server


def test_custom_params_stay_the_json_dicts_and_lists():
    """pygls made every object of a custom method's params a namedtuple of a class built for that object (~0.4 ms
    each, on the event loop: a rag/ask with 100,000 history turns held every request for 39 s; 1.9 s now) and
    dropped a key named "type_name". The server's protocol keeps the JSON's own dicts and lists, whole."""
    history = [{"role": "user", "content": f"turn {i}"} for i in range(3)]
    body = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "rag/ask",
                       "params": {"question": "and on Windows?", "history": history, "type_name": "kept"}})
    message = json.loads(body, object_hook=server.protocol.structure_message)
    assert (message.id, message.method) == (7, "rag/ask")
    assert message.params == {"question": "and on Windows?", "history": history, "type_name": "kept"}
    assert type(message.params) is dict and type(message.params["history"][0]) is dict
    assert to_plain(message.params) == message.params
    note = json.loads(json.dumps({"jsonrpc": "2.0", "method": "rag/unknown", "params": [{"a": {"b": None}}]}),
                      object_hook=server.protocol.structure_message)
    assert note.params == [{"a": {"b": None}}]
