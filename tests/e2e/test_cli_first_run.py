"""What a first-time user of the command line reads: the offline-model line says what happens and that there is
nothing to do (the user configured no model), `status` and `doctor` say the same about the model the index keeps,
a mistyped folder fails the same way in every command and creates no index, and every argument has a help text.
In-process (clikit), with the real offline model."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from clikit import ragls
from lspkit import server_env
from ragls.cli.parser import build_parser

MINILM = "sentence-transformers/all-MiniLM-L6-v2"
DEFAULT = "BAAI/bge-small-en-v1.5"


@pytest.fixture
def env(tmp_path):
    return server_env(tmp_path / "cache")


def docs(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "guide.md").write_text("# Retries\n\nThe client retries three times with exponential backoff.\n")
    return folder


def test_first_index_says_the_bundled_model_is_used_and_there_is_nothing_to_do(env, tmp_path):
    ws = docs(tmp_path / "docs")
    first = ragls(env, "index", ws)
    line = next(x for x in first.stderr.splitlines() if MINILM in x)
    # It leads with what happens (an editor cuts the progress line to its width), names the default as ragls's
    # own choice, not as something the user configured, and says whether anything needs doing.
    assert line.startswith(f"ragls: using the bundled offline embedding model {MINILM}"), line
    assert f"ragls's default, {DEFAULT}" in line and "Nothing to do" in line
    assert "configured" not in line and "not available offline" not in line
    assert "Model files: " in line  # the facts stay: where the model is read from

    status = ragls(env, "status", ws).stdout
    note = next(x for x in status.splitlines() if x.startswith("note:"))
    assert MINILM in note and f"ragls's default {DEFAULT}" in note and "nothing to do" in note
    assert "configured default" not in note
    # no LLM: the generation line says what answers are, with no dangling space
    assert "generation:  none (extractive answers: no LLM configured)\n" in status

    doctor = json.loads(ragls(env, "doctor", ws, "--json").stdout)
    pinned = next(c for c in doctor["checks"] if c["name"] == "embedding_model_pinned")
    assert pinned["message"] == note.removeprefix("note:").strip()  # one notice, the same words everywhere


def test_an_explicit_model_that_cannot_load_names_the_users_setting(env, tmp_path):
    ws = docs(tmp_path / "docs")
    (ws / "ragls.toml").write_text('[embedding]\nmodel = "BAAI/bge-base-en-v1.5"\n')
    ragls(env, "trust", ws)  # an untrusted folder's model is ignored (docs/security.md): the user's own setting here
    doctor = ragls(env, "doctor", ws).stdout
    line = next(x for x in doctor.splitlines() if MINILM in x and "bundled" in x)
    assert "instead of your embedding.model BAAI/bge-base-en-v1.5" in line
    assert "embedding.model_path" in line and "Nothing to do" not in line
    assert f"[ok] embedding model {MINILM} (offline-fallback, 384-d)" in doctor


def test_a_mistyped_folder_fails_alike_and_creates_no_index(env, tmp_path):
    missing = tmp_path / "no-such-docs"
    for cmd in (["estimate", missing], ["query", missing, "retries"], ["status", missing]):
        proc = ragls(env, *cmd, check=False)
        assert proc.returncode == 2, (cmd, proc.stderr)
        assert f"not a folder: {missing} (no such file or folder)" in proc.stderr, (cmd, proc.stderr)
    doctor = ragls(env, "doctor", missing, check=False)
    assert doctor.returncode == 1
    assert doctor.stdout.splitlines()[0] == f"[FAIL] not a folder: {missing} (no such file or folder)"
    assert "[ok]" not in doctor.stdout  # nothing is checked (or created) for a folder that is not there
    report = json.loads(ragls(env, "doctor", missing, "--json", check=False).stdout)
    assert report["ok"] is False and [c["name"] for c in report["checks"]] == ["folder"]
    indexes = Path(env["RAGLS_CACHE_DIR"]) / "indexes"
    assert not indexes.exists() or not any(p.name.startswith("no-such-docs") for p in indexes.iterdir())


def empty_folder_notice_text(index_out: str) -> str:
    """The notice `ragls index` printed as its warning (workspace/status.empty_folder_notice)."""
    return next(x for x in index_out.splitlines() if "warning: " in x).split("warning: ", 1)[1]


def test_every_argument_has_a_help_text():
    missing = []

    def walk(parser: argparse.ArgumentParser, name: str) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub_name, sub in action.choices.items():
                    walk(sub, f"{name} {sub_name}")
            elif action.help is None:
                missing.append(f"{name} {'/'.join(action.option_strings) or action.dest}")

    walk(build_parser(), "ragls")
    assert missing == []


def test_a_folder_of_code_only_says_why_nothing_was_indexed(env, tmp_path):
    ws = tmp_path / "app"
    ws.mkdir()
    (ws / "main.py").write_text("print('hello')\n")
    out = ragls(env, "index", ws).stdout
    assert "0 files, 0 sections" in out
    assert "warning: no file here matches sources.include" in out and "add their globs to sources.include" in out
    # an empty result does not promise matches "below", and says why with the same notice (workspace/status.py)
    query = ragls(env, "query", ws, "hello", "--no-server").stdout.splitlines()
    assert query[0] == "(nothing found)", query
    assert query[1:] == [f"note: {ws.resolve()}: {empty_folder_notice_text(out)}"], query
    # rag/status says it too (a notice, not an error), until the folder holds a document
    status = json.loads(ragls(env, "status", ws, "--json").stdout)
    assert any(n.startswith(f"{ws.resolve()}: no file here matches sources.include") and "add their globs to sources.include"
               in n for n in status["notices"]), status["notices"]
    # a warning (docs/protocol.md noticeLevels): the user must act; each other notice a note
    assert status["noticeLevels"] == ["warning" if "no file here matches" in n else "info" for n in status["notices"]]
    assert "warning" in status["noticeLevels"]
    assert status["errors"] == []
    (ws / "README.md").write_text("# App\n\nPrints hello.\n")
    ragls(env, "index", ws)
    assert not any("no file here matches" in n for n in json.loads(ragls(env, "status", ws, "--json").stdout)["notices"])


def test_query_shows_the_text_of_the_lines_it_names(env, tmp_path):
    ws = tmp_path / "zoo"
    ws.mkdir()
    filler = "\n\n".join(f"Paragraph {i} is about the opening hours of the aquarium and its ticket desk." for i in range(8))
    (ws / "animals.md").write_text(f"# Animals\n\n{filler}\n\nThe walrus basks on the ice floe every morning.\n")
    out = ragls(env, "query", ws, "where does the walrus bask", "--top-k", "1").stdout.splitlines()
    location, preview = out[0], out[1]
    assert "animals.md:19 " in location and "(chunk 1-19)" in location, out  # one line: "path:19", as the editors
    # the preview is line 19's text, not the chunk's first lines ("# Animals Paragraph 0 ...")
    assert preview.strip() == "The walrus basks on the ice floe every morning.", out


def test_query_previews_a_line_as_the_page_reads_not_its_markup(env, tmp_path):
    """break50 (HTTPie's README, fish's Sphinx pages): the preview under `path:line` showed the line's markup — a
    link's target, a reST role's label, ``literals`` — where the rendered page, and the answer, show text. The
    preview is now the server's (`answer/preview.chunk_preview`, the protocol's Chunk `preview`)."""
    ws = tmp_path / "tools"
    ws.mkdir()
    filler = "\n\n".join(f"Paragraph {i} is about the opening hours of the aquarium and its ticket desk." for i in range(8))
    (ws / "walrus.md").write_text(f"# Animals\n\n{filler}\n\nThe **walrus** basks on the [ice floe](https://ice.example/floe)"
                                  " every morning.\n")
    (ws / "seal.rst").write_text(f"Seals\n=====\n\n{filler}\n\nThe harbour seal dozes on :ref:`sandbanks <banks-label>`"
                                 " at ``low tide``.\n")
    out = ragls(env, "query", ws, "where does the walrus bask", "--top-k", "1").stdout.splitlines()
    assert "walrus.md:19 " in out[0], out
    assert out[1].strip() == "The walrus basks on the ice floe every morning.", out
    out = ragls(env, "query", ws, "where does the harbour seal doze", "--top-k", "1").stdout.splitlines()
    assert "seal.rst:20 " in out[0], out
    assert out[1].strip() == "The harbour seal dozes on sandbanks at `low tide`.", out
    wire = json.loads(ragls(env, "query", ws, "where does the walrus bask", "--top-k", "1", "--json").stdout)
    assert wire["chunks"][0]["preview"] == "The walrus basks on the ice floe every morning.", wire


def test_trust_and_prune_say_what_they_did_in_plain_words(env, tmp_path):
    env = {**env, "RAGLS_DATA_DIR": str(tmp_path / "data")}
    bare = tmp_path / "bare"
    bare.mkdir()
    proc = ragls(env, "trust", bare)
    assert f"trusted {bare} (it has no ragls.toml" in proc.stdout
    assert proc.stderr.strip() == f"ragls: recorded in {tmp_path / 'data' / 'trusted-folders.json'} that it has no ragls.toml"
    configured = tmp_path / "configured"
    configured.mkdir()
    (configured / "ragls.toml").write_text("[retrieval]\ntop_k = 3\n")
    assert "recorded its ragls.toml (hash " in ragls(env, "trust", configured).stderr
    missing = ragls(env, "trust", tmp_path / "nope", check=False)
    assert missing.returncode == 2 and "(no such file or folder)" in missing.stderr
    assert "0 orphaned indexes to remove (pass --remove to delete them)" in ragls(env, "prune").stdout


def test_every_command_but_the_servers_and_config_edits_takes_json():
    """README: every command that prints a result takes --json (all but serve, mcp, http, rag add, rag remove)."""
    without = []

    def walk(parser: argparse.ArgumentParser, name: str) -> None:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if subs:
            for sub_name, sub in subs[0].choices.items():
                walk(sub, f"{name} {sub_name}")
        elif "--json" not in {o for a in parser._actions for o in a.option_strings}:
            without.append(name)

    walk(build_parser(), "ragls")
    assert sorted(without) == ["ragls http", "ragls mcp", "ragls rag add", "ragls rag remove", "ragls serve"]


def test_ask_without_a_question_prints_the_usage(env, tmp_path):
    ws = tmp_path / "docs"
    ws.mkdir()
    proc = ragls(env, "ask", ws, check=False)
    assert proc.returncode == 2
    assert proc.stderr.startswith("usage: ragls ask ") and "required: question" in proc.stderr, proc.stderr


def test_a_question_alone_asks_the_project_around_the_current_directory(env, tmp_path):
    """`ragls ask "question"` as qmd and aichat users type it: the project around the current directory (the nearest
    ragls.toml, else .git), as do `ragls index` and `ragls status` without a folder; the question before the folder
    works too; a lone mistyped path still fails as one."""
    project = docs(tmp_path / "proj")
    (project / ".git").mkdir()
    sub = project / "notes"
    sub.mkdir()
    assert f"{project}: 1 indexed" in ragls(env, "index", cwd=sub).stdout  # index and status: the project too
    assert f"folder:      {project}\n" in ragls(env, "status", cwd=sub).stdout
    out = ragls(env, "ask", "How often does the client retry?", cwd=sub).stdout
    assert "three times with exponential backoff" in out and "guide.md" in out.split("Sources:")[-1], out
    res = json.loads(ragls(env, "query", "exponential backoff", project, "--json").stdout)
    assert res["chunks"][0]["source"]["path"].endswith("guide.md")
    missing = ragls(env, "ask", tmp_path / "no-such-docs", check=False)
    assert missing.returncode == 2 and "required: question" in missing.stderr, missing.stderr


def test_eval_with_a_missing_gold_file_is_bad_input(env, tmp_path):
    proc = ragls(env, "eval", tmp_path / "questions.jsonl", tmp_path, check=False)
    assert proc.returncode == 2 and f"no such gold file: {tmp_path / 'questions.jsonl'}" in proc.stderr, proc.stderr


def test_thousands_of_include_globs_are_named_in_one_short_warning(env, tmp_path):
    """A ragls.toml of 3,000 include globs (50,000 made one 860 KB warning line): the warnings name the first eight
    and count the others, on the terminal and in rag/status."""
    ws = docs(tmp_path / "docs")
    ragls(env, "index", ws)
    globs = ", ".join(f'"d{i}/**/*.md"' for i in range(3000))
    (ws / "ragls.toml").write_text(f"[sources]\ninclude = [{globs}]\n")
    kept = ragls(env, "index", ws)  # the indexed file still exists: the index is kept, and the warning says why
    line = next(x for x in (kept.stdout + kept.stderr).splitlines() if "matches the sources settings" in x)
    assert "(include `d0/**/*.md`, `d1/**/*.md`," in line and "`d7/**/*.md` and 2,992 more)" in line, line
    assert "d8/" not in line and len(line) < 1000, len(line)
    (ws / "guide.md").unlink()
    out = ragls(env, "index", ws).stdout
    line = next(x for x in out.splitlines() if "no file here matches" in x)
    assert "`d7/**/*.md` and 2,992 more: ragls indexes documentation" in line and len(line) < 1000, len(line)
    status = json.loads(ragls(env, "status", ws, "--json").stdout)
    assert any("and 2,992 more" in n for n in status["notices"]) and max(map(len, status["notices"])) < 1000
