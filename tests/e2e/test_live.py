"""The live index over LSP: the real server (`python -m ragls serve`), the real watcher on a temp workspace, real
stores and the offline MiniLM model.

Index states are compared with a clean rebuild of the same folder in a separate index dir (text phase, in this
process): the set of (path, range, title, text) of all chunks, and BM25 and vector rows agreeing one-to-one with
the manifest. Embedding counts are read from the server's window/logMessage lines ("embedded N chunks, M from
cache ... (total computed by the model: T)" and "indexed ... K vectors from cache").
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import tempfile
from pathlib import Path

import pytest
import pytest_asyncio
from livekit import (
    FILES,
    OPTIONS,
    PARA,
    TIMEOUT,
    _not,
    assert_consistent,
    assert_equals_clean,
    eventually,
    index_dir_of,
    index_state,
    log_lines,
    make_workspace,
    model_total,
    paths_for,
    running_server,
)
from lspkit import SERVER_COMMAND, init_params, request, server_env, wait_indexed
from pytest_lsp import make_test_lsp_client

pytestmark = pytest.mark.asyncio(loop_scope="module")

CACHE = Path(tempfile.mkdtemp(prefix="ragls-live-cache-"))


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    return make_workspace(tmp_path_factory.mktemp("live") / "ws")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(ws):
    async with running_server(ws, CACHE) as c:
        await wait_indexed(c, files=len(FILES))
        yield c


async def settle(client) -> dict:
    """Wait until the server is idle: nothing queued, every chunk embedded."""
    return await wait_indexed(client, timeout=TIMEOUT)


async def test_edit_is_searchable_and_embeds_only_the_new_chunk(client, ws):
    before = model_total(client)
    path = ws / "guide/deploy.md"
    path.write_text(path.read_text() + "\n## Canary\n\nCanaries get a marmalade flag before promotion." + PARA + "\n")
    assert await eventually(lambda: paths_for(client, "marmalade flag"), "the edit to be searchable") == [
        "guide/deploy.md"]
    await settle(client)
    state = index_state(await index_dir_of(client))
    new_chunks = [c for c in state["chunks"] if c[0] == "guide/deploy.md"]
    # chunk_size 300: "Deploy" stays one chunk (unchanged text -> cache), the "Canary" section is new.
    assert len(new_chunks) == 2
    assert model_total(client) - before == 1
    assert_consistent(state)


async def test_delete_removes_every_row(client, ws):
    (ws / "api/auth.rst").unlink()
    await eventually(lambda: _not(paths_for(client, "tokens expire")), "the deleted file to disappear")
    await settle(client)
    state = index_state(await index_dir_of(client))
    assert "api/auth.rst" not in state["files"]
    assert all(p != "api/auth.rst" for _, p in state["vector_rows"])
    assert_consistent(state)


async def test_rename_reembeds_nothing(client, ws):
    await settle(client)
    before = model_total(client)
    old = {c[1:] for c in index_state(await index_dir_of(client))["chunks"] if c[0] == "guide/retries.md"}
    os.rename(ws / "guide/retries.md", ws / "guide/retrying.md")
    await eventually(lambda: _equals(paths_for(client, "exponential backoff"), ["guide/retrying.md"]),
                     "the renamed file under its new path")
    await settle(client)
    state = index_state(await index_dir_of(client))
    assert {c[1:] for c in state["chunks"] if c[0] == "guide/retrying.md"} == old
    assert not [c for c in state["chunks"] if c[0] == "guide/retries.md"]
    assert model_total(client) == before  # zero new embeddings
    synced = log_lines(client, r"indexed 1 file\(s\), deleted 1 .*: (\d+) chunks, (\d+) vectors from cache")
    assert synced and synced[-1].group(1) == synced[-1].group(2) == str(len(old))
    assert_consistent(state)


async def _equals(coro, expected):
    return await coro == expected


async def test_rename_then_immediate_edit_leaves_nothing_under_old_path(client, ws):
    os.rename(ws / "notes.txt", ws / "team.txt")
    (ws / "team.txt").write_text("Team notes\n\nThe on-call rotation now changes every Thursday (wombat).\n")
    await eventually(lambda: paths_for(client, "wombat"), "the edited, renamed file")
    await settle(client)
    state = index_state(await index_dir_of(client))
    assert "notes.txt" not in state["files"]
    assert not [c for c in state["chunks"] if c[0] == "notes.txt"]
    assert not [r for r in state["vector_rows"] if r[1] == "notes.txt"]
    assert_consistent(state)


async def test_atomic_save_is_one_update_and_temp_never_indexed(client, ws):
    await settle(client)
    target = ws / "guide/deploy.md"
    syncs_before = len(log_lines(client, r"ragls: indexed \d+ file"))
    # A filtered and an unfiltered temp name; each save adds a new word.
    for tmp_name, word in (("deploy.md.tmp", "okapi"), (".deploy.md.k3j9x", "oryx")):
        tmp = ws / "guide" / tmp_name
        tmp.write_text(target.read_text() + f"\nThis atomic save mentions the {word}.\n")
        os.replace(tmp, target)
        await eventually(lambda w=word: paths_for(client, w), "the atomically saved text")
        await settle(client)
    state = index_state(await index_dir_of(client))
    assert {p for p in state["files"] if p.startswith("guide/")} == {"guide/deploy.md", "guide/retrying.md"}
    syncs = log_lines(client, r"ragls: indexed (\d+) file\(s\), deleted (\d+)")[syncs_before:]
    assert [(m.group(1), m.group(2)) for m in syncs] == [("1", "0"), ("1", "0")]  # one update per save


async def test_editor_temp_files_never_indexed(client, ws):
    temps = ["deploy.md~", ".deploy.md.swp", "4913", "draft.md.tmp", ".#deploy.md"]
    for name in temps:
        (ws / "guide" / name).write_text("Temporary quokka text that must never be indexed.\n")
    (ws / "guide/deploy.md").write_text("# Deploy\n\nSentinel: the narwhal rollout.\n")
    await eventually(lambda: paths_for(client, "narwhal"), "the sentinel edit")
    await settle(client)
    assert await paths_for(client, "quokka") == []
    state = index_state(await index_dir_of(client))
    assert not {f"guide/{n}" for n in temps} & state["files"]
    for name in temps:
        (ws / "guide" / name).unlink()


async def test_burst_of_200_saves_equals_clean_rebuild(client, ws, rebuild_clean):
    target = ws / "burst.md"
    for n in range(200):
        target.write_text(f"# Burst\n\nSave number {n} of the burst.\n\n" + "Filler line.\n" * (n % 7))
        await asyncio.sleep(0.01)  # ~3 s of saves: longer than the 2 s maximum deferral
    target.write_text("# Burst\n\nThe final save mentions the axolotl.\n")
    await eventually(lambda: paths_for(client, "axolotl"), "the final save")
    await settle(client)
    assert_equals_clean(index_state(await index_dir_of(client)), rebuild_clean(ws))


async def test_directory_rename_moves_its_files(client, ws, rebuild_clean):
    os.rename(ws / "guide", ws / "handbook")
    await eventually(lambda: _equals(paths_for(client, "exponential backoff"), ["handbook/retrying.md"]),
                     "files of the renamed directory under the new path")
    await settle(client)
    assert_equals_clean(index_state(await index_dir_of(client)), rebuild_clean(ws))


async def test_symlink_loop_and_dangling_link_neither_hang_nor_flood(client, ws, rebuild_clean):
    syncs_before = len(log_lines(client, r"ragls: indexed \d+ file"))
    (ws / "sub").mkdir()
    os.symlink("..", ws / "sub" / "up")  # a loop: sub/up/sub/up/...
    os.symlink(ws, ws / "self-loop")
    os.symlink("missing.md", ws / "dangling.md")
    os.symlink("loop-b.md", ws / "loop-a.md")
    os.symlink("loop-a.md", ws / "loop-b.md")
    (ws / "sub" / "real.md").write_text("# Real\n\nThe pangolin lives here.\n")
    assert await eventually(lambda: paths_for(client, "pangolin"), "the file next to the links") == ["sub/real.md"]
    await settle(client)
    status = await request(client, "rag/status", {})
    assert status["errors"] == []
    syncs = log_lines(client, r"ragls: indexed \d+ file")[syncs_before:]
    assert 1 <= len(syncs) <= 3
    res = await request(client, "rag/rebuild", {})
    assert res["files"] == len(rebuild_clean(ws)["files"])
    state = index_state(await index_dir_of(client))
    assert not [p for p in state["files"] if "up/" in p or "self-loop" in p or "loop-" in p or "dangling" in p]
    assert_equals_clean(state, rebuild_clean(ws))


# -- progressive start and a second process ------------------------------------------------------------------
def many_files(n: int) -> dict[str, str]:
    return {f"topics/topic{i:02d}.md": f"# Topic {i}\n\nTopic {i} covers subject number {i} in some detail.\n"
            for i in range(n)} | {"special.md": "# Special\n\nThe capybara protocol is described here.\n"}


async def test_bm25_answers_before_vectors_finish(tmp_path):
    """The embedding gate (RAGLS_TEST_EMBED_GATE) holds the vector phase, so the state between the text and the
    vector phase is observed deterministically; removing the gate lets the vectors fill in."""
    folder = make_workspace(tmp_path / "ws", many_files(35))
    gate = tmp_path / "gate"
    gate.touch()
    async with running_server(folder, tmp_path / "cache", {"RAGLS_TEST_EMBED_GATE": str(gate)}) as c:
        status = await eventually(lambda: _text_indexed(c, 36), "the text phase")
        total = status["folders"][0]["chunks"]
        assert status["folders"][0]["pendingVectors"] == total >= 36
        res = await request(c, "rag/query", {"query": "capybara protocol", "topK": 3, "explain": True})
        assert res["chunks"][0]["source"]["path"] == "special.md"
        assert res["chunks"][0]["signals"] == {"bm25": 1}
        assert res["abstained"] is False
        gate.unlink()
        await wait_indexed(c, files=36, timeout=TIMEOUT)
        res = await request(c, "rag/query", {"query": "capybara protocol", "topK": 3, "explain": True})
        assert res["chunks"][0]["source"]["path"] == "special.md"
        assert set(res["chunks"][0]["signals"]) == {"bm25", "vector"}
        assert model_total(c) == total


async def _text_indexed(client, files: int):
    status = await request(client, "rag/status", {})
    f = status["folders"][0]
    return status if f["files"] == files and f["pending"] == 0 and f["lastIndexedAt"] else None


async def test_second_server_reads_and_takes_over(tmp_path):
    folder = make_workspace(tmp_path / "ws")
    cache = tmp_path / "cache"
    async with running_server(folder, cache) as first:
        await wait_indexed(first, files=len(FILES))
        async with running_server(folder, cache) as second:
            status = await request(second, "rag/status", {})
            assert status["folders"][0]["writer"] is False
            assert (await request(first, "rag/status", {}))["folders"][0]["writer"] is True
            assert await paths_for(second, "exponential backoff") == ["guide/retries.md"]
            (folder / "notes.txt").write_text("Team notes\n\nThe meerkat moved to Tuesday.\n")
            assert await eventually(lambda: paths_for(second, "meerkat"), "the reader seeing the writer's update")
            await first.shutdown_session()
            await eventually(lambda: _writer(second), "the second server to take over the index")
            (folder / "notes.txt").write_text("Team notes\n\nThe ibis moved to Wednesday.\n")
            assert await eventually(lambda: paths_for(second, "ibis"), "the new writer indexing a save")


async def _writer(client):
    return (await request(client, "rag/status", {}))["folders"][0]["writer"]


# -- crash safety --------------------------------------------------------------------------------------------
@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def indexed_base(tmp_path_factory):
    """A workspace and a cache dir holding its complete index (built once; each crash test copies both)."""
    base = tmp_path_factory.mktemp("crash-base")
    folder = make_workspace(base / "ws")
    async with running_server(folder, base / "cache") as c:
        await wait_indexed(c, files=len(FILES))
    return base


def copy_base(base: Path, dest: Path) -> tuple[Path, Path]:
    """Copy workspace and cache; the index dir name hashes the folder path, so it is renamed to match."""
    from ragls.index.indexer import default_index_dir

    shutil.copytree(base / "ws", dest / "ws")
    shutil.copytree(base / "cache", dest / "cache")
    indexes = dest / "cache" / "indexes"
    (old,) = list(indexes.iterdir())
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RAGLS_CACHE_DIR", str(dest / "cache"))
        target = default_index_dir(dest / "ws")
    old.rename(target)
    return dest / "ws", dest / "cache"


def change_files(folder: Path, *, delete: bool) -> None:
    (folder / "guide/deploy.md").write_text("# Deploy\n\nDeploys now use a gecko canary.\n\n## Rollback\n\n"
                                            "Rollback restores the previous release.\n")
    (folder / "faq.md").write_text("# FAQ\n\nThe tapir question is answered here.\n")
    if delete:
        (folder / "api/auth.rst").unlink()
        os.rename(folder / "notes.txt", folder / "team-notes.txt")


async def run_until_exit(folder: Path, cache: Path, env: dict[str, str]) -> int:
    client = make_test_lsp_client()
    full_env = server_env(cache) | env
    await client.start_io(*SERVER_COMMAND, env=full_env)
    try:
        await client.initialize_session(init_params([folder], OPTIONS))
        return await asyncio.wait_for(client._server.wait(), TIMEOUT)
    finally:
        if client._server.returncode is None:
            client._server.kill()
        await client.stop()


@pytest.mark.parametrize("point, delete", [
    ("after_journal", False), ("after_stage", False), ("after_bm25", False), ("after_bm25", True),
    ("after_manifest", False),
    ("after_embed_cache", True),
])
async def test_crash_at_step_then_restart_equals_clean_rebuild(indexed_base, tmp_path, rebuild_clean, point, delete):
    folder, cache = copy_base(indexed_base, tmp_path)
    change_files(folder, delete=delete)
    code = await run_until_exit(folder, cache, {"RAGLS_TEST_CRASH_AT": point})
    assert code == 137  # the hook fired: the server died in the middle of the update
    async with running_server(folder, cache) as c:
        st = await wait_indexed(c, timeout=TIMEOUT)
        assert await paths_for(c, "gecko canary") == ["guide/deploy.md"], (st["folders"], [m.message[:60] for m in c.log_messages])
        state = index_state(await index_dir_of(c))
    assert_equals_clean(state, rebuild_clean(folder))


async def test_sigkill_while_embedding_then_restart_equals_clean_rebuild(indexed_base, tmp_path, rebuild_clean):
    """72 new one-chunk files need three embedding batches; the server is killed when the first batch is written."""
    folder, cache = copy_base(indexed_base, tmp_path)
    change_files(folder, delete=True)
    (folder / "extra").mkdir()
    for i in range(72):
        (folder / f"extra/e{i:02d}.md").write_text(f"# Extra {i}\n\nExtra page {i} is about lemurs and their diet." + PARA)
    files = len(FILES) + 1 + 72 - 1  # + faq.md + 72 extras - auth.rst; notes.txt renamed
    client = make_test_lsp_client()
    await client.start_io(*SERVER_COMMAND, env=server_env(cache))
    try:
        await client.initialize_session(init_params([folder], OPTIONS))
        await eventually(lambda: _async(log_lines(client, r"ragls: embedded \d+ chunks")), "a first embedding batch")
        os.kill(client._server.pid, signal.SIGKILL)
        assert await asyncio.wait_for(client._server.wait(), TIMEOUT) == -signal.SIGKILL
    finally:
        if client._server.returncode is None:
            client._server.kill()
        await client.stop()
    killed = index_state(Path(next((cache / "indexes").iterdir())))
    assert 0 < sum(killed["vector_rows"].values()) < len(killed["ids"])  # killed with vectors half done
    async with running_server(folder, cache) as c:
        await wait_indexed(c, files=files, timeout=TIMEOUT)
        state = index_state(await index_dir_of(c))
    assert_equals_clean(state, rebuild_clean(folder))


async def _async(value):
    return value
