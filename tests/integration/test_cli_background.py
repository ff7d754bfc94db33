"""`ragls serve --background`: a real detached server process that `ragls query / ask / status` answer through (its
local socket), which exits by itself after `--idle-exit` minutes without a request, or on `ragls serve --stop`.
The CLI runs in this process (`ragls.cli.app.main`); the server is a real child process (waited for, never slept on).
"""

from __future__ import annotations

import json
import logging
import os
import shutil
from pathlib import Path

import pytest
from ragls.cli import app as cli

FIXTURE_DOCS = Path(__file__).resolve().parents[1] / "fixtures" / "docs"


@pytest.fixture
def ws(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGLS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RAGLS_OFFLINE", "1")
    return shutil.copytree(FIXTURE_DOCS, tmp_path / "docs")


def server_info(capsys, folder) -> tuple[int, Path]:
    capsys.readouterr()
    assert cli.main(["status", str(folder), "--json"]) == 0
    index_dir = Path(json.loads(capsys.readouterr().out)["folders"][0]["indexPath"])
    info = json.loads((index_dir / "server.json").read_text())
    return info["pid"], index_dir


def test_background_server_answers_the_cli_then_exits_when_idle(ws, capsys, caplog):
    assert cli.main(["serve", "--background", str(ws), "--idle-exit", "0.02"]) == 0
    out = capsys.readouterr().out
    assert "background server (pid" in out and "ragls query/ask/status" in out
    pid, index_dir = server_info(capsys, ws)
    with caplog.at_level(logging.DEBUG, logger="ragls.cli.app"):
        assert cli.main(["query", str(ws), "retry backoff ceiling", "--json"]) == 0
    assert f"answered by the running server (pid {pid}" in caplog.text
    assert json.loads(capsys.readouterr().out)["chunks"][0]["source"]["path"] == "guide/retries.md"
    # a second start finds it
    assert cli.main(["serve", "--background", str(ws)]) == 0
    assert f"a server (pid {pid}) already serves" in capsys.readouterr().out
    # idle for 1.2 s with nothing left to index: it exits by itself and cleans up
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    assert not (index_dir / "server.json").exists()
    assert "no request for" in (index_dir / "serve.log").read_text()


def test_stop(ws, capsys):
    assert cli.main(["serve", "--background", str(ws), "--idle-exit", "2"]) == 0  # bounded if the test fails
    pid, index_dir = server_info(capsys, ws)
    capsys.readouterr()
    assert cli.main(["serve", "--stop", str(ws)]) == 0
    assert f"stopped the server (pid {pid})" in capsys.readouterr().out
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    assert not (index_dir / "server.json").exists()
    capsys.readouterr()
    assert cli.main(["serve", "--stop", str(ws)]) == 0  # stopped already: said, not an error
    assert f"no server running for {ws}" in capsys.readouterr().out


def test_stop_when_no_server_runs_says_so_and_succeeds(ws, tmp_path):
    """`ragls serve --stop PATH` with no server for PATH exits 0 with a message (like `systemctl stop` of a stopped
    unit); a PATH that does not exist is a usage error, exit 2. No server is started."""
    from clikit import ragls

    out = ragls(None, "serve", "--stop", ws)
    assert out.returncode == 0 and out.stdout == f"ragls: no server running for {ws}\n", out
    missing = ragls(None, "serve", "--stop", tmp_path / "nope", check=False)
    assert missing.returncode == 2 and "nope" in missing.stderr, missing
