"""rag/query, rag/status, rag/rebuild and the ragls.* commands over stdio against the real server, real stores and
the offline MiniLM model. Fixture: tests/fixtures/docs (copied), chunk_size 300 so each section is a chunk."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
import pytest_lsp
from lspkit import SERVER_COMMAND, copy_docs, init_params, plain, request, server_env, wait_indexed
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

pytestmark = pytest.mark.asyncio(loop_scope="module")

OPTIONS = {"chunking": {"chunkSize": 300}, "rag_top_k": 3}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    ws = copy_docs(tmp_path_factory.mktemp("ws") / "docs")
    # Files that must be skipped or survive odd encodings.
    (ws / "logo.txt").write_bytes(b"PNG\x00\x01\x02binary")
    (ws / "legacy.txt").write_bytes("Caf\xe9 men\xfc: the cr\xe8me br\xfbl\xe9e recipe lives here.\n".encode("latin-1"))
    (ws / "windows.md").write_bytes(b"# Windows notes\r\n\r\nLine endings are CRLF here.\r\nThe zebra crossing "
                                    b"protocol is documented on this line.\r\n")
    (ws / "oldmac.md").write_bytes(b"# Old Mac notes\r\rLines end with a lone carriage return here.\rThe marmot "
                                   b"hibernation schedule is written on this line.\r")
    (ws / "empty.md").write_text("")
    (ws / "minified.txt").write_text(" ".join(f"tok{i}" for i in range(1600)))  # one 12,000-character line
    (ws / "node_modules").mkdir()
    (ws / "node_modules" / "junk.md").write_text("# junk that must not be indexed: xylophone\n")
    (ws / ".gitignore").write_text("ignored/\n")
    (ws / "ignored").mkdir()
    (ws / "ignored" / "secret.md").write_text("# ignored by gitignore: xylophone\n")
    return ws


CACHE_DIR = Path(tempfile.mkdtemp(prefix="ragls-e2e-cache-"))


@pytest_lsp.fixture(scope="module", loop_scope="module",
                    config=ClientServerConfig(server_command=SERVER_COMMAND, server_env=server_env(CACHE_DIR)))
async def client(lsp_client: LanguageClient, workspace):
    await lsp_client.initialize_session(init_params([workspace], OPTIONS))
    await wait_indexed(lsp_client)
    yield
    await lsp_client.shutdown_session()


async def test_top_result_has_exact_file_and_range(client):
    res = await request(client, "rag/query", {"query": "how many times is a request retried and how long is the backoff"})
    top = res["chunks"][0]["source"]
    assert top["path"] == "guide/retries.md"
    assert top["range"] == {"start": {"line": 5, "character": 0}, "end": {"line": 9, "character": 81}}
    assert top["title"] == "Configuring retries > Retry policy"
    assert top["uri"].startswith("file://") and top["uri"].endswith("/docs/guide/retries.md")
    assert len(res["chunks"]) == 3  # rag_top_k from initializationOptions


async def test_a_long_list_holds_no_hit_that_no_signal_found(client):
    """The 20 results a search picker asks for: a hit no signal found better than unrelated (relevance 0, a
    convex score of 0) is left out instead of listed as "0%"; the abstention decision is that of the whole list."""
    res = await request(client, "rag/query", {"query": "bearer token expiry", "topK": 20})
    shares = [c["relevance"] for c in res["chunks"]]
    assert res["chunks"][0]["source"]["path"] == "api/authentication.rst" and shares[0] == 1.0
    assert shares and min(shares) > 0, shares
    assert shares == sorted(shares, reverse=True)


async def test_an_answer_lists_the_sources_a_search_shows(client):
    """rag/ask's sources follow rag/query's rule (`RetrievalResult.shown`): a hit no signal found is no source of
    the answer either (a small folder listed an unrelated note under "Sources")."""
    listed = await request(client, "rag/query", {"query": "bearer token expiry", "topK": 20})
    answer = await request(client, "rag/ask", {"question": "bearer token expiry", "topK": 20})
    shown = [(c["source"]["path"], c["source"]["range"]["start"]["line"]) for c in listed["chunks"]]
    sources = [(s["path"], s["range"]["start"]["line"]) for s in answer["sources"]]
    assert not answer["abstained"] and sources[0] == shown[0] and len(shown) < 20
    assert set(sources) <= set(shown) and len(sources) == len(shown), (sources, shown)


async def test_other_documents_found(client):
    res = await request(client, "rag/query", {"query": "when do access tokens expire", "topK": 1})
    assert res["chunks"][0]["source"]["path"] == "api/authentication.rst"
    res = await request(client, "rag/query", {"query": "on-call rotation day", "topK": 1})
    assert res["chunks"][0]["source"]["path"] == "notes.txt"
    assert res["chunks"][0]["source"]["range"]["start"]["line"] == 0


async def test_crlf_ranges(client):
    res = await request(client, "rag/query", {"query": "zebra crossing protocol", "topK": 1})
    src = res["chunks"][0]["source"]
    assert src["path"] == "windows.md"
    assert src["range"]["start"]["line"] == 0 and src["range"]["end"]["line"] == 3


async def test_lone_cr_line_ends_are_lines_and_the_hit_is_answered(client):
    """A Markdown file whose lines end with a lone CR (an old Mac file, or a stray CR in an edited one): markdown-it
    counts those lines, and the answer's block reader (`blocks.markdown_blocks`) read the chunk as one line, so every
    query and ask whose hits held it failed with an IndexError (-32603)."""
    res = await request(client, "rag/query", {"query": "marmot hibernation schedule", "topK": 1})
    src = res["chunks"][0]["source"]
    assert src["path"] == "oldmac.md" and src["range"]["end"]["line"] == 3
    answer = await request(client, "rag/ask", {"question": "Where is the marmot hibernation schedule written?"})
    assert answer["sources"][0]["path"] == "oldmac.md" and "marmot hibernation schedule" in answer["answer"]


async def test_lone_cr_text_arrives_with_one_line_model(client):
    """A lone CR arrives as "\\n" at the same offset (`ir.normalize_line_ends`): the chunk's text has the lines the
    citation's range counts (before, the text held the CRs, which readers splitting at "\\n" read as one line, and
    a terminal printing it overwrote each line with the next), and the range and the focus line are still the
    file's own lines; the answer's text and an "Ask About Selection" quote with lone CRs hold none either."""
    res = await request(client, "rag/query", {"query": "marmot hibernation schedule", "topK": 1})
    chunk = res["chunks"][0]
    assert chunk["text"] == ("# Old Mac notes\n\nLines end with a lone carriage return here.\nThe marmot hibernation "
                             "schedule is written on this line.")
    line = "The marmot hibernation schedule is written on this line."
    assert chunk["source"]["range"] == {"start": {"line": 0, "character": 0}, "end": {"line": 3, "character": len(line)}}
    assert chunk["focusRange"] == {"start": {"line": 3, "character": 0}, "end": {"line": 3, "character": len(line)}}
    quote = "Where is this written?\n\nSelected text (oldmac.md:3-4):\n```\nLines end here.\rThe marmot line.\n```"
    answer = await request(client, "rag/ask", {"question": quote})
    assert "\r" not in answer["answer"] and "\r" not in answer.get("retrievalQuery", "")
    assert answer["sources"][0]["path"] == "oldmac.md"
    assert answer["sources"][0]["range"]["end"] == {"line": 3, "character": len(line)}


async def test_latin1_file_is_decoded(client):
    res = await request(client, "rag/query", {"query": "crème brûlée recipe", "topK": 1})
    chunk = res["chunks"][0]
    assert chunk["source"]["path"] == "legacy.txt"
    assert "crème brûlée" in chunk["text"]


async def test_camel_case_identifier_matches_parts(client):
    res = await request(client, "rag/query", {"query": "retry budget percent", "topK": 1, "explain": True})
    assert res["chunks"][0]["source"]["title"] == "Configuring retries > Retry budget"
    assert res["chunks"][0]["signals"]["bm25"] == 1


async def test_explain_gives_ranks(client):
    res = await request(client, "rag/query", {"query": "retry.max_attempts", "explain": True})
    signals = res["chunks"][0]["signals"]
    assert set(signals) <= {"vector", "bm25"} and signals
    assert all(isinstance(v, int) and v >= 1 for v in signals.values())


@pytest.mark.parametrize("text", ["retry:max", '"unterminated', "-v", "a AND (b", ">>>", "2024-11-05", "{0}",
                                  "title:foo OR", "*", "\\", "max_attempts~2^3"])
async def test_special_characters_are_plain_text(client, text):
    res = await request(client, "rag/query", {"query": text})
    assert res["query"] == text.strip()
    assert isinstance(res["chunks"], list)


@pytest.mark.parametrize("text", ['( " * :', "*", '"*"', ":", "-", "((", "AND OR NOT", "the of and"])
async def test_a_query_of_only_punctuation_or_stop_words_finds_nothing_and_abstains(client, text):
    """User text is never query syntax: a query without a word (only `( " * :`) has nothing to search, so it gets
    no chunks and abstains, instead of the chunks nearest to an embedding of punctuation."""
    res = await request(client, "rag/query", {"query": text})
    assert res["chunks"] == [] and res["abstained"] is True


async def test_status_reports_skipped_files(client):
    status = await request(client, "rag/status", {})
    folder = status["folders"][0]
    paths = {s["path"]: s["reason"] for s in folder["skipped"]}
    assert "logo.txt" in paths and "binary" in paths["logo.txt"]
    assert folder["writer"] is True
    assert folder["pendingVectors"] == 0
    assert status["embeddingModel"] == "sentence-transformers/all-MiniLM-L6-v2"
    # Offline, the configured default cannot load: the bundled model is named as the fallback it is.
    assert status["embeddingSource"] == "offline-fallback"
    assert status["embeddingRequested"] == "BAAI/bge-small-en-v1.5"
    assert status["generation"]["backend"] == "none"
    assert paths.get("empty.md") == "empty file"  # listed with its reason, not counted as indexed
    # Indexed: 4 fixture docs + legacy.txt, windows.md, oldmac.md, minified.txt; junk and ignored are not.
    assert folder["files"] == 8


async def test_junk_and_gitignored_not_indexed(client):
    res = await request(client, "rag/query", {"query": "xylophone", "topK": 10})
    assert all("junk" not in c["source"]["path"] and "ignored" not in c["source"]["path"] for c in res["chunks"])


@pytest.mark.parametrize("params, code", [
    ({"query": ""}, -32602), ({"query": "   "}, -32602), ({}, -32602), ({"query": "x", "topK": 0}, -32602),
    ({"query": "x", "topK": "5"}, -32602), ({"query": "x", "rag": "no-such-folder"}, -32602),
    ({"query": 42}, -32602),
])
async def test_bad_params_give_errors_and_server_keeps_serving(client, params, code):
    with pytest.raises(Exception) as info:
        await client.protocol.send_request_async("rag/query", params)
    assert getattr(info.value, "code", None) == code, info.value
    res = await request(client, "rag/query", {"query": "retries", "topK": 1})
    assert res["chunks"]


async def test_a_query_past_the_length_limit_is_refused_and_the_server_keeps_serving(client):
    """A pasted text longer than MAX_QUERY_CHARS (a whole log, a file) is refused with -32602 naming the limit,
    before any retrieval work; the next request is answered."""
    from ragls.core.ir import MAX_QUERY_CHARS

    text = "retries and backoff " * (MAX_QUERY_CHARS // 20 + 1)
    with pytest.raises(Exception) as info:
        await client.protocol.send_request_async("rag/query", {"query": text})
    assert getattr(info.value, "code", None) == -32602, info.value
    assert f"query is {len(text):,} characters long; the limit is {MAX_QUERY_CHARS:,}" in str(info.value)
    res = await request(client, "rag/query", {"query": text[:MAX_QUERY_CHARS], "topK": 1})  # at the limit: searched
    assert res["chunks"]


async def test_execute_command_form(client):
    res = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="ragls.query", arguments=[{"query": "database connection string", "topK": 1}]))
    assert res["chunks"][0]["source"]["path"] == "guide/deployment.md"


async def test_edit_and_delete_reflected_after_rebuild(client, workspace):
    (workspace / "notes.txt").write_text("Team notes\n\nThe kumquat harvest festival is on the third Friday.\n")
    (workspace / "api" / "authentication.rst").unlink()
    res = await request(client, "rag/rebuild", {})
    assert res["files"] == 7
    found = await request(client, "rag/query", {"query": "kumquat harvest festival", "topK": 1})
    assert found["chunks"][0]["source"]["path"] == "notes.txt"
    assert "kumquat" in found["chunks"][0]["text"]
    gone = await request(client, "rag/query", {"query": "bearer token refresh grant", "topK": 5})
    assert all(c["source"]["path"] != "api/authentication.rst" for c in gone["chunks"])


async def test_read_passage_returns_exact_lines_of_an_indexed_file(client, workspace):
    res = await request(client, "rag/readPassage", {"path": "guide/retries.md", "startLine": 6, "endLine": 8})
    lines = (workspace / "guide" / "retries.md").read_text().splitlines()
    assert res["text"] == "\n".join(lines[5:8])
    assert res["text"].startswith("## Retry policy")
    assert (res["path"], res["startLine"], res["endLine"], res["totalLines"], res["truncated"]) == (
        "guide/retries.md", 6, 8, len(lines), False)
    assert res["uri"].startswith("file://") and res["uri"].endswith("/docs/guide/retries.md")
    # The workspace/executeCommand form answers the same.
    same = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="ragls.readPassage", arguments=[{"path": "guide/retries.md", "startLine": 6, "endLine": 8}]))
    assert plain(same)["text"] == res["text"]


@pytest.mark.parametrize("path", ["../outside.md", "/etc/passwd", "ignored/secret.md", "node_modules/junk.md",
                                  "logo.txt", "no/such/file.md"])
async def test_read_passage_refuses_files_outside_or_left_out_of_the_index(client, workspace, path):
    (workspace.parent / "outside.md").write_text("# outside the folder\n")
    with pytest.raises(Exception) as info:
        await client.protocol.send_request_async("rag/readPassage", {"path": path})
    assert getattr(info.value, "code", None) == -32602, info.value
    assert "xylophone" not in str(info.value)


async def test_models_lists_a_keyless_server_and_names_a_dead_one(client):
    """rag/models (the guided answer set-up): GET <baseUrl>/models without a key; a dead URL is an error, not a
    failed request."""
    from llm_server import LLMServer, held_port

    with LLMServer(known_models={"qwen2.5-7b", "llama-3.2-3b"}) as srv:
        res = await request(client, "rag/models", {"baseUrl": srv.openai_url})
    assert res == {"servers": [{"name": "", "baseUrl": srv.openai_url, "backend": "external",
                                "models": ["llama-3.2-3b", "qwen2.5-7b"]}]}
    with held_port() as port:  # bound, not listening: refused (a released port could be taken meanwhile)
        dead = f"http://127.0.0.1:{port}/v1"
        res = await request(client, "rag/models", {"baseUrl": dead})
    [server] = res["servers"]
    assert server["models"] == [] and server["error"].startswith(f"GET {dead}/models: ")
