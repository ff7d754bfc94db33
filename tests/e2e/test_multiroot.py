"""Multi-root workspaces over LSP: both folders indexed, results from each with their own URIs, `rag` selects one
folder, rag/status lists both."""

from __future__ import annotations

import asyncio
import contextlib
import re
import shutil
import tempfile
from pathlib import Path

import pytest
import pytest_lsp
from lspkit import FIXTURE_DOCS, SERVER_COMMAND, init_params, lsp_server, request, server_env, wait_indexed
from pytest_lsp import ClientServerConfig, LanguageClient

SHARED_EMBEDDING_CACHE = True  # tests/conftest.py `_run_embedding_cache`: nothing here counts what the model embedded

pytestmark = pytest.mark.asyncio(loop_scope="module")

CACHE_DIR = Path(tempfile.mkdtemp(prefix="ragls-e2e-multi-"))


@pytest.fixture(scope="module")
def roots(tmp_path_factory):
    base = tmp_path_factory.mktemp("multi")
    guides, other = base / "guides", base / "other"
    shutil.copytree(FIXTURE_DOCS / "guide", guides / "guide")
    shutil.copytree(FIXTURE_DOCS / "api", other / "api")
    shutil.copy(FIXTURE_DOCS / "notes.txt", other / "notes.txt")
    # Each folder has its own ragls.toml: sources/chunking are per folder.
    (other / "ragls.toml").write_text('[sources]\ninclude = ["**/*.rst"]\n')
    return guides, other


@pytest_lsp.fixture(scope="module", loop_scope="module",
                    config=ClientServerConfig(server_command=SERVER_COMMAND, server_env=server_env(CACHE_DIR)))
async def client(lsp_client: LanguageClient, roots):
    await lsp_client.initialize_session(init_params(list(roots), {"chunking": {"chunkSize": 300}}))
    await wait_indexed(lsp_client)
    yield
    await lsp_client.shutdown_session()


async def test_both_folders_indexed_with_their_own_settings(client, roots):
    status = await request(client, "rag/status", {})
    by_name = {f["uri"].rsplit("/", 1)[1]: f for f in status["folders"]}
    assert by_name["guides"]["files"] == 2
    assert by_name["other"]["files"] == 1  # only *.rst there: notes.txt is excluded by that folder's ragls.toml


async def test_results_from_each_folder_carry_their_uri(client, roots):
    res = await request(client, "rag/query", {"query": "bearer token expiry", "topK": 1})
    src = res["chunks"][0]["source"]
    assert src["path"] == "api/authentication.rst"
    assert src["uri"].endswith("/other/api/authentication.rst")
    res = await request(client, "rag/query", {"query": "rolling upgrades drain replicas", "topK": 1})
    assert res["chunks"][0]["source"]["uri"].endswith("/guides/guide/deployment.md")


async def test_rag_selects_one_folder(client):
    res = await request(client, "rag/query", {"query": "bearer token expiry", "topK": 3, "rag": "guides"})
    assert res["chunks"] and all("/guides/" in c["source"]["uri"] for c in res["chunks"])


async def test_one_index_path_for_two_folders_gives_each_its_own_directory(roots, tmp_path):
    """`index.path` set once for the whole workspace (VS Code's `ragls.index.path`, a Neovim `settings` table): each
    folder gets its own subdirectory there, both writable and indexed. Before, the second folder found the first
    one's writer lock and stayed read-only (never indexed) for the server's whole life."""
    shared = tmp_path / "ssd-indexes"
    env = server_env(Path(tempfile.mkdtemp(prefix="ragls-e2e-multi-shared-")))
    async with lsp_server(list(roots), env, {"index": {"path": str(shared)}}) as lsp:
        status = await wait_indexed(lsp, files=3)
        folders = {f["uri"].rsplit("/", 1)[1]: f for f in status["folders"]}
        assert [folders[n]["writer"] for n in ("guides", "other")] == [True, True]
        paths = {n: Path(folders[n]["indexPath"]) for n in ("guides", "other")}
        assert paths["guides"] != paths["other"]
        assert all(p.parent == shared and p.name.startswith(f"{n}-") for n, p in paths.items())
        assert (folders["guides"]["files"], folders["other"]["files"]) == (2, 1)
        assert not [e for e in status["errors"] if "index" in e["message"]]
        res = await request(lsp, "rag/query", {"query": "bearer token expiry", "topK": 1})
        assert res["chunks"][0]["source"]["uri"].endswith("/other/api/authentication.rst")


async def test_a_root_uri_alone_is_a_workspace_folder_that_folder_changes_keep(roots):
    """A client that initializes with `rootUri` only (no `workspaceFolders`) and then sends
    `workspace/didChangeWorkspaceFolders`: the root is its first workspace folder, so adding `/` leaves it served
    (and `/` is refused with a warning, never indexed, as is a URI with `%00`, which raised in every reopen), adding a
    folder serves both, and removing the root leaves the added folder. Before, the first folder added replaced the root: adding `/` left nothing served."""
    from lsprotocol import types
    from pygls.exceptions import JsonRpcException
    from pytest_lsp import make_test_lsp_client
    from ragls.core.uris import path_to_uri

    guides, other = roots

    def change(added: list[str], removed: list[str]) -> None:
        client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(added=[types.WorkspaceFolder(uri=u, name="x") for u in added],
                                                    removed=[types.WorkspaceFolder(uri=u, name="x") for u in removed])))

    async def served(names: list[str]) -> dict:
        for _ in range(600):
            status = await request(client, "rag/status", {})
            if sorted(f["uri"].rsplit("/", 1)[1] for f in status["folders"]) == names and all(
                    f["lastIndexedAt"] for f in status["folders"]):
                return status
            await asyncio.sleep(0.2)
        raise AssertionError(f"not serving {names}: {status}")

    client = make_test_lsp_client()
    await client.start_io(*SERVER_COMMAND, env=server_env(CACHE_DIR))
    try:
        await client.initialize_session(types.InitializeParams(
            capabilities=types.ClientCapabilities(window=types.WindowClientCapabilities(work_done_progress=True)),
            root_uri=path_to_uri(guides)))
        assert [f["files"] for f in (await served(["guides"]))["folders"]] == [2]
        change(["file:///tmp/a%00b"], [])  # a NUL in the path: refused with a warning, the root still served
        missing = guides.parent / "no-such\nfolder"  # a newline in its name: shown quoted
        change([path_to_uri(missing)], [])  # a folder that does not exist: said, and no index directory made for it
        change(["file:///"], [])
        change([path_to_uri(other)], [])
        status = await served(["guides", "other"])
        assert sorted(f["files"] for f in status["folders"]) == [1, 2]
        assert any("not indexing '/'" in m.message for m in client.messages), client.messages
        assert any("a NUL character in its path" in m.message for m in client.messages), client.messages
        assert any(m.message == f"ragls: not indexing {str(missing)!r} (no such folder)" for m in client.messages)
        assert not missing.exists() and not [d for d in (CACHE_DIR / "indexes").iterdir()
                                             if d.name.startswith("no-such")]
        change([], [path_to_uri(guides)])
        assert [f["files"] for f in (await served(["other"]))["folders"]] == [1]
        change([], [path_to_uri(other)])
        for _ in range(600):  # no folder left: requests say so (the server does not fall back to its directory)
            try:
                await request(client, "rag/status", {})
            except JsonRpcException as exc:
                assert "no workspace folder is open" in str(exc)
                break
            await asyncio.sleep(0.2)
        else:
            raise AssertionError("still serving a folder after both were removed")
    finally:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(client.shutdown_session(), 30)
        await client.stop()


@pytest.mark.parametrize(("root_uri", "shown"), [("not a uri", "'not a uri'"), ("file://%00", "'file://%00'"),
                                                 ("file://server/share", "'file://server/share'")])
async def test_a_root_uri_that_is_no_file_uri_of_a_folder_is_named_and_the_server_keeps_serving(roots, root_uri,
                                                                                                  shown):
    """`initialize` with a rootUri that no folder has ("not a uri"; "file://%00", whose NUL was shown as an invisible
    folder name; a host ragls would drop): the warning and every request name it, repr'd so control characters show,
    instead of "no workspace folder is open"; the server keeps serving, and a folder added later is indexed."""
    from lsprotocol import types
    from pygls.exceptions import JsonRpcException
    from pytest_lsp import make_test_lsp_client
    from ragls.core.uris import path_to_uri

    said = f"rootUri {shown} is not a file:// URI of a folder"
    client = make_test_lsp_client()
    await client.start_io(*SERVER_COMMAND, env=server_env(CACHE_DIR))
    try:
        await client.initialize_session(types.InitializeParams(
            capabilities=types.ClientCapabilities(window=types.WindowClientCapabilities(work_done_progress=True)),
            root_uri=root_uri))
        with pytest.raises(JsonRpcException, match=re.escape(said)):
            await request(client, "rag/status", {})
        for _ in range(100):
            if any(said in m.message for m in client.messages):
                break
            await asyncio.sleep(0.1)
        assert [m.message for m in client.messages if "rootUri" in m.message] == [f"ragls: {said}"]
        client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(added=[types.WorkspaceFolder(uri=path_to_uri(roots[0]),
                                                                                 name="guides")], removed=[])))
        for _ in range(600):
            with contextlib.suppress(JsonRpcException):
                status = await request(client, "rag/status", {})
                if [f["files"] for f in status["folders"]] == [2] and status["folders"][0]["lastIndexedAt"]:
                    break
            await asyncio.sleep(0.2)
        else:
            raise AssertionError("the folder added after a bad rootUri is not served")
    finally:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(client.shutdown_session(), 30)
        await client.stop()
