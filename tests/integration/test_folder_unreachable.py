"""A workspace folder that cannot be reached while open — a folder above it made unreadable (EACCES), a network
mount gone (ESTALE, EIO) — is said so by rag/status and left out of the search as a folder moved away is
(`workspace.status.folder_gone`, `rag_selection.present`): `Path.is_dir` raises for those errors before Python
3.14, and rag/status and every query over the workspace failed with that PermissionError. Real EACCES needs a user
the kernel checks: the probe runs as `nobody` (setpriv, uid 65534) — a real RagWorkspace, a real tantivy index."""

from __future__ import annotations

from asuser import needs_nobody, nobody_root, remove, run_as_nobody

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


@needs_nobody
def test_a_folder_that_cannot_be_reached_is_said_and_not_searched():
    root = nobody_root()
    try:
        out = run_as_nobody(PROBE, root)
        folder = root / "parent" / "docs"
        assert "before ['retries.md']" in out, out
        said = (f"{folder}: the folder cannot be reached (Permission denied): its index is not searched until it "
                "is back; open the folder where it is now")
        assert f"query failed: {said}" in out, out
        assert f"status: [{said!r}]" in out, out
    finally:
        remove(root)
