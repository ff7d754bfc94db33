"""A document's text is the folder's input, and `ragls query` / `ragls ask` print it on the user's terminal: control
characters in it (ESC starts the sequences that set the window title, write the clipboard — OSC 52, a command for
the next paste — or clear the screen) are printed as escapes ("\\x1b"), line breaks kept. `ragls` in this process on
a real index, offline model (red team, session 48: both commands printed them raw)."""

from __future__ import annotations

import os

from clikit import ragls

TITLE = "Setup\x1b]0;owned title\x07"
BODY = ("The install step runs \x1b[31mmake install\x1b[0m and then \x1b]52;c;cm0gLXJmIH4K\x07 copies nothing \x9b2J "
        "at all.")


def test_query_and_ask_print_a_documents_control_characters_as_escapes(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")}
    env.update({"RAGLS_CACHE_DIR": str(tmp_path / "cache"), "RAGLS_OFFLINE": "1", "HF_HUB_OFFLINE": "1",
                "RAGLS_DATA_DIR": str(tmp_path / "data"), "RAGLS_CONFIG_DIR": str(tmp_path / "config")})
    folder = tmp_path / "clone"
    folder.mkdir()
    (folder / "guide.md").write_text(f"# {TITLE}\n\n{BODY}\n\nA second paragraph about releases.\n")
    for args in (("query", folder, "which install step runs make install"),
                 ("ask", folder, "Which install step runs make install?")):
        out = ragls(env, *args).stdout
        assert "make install" in out, out
        assert not any(ord(c) < 32 and c not in "\n\t" or 0x7F <= ord(c) < 0xA0 for c in out), repr(out)
        assert "\\x1b[31mmake install\\x1b[0m" in out and "\\x1b]52;c;cm0gLXJmIH4K\\x07" in out
    assert "\\x1b]0;owned title\\x07" in ragls(env, "query", folder, "setup owned title").stdout


def test_what_a_ragls_toml_names_reaches_the_terminal_as_escapes(tmp_path):
    """The CLI's warnings and notes name what a folder's ragls.toml wrote — an unknown key, a RAG's name, a glob —
    on stderr and stdout: an ESC there set the window title, wrote the clipboard (OSC 52) or erased the untrusted
    notice itself (red team, session 53: `ragls query` and `ragls doctor` printed them raw). Every control character
    but line breaks and tabs is written as a `\\u001b` escape (`cli.common.TerminalStream`), and `--json` output
    stays JSON that reads back to the same text."""
    import json

    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")}
    env.update({"RAGLS_CACHE_DIR": str(tmp_path / "cache"), "RAGLS_OFFLINE": "1", "HF_HUB_OFFLINE": "1",
                "RAGLS_DATA_DIR": str(tmp_path / "data"), "RAGLS_CONFIG_DIR": str(tmp_path / "config")})
    folder = tmp_path / "clone"
    folder.mkdir()
    (folder / "guide.md").write_text("# Guide\n\nThe install step runs make install \x9b2J quietly.\n")
    (folder / "ragls.toml").write_text('[rags."\\u001b]52;c;cm0gLXJmIH4K\\u0007"]\nsources = ["../"]\n\n'
                                       '[retrieval]\n"\\u001b[2K\\u001b[1A" = 3\n')

    def raw(text: str) -> bool:
        return any(ord(c) < 32 and c not in "\n\t" or 0x7F <= ord(c) < 0xA0 for c in text)

    for args in (("query", folder, "install step"), ("doctor", folder)):
        proc = ragls(env, *args, check=False)
        assert not raw(proc.stdout + proc.stderr), repr(proc.stderr)
        assert "rags.\\u001b]52;c;cm0gLXJmIH4K\\u0007" in proc.stdout + proc.stderr
        assert "unknown setting retrieval.\\u001b[2K\\u001b[1A" in proc.stdout + proc.stderr
    out = ragls(env, "query", folder, "install step", "--json").stdout
    assert not raw(out) and "make install \x9b2J quietly" in json.dumps(json.loads(out), ensure_ascii=False)


def test_bidi_overrides_in_a_file_name_and_its_text_are_printed_as_escapes(tmp_path):
    """A right-to-left override (U+202E) makes a terminal that lays out bidirectional text show what follows it
    reversed: "invoice\u202egnp.md" read "invoicedm.png" in `ragls query`'s `path:line`, and a sentence could show
    other words than it holds (Trojan Source). `ragls query` and `ragls ask` print overrides and isolates as
    "\\u202e"; letters of right-to-left scripts are printed as they are."""
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")}
    env.update({"RAGLS_CACHE_DIR": str(tmp_path / "cache"), "RAGLS_OFFLINE": "1", "HF_HUB_OFFLINE": "1",
                "RAGLS_DATA_DIR": str(tmp_path / "data"), "RAGLS_CONFIG_DIR": str(tmp_path / "config")})
    folder = tmp_path / "clone"
    folder.mkdir()
    (folder / "invoice\u202egnp.md").write_text("# Totals\n\nThe invoice total is \u2067shalom \u05e9\u05dc\u05d5\u05dd"
                                                "\u2069 kept as 42 euros.\n")
    for args in (("query", folder, "invoice total euros"), ("ask", folder, "What is the invoice total?")):
        out = ragls(env, *args).stdout
        assert "invoice\\u202egnp.md:3" in out and "\\u2067shalom \u05e9\u05dc\u05d5\u05dd\\u2069" in out, out
        assert not any(0x202A <= ord(c) <= 0x202E or 0x2066 <= ord(c) <= 0x2069 for c in out), repr(out)
