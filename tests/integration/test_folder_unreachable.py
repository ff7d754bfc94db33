"""A workspace folder that cannot be reached while open — a folder above it made unreadable (EACCES), a network
mount gone (ESTALE, EIO) — is said so by rag/status and left out of the search as a folder moved away is
(`workspace.status.folder_gone`, `rag_selection.present`): `Path.is_dir` raises for those errors before Python
3.14, and rag/status and every query over the workspace failed with that PermissionError. Real EACCES needs a user
the kernel checks: the probe runs as `nobody` (setpriv, uid 65534) — a real RagWorkspace, a real tantivy index."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import ragls

PROBE = r"""
import os, sys
from pathlib import Path
print("started", flush=True)
from ragls.core.errors import RequestFailed
from ragls.workspace.rag_workspace import RagWorkspace
root = Path(sys.argv[1])
parent = root / "parent"
folder = parent / "docs"
folder.mkdir(parents=True)
(folder / "retries.md").write_text("# Retries\n\nRequests are retried five times with jitter.\n")
w = RagWorkspace([folder])
try:
    w.index(embed=False)
    print("before", [h.chunk.path for h in w.retrieve("retried jitter", top_k=3, signals=("bm25",))])
    os.chmod(parent, 0)
    try:
        print("after", [h.chunk.path for h in w.retrieve("retried jitter", top_k=3, signals=("bm25",))])
    except RequestFailed as exc:
        print("query failed:", exc)
    except Exception as exc:
        print("query raised", type(exc).__name__, exc)
    try:
        print("status:", [e["message"] for e in w.status().errors if str(folder) in e["message"]])
    except Exception as exc:
        print("status raised", type(exc).__name__, exc)
finally:
    os.chmod(parent, 0o700)
    w.close()
"""


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("setpriv") is None,
                    reason="runs the probe as another user: needs root and setpriv")
def test_a_folder_that_cannot_be_reached_is_said_and_not_searched():
    root = Path(tempfile.mkdtemp(prefix="ragls-unreachable-"))
    try:
        root.chmod(0o777)
        server = str(Path(ragls.__file__).resolve().parents[1])
        env = {"PATH": os.environ.get("PATH", ""), "HOME": str(root), "RAGLS_CACHE_DIR": str(root / "cache"),
               "RAGLS_CONFIG_DIR": str(root / "config"), "RAGLS_DATA_DIR": str(root / "data"), "RAGLS_OFFLINE": "1",
               "PYTHONPATH": server}
        run = subprocess.run(["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", sys.executable,
                              "-c", PROBE, str(root)], env=env, cwd=str(root), capture_output=True, text=True,
                             timeout=300, check=False)
        if "started" not in run.stdout:
            pytest.skip(f"the interpreter or ragls is not readable by uid 65534: {run.stderr[-300:]}")
        out = run.stdout
        folder = root / "parent" / "docs"
        assert "before ['retries.md']" in out, (out, run.stderr)
        said = (f"{folder}: the folder cannot be reached (Permission denied): its index is not searched until it "
                "is back; open the folder where it is now")
        assert f"query failed: {said}" in out, (out, run.stderr)
        assert f"status: [{said!r}]" in out, (out, run.stderr)
    finally:
        subprocess.run(["chmod", "-R", "u+rwx", str(root)], check=False)
        shutil.rmtree(root, ignore_errors=True)
