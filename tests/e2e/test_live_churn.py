"""The live index under churn a user's editor and git cause, beyond test_live.py: a deleted folder, a branch
checkout that changes many files at once, a file replaced by a directory of the same name, and edits while the
first index runs. After each, the server's stores must equal a clean rebuild of the folder (no stale, duplicate
or missing chunks). Real server over stdio, real watcher, real stores, offline MiniLM model."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
import pytest_asyncio
from livekit import (
    FILES,
    TIMEOUT,
    _not,
    assert_equals_clean,
    eventually,
    index_dir_of,
    index_state,
    make_workspace,
    paths_for,
    running_server,
)
from lspkit import wait_indexed

pytestmark = pytest.mark.asyncio(loop_scope="module")
CACHE = Path(tempfile.mkdtemp(prefix="ragls-live-churn-cache-"))


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    return make_workspace(tmp_path_factory.mktemp("churn") / "ws")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(ws):
    async with running_server(ws, CACHE) as c:
        await wait_indexed(c, files=len(FILES))
        yield c


async def settle(client) -> dict:
    return await wait_indexed(client, timeout=TIMEOUT)


async def test_deleting_a_folder_removes_all_its_files(client, ws, rebuild_clean):
    shutil.rmtree(ws / "guide")
    await eventually(lambda: _not(paths_for(client, "exponential backoff")), "the deleted folder's files to go")
    await settle(client)
    state = index_state(await index_dir_of(client))
    assert not {p for p in state["files"] if p.startswith("guide/")}
    assert_equals_clean(state, rebuild_clean(ws))


async def test_file_replaced_by_directory_of_same_name(client, ws, rebuild_clean):
    (ws / "notes.txt").unlink()
    (ws / "notes.txt").mkdir()
    (ws / "notes.txt" / "inner.md").write_text("# Inner\n\nThe pangolin lives inside the directory.\n")
    await eventually(lambda: paths_for(client, "pangolin"), "the file inside the new directory")
    await settle(client)
    state = index_state(await index_dir_of(client))
    assert "notes.txt" not in state["files"]
    assert "notes.txt/inner.md" in state["files"]
    assert_equals_clean(state, rebuild_clean(ws))


async def test_directory_replaced_by_file_of_same_name(client, ws, rebuild_clean):
    shutil.rmtree(ws / "notes.txt")
    (ws / "notes.txt").write_text("Team notes\n\nThe tapir is back as a plain file.\n")
    await eventually(lambda: paths_for(client, "tapir"), "the file replacing the directory")
    await settle(client)
    state = index_state(await index_dir_of(client))
    assert "notes.txt/inner.md" not in state["files"]
    assert_equals_clean(state, rebuild_clean(ws))


def git(ws: Path, *args: str) -> str:
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@t")
    return subprocess.run(["git", *args], cwd=ws, env=env, check=True, capture_output=True, text=True).stdout


async def test_git_checkout_of_a_branch_changing_many_files(client, ws, rebuild_clean):
    git(ws, "init", "-q", "-b", "main")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "base")
    git(ws, "checkout", "-qb", "topic")
    for i in range(30):
        (ws / "topic" / f"t{i}.md").parent.mkdir(exist_ok=True)
        (ws / "topic" / f"t{i}.md").write_text(f"# Topic {i}\n\nThe topic branch page {i} mentions the ibex{i}.\n")
    (ws / "notes.txt").write_text("Team notes\n\nOn the topic branch the rotation follows the okapi.\n")
    (ws / "api/auth.rst").unlink()
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "topic")
    await eventually(lambda: paths_for(client, "ibex29"), "the topic branch's files")
    await settle(client)
    assert_equals_clean(index_state(await index_dir_of(client)), rebuild_clean(ws))
    git(ws, "checkout", "-q", "main")
    await eventually(lambda: _not(paths_for(client, "ibex29")), "the topic files to go after checkout")
    await settle(client)
    state = index_state(await index_dir_of(client))
    assert not {p for p in state["files"] if p.startswith("topic/")}
    assert_equals_clean(state, rebuild_clean(ws))


async def test_edits_while_the_first_index_runs(tmp_path, rebuild_clean):
    """Files edited, added and deleted while the first index is still embedding (the embedding gate holds the
    vector phase) end up exactly as a clean rebuild of the final folder."""
    files = {f"doc{i}.md": f"# Doc {i}\n\nPage {i} of the first index.\n" for i in range(35)}
    folder = make_workspace(tmp_path / "ws", files)
    gate = tmp_path / "gate"
    gate.touch()
    async with running_server(folder, tmp_path / "cache", {"RAGLS_TEST_EMBED_GATE": str(gate)}) as c:
        (folder / "doc3.md").write_text("# Doc 3\n\nEdited during the first index: the quetzal.\n")
        (folder / "doc4.md").unlink()
        (folder / "late.md").write_text("# Late\n\nAdded during the first index: the axolotl.\n")
        await eventually(lambda: paths_for(c, "quetzal"), "the edit made during the first index")
        await eventually(lambda: paths_for(c, "axolotl"), "the file added during the first index")
        gate.unlink()
        await wait_indexed(c, files=35, timeout=TIMEOUT)
        state = index_state(await index_dir_of(c))
        assert "doc4.md" not in state["files"]
        assert_equals_clean(state, rebuild_clean(folder))


async def test_folder_moved_out_of_and_back_into_the_workspace(client, ws, rebuild_clean, tmp_path):
    """`mv ws/dir elsewhere` is a delete of every file under it, `mv elsewhere/dir ws/` an add of every file under
    it: the watcher sees only the directory's move, never its files."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (ws / "moving" / "deep").mkdir(parents=True)
    (ws / "moving" / "deep" / "m.md").write_text("# Moving\n\nThe wandering albatross moves folders.\n")
    await eventually(lambda: paths_for(client, "albatross"), "the new folder's file")
    os.rename(ws / "moving", outside / "moving")
    await eventually(lambda: _not(paths_for(client, "albatross")), "the moved-out folder's file to go")
    await settle(client)
    assert_equals_clean(index_state(await index_dir_of(client)), rebuild_clean(ws))
    (outside / "moving" / "deep" / "m.md").write_text("# Moving\n\nThe returning albatross comes back.\n")
    os.rename(outside / "moving", ws / "returned")
    await eventually(lambda: paths_for(client, "returning"), "the moved-in folder's file")
    await settle(client)
    state = index_state(await index_dir_of(client))
    assert "returned/deep/m.md" in state["files"]
    assert_equals_clean(state, rebuild_clean(ws))


async def test_rename_to_and_from_a_type_that_is_not_indexed(client, ws, rebuild_clean):
    (ws / "kept.md").write_text("# Kept\n\nThe hidden heron is documented here.\n")
    await eventually(lambda: paths_for(client, "heron"), "the new file")
    os.rename(ws / "kept.md", ws / "kept.md.bak")  # out of sources.include: a delete
    await eventually(lambda: _not(paths_for(client, "heron")), "the file renamed to .bak to go")
    os.rename(ws / "kept.md.bak", ws / "back.md")  # into sources.include: an add
    await eventually(lambda: paths_for(client, "heron"), "the file renamed back to .md")
    await settle(client)
    state = index_state(await index_dir_of(client))
    assert "back.md" in state["files"] and "kept.md" not in state["files"]
    assert_equals_clean(state, rebuild_clean(ws))
