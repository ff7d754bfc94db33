"""Run a Python script as another user, for tests of what a real permission error does (root, which the tests run
as, is never refused): `setpriv` to uid/gid 65534 (`nobody`), with the ragls under test on PYTHONPATH and HOME and
ragls' folders in `root`, a temporary folder every user may write (made by `nobody_root`)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path

import pytest
import ragls

NOBODY = 65534
usable = hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("setpriv") is not None
needs_nobody = pytest.mark.skipif(not usable, reason="runs a probe as another user: needs root and setpriv")


def nobody_root() -> Path:
    """A new temporary folder (mode 777) for `run_as_nobody`; `remove(root)` deletes it, whatever modes it holds."""
    root = Path(tempfile.mkdtemp(prefix="ragls-as-nobody-"))
    root.chmod(0o777)
    return root


def remove(root: Path) -> None:
    subprocess.run(["chmod", "-R", "u+rwx", str(root)], check=False)
    shutil.rmtree(root, ignore_errors=True)


def _env(root: Path) -> dict[str, str]:
    """The environment of a probe run as uid 65534: the ragls under test on PYTHONPATH, its folders in `root`."""
    server = str(Path(ragls.__file__).resolve().parents[1])
    return {"PATH": os.environ.get("PATH", ""), "HOME": str(root), "RAGLS_CACHE_DIR": str(root / "cache"),
            "RAGLS_CONFIG_DIR": str(root / "config"), "RAGLS_DATA_DIR": str(root / "data"), "RAGLS_OFFLINE": "1",
            "PYTHONPATH": server}


@cache
def _cannot_import() -> str:
    """Why uid 65534 cannot import ragls and the stores it opens with this interpreter ("" when it can): a checkout
    or virtual environment under a folder only root may enter (a mode-700 home or temporary folder) lets the
    interpreter start but not read its site-packages or `server/`."""
    root = nobody_root()
    try:
        run = subprocess.run(["setpriv", "--reuid", str(NOBODY), "--regid", str(NOBODY), "--clear-groups",
                              sys.executable, "-c", "import ragls, lancedb, tantivy, qdrant_client"],
                             env=_env(root), cwd=str(root), capture_output=True, text=True, timeout=120, check=False)
    finally:
        remove(root)
    return "" if run.returncode == 0 else (run.stderr.strip().splitlines() or [f"exit {run.returncode}"])[-1]


def run_as_nobody(script: str, root: Path) -> str:
    """The stdout of `python -c script root` run as uid/gid 65534 in `root`; the test is skipped when that user
    cannot start it or cannot import ragls and its stores (the interpreter, the virtual environment or the checkout
    unreadable to it); `script` prints "started" first."""
    why = _cannot_import()
    if why:
        pytest.skip(f"uid {NOBODY} cannot import ragls with {sys.executable}: {why[-300:]}")
    env = _env(root)
    run = subprocess.run(["setpriv", "--reuid", str(NOBODY), "--regid", str(NOBODY), "--clear-groups",
                          sys.executable, "-c", script, str(root)], env=env, cwd=str(root), capture_output=True,
                         text=True, timeout=300, check=False)
    if "started" not in run.stdout:
        pytest.skip(f"uid {NOBODY} cannot run the probe: {run.stderr[-300:]}")
    return run.stdout + run.stderr
