"""Cross-encoder reranking on real stores with a tiny ONNX cross-encoder loaded by fastembed's TextCrossEncoder
from a local folder (tests/tiny_cross_encoder.py: score = occurrences of one token in the document)."""

from __future__ import annotations

import pytest
from ragls.core.errors import RequestFailed
from ragls.lsp.wire import to_wire_query
from ragls.retrieval.cross_encoder import Reranker
from ragls.retrieval.search import search
from ragls.workspace.rag_workspace import RagWorkspace
from tiny_cross_encoder import make_cross_encoder_dir

DOCS = {
    "otters.md": "# Otters\n\nOtters float on their backs and hold paws while sleeping.\n",
    "tides.md": "# Tides\n\nTides rise twice a day; the otters feed at low tide near the kelp.\n",
    "harbour.md": "# Harbour\n\nThe harbour is busy; a harbour seal sometimes visits the otters, and the otters "
                  "ignore it. Otters everywhere.\n",
    "trains.md": "# Trains\n\nThe night train leaves at nine from platform two.\n",
}
QUERY = "where do otters sleep"


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return make_cross_encoder_dir(tmp_path_factory.mktemp("xenc"), "harbour")


@pytest.fixture(scope="module")
def ws(tmp_path_factory, model_dir):
    mp = pytest.MonkeyPatch()
    mp.setenv("RAGLS_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    mp.setenv("RAGLS_OFFLINE", "1")
    folder = tmp_path_factory.mktemp("docs")
    for name, body in DOCS.items():
        (folder / name).write_text(body)
    (folder / "huge.md").write_text("# Huge\n\n" + "harbour " * 900 + "\n")  # one chunk of ~900 tokens
    w = RagWorkspace([folder], [{"rag_chunk_size": 8000, "rag_reranker_model": "Xenova/ms-marco-MiniLM-L-6-v2",
                                 "rag_reranker_model_path": str(model_dir)}])
    w.index()
    yield w
    w.close()
    mp.undo()


def test_reranked_order_follows_the_model(ws):
    hits = ws.query(QUERY, top_k=5).hits
    paths = [h.chunk.path for h in hits]
    # "harbour" counts: huge.md thousands (truncated to the window), harbour.md 3, the others 0.
    assert paths[:2] == ["huge.md", "harbour.md"]
    assert hits[1].signals["rerank"] == 3.0 == hits[1].score
    assert {h.signals["rerank"] for h in hits[2:]} == {0.0}
    assert all("graph" not in h.signals for h in hits)
    # The candidates' own ranks stay for explain; RRF (no reranker) puts otters.md first.
    assert {h.chunk.path for h in hits if h.signals.get("vector") == 1} == {"otters.md"}
    plain = search(ws.indexes, ws.embedder, QUERY, settings=ws.settings.retrieval, top_k=1)
    assert plain[0].chunk.path == "otters.md" and "rerank" not in plain[0].signals


def test_long_input_truncated_to_the_window(ws):
    hits = ws.query("harbour " * 1900, top_k=1).hits  # a long query too (15,200 characters)
    top = hits[0]
    assert top.chunk.path == "huge.md"
    # 900 occurrences in the text, but the pair is cut to 512 tokens (the tiny model fails beyond that).
    assert 0 < top.signals["rerank"] < 512


def test_wire_shows_rerank_score(ws):
    wire = to_wire_query(ws.query(QUERY, top_k=2), explain=True)
    signals = wire["chunks"][1]["signals"]
    assert signals["rerank"] == 3.0 and isinstance(signals["vector"], int)


def test_custom_name_and_root_onnx_file(tmp_path):
    d = make_cross_encoder_dir(tmp_path / "m", "train", onnx_rel="model.onnx")
    r = Reranker("acme/tiny-reranker", str(d))
    assert r.score("q", ["train train", "bus", "the train"]) == [2.0, 0.0, 1.0]
    assert r.source == "path"
    # A known name whose file sits elsewhere in the folder also loads (registered under a derived name).
    r2 = Reranker("Xenova/ms-marco-MiniLM-L-12-v2", str(d))
    assert r2.score("q", ["train"]) == [1.0]
    assert r.score("q", []) == []


def test_folder_without_model_fails_clearly(tmp_path):
    (tmp_path / "empty").mkdir()
    r = Reranker("Xenova/ms-marco-MiniLM-L-6-v2", str(tmp_path / "empty"))
    with pytest.raises(RequestFailed, match="has no .onnx model file"):
        r.score("q", ["x"])
    with pytest.raises(RequestFailed, match="is not a directory"):
        Reranker(None, str(tmp_path / "missing")).score("q", ["x"])


def test_uncached_model_offline_fails_fast_and_remembers(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGLS_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("RAGLS_OFFLINE", "1")
    r = Reranker("Xenova/ms-marco-MiniLM-L-6-v2")
    with pytest.raises(RequestFailed, match="reranker_model_path") as first:
        r.score("q", ["x"])
    with pytest.raises(RequestFailed) as second:
        r.score("q", ["x"])
    assert second.value is first.value
    with pytest.raises(RequestFailed, match="unknown reranker model"):
        Reranker("nobody/no-such-model").score("q", ["x"])


def test_query_with_unloadable_reranker_is_a_request_failure(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGLS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RAGLS_OFFLINE", "1")
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nSome text about otters.\n")
    w = RagWorkspace([folder], [{"rag_reranker_model": "Xenova/ms-marco-MiniLM-L-6-v2"}])
    try:
        w.index()
        with pytest.raises(RequestFailed, match="cannot load reranker model"):
            w.query("otters")
    finally:
        w.close()


def test_relevance_floor_drops_hits_the_reranker_scores_below_it(ws):
    """`retrieval.relevance_floor` 1: only hits whose cross-encoder score ("harbour" count) is at least 1 stay."""
    from ragls.config.settings import RetrievalSettings

    floor = RetrievalSettings(**{**ws.settings.retrieval.model_dump(), "relevance_floor": 1.0})
    options = ws._search_options(ws.indexes)
    hits = search(ws.indexes, ws.embedder, QUERY, settings=floor, top_k=5, **options)
    assert [h.chunk.path for h in hits] == ["huge.md", "harbour.md"]
    assert all(h.signals["rerank"] >= 1.0 for h in hits)
