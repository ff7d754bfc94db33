"""Graph RAG end to end on real stores: extraction through the OpenAI SDK against the loopback LLM server (fixed
extraction JSON per fixture chunk), the persisted networkx graph, and the graph signal in hybrid retrieval.

Fixture graph: ferris.md states Ferris -LIKES-> Zorblax; zorblax.md states Zorblax -MADE_FROM-> Kelp; kelp.md
mentions Kelp (and Rocky coasts). zorblax.md shares no word with the question "What does Ferris like?".
"""

from __future__ import annotations

import json
import re

import pytest
from graph_fixture import DOCS, QUESTION, extraction_handler, sent_files, write_folder
from llm_server import LLMServer, Reply
from ragls.index.graph_extract import parse_extraction
from ragls.retrieval.search import search
from ragls.workspace.rag_workspace import RagWorkspace
from tiny_cross_encoder import make_cross_encoder_dir


@pytest.fixture(scope="module")
def server():
    with LLMServer(extraction_handler) as srv:
        yield srv


@pytest.fixture(scope="module")
def ws(tmp_path_factory, server):
    cache = tmp_path_factory.mktemp("cache")
    mp = pytest.MonkeyPatch()
    mp.setenv("RAGLS_CACHE_DIR", str(cache))
    mp.setenv("RAGLS_OFFLINE", "1")
    folder = write_folder(tmp_path_factory.mktemp("ws") / "docs", server)
    server.reset(extraction_handler)
    w = RagWorkspace([folder])
    w.index()
    yield w
    w.close()
    mp.undo()


def graph_paths(ws, hops: int) -> list[str]:
    ws.settings.retrieval.graph_hops = hops
    hits = ws.query(QUESTION, top_k=len(DOCS)).hits
    return [h.chunk.path for h in sorted((h for h in hits if "graph" in h.signals), key=lambda h: h.signals["graph"])]


def test_each_chunk_sent_once_with_the_prompt(ws, server):
    assert sent_files(server) == sorted(DOCS)
    req = server.requests[0]
    assert req.model == "extractor-test"
    assert "Extract the entities and relationships" in req.last_user_text()


def test_graph_persisted_with_mentions(ws):
    store = ws.graphs[0].store
    data = json.loads(store.path.read_text())
    names = {n["name"] for n in data["graph"]["nodes"]}
    assert names == {"Ferris", "Zorblax", "Kelp", "Rocky coasts"}
    zorblax = store.entity("ZORBLAX")
    assert zorblax["aliases"] == ["zorblax"]
    chunks = ws.indexes[0].manifest.get_chunks(list(zorblax["chunks"]))
    assert sorted(c.path for c in chunks.values()) == ["ferris.md", "zorblax.md"]
    edge = store.graph.edges["ferris", "zorblax"]
    assert list(edge["types"].values()) == ["LIKES"] and sum(edge["by_chunk"].values()) == 2.0


def test_one_hop_surfaces_chunk_sharing_no_words(ws):
    words = set(re.findall(r"\w+", QUESTION.lower()))
    assert not words & set(re.findall(r"\w+", DOCS["zorblax.md"].lower()))
    ws.settings.retrieval.graph_hops = 1
    hits = ws.query(QUESTION, top_k=3).hits
    by_path = {h.chunk.path: h for h in hits}
    assert "zorblax.md" in by_path
    assert by_path["zorblax.md"].signals["graph"] == 2
    assert hits[0].chunk.path == "ferris.md" and hits[0].signals["graph"] == 1
    # Without the graph signal, the same index does not rank it in the top 3.
    plain = search(ws.indexes, ws.embedder, QUESTION, settings=ws.settings.retrieval, top_k=3)
    assert "zorblax.md" not in [h.chunk.path for h in plain]


def test_hops_0_1_2(ws):
    assert graph_paths(ws, 0) == ["ferris.md"]
    assert graph_paths(ws, 1) == ["ferris.md", "zorblax.md"]
    assert graph_paths(ws, 2) == ["ferris.md", "zorblax.md", "kelp.md"]


def test_entities_matched_by_name_embedding(ws):
    ws.settings.retrieval.graph_hops = 0

    def graph_set(q):
        return {h.chunk.path for h in ws.query(q, top_k=len(DOCS)).hits if "graph" in h.signals}

    # No whole-word match in either question: "kelps" ~ Kelp (cos 0.9), "rocky shores" ~ Rocky coasts (0.67).
    assert graph_set("kelps") == {"kelp.md", "zorblax.md"}
    assert graph_set("what grows on rocky shores") == {"kelp.md"}


def test_query_without_entities_has_no_graph_signal(ws):
    hits = ws.query("staging cluster deployments", top_k=3).hits
    assert hits[0].chunk.path == "deploy.md"
    assert all("graph" not in h.signals for h in hits)


def test_invalid_json_counted_in_status(ws, server):
    messages = [e["message"] for e in ws.status().errors]
    assert "graph extraction: 1 chunk gave invalid JSON (see the server log)" in messages
    assert ws.graphs[0].store.invalid_count() == 1
    before = len(server.requests)
    ws.index()  # nothing changed: nothing re-sent, not even the invalid chunk
    assert len(server.requests) == before


def test_parse_extraction_edge_cases():
    assert "invalid" in parse_extraction("no json here")
    assert "invalid" in parse_extraction('{"entities": "x"}')
    got = parse_extraction('Here: {"entities":[{"name":"A","type":"weird"},{"name":"  "}],'
                           '"relationships":[{"from":"A","to":"B","weight":-3},{"from":"A","to":"a"}]} thanks')
    assert got["entities"] == [{"name": "A", "type": "OTHER", "description": ""},
                               {"name": "B", "type": "OTHER", "description": ""}]
    assert got["relationships"] == [{"from": "A", "to": "B", "type": "RELATED_TO", "weight": 1.0}]


def test_cli_graph_prints_neighbourhood(tmp_path, server, monkeypatch, capsys):
    from ragls.cli.app import main

    monkeypatch.setenv("RAGLS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RAGLS_OFFLINE", "1")
    folder = write_folder(tmp_path / "docs", server)
    assert main(["graph", str(folder), "--entity", "zorblax", "--hops", "2"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "Zorblax [OTHER]  (also: zorblax)"
    assert "mentioned in ferris.md:1-3: what Ferris loves" in out
    assert "1 hop: Zorblax -[LIKES 2]- Ferris [PERSON]" in out
    assert "1 hop: Zorblax -[MADE_FROM 1]- Kelp [OTHER]" in out
    assert "2 hops: Kelp -[GROWS_ALONG 1]- Rocky coasts [LOCATION]" in out
    assert main(["graph", str(folder), "--entity", "Zorblex"]) == 2
    assert "similar: Zorblax" in capsys.readouterr().err


@pytest.fixture
def fresh(tmp_path, server, monkeypatch):
    monkeypatch.setenv("RAGLS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RAGLS_OFFLINE", "1")
    folder = write_folder(tmp_path / "docs", server)
    server.reset(extraction_handler)
    w = RagWorkspace([folder])
    w.index()
    yield w
    w.close()


def test_incremental_update_extracts_only_the_edited_file(fresh, server):
    folder = fresh.folders[0]
    assert len(server.requests) == len(DOCS)
    server.reset(extraction_handler)
    (folder / "kelp.md").write_text("# Kelp\n\nKelp forests grow along rocky coasts and shelter otters.\n")
    fresh.index()
    assert sent_files(server) == ["kelp.md"]  # only the edited file's chunk went to the model
    server.reset(extraction_handler)
    (folder / "zorblax.md").unlink()
    fresh.index()
    assert server.requests == []
    store = fresh.graphs[0].store
    assert not store.graph.has_edge("zorblax", "kelp")  # only zorblax.md stated it
    assert graph_paths(fresh, 2) == ["ferris.md"]  # Ferris -> Zorblax is still there, but no chunk beyond
    # A rebuild re-extracts nothing: results are keyed by chunk text.
    fresh.rebuild()
    assert server.requests == []
    assert graph_paths(fresh, 1) == ["ferris.md"]


def test_failed_extraction_is_retried_later(fresh, server, monkeypatch):
    import ragls.index.graph_extract as ge

    monkeypatch.setattr(ge, "RETRY_WAIT_S", (0.01, 0.02))
    folder = fresh.folders[0]
    server.reset(lambda req: Reply(status=400, error="model overloaded"))
    (folder / "new.md").write_text("# Kelp again\n\nKelp forests grow along rocky coasts, again.\n")
    fresh.index()
    assert len(server.requests) == ge.RETRY_ATTEMPTS  # tenacity retried, then gave up
    assert any("not extracted yet" in e["message"] and "model overloaded" in e["message"]
               for e in fresh.status().errors)
    server.reset(extraction_handler)
    (folder / "oncall.md").write_text("# On-call\n\nThe rotation changes on Tuesdays now.\n")
    fresh.index()
    assert sent_files(server) == ["?", "oncall.md"]  # new.md (not a DOCS body) retried with the edit
    assert not any("not extracted" in e["message"] for e in fresh.status().errors)


def test_reranker_turns_graph_signal_off(tmp_path, server, monkeypatch):
    monkeypatch.setenv("RAGLS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RAGLS_OFFLINE", "1")
    model_dir = make_cross_encoder_dir(tmp_path / "xenc", "cold")
    folder = write_folder(tmp_path / "docs", server,
                          extra=f'[retrieval]\nreranker_model_path = "{model_dir.as_posix()}"\n')
    (folder / "winter.md").write_text("# Winter\n\nCold nights, cold mornings: the cold lasts till March.\n")
    w = RagWorkspace([folder])
    try:
        w.index()
        hits = w.query(QUESTION, top_k=3).hits
        assert all("graph" not in h.signals and "rerank" in h.signals for h in hits)
        assert all("vector" in h.signals for h in hits)  # candidate ranks stay for explain
        # The test model scores the number of "cold" tokens in the chunk: winter.md 3, zorblax.md 1, others 0.
        assert [h.chunk.path for h in hits[:2]] == ["winter.md", "zorblax.md"]
        assert [h.signals["rerank"] for h in hits[:2]] == [3.0, 1.0]
        assert hits[0].score == 3.0
    finally:
        w.close()
