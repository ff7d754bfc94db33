"""`ragls rag attach NAME --url DIR [--collection C]` against qdrant-client's embedded local mode: lists the
collections without --collection; with it, checks the collection and writes `[rags.NAME] qdrant = {...}` (never a
key) to the user config (as `ragls rag add` does; `--workspace PATH` writes PATH/ragls.toml instead) and prints
that path, after which `rag = NAME` answers from it in any folder; a refused collection writes nothing."""

from __future__ import annotations

import json

import pytest
import tomllib
from clikit import ragls
from ragls.config.settings import build_settings
from ragls.config.trust import trust as trust_folder
from ragls.embedding.embed import OFFLINE_MODEL_NAME, Embedder, offline_model_dir
from ragls.workspace.rag_workspace import RagWorkspace

MODEL_DIR = offline_model_dir()
pytestmark = pytest.mark.skipif(MODEL_DIR is None, reason="needs ragls[offline]")


def run(*args):
    return ragls(None, *args, check=False)  # in-process (clikit), in this test's environment


def test_rag_attach_lists_checks_and_writes_config(tmp_path, monkeypatch):
    # (here, not at the top: every xdist worker imports this module to collect the suite)
    from qdrant_client import QdrantClient, models
    monkeypatch.setenv("RAGLS_CONFIG_DIR", str(tmp_path / "user-config"))
    user_config = tmp_path / "user-config" / "ragls.toml"
    store = tmp_path / "qdrant"
    emb = Embedder(build_settings({"embedding": {"model": OFFLINE_MODEL_NAME,
                                                 "model_path": str(MODEL_DIR)}})[0].embedding)
    emb.ensure_loaded()
    client = QdrantClient(path=str(store))
    client.create_collection("handbook", vectors_config=models.VectorParams(size=emb.dim,
                                                                            distance=models.Distance.COSINE))
    text = "Travel expenses are reimbursed within 30 days when receipts are uploaded."
    client.upsert("handbook", points=[models.PointStruct(id=1, vector=emb.embed_documents([text])[0].tolist(),
                  payload={"page_content": text, "metadata": {"source": "expenses.md"}})], wait=True)
    client.create_collection("wide", vectors_config=models.VectorParams(size=768, distance=models.Distance.COSINE))
    client.close()
    ws_dir = tmp_path / "ws"
    ws_dir.mkdir()
    (ws_dir / "ragls.toml").write_text(f'[embedding]\nmodel = "{OFFLINE_MODEL_NAME}"\nmodel_path = "{MODEL_DIR}"\n'
                                       f'[index]\npath = "{tmp_path / "index"}"\n')
    trust_folder(ws_dir)  # the user trusts this test's own folder (ragls/config/trust.py)

    listed = run("rag", "attach", "hb", "--url", str(store), "--json")
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout)["collections"] == ["handbook", "wide"]

    refused = run("rag", "attach", "w", "--url", str(store), "--collection", "wide", "--path", str(ws_dir))
    assert refused.returncode != 0 and "768-dimensional" in refused.stderr
    assert "rags" not in tomllib.loads((ws_dir / "ragls.toml").read_text()) and not user_config.exists()

    done = run("rag", "attach", "hb", "--url", str(store), "--collection", "handbook", "--api-key-env",
               "SOME_KEY_VAR", "--path", str(ws_dir))
    assert done.returncode == 0, done.stderr
    assert "do not prove the same model" in done.stderr
    assert done.stdout.strip().endswith(f"in {user_config}")
    conf = tomllib.loads(user_config.read_text())
    assert conf["rags"]["hb"]["qdrant"] == {"url": str(store), "collection": "handbook", "api_key_env": "SOME_KEY_VAR"}
    assert "rags" not in tomllib.loads((ws_dir / "ragls.toml").read_text())
    again = run("rag", "attach", "hb", "--url", str(store), "--collection", "handbook", "--path", str(ws_dir))
    assert again.returncode == 2 and "already defined" in again.stderr and str(user_config) in again.stderr
    # `rag add` writes the same file: both RAGs are in it, and `rag list` of any folder shows both
    added = run("rag", "add", "notes", str(ws_dir))
    assert added.returncode == 0 and str(user_config) in added.stdout
    assert set(tomllib.loads(user_config.read_text())["rags"]) == {"hb", "notes"}
    # --workspace writes the folder's ragls.toml instead, and says so
    local = run("rag", "attach", "hb2", "--url", str(store), "--collection", "handbook", "--path", str(ws_dir),
                "--workspace", str(ws_dir))
    assert local.returncode == 0 and local.stdout.strip().endswith(f"in {ws_dir / 'ragls.toml'}")
    assert tomllib.loads((ws_dir / "ragls.toml").read_text())["rags"]["hb2"]["qdrant"]["collection"] == "handbook"

    ws = RagWorkspace([ws_dir])
    try:
        assert ws.query("when are expenses reimbursed", rag="hb").hits[0].chunk.path == "expenses.md"
    finally:
        ws.close()


def test_rag_attach_unreachable_server_is_one_line(tmp_path, monkeypatch):
    """A Qdrant URL where nothing listens: one `ragls:` line naming the URL and exit 1, not qdrant-client's
    traceback; with a user:password in the URL the password is not printed; nothing is written to the config."""
    from llm_server import held_port

    monkeypatch.setenv("RAGLS_CONFIG_DIR", str(tmp_path / "user-config"))
    with held_port() as port:  # a loopback port held bound, not listening: the connection is refused
        url = f"http://reader:hunter2@127.0.0.1:{port}"
        for extra in ([], ["--collection", "c"]):
            r = run("rag", "attach", "t", "--url", url, *extra)
            assert r.returncode == 1, r.stderr
            assert r.stderr.startswith("ragls: cannot reach Qdrant at http://") and f"127.0.0.1:{port}" in r.stderr
            assert "Traceback" not in r.stderr and "hunter2" not in r.stderr
    assert not (tmp_path / "user-config" / "ragls.toml").exists()
