"""A folder the process cannot enter (mode 644 after `chmod -R 644`, or 000) is one `skipped` entry; every other
file of the workspace indexes, and `ragls index`, `ragls rebuild` and LSP `rag/rebuild` succeed.

Permission bits are real: as root (CI, containers) the commands run in a process whose capability bounding set
lacks CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH (`setpriv`), so the kernel refuses the folder as it would refuse a
normal user; as any other user they run as they are.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from clikit import ragls_batch
from lspkit import init_params, request, server_env, wait_indexed
from privileges import unprivileged
from pytest_lsp import make_test_lsp_client

SHARED_EMBEDDING_CACHE = True  # tests/conftest.py `_run_embedding_cache`: nothing here counts what the model embedded

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")


def workspace(root: Path, mode: int) -> Path:
    """docs/ (mode `mode`) holding two notes, plus guide.md and api/ref.md beside it."""
    for rel, text in {"guide.md": "# Guide\n\nThe walrus basks on the ice floe.\n",
                      "api/ref.md": "# Reference\n\nThe narwhal tusk is a tooth.\n",
                      "docs/a.md": "# A\n\nUnreachable pelican.\n", "docs/b.md": "# B\n\nUnreachable heron.\n"}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / "docs").chmod(mode)
    return root


@pytest.fixture
def env(tmp_path):
    return server_env(tmp_path / "cache")


@pytest.fixture(params=[0o644, 0o000], ids=["mode644", "mode000"])
def ws(request, tmp_path):
    folder = workspace(tmp_path / "ws", request.param)
    yield folder
    (folder / "docs").chmod(0o755)  # so pytest can delete it


def test_permission_really_applies(ws, env):
    """The harness itself: the dropped-capability process is refused the folder (else the tests below prove
    nothing), while this process may be root."""
    probe = subprocess.run(unprivileged([sys.executable, "-c", f"open({str(ws / 'docs' / 'a.md')!r})"]),
                           capture_output=True, text=True, env=env, check=False)
    assert probe.returncode == 1 and "PermissionError" in probe.stderr


def test_index_and_rebuild_skip_the_folder_and_index_the_rest(ws, env):
    mode = (ws / "docs").stat().st_mode & 0o777
    # The commands run one after another in one unprivileged process (clikit.ragls_batch): the kernel's refusal is
    # the same for each, and the imports and the model load are paid twice instead of six times.
    *builds, status, query = ragls_batch(env, ["index", ws], ["rebuild", ws], ["status", ws, "--json"],
                                         ["query", ws, "walrus ice floe", "--json", "--no-server"],
                                         prefix=unprivileged([]))
    for proc in builds:
        assert proc.returncode == 0, proc.stderr
        assert "2 files" in proc.stdout and "1 skipped" in proc.stdout, proc.stdout
        assert "skipped docs/: unreadable folder: Permission denied" in proc.stdout
    status = json.loads(status.stdout)
    [folder] = status["folders"]
    assert folder["files"] == 2
    assert folder["skipped"] == [{"path": "docs/", "reason": "unreadable folder: Permission denied"}]
    assert not [e for e in status["errors"] if "Errno" in e["message"]]
    hits = json.loads(query.stdout)["chunks"]
    assert hits[0]["source"]["path"] == "guide.md"
    # the folder readable again: its files index and the skipped entry goes
    (ws / "docs").chmod(0o755)
    proc, status = ragls_batch(env, ["index", ws], ["status", ws, "--json"], prefix=unprivileged([]))
    assert "2 indexed" in proc.stdout and "0 skipped" in proc.stdout, proc.stdout
    assert json.loads(status.stdout)["folders"][0]["skipped"] == []
    # Bad input loses nothing: unreadable once more, its two indexed files stay, searchable, and docs/ is the one
    # skipped entry (the scan deleted them: "2 deleted", as if the folder were gone)
    (ws / "docs").chmod(mode)
    proc, status, query = ragls_batch(env, ["index", ws], ["status", ws, "--json"],
                                      ["query", ws, "unreachable pelican", "--json", "--no-server"],
                                      prefix=unprivileged([]))
    assert "0 deleted" in proc.stdout and "skipped docs/: unreadable folder: Permission denied" in proc.stdout, (
        proc.stdout)
    [folder] = json.loads(status.stdout)["folders"]
    assert folder["files"] == 4
    assert folder["skipped"] == [{"path": "docs/", "reason": "unreadable folder: Permission denied"}]
    assert json.loads(query.stdout)["chunks"][0]["source"]["path"] == "docs/a.md"



@pytest.mark.parametrize("mode", [0o000, 0o644], ids=["mode000", "mode644"])
def test_a_workspace_folder_that_cannot_be_entered_is_said_as_such(tmp_path, env, mode):
    # Its ragls.toml cannot even be looked up: every command stopped with "ws/ragls.toml: Permission denied", a
    # file that does not exist. Now the folder is the one skipped entry, as a subfolder is.
    folder = workspace(tmp_path / "ws", 0o755)
    folder.chmod(mode)
    try:
        index, status = ragls_batch(env, ["index", folder], ["status", folder, "--json"], prefix=unprivileged([]))
    finally:
        folder.chmod(0o755)
    assert index.returncode == 0, index.stderr
    assert "skipped ./: unreadable folder: Permission denied" in index.stdout and "ragls.toml" not in index.stderr
    assert json.loads(status.stdout)["folders"][0]["skipped"] == [
        {"path": "./", "reason": "unreadable folder: Permission denied"}]


@pytest.mark.asyncio
async def test_lsp_rebuild_and_status_report_the_folder(ws, env):
    client = make_test_lsp_client()
    await client.start_io(*unprivileged([sys.executable, "-m", "ragls", "serve"]), env=env)
    try:
        await client.initialize_session(init_params([ws]))
        status = await wait_indexed(client, files=2)
        assert status["folders"][0]["skipped"] == [{"path": "docs/",
                                                    "reason": "unreadable folder: Permission denied"}]
        result = await request(client, "rag/rebuild", {})
        assert result["files"] == 2
        assert result["skipped"] == [{"path": "docs/", "reason": "unreadable folder: Permission denied"}]
        status = await request(client, "rag/status", {})
        assert status["folders"][0]["files"] == 2 and not status["errors"], status
    finally:
        await client.shutdown_session()
        await client.stop()


@pytest.mark.asyncio
async def test_read_only_cache_dir_is_one_clear_error(tmp_path):
    """The cache dir cannot be written (mode 555): every request answers with the reason (not -32603 internal
    error), and the editor gets one pop-up, not one per request."""
    folder = workspace(tmp_path / "ws", 0o755)
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o555)
    client = make_test_lsp_client()
    await client.start_io(*unprivileged([sys.executable, "-m", "ragls", "serve"]), env=server_env(cache))
    try:
        await client.initialize_session(init_params([folder]))
        codes = []
        for method, params in (("rag/status", {}), ("rag/query", {"query": "walrus"}), ("rag/status", {})):
            with pytest.raises(Exception) as info:
                await request(client, method, params)
            codes.append(getattr(info.value, "code", None))
            assert "Permission denied" in str(info.value), info.value
        assert -32603 not in codes, codes
        assert len([m for m in client.messages if "Permission denied" in m.message]) == 1
    finally:
        await client.shutdown_session()
        await client.stop()
        cache.chmod(0o755)
