"""Server lifecycle edge cases over LSP: no workspace folder, the home directory as the root, invalid settings
from the editor (fall back, say so once, keep serving)."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

import pytest
from lspkit import SERVER_COMMAND, copy_docs, init_params, request, server_env, wait_indexed
from lsprotocol import types
from pytest_lsp import ClientServerConfig

SHARED_EMBEDDING_CACHE = True  # tests/conftest.py `_run_embedding_cache`: nothing here counts what the model embedded

pytestmark = pytest.mark.asyncio

HOME = Path(tempfile.mkdtemp(prefix="ragls-e2e-home-"))
ENV = {**server_env(HOME / ".cache" / "ragls"), "HOME": str(HOME)}
# Waits for a state a (re)opened workspace reaches after its index pass or model load: they return as soon as it is
# reached, so the budget is for a loaded machine (as lspkit.wait_indexed's 240 s).
DEADLINE_S = 240.0


async def start(params: types.InitializeParams):
    client = await ClientServerConfig(server_command=SERVER_COMMAND, server_env=ENV).start()
    await client.initialize_session(params)
    return client


async def test_no_workspace_folder_indexes_nothing_and_says_so():
    client = await start(types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=None))
    try:
        for method, params in (("rag/status", {}), ("rag/query", {"query": "retries"})):
            with pytest.raises(Exception) as info:
                await request(client, method, params)
            assert getattr(info.value, "code", None) == -32803
            assert "no workspace folder" in str(info.value)
        assert client.messages == []  # no pop-up for an empty window
    finally:
        await client.shutdown_session()


async def test_home_directory_is_not_indexed_without_ragls_toml():
    (HOME / "notes.md").write_text("# Notes\n\nThe home directory must not be indexed by accident.\n")
    client = await start(init_params([HOME]))
    try:
        with pytest.raises(Exception) as info:
            await request(client, "rag/status", {})
        assert getattr(info.value, "code", None) == -32803
        assert any("not indexing" in m.message and "home directory" in m.message for m in client.messages)
    finally:
        await client.shutdown_session()


async def test_invalid_editor_settings_fall_back_and_keep_serving(tmp_path, capsys):
    ws = copy_docs(tmp_path / "docs")
    client = await start(init_params([ws], {"retrieval": {"topK": "lots"}, "chunking": {"chunkSize": 300}}))
    try:
        status = await wait_indexed(client)
        assert any("ignoring the editor's settings" in e["message"] and "retrieval.top_k" in e["message"]
                   for e in status["errors"])
        # Another change with the same invalid value reopens with the same fallback: still said once, in the
        # pop-up and in the log (stderr, which VS Code shows in the output channel beside window/logMessage).
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
            settings={"ragls": {"retrieval": {"topK": "lots"}, "chunking": {"chunkSize": 400}}}))
        status = await wait_indexed(client)
        assert any("ignoring the editor's settings" in e["message"] for e in status["errors"])
        warnings = [m for m in client.messages if "ignoring the editor's settings" in m.message]
        assert len(warnings) == 1
        logged = [line for line in capsys.readouterr().err.splitlines()
                  if line.startswith("WARNING") and "ignoring the editor's settings" in line]
        assert len(logged) == 1, logged
        # The invalid layer is dropped as a whole: default chunk size 2000, so each small doc is one chunk.
        assert status["folders"][0]["chunks"] == 4
        res = await request(client, "rag/query", {"query": "how long do tokens last"})
        assert res["chunks"][0]["source"]["path"] == "api/authentication.rst"
    finally:
        await client.shutdown_session()


async def test_without_an_embedding_model_keyword_search_and_rebuild_keep_working(tmp_path):
    ws = copy_docs(tmp_path / "docs")
    empty = tmp_path / "no-model"
    empty.mkdir()
    client = await start(init_params([ws], {"embedding": {"modelPath": str(empty)}}))
    try:
        deadline = asyncio.get_running_loop().time() + DEADLINE_S
        while True:  # the vector store's open fails once, after the text phase; BM25 serves meanwhile
            status = await request(client, "rag/status", {})
            if status["errors"]:
                break
            assert asyncio.get_running_loop().time() < deadline, status
            await asyncio.sleep(0.2)
        assert "has no .onnx model file" in status["errors"][0]["message"]
        assert status["folders"][0]["files"] == 4 and status["folders"][0]["pendingVectors"] == 4
        # rag/status shows the error as soon as the store's open fails; the pop-up is sent just after it (a
        # window/showMessage notification), so wait for it to arrive rather than expect it with the status.
        while not (warnings := [m.message for m in client.messages if "vector search is off" in m.message]):
            assert asyncio.get_running_loop().time() < deadline, "no 'vector search is off' pop-up"
            await asyncio.sleep(0.2)
        await request(client, "rag/status", {})  # a round trip: a second pop-up, if any, would have come first
        warnings = [m.message for m in client.messages if "vector search is off" in m.message]
        assert len(warnings) == 1 and "keyword (BM25) search still works" in warnings[0]
        res = await request(client, "rag/query", {"query": "exponential backoff", "explain": True})
        assert res["chunks"][0]["source"]["path"] == "guide/retries.md"
        assert set(res["chunks"][0]["signals"]) == {"bm25"}
        rebuilt = await request(client, "rag/rebuild", {})  # the text index is rebuilt; no error for the model
        assert rebuilt["files"] == 4
        with pytest.raises(Exception) as info:  # an answer needs the model: a clear error, the server serves on
            await request(client, "rag/ask", {"question": "How are retries done?"})
        assert getattr(info.value, "code", None) == -32803 and "no .onnx model file" in str(info.value)
        # Resetting the setting to its default with null (the editor's "unset") loads the model.
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
            settings={"ragls": {"embedding": {"modelPath": None}}}))
        status = await wait_indexed(client, files=4, timeout=120)
        assert status["errors"] == []
        res = await request(client, "rag/query", {"query": "exponential backoff", "explain": True})
        assert "vector" in res["chunks"][0]["signals"]
    finally:
        await client.shutdown_session()


async def test_editing_ragls_toml_applies_the_new_settings(tmp_path):
    ws = copy_docs(tmp_path / "docs")
    client = await start(init_params([ws]))
    try:
        await wait_indexed(client, files=4)
        res = await request(client, "rag/query", {"query": "exponential backoff tokens image incidents"})
        assert res["chunks"][0]["source"]["path"] == "guide/retries.md" and len(res["chunks"]) > 1
        (ws / "ragls.toml").write_text('[sources]\nexclude = ["guide/retries.md"]\n[retrieval]\ntop_k = 1\n')
        deadline = asyncio.get_running_loop().time() + DEADLINE_S
        while True:  # the watcher sees the file; the workspace reopens (requests wait for it) with the new settings
            res = await request(client, "rag/query", {"query": "exponential backoff tokens image incidents"})
            if len(res["chunks"]) == 1 and res["chunks"][0]["source"]["path"] != "guide/retries.md":
                break
            assert asyncio.get_running_loop().time() < deadline, res
            await asyncio.sleep(0.3)
        status = await wait_indexed(client, files=3)
        assert status["errors"] == []
        # An invalid file is reported once; the server keeps the settings it has.
        (ws / "ragls.toml").write_text("[retrieval]\ntop_k = 'many'\n")
        deadline = asyncio.get_running_loop().time() + DEADLINE_S
        while not any("keeping the previous settings" in m.message for m in client.messages):
            assert asyncio.get_running_loop().time() < deadline, [m.message for m in client.messages]
            await asyncio.sleep(0.2)
        res = await request(client, "rag/query", {"query": "exponential backoff tokens image incidents"})
        assert len(res["chunks"]) == 1
    finally:
        await client.shutdown_session()


async def wait_for(check, what, timeout: float = DEADLINE_S):
    """Poll the coroutine function `check` until it returns a true value (returned)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        got = await check()
        if got:
            return got
        assert asyncio.get_running_loop().time() < deadline, what
        await asyncio.sleep(0.3)


async def test_a_malformed_ragls_toml_the_editor_trusts_keeps_the_open_workspace(tmp_path):
    """Neovim's trust prompt allows an edited ragls.toml that does not parse (:w, then "allow"): the editor sends
    its hash as trusted (didChangeConfiguration), and the reopen must not drop the workspace that answers. Before
    the fix every request failed "workspace could not be opened: ... Expected ']'" until the file was fixed. Now
    the open workspace goes on with its settings; the error is shown once and listed in rag/status with its file;
    fixing the file (trusted again) applies the new settings and clears the error."""
    import hashlib

    ws = copy_docs(tmp_path / "docs")
    toml = ws / "ragls.toml"
    toml.write_text("[retrieval]\ntop_k = 1\n")
    query = {"query": "exponential backoff retries tokens image incidents"}

    def trusting(text: str) -> types.DidChangeConfigurationParams:
        toml.write_text(text)
        digest = "sha256:" + hashlib.sha256(text.encode()).hexdigest()
        return types.DidChangeConfigurationParams(settings={"ragls": {
            "workspaceTrusted": True, "workspaceTrustedConfigs": {str(ws.resolve()): digest}}})

    client = await start(init_params([ws], {"workspaceTrusted": True}))
    try:
        await wait_indexed(client, files=4)
        assert len((await request(client, "rag/query", query))["chunks"]) == 1
        client.workspace_did_change_configuration(trusting("[retrieval\ntop_k = 2\n"))

        async def listed():
            status = await request(client, "rag/status", {})
            return [e for e in status["errors"] if "keeping the previous settings" in e["message"]]

        [err] = await wait_for(listed, "rag/status never listed the invalid ragls.toml")
        assert err["path"] == str(toml.resolve()) and "Expected ']'" in err["message"], err
        assert "severity" not in err  # an error: the file is not applied
        res = await request(client, "rag/query", query)  # the open workspace answers, with its settings
        assert len(res["chunks"]) == 1
        await asyncio.sleep(1.0)  # the watcher's look at the saved file (the same error) comes and goes
        shown = [m.message for m in client.messages if "Expected ']'" in m.message]
        assert shown == [f"ragls: {err['message']}"], shown

        client.workspace_did_change_configuration(trusting("[retrieval]\ntop_k = 2\n"))

        async def applied():
            try:
                res = await request(client, "rag/query", query)
            except Exception:  # noqa: BLE001 - the workspace is reopening
                return False
            return len(res["chunks"]) == 2

        await wait_for(applied, "the fixed ragls.toml was never applied")
        status = await request(client, "rag/status", {})
        assert status["errors"] == [], status["errors"]
    finally:
        await client.shutdown_session()


@pytest.mark.parametrize("told_by", ["didSave", "didChangeWatchedFiles"])
async def test_a_workspace_that_could_not_open_opens_when_its_ragls_toml_is_fixed(tmp_path, told_by):
    """A folder whose ragls.toml does not parse when the server starts cannot be opened (nothing was open to keep):
    requests say why. Saving the fixed file (Neovim's didSave; VS Code's watcher of ragls.toml sends
    didChangeWatchedFiles) opens it, without restarting the server."""
    ws = copy_docs(tmp_path / "docs")
    toml = ws / "ragls.toml"
    toml.write_text("[retrieval\ntop_k = 1\n")
    client = await start(init_params([ws], {"workspaceTrusted": True}))
    try:
        with pytest.raises(Exception) as info:
            await request(client, "rag/query", {"query": "retries"})
        assert "workspace could not be opened" in str(info.value) and "Expected ']'" in str(info.value)
        toml.write_text("[retrieval]\ntop_k = 1\n")
        if told_by == "didSave":
            client.text_document_did_save(types.DidSaveTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=toml.resolve().as_uri())))
        else:
            client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[types.FileEvent(
                uri=toml.resolve().as_uri(), type=types.FileChangeType.Changed)]))

        async def opened():
            try:
                return await request(client, "rag/status", {})
            except Exception:  # noqa: BLE001 - still the failed opening, or opening
                return None

        await wait_for(opened, "the fixed ragls.toml never opened the workspace")
        await wait_indexed(client, files=4)
        res = await request(client, "rag/query", {"query": "exponential backoff retries tokens image incidents"})
        assert len(res["chunks"]) == 1  # with the fixed file's top_k
    finally:
        await client.shutdown_session()


async def test_configuration_change_can_clear_a_setting_from_initialization_options(tmp_path):
    """didChangeConfiguration carries the editor's whole configuration: a setting the user reset (absent now)
    goes back to ragls.toml/the default, even though it came in initializationOptions; and returning to the
    start-up values after a change takes effect too."""
    ws = copy_docs(tmp_path / "docs")
    client = await start(init_params([ws], {"retrieval": {"topK": 1}}))

    async def chunks_per_query(expected: int) -> None:
        deadline = asyncio.get_running_loop().time() + DEADLINE_S
        while True:  # the workspace reopens with the new settings
            try:
                # a word of each of the 4 files, so each is a hit (a chunk no signal finds is not listed)
                res = await request(client, "rag/query",
                                    {"query": "exponential backoff retries tokens image incidents"})
                if len(res["chunks"]) == expected:
                    return
            except Exception:  # noqa: BLE001 - the workspace may be reopening
                res = None
            assert asyncio.get_running_loop().time() < deadline, res
            await asyncio.sleep(0.3)

    try:
        await wait_indexed(client, files=4)
        await chunks_per_query(1)
        # The user resets retrieval.topK: the editor now sends a configuration without it.
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"ragls": {}}))
        await chunks_per_query(4)  # the default top_k (5) over the fixture's 4 one-chunk files
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
            settings={"ragls": {"retrieval": {"topK": 2}}}))
        await chunks_per_query(2)
        # Back to the start-up value, and a null means unset as well.
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
            settings={"ragls": {"retrieval": {"topK": 1}}}))
        await chunks_per_query(1)
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
            settings={"ragls": {"retrieval": {"topK": None}}}))
        await chunks_per_query(4)
        status = await wait_indexed(client, files=4)
        assert status["errors"] == []
    finally:
        await client.shutdown_session()
