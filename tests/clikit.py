"""The `ragls` command line run in this process: `ragls.cli.app.main(argv)` with its own environment, stdout and stderr.

Most CLI tests assert on output and exit codes, not on the process boundary; running `main` in-process spares the
3.5-6 CPU-s of imports and model loading a `python -m ragls` start costs. Tests of what only a real process shows
(signals, locks held by another process, the socket hand-off, import-time guards) keep `subprocess`.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from unittest import mock


def ragls(env: Mapping[str, str] | None, *args: str | os.PathLike, check: bool = True,
          cwd: Path | None = None, stdout=None) -> subprocess.CompletedProcess[str]:
    """Run `ragls ARGS...` in-process with `env` as the whole environment (None: the current one) and `cwd` as the
    working directory; `stdout`, a text file, replaces the captured stdout (e.g. a real pipe; then `.stdout` is ""). Returns a CompletedProcess (returncode, stdout, stderr) like `subprocess.run(...,
    text=True)`; log records go to pytest's log capture, not to `stderr`. With `check`, a non-zero exit fails the
    test with the command's stderr."""
    from ragls.cli.app import main
    from ragls.index import ownership

    argv = [str(a) for a in args]
    out, err = io.StringIO(), io.StringIO()
    target = out if stdout is None else stdout
    root = logging.getLogger()
    handlers = list(root.handlers)
    role = ownership.PROCESS_ROLE
    old_cwd = os.getcwd()
    with mock.patch.dict(os.environ, dict(env) if env is not None else dict(os.environ), clear=True), \
            contextlib.redirect_stdout(target), contextlib.redirect_stderr(err):
        try:
            if cwd is not None:
                os.chdir(cwd)
            code = main(argv)
        except SystemExit as exc:  # argparse: usage errors exit 2, --help exits 0
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        finally:
            os.chdir(old_cwd)
            ownership.set_role(role)
            for handler in root.handlers[:]:  # logging.basicConfig outside a test phase bound our StringIO
                if handler not in handlers:
                    root.removeHandler(handler)
    proc = subprocess.CompletedProcess(["ragls", *argv], code, out.getvalue(), err.getvalue())
    if check and code != 0:
        raise AssertionError(f"ragls {argv} exited {code}: {proc.stderr}")
    return proc


def ragls_process(env: Mapping[str, str], *args: str | os.PathLike, check: bool = True,
                  timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run `python -m ragls ARGS...` as a real process (for what the process boundary decides)."""
    proc = subprocess.run([sys.executable, "-m", "ragls", *map(str, args)], check=False, env=dict(env),
                          capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"ragls {args} exited {proc.returncode}: {proc.stderr}")
    return proc


def ragls_batch(env: Mapping[str, str], *argvs: list[str | os.PathLike],
                prefix: list[str] | None = None, timeout: float = 300) -> list[subprocess.CompletedProcess[str]]:
    """Run several `ragls ARGS...` commands one after another in ONE child process (`prefix` before the
    interpreter, e.g. `privileges.unprivileged`'s `setpriv`), each through `ragls()` above: the process boundary
    (its credentials, its environment) stays, while the imports and the model load are paid once instead of once per
    command. Returns one CompletedProcess per command, in order; raises AssertionError when the child itself fails."""
    script = ("import json, sys; sys.path.insert(0, sys.argv[1]); from clikit import ragls; "
              "print(json.dumps([vars(ragls(None, *a, check=False)) for a in json.loads(sys.argv[2])]))")
    cmd = [*(prefix or []), sys.executable, "-c", script, str(Path(__file__).parent),
           json.dumps([[str(a) for a in argv] for argv in argvs])]
    child = subprocess.run(cmd, check=False, env=dict(env), capture_output=True, text=True, timeout=timeout)
    if child.returncode != 0:
        raise AssertionError(f"ragls batch exited {child.returncode}: {child.stderr}")
    return [subprocess.CompletedProcess(r["args"], r["returncode"], r["stdout"], r["stderr"])
            for r in json.loads(child.stdout.splitlines()[-1])]
