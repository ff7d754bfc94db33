"""`ragls mcp` end to end: the MCP SDK's own client over stdio, the real server process, real stores and the
offline MiniLM model; a real `ragls serve` (pytest-lsp client) for the shared-index tests."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path

import pytest
import pytest_asyncio
from clikit import ragls
from livekit import eventually, running_server
from llm_server import LLMServer, Reply, route
from lspkit import copy_docs, request, server_env, wait_indexed
from mcpkit import MCP_COMMAND, McpProcess, mcp_server, wait_mcp_indexed
from ragls.config.trust import trust as trust_folder

SHARED_EMBEDDING_CACHE = True  # tests/conftest.py `_run_embedding_cache`: nothing here counts what the model embedded

pytestmark = pytest.mark.asyncio(loop_scope="module")

SECRET_WORD = "zanzibarquokka"
OUTSIDE_WORD = "outsidewombat"


def lines_of(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("mcp")
    ws = copy_docs(root / "docs")
    (ws / "logo.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00binary")  # skipped: NUL bytes
    (ws / ".env").write_text(f"API_TOKEN={SECRET_WORD}\n")  # excluded: secret glob
    (root / "outside.txt").write_text(f"{OUTSIDE_WORD} lives outside the indexed folder.\n")
    return ws


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def server(workspace):
    proc = await McpProcess([workspace], workspace.parent / "cache").start()
    await wait_mcp_indexed(proc, files=4)
    yield proc
    await proc.stop()


async def test_lists_tools_with_schemas(server):
    tools = {t.name: t for t in (await server.session.list_tools()).tools}
    assert set(tools) == {"search_docs", "ask_docs", "read_passage", "index_status"}
    search = tools["search_docs"].input_schema
    assert search["required"] == ["query"]
    assert set(search["properties"]) == {"query", "top_k", "rag", "expand"}
    assert search["properties"]["top_k"]["anyOf"][0] == {"maximum": 50, "minimum": 1, "type": "integer"}
    assert search["properties"]["expand"]["anyOf"][0] == {"type": "boolean"}
    assert tools["ask_docs"].input_schema["required"] == ["question"]
    assert set(tools["ask_docs"].input_schema["properties"]) == {"question", "top_k", "rag", "expand"}
    assert set(tools["read_passage"].input_schema["properties"]) == {"path", "start_line", "end_line"}
    assert tools["index_status"].input_schema["properties"] == {}
    for t in tools.values():
        assert len(t.description) > 80 and t.annotations.read_only_hint is True
    assert server.init.server_info.name == "ragls"
    assert "never as instructions" in server.init.instructions


async def test_search_returns_exact_path_and_lines(server, workspace):
    data = await server.data("search_docs", {"query": "exponential backoff", "top_k": 3})
    assert data["abstained"] is False
    top = data["results"][0]
    assert top["path"] == "guide/retries.md"
    file_lines = lines_of(workspace / "guide/retries.md")
    # the returned text is exactly the file's lines chunk_start_line..chunk_end_line (1-based, inclusive)
    chunk_lines = file_lines[top["chunk_start_line"] - 1:top["chunk_end_line"]]
    assert "\n".join(chunk_lines).strip() == top["text"].strip()
    # the lines to cite (focus lines when known) lie inside the chunk and hold the matching line
    backoff_line = next(n for n, line in enumerate(file_lines, 1) if "exponential backoff" in line)
    assert top["chunk_start_line"] <= top["start_line"] <= backoff_line <= top["end_line"] <= top["chunk_end_line"]
    assert top["heading"] == "Configuring retries > Retry policy"  # the cited lines' section, as rag/query says
    assert top["uri"].startswith("file://") and top["uri"].endswith("/guide/retries.md")
    shares = [r["relevance"] for r in data["results"]]  # each score's share of the best, as rag/query's Chunk.relevance
    assert shares[0] == 1.0 and shares == sorted(shares, reverse=True) and all(0 <= s <= 1 for s in shares)
    text = (await server.call("search_docs", {"query": "exponential backoff", "top_k": 3})).content[0].text
    span = f'{top["start_line"]}-{top["end_line"]}' if top["end_line"] > top["start_line"] else f'{top["start_line"]}'
    assert f"[1] guide/retries.md:{span}\n" in text or f"[1] guide/retries.md:{span} — " in text  # never "9-9"
    assert f'<passage path="guide/retries.md" lines="{top["chunk_start_line"]}-{top["chunk_end_line"]}">' in text
    assert "never as instructions" in text


async def test_search_never_returns_secret_or_outside_text(server):
    for query in (SECRET_WORD, "API_TOKEN", OUTSIDE_WORD):
        data = await server.data("search_docs", {"query": query, "top_k": 20})
        assert not any(query.lower() in r["text"].lower() for r in data["results"])
        assert not any(r["path"] == ".env" for r in data["results"])
    listed = [r.name for r in (await server.session.list_resources()).resources]
    assert sorted(listed) == ["api/authentication.rst", "guide/deployment.md", "guide/retries.md", "notes.txt"]


async def test_bad_arguments_are_tool_errors(server):
    empty = await server.call("search_docs", {"query": "   "})
    assert empty.is_error and "query" in empty.content[0].text
    unknown = await server.call("search_docs", {"query": "retries", "rag": "no-such-folder"})
    assert unknown.is_error and "no-such-folder" in unknown.content[0].text
    assert unknown.structured_content["error"] == {"code": -32602, "message": unknown.content[0].text}
    ok = await server.data("search_docs", {"query": "retries", "rag": "docs"})  # the folder's name
    assert ok["results"][0]["path"] == "guide/retries.md"
    # Arguments that fail the tool's schema: the same kind of error, naming the field, not the SDK's pydantic dump
    for tool, args, said in [("search_docs", {}, "search_docs: query: Field required"),
                             ("search_docs", {"query": ""}, "search_docs: query: String should have at least 1"),
                             ("read_passage", {"path": "notes.txt", "start_line": "abc"}, "read_passage: start_line:"),
                             ("ask_docs", {"question": "x", "top_k": 99}, "ask_docs: top_k: Input should be less")]:
        bad = await server.call(tool, args)
        text = bad.content[0].text
        assert bad.is_error and text.startswith(said), text
        assert "pydantic" not in text and "abc" not in text and "validation error for" not in text, text
        assert bad.structured_content["error"] == {"code": -32602, "message": text}


async def test_read_passage_exact_lines(server, workspace):
    data = await server.data("read_passage", {"path": "guide/retries.md", "start_line": 8, "end_line": 10})
    expected = lines_of(workspace / "guide/retries.md")[7:10]
    assert data["text"] == "\n".join(expected)
    assert (data["start_line"], data["end_line"]) == (8, 10)
    result = await server.call("read_passage", {"path": str(workspace / "guide/retries.md"), "start_line": 8,
                                                 "end_line": 8})
    assert f"    8| {expected[0]}" in result.content[0].text
    resource = await server.session.read_resource(data["uri"])
    assert resource.contents[0].text == (workspace / "guide/retries.md").read_text()


async def test_read_passage_refuses_outside_and_unindexed(server, workspace):
    from mcp.shared.exceptions import MCPError  # (mcpkit: the SDK is not imported to collect the suite)

    outside = workspace.parent / "outside.txt"
    for path in ("../outside.txt", "guide/../../outside.txt", str(outside), outside.as_uri(), "/etc/passwd"):
        result = await server.call("read_passage", {"path": path})
        assert result.is_error, path
        assert "outside the indexed folders" in result.content[0].text
        assert OUTSIDE_WORD not in result.content[0].text
    for uri in (outside.as_uri(), "file:///etc/passwd", (workspace / ".." / "outside.txt").as_uri()):
        with pytest.raises(MCPError) as refused:  # resources/read: the protocol's bad-parameters code, as tools
            await server.session.read_resource(uri)
        assert refused.value.error.code == -32602, uri
        assert "outside the indexed folders" in refused.value.error.message and OUTSIDE_WORD not in str(refused.value)
    for path, said in ((".env", "not an indexed file"), ("logo.txt", "is not indexed: binary"),  # skipped: why
                       ("missing.md", "not an indexed file")):
        result = await server.call("read_passage", {"path": path})
        assert result.is_error and said in result.content[0].text, path
        assert SECRET_WORD not in result.content[0].text


async def test_index_status_reports_skipped_binary(server, workspace):
    data = await server.data("index_status")
    (folder,) = data["folders"]
    assert folder["path"] == str(workspace)
    assert (folder["files"], folder["pending_files"], folder["pending_vectors"]) == (4, 0, 0)
    assert folder["skipped"] == [{"path": "logo.txt", "reason": "binary (NUL byte in first 8 KB)"}]
    assert folder["this_process_writes"] is True
    assert folder["writer_process"]["role"] == "ragls mcp"
    assert data["embedding_model"] == "sentence-transformers/all-MiniLM-L6-v2"
    text = (await server.call("index_status")).content[0].text
    assert "skipped logo.txt: binary" in text and "this process (ragls mcp) indexes it" in text


async def test_ask_without_llm_is_extractive(server):
    data = await server.data("ask_docs", {"question": "How long does the first retry wait?"})
    assert data["model"] == "extractive"
    assert "200 milliseconds" in data["answer"]
    assert data["sources"][0]["path"] == "guide/retries.md"


async def test_abstained_ask_says_why_once_and_lists_the_closest_passages_once(server):
    """A question naming what the docs never mention: the answer says so plainly, once, and the closest passages
    are listed once, under a heading that says they do not answer it (not as "Sources" the answer rests on)."""
    result = await server.call("ask_docs", {"question": "Can clients authenticate with Kerberos instead of the "
                                                        "token endpoint?"})
    data, text = result.structured_content, result.content[0].text
    assert data["abstained"] is True and data["sources"]
    assert data["answer"].startswith("Not in your docs: they never mention Kerberos.")
    assert "key words" not in text and "Closest matches:\n" not in data["answer"]
    assert text.count("Closest matches (") == 1 and "Sources:" not in text
    first = data["sources"][0]
    assert text.count(f"{first['path']}:{first['start_line']}") == 1  # listed once, with its quoted passage


async def test_ask_with_loopback_llm(tmp_path):
    ws = copy_docs(tmp_path / "docs")
    with LLMServer() as llm:
        llm.handler = lambda req: Reply(text="The first retry waits 200 milliseconds [1].")
        (ws / "ragls.toml").write_text(
            f'[generation]\nbackend = "openai"\nbase_url = "{llm.openai_url}"\nmodel = "test-model"\n'
            'api_key_env = "RAGLS_TEST_LLM_KEY"\nmax_retries = 0\ntimeout_s = 10\n')
        trust_folder(ws)  # the user trusts this test's own folder (ragls/config/trust.py)
        async with mcp_server([ws], tmp_path / "cache", extra_env={"RAGLS_TEST_LLM_KEY": "k"}) as proc:
            await wait_mcp_indexed(proc, files=4)
            data = await proc.data("ask_docs", {"question": "How long does the first retry wait?"})
        assert data["answer"].strip() == "The first retry waits 200 milliseconds [1]."
        assert data["model"] == "test-model"
        first = data["sources"][0]
        assert (first["n"], first["path"], first["supported"]) == (1, "guide/retries.md", True)
        prompt = str(llm.requests[-1].body["messages"])
        assert "exponential backoff" in prompt and SECRET_WORD not in prompt


async def test_root_markers_pick_the_project_folder(tmp_path):
    """No PATH: the nearest ragls.toml / .git above the current directory is the folder served."""
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / "docs" / "deep").mkdir(parents=True)
    (project / "docs" / "intro.md").write_text("# Intro\n\nThe pelican handbook starts here.\n")
    async with mcp_server([], tmp_path / "cache", cwd=project / "docs" / "deep") as proc:
        status = await proc.data("index_status")
        assert [f["path"] for f in status["folders"]] == [str(project)]
        data = await proc.data("search_docs", {"query": "pelican handbook"})
        assert data["results"][0]["path"] == "docs/intro.md"


async def test_reader_sees_writer_edits_and_takes_over(tmp_path):
    """An editor's `ragls serve` holds the lock: the MCP server reads its index and sees its updates; killing the
    editor's server hands the index to the MCP server, which then indexes changes itself."""
    ws = copy_docs(tmp_path / "docs")
    cache = tmp_path / "cache"
    async with running_server(ws, cache, options={"watch": {"debounceMs": 200}}) as editor:
        await wait_indexed(editor, files=4)
        async with mcp_server([ws], cache) as proc:
            (folder,) = (await proc.data("index_status"))["folders"]
            assert folder["this_process_writes"] is False
            assert folder["writer_process"] == {"pid": editor._server.pid, "role": "ragls serve"}
            assert (await proc.data("search_docs", {"query": "exponential backoff"}))["results"][0]["path"] \
                == "guide/retries.md"

            (ws / "notes.txt").write_text("Team notes\n\nThe meerkat moved to Tuesday.\n")

            async def finds(word):
                data = await proc.data("search_docs", {"query": word, "top_k": 3})
                return [r["path"] for r in data["results"] if word in r["text"]] == ["notes.txt"]

            await eventually(lambda: finds("meerkat"), "the MCP reader seeing the editor's update")

            os.kill(editor._server.pid, signal.SIGKILL)

            async def writes():
                (f,) = (await proc.data("index_status"))["folders"]
                return f["this_process_writes"] and f["writer_process"]["role"] == "ragls mcp"

            await eventually(writes, "the MCP server taking over the index")
            (ws / "notes.txt").write_text("Team notes\n\nThe ibis moved to Wednesday.\n")
            await eventually(lambda: finds("ibis"), "the MCP server indexing a change as the writer")


async def test_malformed_settings_do_not_kill_the_server(tmp_path):
    ws = copy_docs(tmp_path / "docs")
    (ws / "ragls.toml").write_text("[chunking]\nchunk_size = 'big'\n")
    async with mcp_server([ws], tmp_path / "cache") as proc:
        result = await proc.call("search_docs", {"query": "retries"})
        assert result.is_error and "chunk_size" in result.content[0].text
        assert (await proc.session.list_tools()).tools  # still serving


async def test_malformed_lines_on_stdin_do_not_stop_the_server(tmp_path):
    """A line that is not JSON, not a JSON-RPC message, or a request whose params fail the protocol's schema is
    answered with a JSON-RPC error at once (-32700 id null; -32600 with the request's id when it has one, so its
    sender does not wait for a timeout), and the server answers the next request. The MCP SDK's stdio transport
    alone drops such lines (modelcontextprotocol/python-sdk#2751); ragls.mcp.stdio answers them."""
    ws = copy_docs(tmp_path / "docs")
    proc = await asyncio.create_subprocess_exec(*MCP_COMMAND, str(ws), stdin=asyncio.subprocess.PIPE,
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
                                                env=server_env(tmp_path / "cache"), limit=2**22)

    async def send(line: bytes | dict) -> None:
        proc.stdin.write((line if isinstance(line, bytes) else json.dumps(line).encode()) + b"\n")
        await proc.stdin.drain()

    async def answer(request_id: int | None) -> dict:
        while True:
            reply = json.loads(await asyncio.wait_for(proc.stdout.readline(), 60))
            if reply.get("id") == request_id and "method" not in reply:
                return reply

    try:
        await send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
        assert "result" in await answer(1)
        await send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        bad_params = b'{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": "x"}'
        no_method = b'{"jsonrpc": "2.0", "id": "q", "params": {}}'
        cases = [(b"{not json", None, -32700), (b"[]", None, -32600), (b"\xff\xfe", None, -32700),
                 (bad_params, 7, -32600), (no_method, "q", -32600), (b"42", None, -32600),
                 (b"x" * 3_000_000, None, -32700)]
        for n, (bad, bad_id, code) in enumerate(cases, start=2):
            await send(bad)
            error = (await answer(bad_id))["error"]
            assert error["code"] == code, (bad[:40], error)
            assert error["message"].startswith("Parse error" if code == -32700 else "Invalid Request"), error
            await send({"jsonrpc": "2.0", "id": 100 + n, "method": "tools/call",
                        "params": {"name": "read_passage", "arguments": {"path": "../../etc/passwd"}}})
            reply = await answer(100 + n)
            assert reply["result"]["isError"] and "outside the indexed folders" in reply["result"]["content"][0]["text"]
    finally:
        proc.stdin.close()
        await asyncio.wait_for(proc.wait(), 60)
    assert proc.returncode == 0


async def test_cli_refuses_home_directory(tmp_path):
    """Started in the home directory (no project marker): exit 2 with a reason, nothing indexed."""
    import subprocess

    from lspkit import server_env

    env = server_env(tmp_path / "cache") | {"HOME": str(tmp_path)}
    done = await asyncio.to_thread(subprocess.run, [sys.executable, "-m", "ragls", "mcp"], cwd=tmp_path, env=env,
                                   capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert "home directory" in done.stderr


async def test_hands_over_to_an_editor_started_later(tmp_path):
    """The MCP server writes while no editor is open; an editor's `ragls serve` started later asks for the index
    and gets it; the MCP server then reads the editor's updates."""
    ws = copy_docs(tmp_path / "docs")
    cache = tmp_path / "cache"
    async with mcp_server([ws], cache) as proc:
        status = await wait_mcp_indexed(proc, files=4)
        assert status["folders"][0]["this_process_writes"] is True
        async with running_server(ws, cache, options={"watch": {"debounceMs": 200}}) as editor:
            async def editor_writes():
                return (await request(editor, "rag/status", {}))["folders"][0]["writer"]

            await eventually(editor_writes, "the editor's server taking the index over")
            (f,) = (await proc.data("index_status"))["folders"]
            assert f["this_process_writes"] is False
            assert f["writer_process"] == {"pid": editor._server.pid, "role": "ragls serve"}
            editor_status = (await request(editor, "rag/status", {}))["folders"][0]
            assert editor_status["writerProcess"]["role"] == "ragls serve"

            (ws / "notes.txt").write_text("Team notes\n\nThe axolotl moved to Friday.\n")

            async def mcp_finds():
                data = await proc.data("search_docs", {"query": "axolotl", "top_k": 3})
                return [r["path"] for r in data["results"] if "axolotl" in r["text"]] == ["notes.txt"]

            await eventually(mcp_finds, "the MCP server reading the editor's update")
            assert not (Path(f["index_path"]) / "handover.json").exists()


async def test_first_answer_comes_before_the_model_loads(tmp_path):
    """On an indexed folder `ragls mcp` answers before it loads the embedding model (BM25 alone; every chunk
    counts as waiting for its vector), and loads the model once the first answer is out."""
    ws = copy_docs(tmp_path / "docs")
    cache = tmp_path / "cache"
    async with mcp_server([ws], cache) as proc:  # index it once, vectors and all
        indexed = await wait_mcp_indexed(proc, files=4)
    chunks = indexed["folders"][0]["chunks"]
    # The time-based release is pushed out of reach: only the first answer lets the model load.
    async with mcp_server([ws], cache, extra_env={"RAGLS_TEST_VECTORS_AFTER_S": "3600"}) as proc:
        first = await proc.call("index_status")
        (folder,) = first.structured_content["folders"]
        assert (folder["files"], folder["chunks"], folder["pending_vectors"]) == (4, chunks, chunks)
        # its start-up scan checks every file but none changed: nothing is queued, and nothing is "being built"
        # (it said "4 files queued ... the index is still being built" while the scan ran)
        assert folder["pending_files"] == 0 and "0 files queued" in first.content[0].text
        assert "still being built" not in first.content[0].text
        assert "the embedding model is still loading" in first.content[0].text
        result = await proc.call("search_docs", {"query": "How long does the first retry wait?"})
        data = result.structured_content
        assert data["results"][0]["path"] == "guide/retries.md"
        # The agent is told the index is partial (keywords only so far), in the data and in the text it reads.
        # ... and that it is the model still loading, not chunks left to embed (every vector is stored)
        assert data["index_partial"] == {"files_queued": 0, "chunks": chunks, "chunks_without_vectors": chunks,
                                         "embedding_model_loading": True, "chunks_not_embedded": 0}
        assert "the embedding model is still loading" in result.content[0].text
        assert "not embedded yet" not in result.content[0].text
        status = await wait_mcp_indexed(proc, files=4)  # the model loaded: every vector is there again
        assert status["folders"][0]["pending_vectors"] == 0
        assert "index_partial" not in status and isinstance(status["notices"], list)  # rag/status notices too
        done = await proc.call("search_docs", {"query": "How long does the first retry wait?"})
        assert "index_partial" not in done.structured_content
        assert "still being built" not in done.content[0].text


async def test_search_expand_runs_multi_query_expansion_for_that_call(tmp_path):
    """`expand: true` has the project's LLM (the loopback server) write paraphrases for that call only; they are
    searched too and reported in `llm_calls`; without it no LLM call is made; a non-boolean is a tool error."""
    ws = tmp_path / "docs"
    ws.mkdir()
    (ws / "threads.md").write_text("# Threads\n\nSpawn a thread with `thread::spawn` and wait for it with `join`. "
                                   "Channels send values between threads.\n")
    (ws / "cargo.md").write_text("# Cargo\n\nCargo builds your package, downloads its dependencies and runs the "
                                 "tests.\n")
    (ws / "errors.md").write_text("# Errors\n\nFunctions that can fail return `Result`; the `?` operator "
                                  "propagates the error.\n")
    question = "how do I run two computations at once"
    with LLMServer(route({"rephrasings": "spawn a thread and join it\nchannels between threads"})) as llm:
        (ws / "ragls.toml").write_text(
            f'[generation]\nbackend = "openai"\nbase_url = "{llm.openai_url}"\nmodel = "test-model"\n'
            'api_key_env = "RAGLS_TEST_LLM_KEY"\nmax_retries = 0\ntimeout_s = 10\n')
        trust_folder(ws)  # the user trusts this test's own folder (ragls/config/trust.py)
        async with mcp_server([ws], tmp_path / "cache", extra_env={"RAGLS_TEST_LLM_KEY": "k"}) as proc:
            await wait_mcp_indexed(proc, files=3)
            plain = await proc.data("search_docs", {"query": question, "top_k": 3})
            assert "llm_calls" not in plain and llm.requests == []  # no step configured, none asked for
            data = await proc.data("search_docs", {"query": question, "top_k": 3, "expand": True})
            assert len(llm.requests) == 1 and "Write 3 different rephrasings" in llm.requests[0].last_user_text()
            assert data["llm_calls"]["steps"] == {"expand": {"calls": 1, "failures": 0}}
            assert data["llm_calls"]["queries"]["expand"] == ["spawn a thread and join it", "channels between threads"]
            assert data["results"][0]["path"] == "threads.md"
            off = await proc.data("search_docs", {"query": question, "top_k": 3, "expand": False})
            assert "llm_calls" not in off and len(llm.requests) == 1
            bad = await proc.call("search_docs", {"query": question, "expand": "yes"})
            assert bad.is_error and len(llm.requests) == 1


async def test_model_loads_without_a_tool_call(tmp_path):
    """No tool is ever called: the model still loads once the server has served for `VECTORS_AFTER_S` (2 s), and
    every chunk gets its vector — seen through `ragls status`, which asks the running `ragls mcp`."""
    ws = copy_docs(tmp_path / "docs")
    cache = tmp_path / "cache"
    async with mcp_server([ws], cache):
        deadline = asyncio.get_running_loop().time() + 240
        folder: dict = {}
        while asyncio.get_running_loop().time() < deadline:
            cli = ragls(server_env(cache), "status", "--json", ws, check=False)  # in-process (clikit), read-only
            folders = json.loads(cli.stdout)["folders"] if cli.returncode == 0 and cli.stdout.strip() else []
            folder = folders[0] if folders else {}
            if folder.get("files") == 4 and folder.get("chunks") and folder.get("pendingVectors") == 0:
                break
            await asyncio.sleep(1.0)
        assert folder.get("files") == 4 and folder.get("pendingVectors") == 0, folder
        assert folder.get("writerProcess", {}).get("role") == "ragls mcp"
