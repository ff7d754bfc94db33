"""Every `ragls` command takes its options anywhere among its positionals (`ragls query PATH --rag NAME "q"`).

The first test walks the real parser: for every command and sub-command it builds one command line with the
options first and one with the options between (and after) the positionals, and both must parse to the same
values. The others run `ragls.cli.app.main` in this process on a real folder and index.
"""

from __future__ import annotations

import argparse
import json
import re

import pytest
from ragls.cli import app as cli
from ragls.cli import parser as cli_parser

#: Values for options whose value is checked (anything else gets a plain word).
VALUES = {int: "3", float: "0.5", cli_parser.top_k_arg: "3"}  # top_k_arg: --top-k, an int checked 1..MAX_TOP_K


def leaf_parsers(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()):
    """(command words, parser) for every command that has no sub-commands of its own, e.g. (("rag", "add"), p)."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield prefix, parser
        return
    for name, sub in subs[0].choices.items():
        yield from leaf_parsers(sub, (*prefix, name))


def option_words(action: argparse.Action) -> list[str]:
    flag = action.option_strings[-1]
    if action.nargs == 0:
        return [flag]
    value = action.choices[0] if action.choices else VALUES.get(action.type, f"v-{action.dest}")
    return [flag, *([str(value)] * (action.nargs if isinstance(action.nargs, int) else 1))]


def positional_words(action: argparse.Action) -> list[str]:
    count = action.nargs if isinstance(action.nargs, int) else 2 if action.nargs in ("+", "*") else 1
    return [f"p-{action.dest}-{i}" for i in range(count)]


COMMANDS = list(leaf_parsers(cli_parser.build_parser()))


def test_every_command_is_covered():
    names = {" ".join(words) for words, _ in COMMANDS}
    assert {"query", "ask", "index", "status", "eval", "rag add", "rag attach", "rag remove"} <= names
    assert len(names) >= 20


@pytest.mark.parametrize("words,parser", COMMANDS, ids=[" ".join(w) for w, _ in COMMANDS])
def test_options_parse_the_same_anywhere(words, parser):
    positionals = [a for a in parser._actions if not a.option_strings]
    exclusive = [a for g in parser._mutually_exclusive_groups for a in g._group_actions[1:]]  # one per group
    options = [a for a in parser._actions if a.option_strings and a not in exclusive and not isinstance(
        a, (argparse._HelpAction, argparse._VersionAction))]
    pos = [w for a in positionals for w in positional_words(a)]
    opts = [w for a in options for w in option_words(a)]
    top = cli_parser.build_parser()
    first = vars(top.parse_args([*words, *opts, *pos]))
    if not pos:
        assert vars(top.parse_args([*words, *opts])) == first
        return
    between = vars(top.parse_args([*words, pos[0], *opts, *pos[1:]]))
    after = vars(top.parse_args([*words, *pos, *opts]))
    assert between == first and after == first
    for action in positionals:  # every positional got its own words, none an option's
        assert action.dest in first
        value = first[action.dest]
        assert all(str(v).startswith("p-") for v in (value if isinstance(value, list) else [value])), first


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGLS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RAGLS_OFFLINE", "1")
    monkeypatch.setenv("RAGLS_CONFIG_DIR", str(tmp_path / "config"))
    ws = tmp_path / "ws"
    (ws / "kb").mkdir(parents=True)
    (ws / "guide.md").write_text("# Guide\n\nThe walrus basks on the ice floe.\n")
    (ws / "kb" / "birds.md").write_text("# Birds\n\nThe albatross glides for days over the southern ocean.\n")
    return ws


def test_query_with_rag_between_path_and_question(folder, capsys, monkeypatch):
    monkeypatch.chdir(folder)
    assert cli.main(["rag", "add", "birds", "--workspace", str(folder), str(folder / "kb")]) == 0
    assert "birds: 1 source(s) added in" in capsys.readouterr().out
    assert cli.main(["query", str(folder), "--rag", "birds", "albatross southern ocean", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["chunks"] and res["chunks"][0]["source"]["path"].endswith("birds.md")
    assert cli.main(["query", str(folder), "--top-k", "1", "walrus ice floe", "--json", "--no-server"]) == 0
    [chunk] = json.loads(capsys.readouterr().out)["chunks"]
    assert chunk["source"]["path"] == "guide.md"


def test_status_with_json_after_the_path(folder, capsys):
    assert cli.main(["index", str(folder)]) == 0
    capsys.readouterr()
    assert cli.main(["status", str(folder), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["folders"][0]["files"] == 2


def test_query_shows_relevance_not_the_raw_score(folder, capsys):
    """Each hit shows its score's share of the best one (the editors' "64%"); the raw score, whose scale depends on
    the fusion (0.0000 for some convex hits), only with --explain."""
    assert cli.main(["query", str(folder), "walrus ice floe", "--no-server"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line[:1].isdigit()]
    assert lines[0].endswith("(relevance 100%)") and all(re.search(r"\(relevance \d+%\)$", x) for x in lines), lines
    assert cli.main(["query", str(folder), "walrus ice floe", "--no-server", "--explain"]) == 0
    first = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("1."))
    assert re.search(r"\(relevance 100%, score \d+\.\d{4}\)", first), first


def test_an_abstained_query_shows_no_relevance_share(folder, capsys):
    """An abstained result's best weak match is 100% of itself: "relevance 100%" under "nothing relevant enough
    was found" contradicted the line above it, so the server sends no share then (`Chunk.relevance`) and the CLI
    prints none; --json holds no `relevance` either, and --explain still shows the raw score."""
    question = "how do I rotate the kubernetes ingress certificate"
    assert cli.main(["query", str(folder), question, "--no-server"]) == 0
    out = capsys.readouterr().out
    assert "(nothing relevant enough was found; best matches below)" in out and "%" not in out, out
    lines = [line for line in out.splitlines() if line[:1].isdigit()]
    assert lines and not any("relevance" in line or "score" in line for line in lines), lines
    assert cli.main(["query", str(folder), question, "--no-server", "--json"]) == 0
    wire = json.loads(capsys.readouterr().out)
    assert wire["abstained"] and wire["chunks"] and not any("relevance" in c for c in wire["chunks"])
    assert cli.main(["query", str(folder), question, "--no-server", "--explain"]) == 0
    first = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("1."))
    assert re.search(r"\(score -?\d+\.\d{4}\)", first) and "relevance" not in first, first


def test_verbose_logs_ragls_not_the_markdown_parser_rule_by_rule(folder, caplog, capfd):
    """`ragls -v` is for reading what ragls did: markdown-it logs each block rule it tries on each line at DEBUG
    (~180 lines for a 13-line page, millions for a book), which buried ragls's own lines. A first start that ends on
    the bundled offline model (a fresh cache, offline) is normal: fastembed's "ERROR ... Could not find the model
    tar.gz" lines from ragls's cache probe were shown as errors beside ragls's own fallback notice."""
    import loguru  # noqa: F401 - as in a run that loaded fastembed: -v then sets loguru's stderr sink (WARNING)

    caplog.set_level("DEBUG")
    assert cli.main(["-v", "query", str(folder), "walrus ice floe"]) == 0  # "no running server": a ragls DEBUG line
    names = {r.name for r in caplog.records}
    assert "ragls.cli.app" in names and not any(n.startswith("markdown_it") for n in names), sorted(names)
    err = capfd.readouterr().err
    assert "using the bundled offline embedding model" in err + caplog.text  # the fallback did happen
    assert "ERROR" not in err and "Could not find" not in err, err


@pytest.mark.parametrize("argv, example", [
    (["status"], "ragls status FOLDER"), (["index"], "ragls index FOLDER"),
    (["query", "retry limits"], "ragls query FOLDER TEXT"), (["ask", "how do retries work?"], "ragls ask FOLDER QUESTION"),
])
def test_a_command_without_a_folder_in_the_home_directory_says_how_to_give_one(tmp_path, monkeypatch, capsys,
                                                                              argv, example):
    """In the home directory (no project) every command said "(or give the folder: ragls status FOLDER TEXT)",
    TEXT also for status and index, which take none."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exited:
        cli.main(argv)
    err = capsys.readouterr().err
    assert exited.value.code == 2 and f"(or give the folder: {example})" in err, err


def test_a_file_option_is_a_path_of_the_shell_too(folder, tmp_path, monkeypatch, capsys):
    """`ragls ask ws --file ws/notes/tide.md` run in ws's parent (tab completion writes such paths) was "documents:
    file not found: 'ws/notes/tide.md' (paths are relative to ws)": a --file naming an existing file relative to
    the current directory, and none relative to the folder, is that file; a folder-relative one works as before."""
    (folder / "notes").mkdir()
    (folder / "notes" / "tide.md").write_text("# Tide\n\nThe spring tide floods the salt marsh twice a month.\n")
    (tmp_path / "scratch.md").write_text("# Scratch\n\nThe okapi eats leaves at dusk.\n")
    monkeypatch.chdir(tmp_path)
    for spec, path in (("ws/notes/tide.md", "notes/tide.md"), ("notes/tide.md", "notes/tide.md")):
        assert cli.main(["ask", "ws", "--file", spec, "how often does the spring tide flood?", "--json",
                         "--no-server"]) == 0, capsys.readouterr().err
        assert json.loads(capsys.readouterr().out)["sources"][0]["path"] == path
    assert cli.main(["ask", "ws", "--file", "scratch.md", "when does the okapi eat?", "--json", "--no-server"]) == 0
    assert json.loads(capsys.readouterr().out)["sources"][0]["path"] == str((tmp_path / "scratch.md").resolve())


def test_an_explicit_home_directory_is_not_indexed_without_a_ragls_toml(folder, tmp_path, monkeypatch, capsys):
    """`ragls index /` walked the whole disk (121,593 files when tried) and `ragls ask ~ "..."` embedded the home
    directory, while `ragls mcp`, `ragls http` and the editors refuse those folders unless a ragls.toml asks for them
    (`roots.is_too_broad`): the command line refuses them the same way (exit 2), and indexes nothing there."""
    home = tmp_path / "home"
    (home / "notes").mkdir(parents=True)
    (home / "notes" / "todo.md").write_text("# Todo\n\nFeed the tortoise on Sunday.\n")
    monkeypatch.setenv("HOME", str(home))
    for argv in (["index", str(home)], ["ask", str(home), "when is the tortoise fed?"], ["query", "~", "tortoise"]):
        assert cli.main(argv) == 2, argv
        err = capsys.readouterr().err
        assert f"not indexing {home.resolve()} (the filesystem root or your home directory)" in err, err
    indexes = tmp_path / "cache" / "indexes"
    assert not indexes.exists() or not any(indexes.iterdir())
    assert cli.main(["status", str(home)]) == 0  # not "run `ragls index ~`", which is refused
    assert capsys.readouterr().out.strip() == (f"{home.resolve()}: not indexed: the filesystem root or your home "
                                               "directory is indexed only with a ragls.toml there")
    (home / "ragls.toml").write_text("")  # ...unless a ragls.toml asks for it
    assert cli.main(["query", str(home), "tortoise", "--json", "--no-server"]) == 0
    assert json.loads(capsys.readouterr().out)["chunks"][0]["source"]["path"] == "notes/todo.md"
    assert any(indexes.iterdir())  # where the index of a folder goes


def test_a_question_that_starts_with_a_dash_is_text(folder, capsys):
    """`ragls query F "-heron"` was "argument -h/--help: ignored explicit argument 'eron'" (argparse read `-h`
    with a value): a word starting with "-" that is no option of the command is its text, options after it still
    count; a word that may be a mistyped short option (`-x`) is an error saying where such a text goes."""
    assert cli.main(["query", str(folder), "-how does the walrus bask", "--json", "--no-server", "--top-k", "1"]) == 0
    wire = json.loads(capsys.readouterr().out)
    assert wire["query"] == "-how does the walrus bask" and [c["source"]["path"] for c in wire["chunks"]] == ["guide.md"]
    top = cli_parser.build_parser()
    asked = top.parse_args(["ask", str(folder), "-heron?", "--top-k", "2", "--file=-notes.md"])
    assert (asked.question, asked.top_k, asked.file) == ("-heron?", 2, ["-notes.md"])
    with pytest.raises(SystemExit):  # an option is never taken for another option's value
        top.parse_args(["ask", str(folder), "--file", "--json", "heron?"])
    assert "argument --file: expected one argument" in capsys.readouterr().err
    assert top.parse_args(["query", str(folder), "--", "-heron"]).text == "-heron"  # `--` as before
    with pytest.raises(SystemExit) as exc:
        cli.main(["query", str(folder), "-x"])
    assert exc.value.code == 2
    assert capsys.readouterr().err.strip().endswith(
        "unrecognized arguments: -x; a text that starts with '-' goes after '--' (ragls query FOLDER -- -x)")


def test_an_option_value_that_starts_with_a_dash_is_the_value(folder, capsys):
    """`ragls ask F --file -notes.md "q"` was argparse's "argument --file: expected one argument" (only
    `--file=-notes.md` worked): a long option's value that starts with "-" and is no option is its value, before an
    explicit `--` too, and the file named so is the answer's first source."""
    (folder / "-notes.md").write_text("# Notes\n\nThe grey heron wades in the shallow reeds at dawn.\n")
    assert cli.main(["ask", str(folder), "--file", "-notes.md", "where does the heron wade?", "--json",
                     "--no-server"]) == 0
    wire = json.loads(capsys.readouterr().out)
    assert wire["sources"][0]["path"] == "-notes.md" and "shallow reeds" in wire["answer"], wire
    top = cli_parser.build_parser()
    asked = top.parse_args(["ask", str(folder), "--file", "-notes.md", "--top-k", "2", "--", "-heron?"])
    assert (asked.question, asked.top_k, asked.file) == ("-heron?", 2, ["-notes.md"])


def test_a_glob_left_out_is_said_once(folder, capsys, caplog):
    """A `sources.include` glob expanding past the limit is left out with one warning: `ragls index` printed it three
    times (a log line for each filter built, and the workspace's warning) and `ragls status` twice (its warning line,
    and the workspace's warning, which names the folder)."""
    caplog.set_level("INFO")
    (folder / "ragls.toml").write_text('[sources]\ninclude = ["' + "{a,b}" * 11 + '.md", "**/*.md"]\n')
    for argv in (["index", str(folder)], ["status", str(folder)]):
        assert cli.main(argv) == 0
        out = capsys.readouterr()
        assert (out.out + out.err).count("expands to more than 1024 patterns") == 1, out
    assert not [r for r in caplog.records if r.levelname == "WARNING" and r.name == "ragls.sources.walk"]


def test_status_says_each_settings_warning_once(folder, capsys):
    """`ragls status` prints the workspace's warnings no rag/status error entry says (an unknown key) as warnings,
    and those it does (an untrusted ragls.toml's notice) once, as its error lines (`RagWorkspace.log_only_warnings`,
    where it stripped "<folder>: " from each warning to find its error entry)."""
    (folder / "ragls.toml").write_text('[generation]\nbase_url = "http://127.0.0.1:9/v1"\n[retrieval]\ntop_kk = 3\n')
    assert cli.main(["index", str(folder)]) == 0
    capsys.readouterr()
    assert cli.main(["status", str(folder)]) == 0
    out = capsys.readouterr()
    assert (out.out + out.err).count("so these settings were ignored: generation.base_url") == 1, out
    assert (out.out + out.err).count("top_kk") == 1, out
