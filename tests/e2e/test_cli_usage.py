"""Usage errors of the `ragls` command line: a mistyped option names the sub-command, shows its usage and the
option meant, and touches nothing (in-process, clikit)."""

from __future__ import annotations

from clikit import ragls
from lspkit import server_env


def test_mistyped_option_shows_the_subcommand_usage_and_the_close_option(tmp_path):
    env = server_env(tmp_path / "cache")
    (tmp_path / "docs").mkdir()
    out = ragls(env, "query", tmp_path / "docs", "retry backoff", "--top-kk", "3", check=False)
    assert out.returncode == 2 and out.stdout == ""
    assert "usage: ragls query" in out.stderr, out.stderr
    assert "ragls query: error: unrecognized arguments: --top-kk 3; did you mean --top-k?" in out.stderr
    out = ragls(env, "ask", tmp_path / "docs", "why?", "--flie=notes.md", check=False)
    assert out.returncode == 2 and "did you mean --file?" in out.stderr, out.stderr
    out = ragls(env, "status", tmp_path / "docs", "--zzz", check=False)
    assert out.returncode == 2 and out.stderr.rstrip().endswith("unrecognized arguments: --zzz"), out.stderr
    assert not (tmp_path / "cache" / "indexes").exists() or not any((tmp_path / "cache" / "indexes").iterdir())


def test_a_file_or_missing_path_says_which_and_what_to_pass(tmp_path):
    env = server_env(tmp_path / "cache")
    (tmp_path / "docs").mkdir()
    note = tmp_path / "docs" / "note.md"
    note.write_text("# Note\n\nThe walrus basks on the ice floe.\n")
    out = ragls(env, "ask", note, "where does the walrus bask?", check=False)
    assert out.returncode == 2, out.stderr
    assert (f"not a folder: {note} (a file; ragls reads a folder, so pass its folder {note.parent} and --file {note.name}"
            " to ask about this file)") in out.stderr
    out = ragls(env, "query", note, "walrus", check=False)
    assert out.returncode == 2 and f"pass its folder {note.parent})" in out.stderr, out.stderr
    out = ragls(env, "query", tmp_path / "nope", "walrus", check=False)
    assert out.returncode == 2 and f"not a folder: {tmp_path / 'nope'} (no such file or folder)" in out.stderr


def test_a_reader_that_closed_the_pipe_ends_the_command_quietly(tmp_path):
    """`ragls status DOCS | head -1`: once the reader has gone, the command stops with the shell's SIGPIPE code (141)
    and no "ragls: Broken pipe" on stderr. stdout is a real pipe whose read end is closed (line-buffered, so the
    first line already fails with EPIPE)."""
    import os

    env = server_env(tmp_path / "cache")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "note.md").write_text("# Note\n\nThe walrus basks on the ice floe.\n")
    read_end, write_end = os.pipe()
    os.close(read_end)
    with open(write_end, "w", buffering=1) as pipe:
        out = ragls(env, "status", tmp_path / "docs", check=False, stdout=pipe)
    assert (out.returncode, out.stderr) == (141, "")
