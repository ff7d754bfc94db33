"""Page support on a real index (tantivy + LanceDB + the offline MiniLM; retrieval/fuse.py `page_support`,
`retrieval.page_support_weight`): a question asking two things (send a dict as JSON, read the JSON sent back) that a
guide page answers in two sections, one passage each, and a test-client page answers in one passage that repeats
the question's words. Fused alone, the test-client passage leads the guide's two by a hair (convex scores 0.878
against 0.871 and 0.865: BM25's first against the vector signal's first and second); the guide's second passage is
evidence for its first, and with it the guide page comes first — the sibling-page near tie of issue 27's file
Hit@1 misses (Starlette's testclient.md over websockets.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from offline_index import indexed_folder
from ragls.embedding.embed import offline_model_dir
from ragls.workspace.rag_workspace import RagWorkspace

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

GUIDE = """# WebSockets

A `WebSocket` session lets the server and the client talk both ways over one connection.

## Accepting the connection

Call `await websocket.accept()` before anything is sent or received; `await websocket.close()` ends the session.

## Sending data

`await websocket.send_text(data)` sends a string, `await websocket.send_bytes(data)` bytes, and
`await websocket.send_json(data)` serialises a dict or a list to JSON and sends it to the client as one message.

## Receiving data

`await websocket.receive_text()` waits for the client's next message as a string; `await websocket.receive_json()`
reads the next message the client sends and parses the JSON into a dict.
"""
TESTING = """# Test client

The test client runs requests against your application without a server.

## Sending and receiving JSON on a websocket

Open a websocket session with `client.websocket_connect("/ws")` in a `with` block. On the websocket,
`websocket.send_json(data)` sends a dict to the application as JSON, and `websocket.receive_json()` reads the JSON the
application sends back as a dict, so a test can check each JSON message of the session.
"""
QUESTION = "On a websocket, how do I send a dict to the client as JSON and read the JSON it sends back?"


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    # 400-character chunks: each section of these short pages is a passage of its own, as in a real docs page
    return indexed_folder(tmp_path_factory.mktemp("pages"), {"websockets.md": GUIDE, "testclient.md": TESTING},
                          toml="[chunking]\nchunk_size = 400\n")


def _top(folder: Path, weight: float | None):
    layers = [{"retrieval": {"page_support_weight": weight}}] if weight is not None else []
    ws = RagWorkspace([folder], layers, read_only=True)
    try:
        return list(ws.retrieve(QUESTION, 5))
    finally:
        ws.close()


def test_a_page_answering_in_two_passages_beats_a_sibling_with_one(folder):
    alone = _top(folder, 0.0)
    shipped = _top(folder, None)  # the default weight
    assert [(h.chunk.path, h.chunk.title) for h in alone[:3]] == [
        ("testclient.md", "Test client > Sending and receiving JSON on a websocket"),
        ("websockets.md", "WebSockets > Receiving data"), ("websockets.md", "WebSockets > Sending data")]
    assert alone[0].score - alone[1].score < 0.1 * alone[2].score / alone[0].score  # a near tie the support decides
    assert [h.chunk.path for h in shipped[:3]] == ["websockets.md", "websockets.md", "testclient.md"]
    # the same passages, only the order moved: the guide's two each raised by 0.1 x the other's share of the leader
    assert {h.chunk.title for h in shipped[:3]} == {h.chunk.title for h in alone[:3]}
    assert shipped[0].score == pytest.approx(alone[1].score + 0.1 * alone[2].score / alone[0].score, abs=1e-6)
