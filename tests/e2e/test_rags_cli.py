"""`ragls rag …` and `--rag NAME` from the terminal on a named RAG of local files: the CLI in-process (clikit),
real stores, the offline MiniLM model."""

from __future__ import annotations

import json

import pytest
from clikit import ragls as run
from lspkit import server_env
from ragls.config.trust import trust as trust_folder


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    env = server_env(tmp_path_factory.mktemp("rags-cli-cache"))
    env["RAGLS_CONFIG_DIR"] = str(tmp_path_factory.mktemp("rags-cli-config"))  # no user config of the machine
    return env


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    root = tmp_path_factory.mktemp("rags-cli")
    (root / "handbook").mkdir()
    (root / "handbook" / "frob.md").write_text(
        "# Frobnicator\n\nThe frobnicator is enabled with --frob. To turn it off set frob = false.\n")
    (root / "handbook" / "quota.md").write_text("# Quotas\n\nQuotas reset at midnight UTC every day.\n")
    ws = root / "ws"
    ws.mkdir()
    (ws / "readme.md").write_text("# Project\n\nThe project readme talks about nothing in particular.\n")
    (ws / "ragls.toml").write_text('[rags.handbook]\nsources = ["../handbook"]\n')
    trust_folder(ws)  # the user trusts this test's own folder (ragls/config/trust.py)
    return ws


def ragls(env, cwd, *args):
    return run(env, *args, cwd=cwd)


def test_rag_list_after_rebuild_counts_no_chunk_without_vectors(env, ws):
    out = ragls(env, ws, "rag", "rebuild", "handbook").stdout
    assert "handbook: 2 files, 2 sections" in out
    entries = {e["name"]: e for e in json.loads(ragls(env, ws, "rag", "list", "--json").stdout)}
    assert entries["handbook"]["files"] == 2 and entries["handbook"]["chunks"] == 2
    assert entries["handbook"]["pendingVectors"] == 0  # the rebuild embedded them (its query shows vector ranks)
    res = json.loads(ragls(env, ws, "query", ws, "turn off the frobnicator", "--rag", "handbook", "--json",
                           "--explain").stdout)
    assert res["chunks"][0]["source"]["path"].endswith("frob.md")
    assert "vector" in res["chunks"][0]["signals"]


def test_rag_commands_take_no_folder(env, ws):
    """README: `--rag NAME` on index/query/ask; the folder defaults to the current one, whose ragls.toml declares
    the RAG."""
    out = ragls(env, ws, "index", "--rag", "handbook").stdout
    assert "handbook: 0 indexed, 0 deleted, 2 unchanged" in out
    res = json.loads(ragls(env, ws, "query", "--rag", "handbook", "turn off the frobnicator", "--json").stdout)
    assert res["query"] == "turn off the frobnicator"
    assert res["chunks"][0]["source"]["path"].endswith("frob.md")
    out = ragls(env, ws, "ask", "--rag", "handbook", "When do quotas reset?").stdout
    assert "quota.md" in out.split("Sources:")[-1]
    res = json.loads(run(env, "query", "the project readme", "--json", cwd=ws).stdout)  # no --rag: the project
    assert res["chunks"][0]["source"]["path"].endswith("readme.md")  # around the current directory, not the RAG


LIST_IMPORTS = """
import json, sys
from ragls.cli.app import main
code = main(["rag", "list", "--json"])
print(json.dumps({"code": code, "loaded": sorted(m for m in ("lancedb", "fastembed", "onnxruntime") if m in sys.modules)}))
"""


def test_rag_list_reads_config_and_manifests_without_loading_the_vector_stack(env, ws):
    """`ragls rag list` imported LanceDB and fastembed (about 2.7 CPU-s) only to list the configured RAGs: it opens
    the indexes read-only as `ragls status` does, and lists the same counts (a fresh process: its imports are
    checked)."""
    import subprocess
    import sys
    from pathlib import Path

    import ragls as package

    ragls(env, ws, "rag", "rebuild", "handbook")
    ragls(env, ws, "index", ws)
    server = str(Path(package.__file__).resolve().parents[1])  # this checkout's ragls, whatever the cwd
    proc = subprocess.run([sys.executable, "-c", LIST_IMPORTS], env={**env, "PYTHONPATH": server}, cwd=ws, check=True, capture_output=True,
                          text=True, timeout=300)
    *listing, last = proc.stdout.strip().splitlines()
    assert json.loads(last) == {"code": 0, "loaded": []}
    entries = {e["name"]: e for e in json.loads("\n".join(listing))}
    assert [(n, e["files"], e["chunks"], e["pendingVectors"], e["errors"]) for n, e in entries.items()] == [
        ("workspace", 1, 1, 0, []), ("handbook", 2, 2, 0, [])]
    assert entries["handbook"]["sources"] == ["../handbook"] and entries["workspace"]["sources"] == [str(ws)]
    assert entries["handbook"]["lastIndexedAt"] and entries["workspace"]["lastIndexedAt"]
