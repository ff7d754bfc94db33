"""`ragls http`'s error answers come from the error's type (`errors.error_kind`), always as the documented JSON
`{"error": {"code", "message"}}`: an unexpected failure (a named-RAG backend plugged in with `register_backend`
that has a bug) is HTTP 500 with JSON-RPC -32603, not Starlette's plain-text 500, over /retrieve and as the SSE
`error` event of /ask, and the server answers the next request; an index that cannot be opened is 503. The real
app over a real LiveWorkspace (tantivy + SQLite, BM25 while no model is loaded)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from ragls.config.trust import trust
from ragls.core.errors import INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, REQUEST_FAILED
from ragls.http.api import build_app
from ragls.kb import rags
from ragls.workspace.live import LiveWorkspace
from starlette.testclient import TestClient

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "docs"


class BuggyRag:
    """A third-party RAG backend whose search has a bug (it reads a payload field its store never wrote)."""

    def __init__(self, spec, registry):
        self.spec = spec

    def retrieve(self, query, top_k, signals=("vector", "bm25")):
        return {}["page_text"]

    def ensure_indexed(self) -> None:
        pass

    def close(self) -> None:
        pass


@pytest.fixture
def live(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGLS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RAGLS_OFFLINE", "1")
    monkeypatch.setitem(rags.BACKENDS, "buggy", BuggyRag)
    folder = tmp_path / "docs"
    shutil.copytree(FIXTURES, folder)
    (folder / "ragls.toml").write_text('[generation]\nbackend = "none"\n[rags.notes]\nbuggy = {}\n')
    trust(folder)  # the user trusts this test's own folder (ragls/config/trust.py): its [rags.*] and backend apply
    lw = LiveWorkspace([folder], hold_vectors=True, socket_server=None).start()
    yield lw
    lw.close()


def test_an_unexpected_error_is_the_documented_json(live):
    client = TestClient(build_app(live), base_url="http://localhost", raise_server_exceptions=False)
    r = client.post("/retrieve", json={"query": "retry backoff ceiling", "rag": "notes"})
    assert r.status_code == 500 and r.headers["content-type"] == "application/json"
    assert r.json() == {"error": {"code": INTERNAL_ERROR, "message": "internal error (KeyError); see the server log"}}

    with client.stream("POST", "/ask", json={"question": "What is the retry backoff ceiling?", "rag": "notes",
                                             "stream": True}) as r:
        lines = [line for line in r.iter_lines() if line]
    assert lines[-2:] == ["event: error", "data: " + json.dumps(
        {"code": INTERNAL_ERROR, "message": "internal error (KeyError); see the server log"})]

    r = client.post("/retrieve", json={"query": "retry backoff ceiling", "topK": 1})  # the server serves on
    assert r.status_code == 200 and r.json()["chunks"][0]["source"]["path"] == "guide/retries.md"
    r = client.post("/retrieve", json={"query": "retries", "topK": "3"})  # wire.parse: a string is no integer
    assert r.status_code == 400 and r.json()["error"]["message"].startswith("topK:")


def test_an_index_that_cannot_be_opened_is_503(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGLS_CACHE_DIR", str(tmp_path / "cache"))
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "ragls.toml").write_text("[retrieval]\ntop_k = \"many\"\n")  # an invalid setting: the open fails
    lw = LiveWorkspace([folder], socket_server=None).start()
    try:
        r = TestClient(build_app(lw), base_url="http://localhost", raise_server_exceptions=False).get("/status")
        assert r.status_code == 503 and r.json()["error"]["code"] == REQUEST_FAILED
        assert "could not be opened" in r.json()["error"]["message"]
    finally:
        lw.close()


def test_no_endpoint_and_fields_http_does_not_take_are_json_errors(live):
    """Every refusal is the documented JSON, Starlette's own 404 / 405 included; `/ask` says it does not take
    `documents` (a script sending one would otherwise get an answer made without it) and refuses a `stream` that is
    a string ("false" would stream); a body nested past what the json module reads is a 400, not a 500 with a
    RecursionError traceback; the server serves on."""
    client = TestClient(build_app(live), base_url="http://localhost", raise_server_exceptions=False)
    r = client.get("/search")
    assert r.status_code == 404 and r.headers["content-type"] == "application/json"
    assert r.json()["error"]["code"] == INVALID_REQUEST
    assert r.json()["error"]["message"].startswith("no endpoint GET /search; ragls http serves GET /healthz")
    r = client.get("/retrieve")
    assert r.status_code == 405 and r.headers["allow"] == "POST"
    assert r.json()["error"]["message"].startswith("no endpoint GET /retrieve;")
    r = client.post("/ask", json={"question": "What is the retry backoff ceiling?", "documents": ["notes.md"]})
    assert r.status_code == 400 and r.json()["error"]["code"] == INVALID_PARAMS
    assert r.json()["error"]["message"].startswith("documents: not taken over HTTP")
    r = client.post("/ask", json={"question": "What is the retry backoff ceiling?", "stream": "false"})
    assert r.status_code == 400 and r.json()["error"] == {"code": INVALID_PARAMS,
                                                          "message": "stream: Input should be a valid boolean"}
    r = client.post("/ask", json={"question": "What is the retry backoff ceiling?", "stream": False})
    assert r.status_code == 200 and r.headers["content-type"] == "application/json"
    assert r.json()["sources"][0]["path"] == "guide/retries.md"
    deep = b'{"query": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"  # valid JSON, 100,000 levels: 0.2 MB
    r = client.post("/retrieve", content=deep, headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and r.json()["error"] == {
        "code": INVALID_PARAMS, "message": "the request body is JSON nested too deeply to read"}
    r = client.post("/retrieve", json={"query": "retry backoff ceiling", "topK": 1})
    assert r.status_code == 200 and r.json()["chunks"][0]["source"]["path"] == "guide/retries.md"
