"""A nearly full disk, for real: a 2 MB tmpfs mounted in a private mount namespace (`unshare`; as a normal user in
a user namespace too). Copying the offline model (12 MB) there fails with ENOSPC and leaves no partial file; a
config write that does not fit keeps the old file whole; `ragls query` answers by keywords (BM25) and says the
disk is full."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from ragls.embedding.embed import offline_model_dir

pytestmark = pytest.mark.skipif(offline_model_dir() is None or not shutil.which("unshare"),
                                reason="needs ragls[offline] and util-linux unshare")

SCRIPT = """
import errno, json, os, sys
from pathlib import Path
root = Path(sys.argv[1])
out = {}
os.environ["RAGLS_MODELS_DIR"] = str(root / "models")
from ragls.embedding.embed import offline_model_dir
try:
    offline_model_dir()
    out["model"] = "copied"
except OSError as exc:
    out["model"] = errno.errorcode.get(exc.errno, str(exc.errno))
from ragls.cli.rags import write_config
import tomlkit
config = root / "ragls.toml"
config.write_text('[rags.notes]\\nsources = ["a"]\\n')
doc = tomlkit.parse(config.read_text())
doc["rags"]["notes"]["sources"].append("x" * 3_000_000)
try:
    write_config(config, doc)
    out["config"] = "written"
except OSError as exc:
    out["config"] = errno.errorcode.get(exc.errno, str(exc.errno))
out["config_text"] = config.read_text()
# `ragls query` on the full disk: the model cannot be copied, so it answers by keywords and says why
import contextlib, io
docs = Path(sys.argv[2])
os.environ["RAGLS_CACHE_DIR"] = str(root / "cache")
os.environ["RAGLS_OFFLINE"] = "1"
from ragls.cli.app import main
stdout, stderr = io.StringIO(), io.StringIO()
with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
    try:
        out["query_exit"] = main(["query", str(docs), "walrus tusks"]) or 0
    except SystemExit as exc:
        out["query_exit"] = exc.code
out["query_out"], out["query_err"] = stdout.getvalue(), stderr.getvalue()
out["files"] = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())
print(json.dumps(out))
"""


def test_full_disk_leaves_no_partial_files(tmp_path):
    mount = tmp_path / "small"
    mount.mkdir()
    ns = ["unshare", "--mount", "--propagation", "private"] if os.geteuid() == 0 else [
        "unshare", "--user", "--map-root-user", "--mount", "--propagation", "private"]
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "walrus.md").write_text("# Walruses\n\nA walrus uses its tusks to haul itself onto the ice.\n")
    shell = f'mount -t tmpfs -o size=2m tmpfs "$1" && exec "{sys.executable}" -c "$2" "$1" "$3"'
    proc = subprocess.run([*ns, "sh", "-c", shell, "sh", str(mount), SCRIPT, str(docs)], capture_output=True,
                          text=True, timeout=180, check=False)
    if proc.returncode != 0 and "mount" in proc.stderr and "ragls" not in proc.stderr:
        pytest.fail(f"cannot mount a tmpfs in a private namespace here: {proc.stderr}")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["model"] == "ENOSPC" and out["config"] == "ENOSPC"
    assert out["config_text"] == '[rags.notes]\nsources = ["a"]\n'  # the old file, whole
    assert not [f for f in out["files"] if f.endswith(".tmp")], out["files"]
    assert "models/all-MiniLM-L6-v2-int8/model.onnx" not in out["files"]  # no partial model
    # the CLI answers by keywords on the full disk, and says why vector search is off
    assert out["query_exit"] == 0, out["query_err"]
    assert "walrus.md" in out["query_out"], out
    assert "disk full" in out["query_err"] and "copying the embedding model" in out["query_err"], out["query_err"]


WORDS = ("harbour", "tide", "ferry", "puffin", "gannet", "lighthouse", "keeper", "rope", "anchor", "sail", "mast",
         "hull", "deck", "cargo", "crane", "pier")


def test_ragls_index_on_a_full_disk_says_so_and_resumes_once_there_is_room(tmp_path):
    """The index fills a 1 MB tmpfs while it is written: SQLite's "database or disk is full" (or LanceDB's "No
    space left on device", which its own error type carries) ended `ragls index` with a traceback; now one line
    says the disk is full and what to do, and once there is room the next run finishes the index."""
    mount = tmp_path / "small"
    mount.mkdir()
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(40):
        sections = "\n".join(f"## Section {j} of page {i}\n\n"
                             + " ".join(WORDS[(i * 7 + j * 3 + k * k) % len(WORDS)] for k in range(180)) + ".\n"
                             for j in range(3))
        (docs / f"p{i:02}.md").write_text(f"# Page {i}\n\n{sections}")
    ns = ["unshare", "--mount", "--propagation", "private"] if os.geteuid() == 0 else [
        "unshare", "--user", "--map-root-user", "--mount", "--propagation", "private"]
    index = [sys.executable, "-m", "ragls", "index", str(docs)]
    shell = ('m="$1" && shift && mount -t tmpfs -o size=1m tmpfs "$m" && "$@" 2> "$0/first.err"; echo "first=$?"; '
             'mount -o remount,size=64m "$m" && "$@" > /dev/null 2>&1; echo "second=$?"')
    env = {**os.environ, "RAGLS_CACHE_DIR": str(mount / "cache"), "RAGLS_MODELS_DIR": str(tmp_path / "models"),
           "RAGLS_OFFLINE": "1"}
    proc = subprocess.run([*ns, "sh", "-c", shell, str(tmp_path), str(mount), *index], capture_output=True,
                          text=True, timeout=600, check=False, env=env)
    if "first=" not in proc.stdout:
        pytest.fail(f"cannot mount a tmpfs in a private namespace here: {proc.stderr}")
    first_err = (tmp_path / "first.err").read_text()
    assert "first=1" in proc.stdout, proc.stdout + first_err
    assert "Traceback" not in first_err, first_err
    [line] = [x for x in first_err.splitlines() if "disk full" in x]
    assert line.startswith("ragls: disk full: the index cannot be written (") and "free some space" in line
    assert "second=0" in proc.stdout, proc.stdout
