"""Secret values pasted into ordinary documents (a notes file with an API key, a private key in a README) are masked
before chunking: nothing of them reaches the manifest, the BM25 index or LanceDB, nor a query's chunks, while the
rest of the file is indexed and cited at its own lines. Real tantivy, LanceDB and the offline MiniLM."""

from __future__ import annotations

from pathlib import Path

import pytest
from ragls.embed import offline_model_dir
from ragls.sources.redact import mask_secrets
from ragls.workspace import RagWorkspace
from ragls.trust import trust as trust_folder

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

OPENAI = "sk-proj-Q7vK2mN9xR4tL8wE1aZ5cB3dF6gH0jYp"
GITHUB = "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3sXY"
DB_PASSWORD = "v8Jq2LxW9pRt4Zk"
PEM_BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7"
NOTES = f"""# Deploy notes

Set the keys in the shell before deploying:

OPENAI_API_KEY={OPENAI}
DB_PASSWORD={DB_PASSWORD}

The CI uses the token {GITHUB} to push tags.

-----BEGIN PRIVATE KEY-----
{PEM_BODY}
-----END PRIVATE KEY-----

The deploy listens on port 8443 behind the load balancer.
"""
DOCS = """# Setup

Export `OPENAI_API_KEY=<your key>` and set `password: ${DB_PASSWORD}`; `max_tokens: 1024` caps answers.
"""
SECRETS = (OPENAI, GITHUB, DB_PASSWORD, PEM_BODY)


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    folder = tmp_path_factory.mktemp("secrets") / "docs"
    folder.mkdir()
    (folder / "notes.md").write_text(NOTES)
    (folder / "setup.md").write_text(DOCS)
    index_dir = tmp_path_factory.mktemp("index")
    (folder / "ragls.toml").write_text(f'[index]\npath = "{index_dir.as_posix()}"\n'
                                       f'[embedding]\nmodel_path = "{offline_model_dir().as_posix()}"\n'
                                       'model = "sentence-transformers/all-MiniLM-L6-v2"\n')
    trust_folder(folder)  # the user trusts this test's own folder (ragls/trust.py)
    ws = RagWorkspace([folder])
    ws.index()
    yield ws, index_dir
    ws.close()


def test_no_secret_value_reaches_any_store(indexed):
    ws, index_dir = indexed
    files = [p for p in Path(index_dir).rglob("*") if p.is_file()]
    assert any(p.name == "manifest.sqlite" for p in files) and any("vectors" in p.parts for p in files)
    for path in files:
        data = path.read_bytes()
        for secret in SECRETS:
            assert secret.encode() not in data, (secret, path)
    assert ws.status().folders[0].files == 2


def test_the_rest_of_the_file_is_indexed_and_cited_at_its_lines(indexed):
    ws, _ = indexed
    hits = ws.query("which port does the deploy listen on", top_k=2).hits
    top = hits[0]
    assert top.chunk.path == "notes.md"
    assert "port 8443 behind the load balancer" in top.chunk.text
    assert "OPENAI_API_KEY=sk-p" + "*" * (len(OPENAI) - 4) in top.chunk.text
    assert not any(secret in top.chunk.text for secret in SECRETS)
    assert top.chunk.text.count("\n") == NOTES.strip().count("\n")  # same lines: ranges still match the file
    last = NOTES.splitlines().index("The deploy listens on port 8443 behind the load balancer.")
    assert (top.chunk.span.start_line, top.chunk.span.end_line) == (0, last)
    assert top.chunk.text.splitlines()[last] == NOTES.splitlines()[last]
    setup = ws.query("how do I set the API key", top_k=2).hits
    assert any(h.chunk.path == "setup.md" and "OPENAI_API_KEY=<your key>" in h.chunk.text
               and "max_tokens: 1024" in h.chunk.text for h in setup)  # placeholders and prose are kept


def test_masking_keeps_every_offset():
    masked, count = mask_secrets(NOTES)
    assert count >= 4 and len(masked) == len(NOTES) and masked.splitlines()[0] == "# Deploy notes"
    assert [len(line) for line in masked.splitlines()] == [len(line) for line in NOTES.splitlines()]
    assert mask_secrets(DOCS) == (DOCS, 0)
