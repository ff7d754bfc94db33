"""One retrieval pipeline for every kind of source (issue 26): a workspace folder, a named RAG of local files, a team
folder (shared Qdrant collection + local overlay), an attached Qdrant collection and a request's ephemeral
`documents` each answer through `retrieval/search.search`, so each shows the pipeline's work: near-duplicate removal
(a near-copy of the answering file is dropped), focus lines (the answering sentence, inside the hit, at most 6
lines) and abstention evidence (the near miss of tests/integration/test_abstention.py abstains on the calibrated
evidence, as over the workspace).

Real components: tantivy, LanceDB, qdrant-client's embedded local mode, real git, the offline MiniLM model; one
module-scoped set of indexes (the fixture docs: 6 short files).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from ragls.config.trust import trust as trust_folder
from ragls.embedding.embed import OFFLINE_MODEL_NAME, offline_model_dir
from ragls.kb.qdrant_attach import CollectionSource
from ragls.retrieval.relevance import abstained
from ragls.retrieval.search import search
from ragls.retrieval.transforms import Variant
from ragls.stores.qdrant import close_local, connect
from ragls.workspace.rag_workspace import RagWorkspace

MODEL_DIR = offline_model_dir()
pytestmark = pytest.mark.skipif(MODEL_DIR is None, reason="needs ragls[offline]")

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "docs"
QUESTION = "How long does the first retry wait?"
ANSWER = "200 milliseconds"
NEAR_MISS = "How do I deploy the service to AWS Lambda with a serverless framework?"
RETRIES = ("guide/retries.md", "guide/retries-copy.md")


def docs_copy(dest: Path) -> Path:
    """The fixture docs plus a near-copy of guide/retries.md (one word differs: another text, nearly the same
    vector)."""
    shutil.copytree(FIXTURES, dest)
    text = (dest / "guide/retries.md").read_text()
    assert "This page explains" in text
    (dest / "guide/retries-copy.md").write_text(text.replace("This page explains", "This guide explains"))
    return dest


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.email=ci@example.com", "-c", "user.name=ci", *args], cwd=cwd,
                          check=True, capture_output=True, text=True).stdout.strip()


EMBEDDING = {"model": OFFLINE_MODEL_NAME, "model_path": str(MODEL_DIR)}


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("pipeline")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RAGLS_CACHE_DIR", str(tmp / "cache"))
        mp.setenv("RAGLS_CONFIG_DIR", str(tmp / "config"))
        mp.setenv("RAGLS_OFFLINE", "1")
        folder = docs_copy(tmp / "ws")
        kb = docs_copy(tmp / "kb")
        store = tmp / "qdrant"
        (folder / "ragls.toml").write_text(
            f'[index]\npath = "{(tmp / "index").as_posix()}"\n'
            f'[embedding]\nmodel_path = "{MODEL_DIR.as_posix()}"\nmodel = "{OFFLINE_MODEL_NAME}"\n'
            '[generation]\nbackend = "none"\n'
            f'[rags.kb]\nsources = ["{kb.as_posix()}/**/*.{{md,rst,txt}}"]\n'
            f'[rags.attached]\nqdrant = {{ url = "{store.as_posix()}", collection = "docs" }}\n')
        trust_folder(folder)  # the user trusts this test's own folder (outside sources, a Qdrant path)
        ws = RagWorkspace([folder])
        ws.index()
        attach_collection(ws, store)

        # team mode: a CI clone builds the shared collection, the developer's clone overlays its (no) changes
        origin = docs_copy(tmp / "origin")
        git(origin, "init", "-q", "-b", "main")
        git(origin, "add", "-A")
        git(origin, "commit", "-qm", "docs")
        ci, dev = tmp / "ci", tmp / "dev"
        for clone in (ci, dev):
            git(tmp, "clone", "-q", str(origin), str(clone))
        team_index = {"backend": "qdrant", "qdrant_location": str(tmp / "shared")}
        layer = {"embedding": EMBEDDING, "generation": {"backend": "none"}}
        ci_ws = RagWorkspace([ci], [{**layer, "index": {**team_index, "path": str(tmp / "ci-index")}}])
        ci_ws.index()
        ci_ws.close()
        team = RagWorkspace([dev], [{**layer, "index": {**team_index, "path": str(tmp / "dev-index"), "team": True}}])
        team.index()
        try:
            yield ws, team
        finally:
            team.close()
            ws.close()
            close_local(str(store))
            close_local(str(tmp / "shared"))


def attach_collection(ws: RagWorkspace, store: Path) -> None:
    """A collection as LangChain writes it (one unnamed cosine vector, `page_content` + `metadata.source`), with
    line fields, made from the workspace's own chunks."""
    # (here, not at the top: every xdist worker imports this module to collect the suite)
    from qdrant_client import models
    client = connect(str(store))
    idx = ws.indexes[0]
    chunks = [c for path in sorted(idx.manifest.files()) for c in idx.manifest.chunks_of(path)]
    vectors = ws.embedder.embed_documents([c.text for c in chunks])
    client.create_collection("docs", vectors_config=models.VectorParams(size=ws.embedder.dim,
                                                                        distance=models.Distance.COSINE))
    client.upsert("docs", wait=True, points=[
        models.PointStruct(id=n + 1, vector=v.tolist(), payload={
            "page_content": c.text, "metadata": {"source": c.path},
            "start_line": c.span.start_line, "end_line": c.span.end_line})
        for n, (c, v) in enumerate(zip(chunks, vectors))])


def check(hits, miss, settings) -> None:
    """Dedup, focus lines and abstention evidence of one source kind's answer to QUESTION and to NEAR_MISS."""
    paths = [h.chunk.path for h in hits]
    found = [h for h in hits if h.chunk.path.endswith(RETRIES)]
    assert len(found) == 1, paths  # the near-copy is dropped (retrieval.dedup_cosine)
    top = hits[0]
    assert top is found[0], paths
    focus, span = top.focus, top.chunk.span
    assert focus is not None and span.start_line <= focus.start_line <= focus.end_line <= span.end_line
    assert focus.end_line - focus.start_line + 1 <= 6, focus
    lines = top.chunk.text.splitlines()[focus.start_line - span.start_line:focus.end_line - span.start_line + 1]
    assert ANSWER in " ".join(lines), lines
    r = settings.retrieval
    evidence = miss.evidence
    assert evidence is not None and evidence.coverage < 0.7, evidence  # aws, lambda, serverless: nowhere
    assert evidence.probability() < r.abstention_probability, evidence  # abstains on the evidence itself
    assert abstained(miss, r.abstention_floor, min_probability=r.abstention_probability)
    assert hits.evidence is not None
    assert not abstained(hits, r.abstention_floor, min_probability=r.abstention_probability), hits.evidence


def test_workspace_folder(env):
    ws, _ = env
    miss = ws.query(NEAR_MISS)
    assert miss.abstained
    check(ws.query(QUESTION).hits, miss.hits, ws.settings)


def test_named_rag_of_local_files(env):
    ws, _ = env
    miss = ws.query(NEAR_MISS, rag="kb")
    assert miss.abstained
    result = ws.query(QUESTION, rag="kb")
    assert all(Path(h.chunk.path).is_absolute() and "/kb/" in h.chunk.path for h in result.hits)  # the RAG's own
    check(result.hits, miss.hits, ws.settings)


def test_attached_qdrant_collection(env):
    ws, _ = env
    miss = ws.query(NEAR_MISS, rag="attached")
    assert miss.abstained
    result = ws.query(QUESTION, rag="attached")
    assert result.hits[0].signals.keys() >= {"vector", "bm25"}
    check(result.hits, miss.hits, ws.settings)


def test_team_overlay(env):
    _, team = env
    assert team.teams[0] is not None
    miss = team.query(NEAR_MISS)
    assert miss.abstained
    result = team.query(QUESTION)
    assert result.hits[0].chunk.folder == str(team.folders[0])  # shared chunks cited as the local folder's
    check(result.hits, miss.hits, team.settings)


def test_ephemeral_documents(env):
    ws, _ = env
    specs = ["guide/*.md", "api/*.rst", "notes.txt"]
    result, _ = ws.retrieve_documents(specs, QUESTION, None, None)
    miss, _ = ws.retrieve_documents(specs, NEAR_MISS, None, None)
    assert result.hits[0].signals.keys() >= {"vector", "bm25"}  # documents get BM25 too
    check(result, miss, ws.settings)


def test_query_variants_over_payload_sources(env):
    """A query transform's lists (retrieval/transforms.py) over an attached collection and a team folder's shared
    collection: a chunk only a variant found is a hit with its chunk (those sources return chunks with their
    candidates; none is looked up again)."""
    ws, team = env
    variant = [Variant("step_back", "step_back", "retryBudgetPercent caps retries at a share of recent traffic")]
    settings = ws.settings.retrieval.model_copy(update={"candidates": 2, "top_k": 2, "transform_weight": 4.0})
    for sources, embedder in (([CollectionSource(ws.rags.get("attached").attached(), ws.embedder)], ws.embedder),
                              (team.teams[0].sources(), team.embedder)):
        plain = search(sources, embedder, "how is the access token refreshed", settings=settings)
        assert not [h for h in plain if h.chunk.path.endswith(RETRIES)]  # not among the question's candidates
        hits = search(sources, embedder, "how is the access token refreshed", settings=settings,
                      variants=variant)
        budget = [h for h in hits if "step_back_bm25" in h.signals and h.chunk.path.endswith(RETRIES)]
        assert budget and budget[0].chunk.text, [(h.chunk.path, h.signals) for h in hits]
