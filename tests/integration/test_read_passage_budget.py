"""read_passage (MCP `read_passage`, `rag/readPassage`, VS Code's ragls_read_passage) on a file with one huge line:
a read returns at most MAX_PASSAGE_CHARS characters — whole lines while they fit, else the start of the one line —
and says what it left out. A 300 KB line (minified JSON, a log) used to come back whole: ~75k tokens in an agent's
context from one tool call."""

from __future__ import annotations

from ragls.answer.agent_tools import read_result
from ragls.lsp.wire import to_wire_passage
from ragls.sources.passage import MAX_PASSAGE_CHARS, read_passage
from ragls.workspace.rag_workspace import RagWorkspace

# Words that differ (one word repeated, or one letter, is degenerate text the indexer skips: sources.load)
HUGE = " ".join(f"word{i}" for i in range(40_000)) + " the secret flag is pelican."


def long_line(n: int) -> str:
    """Line `n` of long.md: 3,000 characters of words of its own, starting "x"."""
    return " ".join(f"x{n}.{i}" for i in range(600))[:3_000]


def test_a_read_stays_within_the_character_budget_and_says_what_it_left_out(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGLS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RAGLS_OFFLINE", "1")
    folder = tmp_path / "ws"
    folder.mkdir()
    (folder / "huge.md").write_text(f"# Huge\n\n{HUGE}\nlast line\n", encoding="utf-8")
    (folder / "long.md").write_text("\n".join(f"{n} {long_line(n)}" for n in range(1, 21)) + "\n", encoding="utf-8")
    ws = RagWorkspace([folder])
    try:
        ws.index(embed=False)
        # whole lines while they fit: the first 6 lines of ~3,000 characters, then the rest is another read
        p = read_passage(ws.indexes, "long.md")
        assert (p.start_line, p.end_line, p.total_lines, p.truncated, p.cut_chars) == (1, 6, 20, True, 0)
        assert len(p.text) <= MAX_PASSAGE_CHARS and p.text.split("\n")[-1].startswith("6 x")
        # a line longer than the budget alone: its start, and how much of it is not shown
        p = read_passage(ws.indexes, "huge.md", 3)
        assert (p.start_line, p.end_line, p.truncated) == (3, 3, True)
        assert p.text == HUGE[:MAX_PASSAGE_CHARS] and p.cut_chars == len(HUGE) - MAX_PASSAGE_CHARS
        assert to_wire_passage(p)["cutChars"] == p.cut_chars
        text, data = read_result(ws, "huge.md", 3)
        assert len(text) < MAX_PASSAGE_CHARS + 2_000 and data["cut_chars"] == p.cut_chars
        assert f"huge.md line 3 of 4 (line 3: only its first {MAX_PASSAGE_CHARS:,} of {len(HUGE):,} characters" in text
        assert "ask for more with start_line=4" in text
        # short lines are read as before: exact, nothing cut, no cutChars on the wire
        p = read_passage(ws.indexes, "huge.md", 1, 2)
        assert (p.text, p.truncated, p.cut_chars) == ("# Huge\n", False, 0) and "cutChars" not in to_wire_passage(p)
    finally:
        ws.close()
