"""Attach an existing Qdrant collection read-only: qdrant-client's embedded local mode (a real local collection on
disk), the real offline MiniLM model, collections made the LangChain way (`page_content` + `metadata.source`).

What must hold: a LangChain collection with UUID or integer ids answers with citations naming its sources and
lines; named vectors, multi-vectors and a dimension mismatch are refused with messages saying why; an empty one
attaches with a warning; the collection is never written; the API key never reaches logs or status; private hosts
bypass HTTP(S)_PROXY while remote hosts honour them.
"""

from __future__ import annotations

import logging
import uuid
from typing import TYPE_CHECKING

import pytest
from ragls.answer.ask import ask
from ragls.config.settings import build_settings
from ragls.core.errors import ConfigError
from ragls.embedding.embed import OFFLINE_MODEL_NAME, Embedder, offline_model_dir
from ragls.kb.qdrant_attach import AttachedCollection, AttachError, QdrantAttach
from ragls.stores.qdrant import bypasses_proxy, connect

if TYPE_CHECKING:
    from qdrant_client import QdrantClient

MODEL_DIR = offline_model_dir()
pytestmark = pytest.mark.skipif(MODEL_DIR is None, reason="needs ragls[offline]")

DOCS = [
    ("guide/retries.md", 3, "Failed uploads are retried five times with exponential backoff, starting at 200 ms."),
    ("guide/deploy.md", 10, "The container image is pushed to the registry when a release tag is created."),
    ("guide/auth.md", 0, "Tokens expire after 24 hours; refresh them with the `login --refresh` command."),
    ("faq.md", 42, "The cache directory can be moved with the XDG_CACHE_HOME environment variable."),
]


@pytest.fixture(scope="module")
def embedder():
    s = build_settings({"embedding": {"model": OFFLINE_MODEL_NAME, "model_path": str(MODEL_DIR)}})[0]
    emb = Embedder(s.embedding)
    emb.ensure_loaded()
    return emb


@pytest.fixture
def settings():
    return build_settings({"embedding": {"model": OFFLINE_MODEL_NAME, "model_path": str(MODEL_DIR)},
                           "generation": {"backend": "none"}})[0]


def langchain_collection(client: QdrantClient, name: str, embedder, ids: str = "uuid", dim: int | None = None):
    """A collection as LangChain's QdrantVectorStore writes it: one unnamed cosine vector, payload
    {page_content, metadata: {source, line}}."""
    # (here, not at the top: every xdist worker imports this module to collect the suite)
    from qdrant_client import models
    client.create_collection(name, vectors_config=models.VectorParams(size=dim or embedder.dim,
                                                                      distance=models.Distance.COSINE))
    vecs = embedder.embed_documents([t for _, _, t in DOCS])
    points = []
    for n, ((src, line, text), v) in enumerate(zip(DOCS, vecs)):
        pid = str(uuid.uuid4()) if ids == "uuid" else n + 1
        vector = v.tolist() if dim is None else [0.1] * dim
        points.append(models.PointStruct(id=pid, vector=vector,
                                         payload={"page_content": text, "metadata": {"source": src, "line": line}}))
    client.upsert(name, points=points, wait=True)


def snapshot(client, name):
    pts, _ = client.scroll(name, limit=100, with_payload=True, with_vectors=True)
    return sorted((str(p.id), repr(p.payload), repr(p.vector)) for p in pts)


@pytest.mark.parametrize("ids", ["uuid", "int"])
def test_langchain_collection_answers_with_citations(tmp_path, embedder, settings, ids):
    client = connect(str(tmp_path / "qdrant"))
    langchain_collection(client, "docs", embedder, ids=ids)
    before = snapshot(client, "docs")
    att = AttachedCollection.open(QdrantAttach(url=str(tmp_path / "qdrant"), collection="docs"), embedder)
    assert att.points == 4 and not att.has_sparse
    assert any(OFFLINE_MODEL_NAME in w and "do not prove the same model" in w for w in att.warnings)

    hits = att.search(embedder, "how many times are failed uploads retried?", settings=settings.retrieval, top_k=3)
    top = hits[0].chunk
    assert top.path == "guide/retries.md" and top.span.start_line == 3
    assert hits[0].signals.get("vector") == 1 and hits[0].signals.get("bm25") == 1
    assert hits[0].similarity is not None and hits[0].similarity > 0.3

    answer = ask("how many times are failed uploads retried?", settings=settings,
                 retrieve=lambda q, k: att.search(embedder, q, settings=settings.retrieval, top_k=k))
    assert not answer.abstained
    assert answer.sources[0][1].chunk.path == "guide/retries.md"
    assert "five times" in answer.text and "[1]" in answer.text
    assert snapshot(client, "docs") == before  # never written


def test_page_field_cited(tmp_path, embedder, settings):
    from qdrant_client import models
    client = connect(str(tmp_path / "qdrant"))
    client.create_collection("pdfs", vectors_config=models.VectorParams(size=embedder.dim,
                                                                        distance=models.Distance.COSINE))
    text = "The warranty covers the pump for three years from the date of purchase."
    client.upsert("pdfs", points=[models.PointStruct(id=7, vector=embedder.embed_documents([text])[0].tolist(),
                  payload={"page_content": text, "metadata": {"source": "manual.pdf", "page": 12}})], wait=True)
    att = AttachedCollection.open(QdrantAttach(url=str(tmp_path / "qdrant"), collection="pdfs"), embedder)
    hit = att.search(embedder, "how long is the pump warranty", settings=settings.retrieval)[0]
    assert hit.chunk.path == "manual.pdf#page=12" and hit.chunk.id == "7"


def test_refuses_named_multi_and_mismatched_vectors(tmp_path, embedder):
    from qdrant_client import models
    client = connect(str(tmp_path / "qdrant"))
    loc = str(tmp_path / "qdrant")
    client.create_collection("named", vectors_config={
        "text": models.VectorParams(size=embedder.dim, distance=models.Distance.COSINE),
        "image": models.VectorParams(size=512, distance=models.Distance.COSINE)})
    with pytest.raises(AttachError, match=r"named vectors \(image, text\).*single unnamed dense vector"):
        AttachedCollection.open(QdrantAttach(url=loc, collection="named"), embedder)

    client.create_collection("colbert", vectors_config=models.VectorParams(
        size=embedder.dim, distance=models.Distance.COSINE,
        multivector_config=models.MultiVectorConfig(comparator=models.MultiVectorComparator.MAX_SIM)))
    with pytest.raises(AttachError, match="multi-vector"):
        AttachedCollection.open(QdrantAttach(url=loc, collection="colbert"), embedder)

    langchain_collection(client, "big", embedder, dim=768)
    with pytest.raises(AttachError, match=rf"768-dimensional.*{OFFLINE_MODEL_NAME} gives {embedder.dim}"):
        AttachedCollection.open(QdrantAttach(url=loc, collection="big"), embedder)

    with pytest.raises(AttachError, match=r"'nope' does not exist.*collections there: big, colbert, named"):
        AttachedCollection.open(QdrantAttach(url=loc, collection="nope"), embedder)
    with pytest.raises(AttachError, match=r"no collection given; collections at .*: big, colbert, named"):
        AttachedCollection.open(QdrantAttach(url=loc), embedder)


def test_wrong_text_field_and_empty_collection(tmp_path, embedder):
    from qdrant_client import models
    client = connect(str(tmp_path / "qdrant"))
    loc = str(tmp_path / "qdrant")
    client.create_collection("llama", vectors_config=models.VectorParams(size=embedder.dim,
                                                                         distance=models.Distance.COSINE))
    client.upsert("llama", points=[models.PointStruct(id=1, vector=[0.1] * embedder.dim,
                                                      payload={"text": "hello", "file_name": "a.md"})], wait=True)
    with pytest.raises(AttachError, match=r"no 'page_content' payload field \(fields found: file_name, text\)"):
        AttachedCollection.open(QdrantAttach(url=loc, collection="llama"), embedder)
    att = AttachedCollection.open(QdrantAttach(url=loc, collection="llama", payload_text_field="text"), embedder)
    assert att.points == 1

    client.create_collection("empty", vectors_config=models.VectorParams(size=embedder.dim,
                                                                         distance=models.Distance.COSINE))
    att = AttachedCollection.open(QdrantAttach(url=loc, collection="empty"), embedder)
    assert any("'empty' is empty" in w for w in att.warnings)


def test_api_key_never_logged_or_in_status(tmp_path, embedder, monkeypatch, caplog):
    secret = "qdr-SECRET-" + uuid.uuid4().hex
    monkeypatch.setenv("TEAM_QDRANT_KEY", secret)
    caplog.set_level(logging.DEBUG)
    client = connect(str(tmp_path / "qdrant"))
    langchain_collection(client, "docs", embedder)
    cfg = QdrantAttach.from_dict({"url": str(tmp_path / "qdrant"), "collection": "docs",
                                  "api_key_env": "TEAM_QDRANT_KEY"})
    att = AttachedCollection.open(cfg, embedder)
    status = att.status()
    assert status["apiKeyEnv"] == "TEAM_QDRANT_KEY" and secret not in repr(status) and secret not in repr(cfg)
    # A served URL: the key goes to the client only; the connection attempt to a closed port fails (logged).
    remote = connect("http://127.0.0.1:9", api_key_env="TEAM_QDRANT_KEY", timeout=1)
    with pytest.raises(Exception) as err:
        AttachedCollection.open(QdrantAttach(url="http://127.0.0.1:9", collection="docs",
                                             api_key_env="TEAM_QDRANT_KEY"), embedder, client=remote)
    logging.getLogger("ragls").error("attach failed: %s", err.value)
    assert caplog.records and all(secret not in r.getMessage() for r in caplog.records)
    assert secret not in caplog.text and secret not in str(err.value)

    monkeypatch.delenv("TEAM_QDRANT_KEY")
    with pytest.raises(ConfigError, match="TEAM_QDRANT_KEY is not set"):
        connect("http://127.0.0.1:9", api_key_env="TEAM_QDRANT_KEY")
    with pytest.raises(ConfigError, match="api_key_env"):
        QdrantAttach.from_dict({"url": "http://x:6333", "collection": "c", "api_key": secret})


def test_proxy_bypass_for_private_hosts(monkeypatch):
    for url in ("http://localhost:6333", "http://127.0.0.1:6333", "http://[::1]:6333", "http://10.1.2.3:6333",
                "http://192.168.1.20:6333", "http://172.20.0.5:6333", "http://qdrant.local:6333",
                "http://169.254.1.1:6333"):
        assert bypasses_proxy(url), url
    for url in ("https://xyz.cloud.qdrant.io:6333", "http://8.8.8.8:6333", "http://qdrant.example.com"):
        assert not bypasses_proxy(url), url
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.invalid:3128")
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.invalid:3128")
    local = connect("http://127.0.0.1:6333")
    remote = connect("https://xyz.cloud.qdrant.io:6333")
    # the arguments qdrant-client hands to httpx.Client: trust_env=False ignores the proxy variables
    assert local._client._rest_args["trust_env"] is False
    assert remote._client._rest_args["trust_env"] is True
