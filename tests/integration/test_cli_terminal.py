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
