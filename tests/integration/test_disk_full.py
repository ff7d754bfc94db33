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
