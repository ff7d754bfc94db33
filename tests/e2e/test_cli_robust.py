"""The `ragls` command line on messy situations: a typo in sources.include (the index is kept, `status` and
`doctor` say why), `doctor --json`, two overlapping `ragls index` runs, Ctrl-C during `ragls index`. In-process
(clikit) except where another process is the point: the lock holder's rival, the interrupted run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from clikit import ragls, ragls_process
from lspkit import server_env


@pytest.fixture
def env(tmp_path):
    return server_env(tmp_path / "cache")


def docs(folder: Path, n: int = 3) -> Path:
    folder.mkdir(parents=True)
    for i in range(n):
        (folder / f"note{i}.md").write_text(f"# Note {i}\n\nThe walrus number {i} basks on the ice floe.\n")
    return folder


def test_include_typo_keeps_the_index_and_doctor_fails(env, tmp_path):
    ws = docs(tmp_path / "docs")
    out = ragls(env, "index", ws).stdout
    assert "3 files" in out
    (ws / "ragls.toml").write_text('[sources]\ninclude = ["**/*.mdd"]\n')  # typo
    proc = ragls(env, "index", ws)
    assert "3 files" in proc.stdout and "0 deleted" in proc.stdout
    assert "no file of" in proc.stdout and "index was kept" in proc.stdout
    # The kept index serves none of them while the rules exclude them (RagWorkspace.servable).
    assert json.loads(ragls(env, "query", ws, "walrus ice floe", "--json").stdout)["chunks"] == []
    status = json.loads(ragls(env, "status", ws, "--json").stdout)
    assert status["folders"][0]["files"] == 3
    assert any("sources.include" in e["message"] for e in status["errors"])
    doctor = ragls(env, "doctor", ws, "--json", check=False)
    assert doctor.returncode == 1
    report = json.loads(doctor.stdout)
    assert report["ok"] is False
    sources = next(c for c in report["checks"] if c["name"] == "sources")
    assert sources["status"] == "fail" and "0 files match sources.include" in sources["message"]
    assert "the index still holds 3 files" in sources["message"]
    human = ragls(env, "doctor", ws, check=False)
    assert human.returncode == 1 and "[FAIL] 0 files match sources.include" in human.stdout
    # fixing the typo indexes again; a rebuild with the typo empties the index on purpose
    (ws / "ragls.toml").write_text('[sources]\ninclude = ["**/*.md"]\n')
    assert json.loads(ragls(env, "doctor", ws, "--json").stdout)["ok"] is True
    res = json.loads(ragls(env, "query", ws, "walrus ice floe", "--json").stdout)  # the kept index, no re-index
    assert res["chunks"] and res["chunks"][0]["source"]["path"].startswith("note")


@pytest.mark.parametrize(("role", "expected", "advice"), [
    ("ragls index", "another `ragls index` run (pid {pid})", "wait for it to finish"),
    ("ragls serve", "an editor's ragls server (pid {pid})", "use the editor's rebuild command"),
])
def test_overlapping_index_runs_name_the_other_run(env, tmp_path, role, expected, advice):
    from ragls.config.settings import Settings
    from ragls.embedding.embed import Embedder
    from ragls.index import indexer, ownership

    ws = docs(tmp_path / "docs")
    index_dir = tmp_path / "index"
    before = ownership.PROCESS_ROLE
    ownership.set_role(role)  # this test process plays the other run, holding the writer lock
    try:
        settings = Settings()
        holder = indexer.FolderIndex(ws, settings, Embedder(settings.embedding), index_dir=index_dir)
        assert holder.writer
        try:
            proc = ragls_process(env, "index", ws, "--index-path", index_dir, check=False)
        finally:
            holder.close()
    finally:
        ownership.set_role(before)
    assert proc.returncode == 1
    assert expected.format(pid=os.getpid()) in proc.stderr and advice in proc.stderr
    if role == "ragls index":
        assert "editor" not in proc.stderr
    assert "3 files" in ragls(env, "index", ws, "--index-path", index_dir).stdout  # the lock is free again


def test_ctrl_c_during_index_says_the_next_run_resumes(env, tmp_path):
    # Chunks of ~2,000 characters need more than one embedding window (256 wordpieces), so `ragls index` reaches the
    # window pass; the pause hook (vector_phase._pause_point) holds it there, after one window batch was written.
    ws = tmp_path / "docs"
    ws.mkdir()
    for i in range(12):  # more chunks than one window batch (vector_phase.WINDOW_BATCH): some are left for later
        lines = [f"Line {j}: walrus number {i} basks on ice floe {j} while the tide turns near the harbour wall."
                 for j in range(24)]
        (ws / f"note{i}.md").write_text(f"# Note {i}\n\n" + "\n".join(lines) + "\n")
    marker = tmp_path / "paused"
    # SIGINT as a terminal's Ctrl-C delivers it: a test run started in the background (CI, `cmd &`) inherits SIGINT
    # ignored, which an exec keeps (and so does Python), while a handled SIGINT becomes the default in the child.
    ignored = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        proc = subprocess.Popen([sys.executable, "-m", "ragls", "index", str(ws)],
                                env={**env, "RAGLS_TEST_PAUSE_AT": f"window_pass:{marker}"},
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    finally:
        signal.signal(signal.SIGINT, ignored)
    try:
        deadline = time.monotonic() + 300
        while not marker.exists():
            assert proc.poll() is None, f"ragls index ended (exit {proc.returncode}) before the window pass"
            assert time.monotonic() < deadline, "the window pass never started"
            time.sleep(0.1)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, err
    assert "interrupted; the index is consistent" in err and "next `ragls index` resumes" in err
    assert "Traceback" not in err
    status = json.loads(ragls(env, "status", ws, "--json").stdout)["folders"][0]
    assert status["files"] == 12 and status["pendingVectors"] == 0  # every first window was written before the pause
    assert status["pendingWindows"] > 0  # interrupted mid window pass
    out = ragls(env, "index", ws).stdout
    assert "0 indexed" in out and "12 unchanged" in out  # resumed: no file chunked again
    assert json.loads(ragls(env, "status", ws, "--json").stdout)["folders"][0]["pendingWindows"] == 0
    res = json.loads(ragls(env, "query", ws, "walrus number 2 basks on ice floe 20", "--json", "--top-k", "1").stdout)
    assert res["chunks"][0]["source"]["path"] == "note2.md"


def test_doctor_on_a_folder_never_indexed_leaves_no_index_behind(env, tmp_path):
    """`ragls doctor` on a fresh folder opened the stores and so created an empty index: `ragls status` then showed
    "0 files, last index never" and `ragls estimate` said "already indexed; only changes will be indexed"."""
    ws = docs(tmp_path / "fresh")
    report = json.loads(ragls(env, "doctor", ws, "--json").stdout)
    stores = next(c for c in report["checks"] if c["name"] == "stores")
    assert report["ok"] is True and stores["message"].startswith("no index yet: `ragls index ")
    index_dir = json.loads(ragls(env, "estimate", ws, "--json").stdout)["indexPath"]
    assert not Path(index_dir).exists(), index_dir
    assert "(not indexed yet)" in ragls(env, "estimate", ws).stdout
    assert "not indexed yet" in ragls(env, "status", ws).stdout
    assert "3 indexed" in ragls(env, "index", ws).stdout  # and once indexed, doctor reads the stores
    assert "[ok] stores readable: 3 files" in ragls(env, "doctor", ws).stdout


def test_a_broken_symlink_is_listed_as_skipped_until_it_is_fixed(env, tmp_path):
    """A README.md that is a dangling link was left out without a word (a user asking why it is never found had
    nothing to go on); it is now a skipped file with its reason, gone once the link points somewhere real."""
    ws = docs(tmp_path / "links")
    (ws / "README.md").symlink_to(ws / "old" / "README.md")
    assert "  skipped README.md: broken symlink: its target does not exist" in ragls(env, "index", ws).stdout
    status = json.loads(ragls(env, "status", ws, "--json").stdout)
    assert {"path": "README.md", "reason": "broken symlink: its target does not exist"} in [
        {k: s[k] for k in ("path", "reason")} for s in status["folders"][0]["skipped"]]
    (ws / "old").mkdir()
    (ws / "old" / "README.md").write_text("# Readme\n\nThe pelican guards the harbour.\n", encoding="utf-8")
    out = ragls(env, "index", ws).stdout
    assert "0 skipped" in out and "broken symlink" not in out and "4 files" in out, out
