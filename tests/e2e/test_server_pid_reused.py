"""A background server killed with `kill -9` (or by the OOM killer, or a reboot) leaves its `server.json` and socket in
the index directory; the pid they name may belong to another process by then (pids are reused). That process is no
server: `ragls serve --stop` must not signal it, and `ragls serve --background` must start a server rather than say
one serves the folder. Real pid reuse, in a pid namespace of our own (`unshare -Urpf --mount-proc`, Linux), where
`/proc/sys/kernel/ns_last_pid` hands the dead server's pid to a `sleep` of the same user; real `python -m ragls`
processes (the detached server must be a process of its own)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURE_DOCS = Path(__file__).resolve().parents[1] / "fixtures" / "docs"

SCRIPT = r"""
set -u
ragls() { "$PY" -m ragls "$@"; }
ragls serve --background "$WS" --idle-exit 3 >/dev/null || exit 10
info=$(find "$RAGLS_CACHE_DIR" -name server.json)
pid=$("$PY" -c "import json, sys; print(json.load(open(sys.argv[1]))['pid'])" "$info")
kill -9 "$pid"
while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
echo $((pid - 1)) > /proc/sys/kernel/ns_last_pid
sleep 600 & other=$!
[ "$other" = "$pid" ] || { echo "pid $pid not reused ($other)"; exit 11; }
echo "reused $pid"
ragls serve --background "$WS" --idle-exit 3
echo "started $?"
ragls serve --stop "$WS"
echo "stopped $?"
sleep 0.5
kill -0 "$other" 2>/dev/null && echo "other alive" || echo "other killed"
kill "$other" 2>/dev/null; true
"""


def _pid_namespace_usable() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-Urpf", "--mount-proc", "sh", "-c", "echo 50 > /proc/sys/kernel/ns_last_pid"],
                           check=False, capture_output=True)
    return probe.returncode == 0


@pytest.mark.skipif(not _pid_namespace_usable(), reason="needs Linux user and pid namespaces (unshare -Urpf)")
def test_a_dead_servers_pid_now_anothers_is_neither_stopped_nor_taken_for_the_server(tmp_path):
    ws = shutil.copytree(FIXTURE_DOCS, tmp_path / "docs")
    env = {**os.environ, "PY": sys.executable, "WS": str(ws), "RAGLS_CACHE_DIR": str(tmp_path / "cache"),
           "RAGLS_CONFIG_DIR": str(tmp_path / "config"), "RAGLS_DATA_DIR": str(tmp_path / "data"),
           "RAGLS_OFFLINE": "1"}
    run = subprocess.run(["unshare", "-Urpf", "--mount-proc", "sh", "-c", SCRIPT], env=env, capture_output=True,
                         text=True, timeout=540, check=False)
    out = run.stdout
    assert run.returncode == 0 and "reused " in out, (out, run.stderr)
    pid = out.split("reused ")[1].split()[0]
    assert f"a server (pid {pid}) already serves" not in out, out
    assert "background server (pid" in out and "started 0" in out, out
    assert "other alive" in out, out  # the process that got the dead server's pid was not signalled
    assert f"stopped the server (pid {pid})" not in out and "stopped the server (pid" in out, out


@pytest.mark.skipif(not _pid_namespace_usable(), reason="needs Linux user and pid namespaces (unshare -Urpf)")
def test_a_server_whose_pid_this_namespace_cannot_see_is_not_signalled_as_pid_0(tmp_path):
    """The kernel names a socket's listener by its pid in the asker's pid namespace, and 0 when the listener is not
    in it: a `ragls serve --stop` run in a container (toolbox, distrobox: the same home and uid, a pid namespace of
    its own) of a folder whose server runs on the host. `os.kill(0, SIGTERM)` signals the caller's own process
    group: the `--stop` killed itself and its shell's job, and the server ran on. A real background server here,
    a real `python -m ragls serve --stop` in a pid namespace of its own (`unshare -Urpf`)."""
    ws = shutil.copytree(FIXTURE_DOCS, tmp_path / "docs")
    env = {**os.environ, "RAGLS_CACHE_DIR": str(tmp_path / "cache"), "RAGLS_CONFIG_DIR": str(tmp_path / "config"),
           "RAGLS_DATA_DIR": str(tmp_path / "data"), "RAGLS_OFFLINE": "1"}
    ragls = [sys.executable, "-m", "ragls"]
    started = subprocess.run([*ragls, "serve", "--background", str(ws), "--idle-exit", "3"], env=env,
                             capture_output=True, text=True, timeout=300, check=False)
    assert started.returncode == 0 and "background server (pid" in started.stdout, started
    try:
        inside = subprocess.run(["unshare", "-Urpf", "--mount-proc", "sh", "-c", '"$@"; echo "exit $?"', "sh",
                                 *ragls, "serve", "--stop", str(ws)],
                                env=env, capture_output=True, text=True, timeout=300, check=False,
                                start_new_session=True)  # (on main it SIGTERMed its process group: pytest's)
        assert "exit 143" not in inside.stdout and "pid 0" not in inside.stdout, inside  # not SIGTERMed itself
        assert "exit 1" in inside.stdout and "another pid namespace" in inside.stderr, inside
        status = subprocess.run([*ragls, "status", str(ws), "--json"], env=env, capture_output=True, text=True,
                                timeout=300, check=False)
        assert status.returncode == 0, status
    finally:
        stopped = subprocess.run([*ragls, "serve", "--stop", str(ws)], env=env, capture_output=True, text=True,
                                 timeout=300, check=False)
    assert "stopped the server (pid" in stopped.stdout and "pid 0" not in stopped.stdout, stopped
