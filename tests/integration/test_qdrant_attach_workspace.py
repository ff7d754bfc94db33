"""`[rags.NAME] qdrant = {...}` in ragls.toml, through RagWorkspace (the operations behind rag/query, rag/ask,
rag/list and rag/status): an attached collection in qdrant-client's embedded local mode answers `rag = NAME`; a refused one is a
clear error in status; the API key of a served Qdrant reaches that server's request header and nothing else — not
the logs (captured at DEBUG), not status, not the error (a recording HTTP server on 127.0.0.1, port from the OS).
"""

from __future__ import annotations

import json
import logging
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from ragls.config.trust import trust as trust_folder
from ragls.core.errors import RaglsError
from ragls.embedding.embed import OFFLINE_MODEL_NAME, offline_model_dir
from ragls.stores.qdrant import close_local, connect
from ragls.workspace.rag_workspace import RagWorkspace

MODEL_DIR = offline_model_dir()
pytestmark = pytest.mark.skipif(MODEL_DIR is None, reason="needs ragls[offline]")


class Recorder(BaseHTTPRequestHandler):
    seen: list[dict] = []  # noqa: RUF012 - one test, one server

    def do_GET(self):
        Recorder.seen.append(dict(self.headers))
        body = json.dumps({"status": {"error": "Unauthorized"}}).encode()
        self.send_response(403)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_POST = do_GET

    def log_message(self, *args):
        pass


def test_rag_name_queries_attached_collection_and_key_stays_secret(tmp_path, monkeypatch, caplog):
    # (here, not at the top: every xdist worker imports this module to collect the suite)
    from qdrant_client import models
    secret = "qk-" + uuid.uuid4().hex
    monkeypatch.setenv("HANDBOOK_QDRANT_KEY", secret)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    caplog.set_level(logging.DEBUG)

    folder = tmp_path / "ws"
    folder.mkdir()
    (folder / "readme.md").write_text("# Project\n\nThe workspace's own docs.\n")
    store = tmp_path / "qdrant"
    (folder / "ragls.toml").write_text(f"""
[embedding]
model = "{OFFLINE_MODEL_NAME}"
model_path = "{MODEL_DIR}"

[index]
path = "{tmp_path / 'index'}"

[generation]
backend = "none"

[rags.handbook]
qdrant = {{ url = "{store}", collection = "handbook" }}

[rags.remote]
qdrant = {{ url = "{url}", collection = "handbook", api_key_env = "HANDBOOK_QDRANT_KEY" }}

[rags.named]
qdrant = {{ url = "{store}", collection = "multi" }}
""")
    trust_folder(folder)  # the user trusts this test's own folder (ragls/config/trust.py)
    ws = RagWorkspace([folder])
    client = connect(str(store))
    ws.embedder.ensure_loaded()
    client.create_collection("handbook", vectors_config=models.VectorParams(size=ws.embedder.dim,
                                                                            distance=models.Distance.COSINE))
    texts = {"onboarding.md": "New hires get a laptop and a badge on their first day at the Berlin office.",
             "expenses.md": "Travel expenses are reimbursed within 30 days when receipts are uploaded."}
    vecs = ws.embedder.embed_documents(list(texts.values()))
    client.upsert("handbook", points=[
        models.PointStruct(id=str(uuid.uuid4()), vector=v.tolist(),
                           payload={"page_content": t, "metadata": {"source": src, "start_line": 4}})
        for (src, t), v in zip(texts.items(), vecs)], wait=True)
    client.create_collection("multi", vectors_config={"a": models.VectorParams(size=4, distance=models.Distance.DOT)})
    try:
        ws.index()
        res = ws.query("when are travel expenses reimbursed?", rag="handbook")
        assert res.hits[0].chunk.path == "expenses.md" and res.hits[0].chunk.span.start_line == 4
        assert not res.abstained
        assert ws.query("workspace docs").hits[0].chunk.path == "readme.md"  # the default base is unchanged
        answer = ws.ask("what do new hires get on day one?", rag="handbook")
        assert answer.sources[0][1].chunk.path == "onboarding.md" and "[1]" in answer.text

        with pytest.raises(RaglsError) as err:
            ws.query("anything", rag="remote")
        assert Recorder.seen and Recorder.seen[0].get("api-key") == secret  # the key went to Qdrant only
        status = ws.status()
        infos = {i.name: i for i in ws.rag_list()}  # rag/list
        assert infos["handbook"].kind == "qdrant" and infos["handbook"].chunks == 2
        assert any("do not prove the same model" in e["message"] for e in infos["handbook"].errors)
        assert "named vectors (a)" in infos["named"].errors[0]["message"]
        assert infos["remote"].errors[0]["message"].startswith("cannot reach Qdrant at http://127.0.0.1:")
        everything = repr(status) + repr(infos) + str(err.value) + caplog.text
        assert secret not in everything
        with pytest.raises(RaglsError, match="known: workspace, handbook, named, remote"):
            ws.query("x", rag="nope")
    finally:
        ws.close()
        server.shutdown()
        close_local(str(store))
