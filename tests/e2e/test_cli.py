"""The `ragls` command line on a temp copy of the fixture docs: index, query (human and --json), incremental
re-index after edits and deletes, status, doctor, rebuild, errors and exit codes. In-process (clikit) except the
lock test, which needs the lock held by another process."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from clikit import ragls, ragls_process
from lspkit import copy_docs, server_env
from ragls.config.trust import trust as trust_folder

SHARED_EMBEDDING_CACHE = True  # tests/conftest.py `_run_embedding_cache`: nothing here counts what the model embedded


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    return server_env(tmp_path_factory.mktemp("cli-cache"))


def docs_copy(dest: Path) -> Path:
    ws = copy_docs(dest)
    (ws / "ragls.toml").write_text("[chunking]\nchunk_size = 300\n")
    return ws


@pytest.fixture(scope="module")
def indexed(env, tmp_path_factory):
    """(workspace, stdout of its first `ragls index`); the read-only tests share it."""
    ws = docs_copy(tmp_path_factory.mktemp("cli") / "docs")
    return ws, ragls(env, "index", ws).stdout


@pytest.fixture(scope="module")
def ws(indexed):
    return indexed[0]


def test_index_then_query_prints_file_and_lines(env, indexed):
    ws, out = indexed
    assert "4 indexed" in out and "4 files" in out
    out = ragls(env, "query", ws, "how long is the retry backoff ceiling", "--top-k", "2").stdout
    first = out.splitlines()[0]
    # path:focus lines (the answering lines), then the chunk's own range when the focus is narrower
    found = re.match(r"1\. guide/retries\.md:(\d+)(?:-(\d+))?  .*Retry policy", first)
    assert found, first
    start, end = int(found.group(1)), int(found.group(2) or found.group(1))  # "path:7" is one line, "path:7-7" never
    assert 6 <= start <= end <= 10 and ("(chunk 6-10)" in first) == ((start, end) != (6, 10))


def test_search_is_query_under_the_name_other_tools_use(env, ws):
    """`ragls search` (qmd's and VectorCode's word, the editors' "Search Docs") runs `query`: same output."""
    args = ("how long is the retry backoff ceiling", "--top-k", "2", "--json")
    searched, queried = ragls(env, "search", ws, *args), ragls(env, "query", ws, *args)
    chunks = [c["source"]["path"] for c in json.loads(searched.stdout)["chunks"]]
    assert chunks == [c["source"]["path"] for c in json.loads(queried.stdout)["chunks"]] and chunks
    assert "did you mean --top-k?" in ragls(env, "search", ws, "x", "--top-kk", "2", check=False).stderr


def test_a_name_with_a_newline_stays_on_its_one_output_line(env, tmp_path):
    """A file really named "odd\\nname.md" (and an empty one named with a tab) broke the one-line-per-source output
    of index, status, query and ask; each name is now printed with its control characters escaped, as git does."""
    ws = tmp_path / "odd"
    ws.mkdir()
    (ws / "odd\nname.md").write_text("# Odd name\n\nThe quibblewhisk spins counterclockwise.\n", encoding="utf-8")
    (ws / "empty\tfile.md").write_text("", encoding="utf-8")
    assert "  skipped empty\\tfile.md: empty file\n" in ragls(env, "index", ws).stdout
    assert "skipped:     empty\\tfile.md: empty file\n" in ragls(env, "status", ws).stdout
    out = ragls(env, "query", ws, "which way does the quibblewhisk spin").stdout
    assert out.startswith("1. odd\\nname.md:3  Odd name"), out
    out = ragls(env, "ask", ws, "Which way does the quibblewhisk spin?").stdout
    assert f"[1] {ws}/odd\\nname.md:3  Odd name\n" in out, out


def test_chunks_of_one_long_line_are_told_apart_by_column(env, tmp_path):
    """A line longer than a chunk is cut into several chunks, all on line 3: each is labelled path:3:column (its
    start), as grep and compilers print it; they were all "long.md:3"."""
    ws = tmp_path / "long"
    ws.mkdir()
    # every chunk says "quokka", so each is a hit (a chunk no signal finds is not listed)
    line = " ".join(f"filler{i} quokka" if i % 10 == 0 else f"filler{i}" for i in range(130)) + \
        " the quokka password is marmalade."
    (ws / "long.md").write_text(f"# Long\n\n{line}\n", encoding="utf-8")
    (ws / "ragls.toml").write_text("[chunking]\nchunk_size = 300\n")  # a 1,300-character line: several chunks
    ragls(env, "index", ws)
    res = json.loads(ragls(env, "query", ws, "quokka password marmalade", "--json").stdout)
    starts = {c["source"]["range"]["start"]["character"] for c in res["chunks"] if c["source"]["range"]["start"]["line"] == 2}
    assert len(starts) >= 2 and max(starts) > 0, res
    out = ragls(env, "query", ws, "quokka password marmalade").stdout
    labels = re.findall(r"^\d+\. (long\.md:3(?::\d+)?)  ", out, re.MULTILINE)
    assert len(labels) == len(set(labels)) >= 2 and all(label.count(":") == 2 for label in labels if label != "long.md:3")
    top = res["chunks"][0]["source"]
    assert labels[0] == f"long.md:3:{top['range']['start']['character'] + 1}", (labels, top)
    assert f"long.md:3:{top['range']['start']['character'] + 1}  Long" in ragls(
        env, "ask", ws, "What is the quokka password?").stdout


def test_query_json_is_the_protocol_object(env, ws):
    res = json.loads(ragls(env, "query", ws, "refresh token rotation", "--json", "--explain").stdout)
    assert set(res) == {"query", "chunks", "abstained", "elapsedMs"}
    top = res["chunks"][0]
    assert top["source"]["path"] == "api/authentication.rst"
    assert top["source"]["uri"].startswith("file://")
    assert set(top["signals"]) <= {"vector", "bm25"}


def test_second_index_is_incremental_and_sees_edits_and_deletes(env, tmp_path):
    ws = docs_copy(tmp_path / "docs")
    assert "4 indexed" in ragls(env, "index", ws).stdout
    out = ragls(env, "index", ws).stdout
    assert "0 indexed" in out and "4 unchanged" in out
    (ws / "notes.txt").write_text("Team notes\n\nThe pomegranate tasting is on Thursday.\n")
    (ws / "guide" / "deployment.md").unlink()
    out = ragls(env, "index", ws).stdout
    assert "1 indexed, 1 deleted, 2 unchanged" in out
    res = json.loads(ragls(env, "query", ws, "pomegranate tasting", "--json", "--top-k", "1").stdout)
    assert res["chunks"][0]["source"]["path"] == "notes.txt"
    res = json.loads(ragls(env, "query", ws, "container image health checks", "--json", "--top-k", "5").stdout)
    assert all(c["source"]["path"] != "guide/deployment.md" for c in res["chunks"])


def test_a_bad_top_k_names_the_option_the_user_typed(env, ws):
    """`--top-k 0` said "topK must be an integer between 1 and 200" (the protocol's field name) after indexing."""
    for cmd, value, said in [("ask", "0", "argument --top-k: must be between 1 and 200, got 0"),
                             ("query", "201", "argument --top-k: must be between 1 and 200, got 201"),
                             ("search", "abc", "argument --top-k: a whole number of chunks is needed, got 'abc'")]:
        res = ragls(env, cmd, ws, "retries", "--top-k", value, check=False)
        assert res.returncode == 2 and said in res.stderr and "topK" not in res.stderr, res.stderr


def test_status_json_and_human(env, ws):
    status = json.loads(ragls(env, "status", ws, "--json").stdout)
    folder = status["folders"][0]
    assert folder["files"] == 4 and folder["pendingVectors"] == 0 and folder["writer"]
    human = ragls(env, "status", ws).stdout
    assert "files:       4" in human and "generation:  none (extractive answers" in human


def test_doctor_reports_ok(env, ws):
    out = ragls(env, "doctor", ws).stdout
    assert "[ok] embedding model sentence-transformers/all-MiniLM-L6-v2" in out
    assert "[ok] index path writable" in out and "[ok] stores readable: 4 files" in out


def test_rebuild_json(env, tmp_path):
    ws = docs_copy(tmp_path / "docs")
    res = json.loads(ragls(env, "rebuild", ws, "--json").stdout)
    assert res["files"] == 4 and res["chunks"] > 3 and res["skipped"] == []


def test_errors_have_exit_codes(env, ws, tmp_path):
    proc = ragls(env, "query", ws, "   ", check=False)
    assert proc.returncode == 2 and "query must be a non-empty string" in proc.stderr
    proc = ragls(env, "query", tmp_path / "missing", "x", check=False)
    assert proc.returncode == 2 and "not a folder" in proc.stderr


def test_index_while_another_process_holds_the_index_fails_clearly(env, ws):
    from filelock import FileLock

    status = json.loads(ragls(env, "status", ws, "--json").stdout)
    lock = FileLock(str(Path(status["folders"][0]["indexPath"]) / "index.lock"), thread_local=False)
    with lock.acquire(timeout=5):
        proc = ragls_process(env, "rebuild", ws, check=False)
    assert proc.returncode == 1 and "another ragls process" in proc.stderr and "nothing was rebuilt" in proc.stderr


def test_eval_of_an_index_another_process_is_building_is_refused(env, tmp_path):
    """`ragls eval` only reads an index another process writes: a half-built one would give its figures as the
    product's. A complete one (indexed before) is measured read-only."""
    from filelock import FileLock

    gold = tmp_path / "q.jsonl"
    gold.write_text('{"question": "how long is the retry backoff ceiling", "gold": ["guide/retries.md"]}\n')
    fresh = docs_copy(tmp_path / "fresh")  # never indexed: its index is where its ragls.toml says
    with (fresh / "ragls.toml").open("a") as toml:
        toml.write(f'[index]\npath = "{(tmp_path / "fresh-index").as_posix()}"\n')
    trust_folder(fresh)  # the user trusts this test's own folder (ragls/config/trust.py)
    done = docs_copy(tmp_path / "done")
    ragls(env, "index", done)
    for folder, held_ok in ((fresh, False), (done, True)):
        index_path = (tmp_path / "fresh-index" if folder == fresh else
                      Path(json.loads(ragls(env, "status", folder, "--json").stdout)["folders"][0]["indexPath"]))
        index_path.mkdir(parents=True, exist_ok=True)
        with FileLock(str(index_path / "index.lock"), thread_local=False).acquire(timeout=5):
            proc = ragls_process(env, "eval", "--no-server", "--json", gold, folder, check=False)
        if held_ok:
            assert proc.returncode == 0, proc.stderr
            assert json.loads(proc.stdout)["all"]["Hit@1"] == 1.0
        else:
            assert proc.returncode == 1 and "has indexed nothing yet" in proc.stderr, proc.stderr
            assert "partial index" in proc.stderr and "Traceback" not in proc.stderr


def test_unusable_index_path_is_a_message_not_a_traceback(env, tmp_path):
    (tmp_path / "a.md").write_text("# A\n\ntext\n")
    (tmp_path / "ragls.toml").write_text('[index]\npath = "/proc/nope"\n')
    trust_folder(tmp_path)  # the user trusts this test's own folder (ragls/config/trust.py)
    proc = ragls(env, "index", tmp_path, check=False)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr and "/proc/nope" in proc.stderr


def test_status_never_rebuilds_an_index_whose_settings_changed(env, tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.md").write_text("# A\n\n" + "Quokkas are small marsupials. " * 40 + "\n")
    ragls(env, "index", ws)
    (ws / "ragls.toml").write_text("[chunking]\nchunk_size = 500\n")
    status = json.loads(ragls(env, "status", ws, "--json").stdout)
    assert status["folders"][0]["files"] == 1 and status["folders"][0]["chunks"] == 1  # still the old index
    assert status["folders"][0]["writer"]  # no other process holds it
    assert any("index settings changed: " in e["message"] and "chunking.chunk_size 2000 -> 500 since it was built"
               in e["message"] for e in status["errors"]), status["errors"]
    out = ragls(env, "index", ws).stdout
    assert "1 indexed" in out
    status = json.loads(ragls(env, "status", ws, "--json").stdout)
    assert status["folders"][0]["chunks"] > 1 and status["errors"] == []


def test_an_index_of_another_ragls_version_is_rebuilt_without_blaming_the_settings(env, tmp_path, caplog):
    """An index whose fingerprint parts differ only in ragls's own reading of text (here the chunk layout of an
    older ragls) is rebuilt with a line saying so, not "index settings changed" — before, an upgrade that masks more
    secret shapes (REDACT_VERSION) told a user who had changed nothing that their chunking settings had."""
    from ragls.stores.manifest import Manifest

    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.md").write_text("# A\n\nQuokkas are small marsupials.\n")
    ragls(env, "index", ws)
    index_dir = Path(json.loads(ragls(env, "status", ws, "--json").stdout)["folders"][0]["indexPath"])
    manifest = Manifest(index_dir / "manifest.sqlite", folder=str(ws))
    parts = json.loads(manifest.get_meta("fingerprint_parts"))
    manifest.set_meta("fingerprint_parts", json.dumps({**parts, "layout": parts["layout"] - 1}))
    manifest.set_meta("fingerprint", "0" * 16)
    manifest.close()
    result = ragls(env, "index", ws)
    assert "index built by another ragls version (it splits or masks text differently; no setting changed): " \
           "rebuilding" in caplog.text, caplog.text
    assert "index settings changed" not in caplog.text and "1 indexed" in result.stdout


def test_an_abstained_ask_says_why_once_and_lists_the_closest_passages_once(env, ws):
    """`ragls ask` refusing a question about something the docs never mention: one plain reason, then the closest
    passages once, under "Closest matches:" (not again as "Sources:")."""
    out = ragls(env, "ask", ws, "Can clients authenticate with Kerberos instead of the token endpoint?").stdout
    assert out.startswith("Not in your docs: they never mention Kerberos. Try rephrasing"), out
    assert out.count("Closest matches:") == 1 and "Sources:" not in out and "key words" not in out
    listed = [line for line in out.splitlines() if re.match(r"\[\d\] ", line)]
    assert listed and len({re.sub(r"^\[\d\] ", "", line) for line in listed}) == len(listed)
    for line in listed:  # each passage once: no "- path:lines" list in the answer above it
        assert out.count(line.split("  ")[0].rsplit("/", 1)[-1]) == 1, out
    assert not re.search(r":(\d+)-\1(?!\d)", out), out  # one line is "path:19", as the editors print it


def test_an_abstained_ask_names_no_llm_when_one_is_configured(env, tmp_path):
    """An abstention calls no LLM, so it names none: with an LLM configured (a trusted folder's [generation]),
    `ragls ask` ends "(no answer, no LLM call, ...)" as the editors' footers do, not "(test-model, ...)" under
    "Not in your docs", and the result's `model` is "extractive" (no model wrote the answer)."""
    from llm_server import LLMServer

    ws = docs_copy(tmp_path / "docs")
    with LLMServer() as llm:
        with (ws / "ragls.toml").open("a") as toml:
            toml.write(f'[generation]\nbackend = "openai"\nbase_url = "{llm.openai_url}"\nmodel = "test-model"\n'
                       'api_key_env = "RAGLS_TEST_LLM_KEY"\n')
        trust_folder(ws)  # the user trusts this test's own folder (ragls/config/trust.py)
        question = "Can clients authenticate with Kerberos instead of the token endpoint?"
        proc = ragls(env, "ask", ws, question)
        wire = json.loads(ragls(env, "ask", ws, question, "--json").stdout)
        assert llm.requests == []
    assert proc.stdout.startswith("Not in your docs"), proc.stdout
    assert "(no answer, no LLM call, " in proc.stderr and "(test-model" not in proc.stderr, proc.stderr
    assert wire["abstained"] is True and wire["model"] == "extractive"
