"""OpenTelemetry export (observability.otel_endpoint) to an in-process OTLP/HTTP collector on loopback: a query
makes one trace with embed / BM25 / vector / fusion spans under `rag/query`, an ask adds `llm.chat` (loopback
model), indexing makes `index.sync` — and no span attribute carries document text, the question or the API key."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from ragls.core import telemetry
from ragls.embedding.embed import OFFLINE_MODEL_NAME, offline_model_dir
from ragls.workspace.rag_workspace import RagWorkspace

SECRET_TEXT = "zanzibar-quokka retry ceiling"
API_KEY = "sk-telemetry-test-9f3e"


class Collector:
    def __init__(self):
        self.spans = []
        collector = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                req = ExportTraceServiceRequest()
                req.ParseFromString(body)
                for rs in req.resource_spans:
                    for ss in rs.scope_spans:
                        collector.spans.extend(ss.spans)
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def collector():
    c = Collector()
    yield c
    telemetry.shutdown()
    c.server.shutdown()


def test_spans_per_request_and_no_text_in_attributes(tmp_path, collector, llm_server, monkeypatch):
    monkeypatch.setenv("RAGLS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RAGLS_TEST_KEY", API_KEY)
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "retries.md").write_text(f"# Retries\n\nThe {SECRET_TEXT} is sixty seconds.\n")
    settings = {"embedding": {"model": OFFLINE_MODEL_NAME, "model_path": str(offline_model_dir())},
                "observability": {"otel_endpoint": collector.url},
                "generation": {"backend": "openai", "base_url": llm_server.openai_url, "model": "m",
                               "api_key_env": "RAGLS_TEST_KEY", "max_retries": 0}}
    ws = RagWorkspace([folder], [settings])
    try:
        ws.index()
        ws.query(f"what is the {SECRET_TEXT}")
        llm_server.queue("Sixty seconds [1].")
        ws.ask(f"What is the {SECRET_TEXT}?")
    finally:
        ws.close()
    telemetry.flush()
    by_name = {}
    for s in collector.spans:
        by_name.setdefault(s.name, []).append(s)
    assert {"rag/query", "rag/ask", "embed.query", "bm25.search", "vector.search", "fusion.rrf", "llm.chat",
            "index.sync"} <= set(by_name)
    query = by_name["rag/query"][0]
    children = {s.name for s in collector.spans if s.parent_span_id == query.span_id}
    assert {"embed.query", "bm25.search", "vector.search", "fusion.rrf"} <= children
    assert all(s.trace_id == query.trace_id for s in collector.spans if s.parent_span_id == query.span_id)
    llm = by_name["llm.chat"][0]
    ask = by_name["rag/ask"][0]
    assert llm.trace_id == ask.trace_id != query.trace_id  # one trace per request
    for s in collector.spans:
        for attr in s.attributes:
            value = str(attr.value)
            assert "zanzibar" not in value and API_KEY not in value and "sixty" not in value.lower()
