"""A nearly full disk, for real: a 2 MB tmpfs mounted in a private mount namespace (`unshare`; as a normal user in
a user namespace too). Copying the offline model (12 MB) there fails with ENOSPC and leaves no partial file; a
config write that does not fit keeps the old file whole."""

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
out["files"] = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())
print(json.dumps(out))
"""


def test_full_disk_leaves_no_partial_files(tmp_path):
    mount = tmp_path / "small"
    mount.mkdir()
    ns = ["unshare", "--mount", "--propagation", "private"] if os.geteuid() == 0 else [
        "unshare", "--user", "--map-root-user", "--mount", "--propagation", "private"]
    shell = f'mount -t tmpfs -o size=2m tmpfs "$1" && exec "{sys.executable}" -c "$2" "$1"'
    proc = subprocess.run([*ns, "sh", "-c", shell, "sh", str(mount), SCRIPT], capture_output=True, text=True,
                          timeout=120, check=False)
    if proc.returncode != 0 and "mount" in proc.stderr and "ragls" not in proc.stderr:
        pytest.fail(f"cannot mount a tmpfs in a private namespace here: {proc.stderr}")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["model"] == "ENOSPC" and out["config"] == "ENOSPC"
    assert out["config_text"] == '[rags.notes]\nsources = ["a"]\n'  # the old file, whole
    assert not [f for f in out["files"] if f.endswith(".tmp")], out["files"]
    assert "models/all-MiniLM-L6-v2-int8/model.onnx" not in out["files"]  # no partial model
